//! `[pfc]` and `[ets]`: reading them, and one clear message for each mistake.

use dcbsim_scenario::{ScenarioError, load_str};

const BASE: &str = r#"[run]
duration_ms = 2.0

[topology]
kind = "dumbbell"
senders = 4
rate_gbps = 10.0
buffer_kb = 32.0

[[flows]]
src = "s*"
dst = "r0"
priority = 3
"#;

fn load(extra: &str) -> Result<dcbsim_scenario::Scenario, ScenarioError> {
    load_str(&format!("{BASE}{extra}"), "dcb.toml", &[])
}

fn error_at(extra: &str, line: usize, key: &str, words: &str) {
    let e = load(extra).expect_err("must be refused");
    assert_eq!((e.line, e.key.as_str()), (line, key), "{e}");
    assert!(e.to_string().contains(words), "{e}");
    assert!(!e.to_string().contains('\n'), "{e}");
}

#[test]
fn pfc_keys_topology_wide_and_per_port() {
    let s = load("[pfc]\npriorities = [3, 4]\nxoff_kb = 20\nxon_kb = { \"sw0:s1\" = 5 }\nquanta = 1000\n").unwrap();
    let pfc = &s.config.pfc;
    assert_eq!(pfc.lossless, (1 << 3) | (1 << 4));
    assert_eq!((pfc.xoff.0, pfc.quanta), (20 * 1024, 1000));
    assert_eq!(pfc.xon_ports.len(), 1);
    let r = s.build(1).unwrap().run();
    assert_eq!(r.dropped_frames(), 0);
    assert!(r.pfc.iter().any(|p| p.pause_sent[3] > 0));
}

#[test]
fn ets_weights_by_priority() {
    let s = load("[ets]\nweights = [1, 0, 0, 3]\n").unwrap();
    assert_eq!(s.config.ets.weights, [1, 0, 0, 3, 0, 0, 0, 0]);
}

#[test]
fn bad_pfc_and_ets_keys_name_the_line_and_key() {
    error_at("[pfc]\nxoff_kb = 20\n", 14, "pfc.priorities", "is required");
    error_at("[pfc]\npriorities = [9]\n", 15, "pfc.priorities", "integers 0..=7");
    // A scalar where the list is documented: refused, with the list to write.
    error_at("[pfc]\npriorities = 7\n", 15, "pfc.priorities", "(got an integer; write [7] for one)");
    error_at("[pfc]\npriorities = [3]\nxoff_kb = -1\n", 16, "pfc.xoff_kb", "KB > 0");
    error_at("[pfc]\npriorities = [3]\nxoff_kb = 10\nxon_kb = 20\n", 17, "pfc.xon_kb", "must not exceed xoff_kb");
    error_at("[pfc]\npriorities = [3]\nxon_kb = { \"sw0:nowhere\" = 5 }\n", 16, "pfc.xon_kb.sw0:nowhere", "unknown node");
    error_at("[pfc]\npriorities = [3]\nquanta = 0\n", 16, "pfc.quanta", "");
    error_at("[pfc]\npriorities = [3]\nx_off = 1\n", 16, "pfc.x_off", "unknown key; allowed: priorities");
    error_at("[ets]\nweights = [0, 0]\n", 15, "ets.weights", "at least one priority");
    error_at("[ets]\nweights = [1, -2]\n", 15, "ets.weights", "integers >= 0");
}
