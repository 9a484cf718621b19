//! Each kind of bad scenario gives one message with the file, position and key.

mod common;

use common::{assert_at, error, error_with};
use dcbsim_scenario::{ScenarioError, load_str};

const GOOD: &str = r#"[run]
duration_ms = 10.0

[topology]
kind = "dumbbell"
senders = 2
rate_gbps = 10.0
buffer_kb = 64.0

[scheme]
name = "none"

[[flows]]
src = "s*"
dst = "r0"
rate_gbps = 2.0

[[timeline]]
at_ms = 5.0
port = "sw0:r0"
rate_gbps = 1.0
"#;

/// `GOOD` with `from` replaced by `to`.
fn with(from: &str, to: &str) -> ScenarioError {
    error_with(GOOD, from, to)
}

#[test]
fn the_good_scenario_loads() {
    let s = load_str(GOOD, "good.toml", &[]).unwrap();
    assert_eq!(s.config.flows.len(), 2);
    assert_eq!(s.name, "good");
}

#[test]
fn malformed_toml() {
    let e = with("kind = \"dumbbell\"", "kind = \"dumbbell");
    assert_eq!(e.line, 5, "{e}");
    assert!(e.to_string().contains("invalid TOML"), "{e}");
}

#[test]
fn negative_rate() {
    assert_at(&with("rate_gbps = 2.0", "rate_gbps = -2.0"), 16, "flows[0].rate_gbps", "must be > 0 (got -2)");
}

#[test]
fn zero_capacity() {
    assert_at(&with("rate_gbps = 10.0", "rate_gbps = 0"), 7, "topology.rate_gbps", "must be > 0");
}

#[test]
fn flow_between_unknown_nodes() {
    assert_at(&with("dst = \"r0\"", "dst = \"r9\""), 15, "flows[0].dst", "no host matches \"r9\"");
}

#[test]
fn unreachable_destination() {
    let text = r#"[run]
duration_ms = 1.0
[topology]
kind = "generic"
hosts = ["a", "b"]
switches = ["x", "y"]
[[topology.links]]
a = "a"
b = "x"
rate_gbps = 1.0
[[topology.links]]
b = "y"
a = "b"
rate_gbps = 1.0
[[flows]]
src = "a"
dst = "b"
"#;
    let e = error(text);
    assert_eq!((e.line, e.key.as_str()), (17, "flows[0].dst"), "{e}");
    assert!(e.message.contains("no path from \"a\" to \"b\""), "{e}");
}

#[test]
fn buffer_smaller_than_a_frame() {
    assert_at(&with("buffer_kb = 64.0", "buffer_kb = 1.0"), 8, "topology.buffer_kb", "cannot hold a 1500-byte frame");
}

#[test]
fn timeline_entry_after_the_end() {
    assert_at(&with("at_ms = 5.0", "at_ms = 50.0"), 19, "timeline[0].at_ms", "after the end of the run");
}

#[test]
fn on_off_load_at_or_above_the_line_rate() {
    let e = with("rate_gbps = 2.0", "kind = \"on_off\"\nload_gbps = 10.0");
    assert_at(&e, 17, "flows[0].load_gbps", "must be below the line rate of \"s0\" (10 Gb/s)");
    assert_eq!(e.column, 13, "{e}");
}

#[test]
fn on_off_without_a_load() {
    assert_at(&with("rate_gbps = 2.0", "kind = \"on_off\""), 13, "flows[0].load_gbps", "needs load_gbps or load_mbps");
}

#[test]
fn on_off_keys_name_their_kind() {
    let e = with("rate_gbps = 2.0", "burst_kb = 10");
    assert_at(&e, 16, "flows[0].burst_kb", "is only for kind = \"on_off\"");
    let e = with("rate_gbps = 2.0", "kind = \"on_off\"\nload_gbps = 1\noff = \"pareto\"");
    assert_at(&e, 18, "flows[0].off", "unknown \"pareto\"; allowed: exponential, fixed");
    let e = with("rate_gbps = 2.0", "kind = \"on_off\"\nload_gbps = 1\nburst_kb = 0");
    assert_at(&e, 18, "flows[0].burst_kb", "must be > 0");
    let e = with("rate_gbps = 2.0", "kind = \"on_off\"\nload_gbps = 1\nburst_kb = 1\nburst_bytes = 5");
    assert_at(&e, 19, "flows[0].burst_bytes", "give burst_kb or burst_bytes, not both");
    let e = with("rate_gbps = 2.0", "kind = \"on_off\"\nload_gbps = 1\nload_mbps = 5");
    assert_at(&e, 18, "flows[0].load_mbps", "give load_gbps or load_mbps, not both");
}

#[test]
fn unknown_flow_kind_lists_the_kinds() {
    let e = with("rate_gbps = 2.0", "kind = \"bursty\"");
    assert_at(&e, 16, "flows[0].kind", "allowed: greedy, constant, finite, on_off, poisson");
}

#[test]
fn poisson_flow_rate_and_size() {
    let e = with("rate_gbps = 2.0", "kind = \"poisson\"\nload_gbps = 1");
    assert_at(&e, 13, "flows[0].size_kb", "a poisson flow needs size_kb or size_bytes");
    let e = with("rate_gbps = 2.0", "kind = \"poisson\"\nsize_kb = 10");
    assert_at(&e, 13, "flows[0].rate_per_s", "is required (or give the load as load_gbps or load_mbps)");
    let e = with("rate_gbps = 2.0", "kind = \"poisson\"\nsize_kb = 10\nrate_per_s = 100\nload_gbps = 1");
    assert_at(&e, 19, "flows[0].load_gbps", "give rate_per_s or a load");
    let e = with("rate_gbps = 2.0", "kind = \"poisson\"\nsize_kb = 10\nrate_per_s = -1");
    assert_at(&e, 18, "flows[0].rate_per_s", "must be > 0 (got -1)");
    let e = with("rate_gbps = 2.0", "kind = \"poisson\"\nsize_kb = { pareto = [10, 1.0] }\nrate_per_s = 5");
    assert_at(&e, 17, "flows[0].size_kb", "Pareto shape > 1");
    let e = with("rate_gbps = 2.0", "rate_per_s = 5");
    assert_at(&e, 16, "flows[0].rate_per_s", "is only for kind = \"poisson\"");
    let e = with("rate_gbps = 2.0", "load_gbps = 5");
    assert_at(&e, 16, "flows[0].load_gbps", "is only for kind = \"on_off\" or kind = \"poisson\"");
}

#[test]
fn arrivals_take_a_rate_or_a_load_not_both() {
    let arrivals = "[[arrivals]]\nname = \"a\"\nsrc = \"s0\"\ndst = \"r0\"\nsize_kb = 10\n";
    let e = error(&format!("{GOOD}{arrivals}rate_per_s = 5\nload_mbps = 100\n"));
    assert_at(&e, 28, "arrivals[0].load_mbps", "give rate_per_s or a load (load_gbps, load_mbps), not both");
    let e = error(&format!("{GOOD}{arrivals}"));
    assert_at(&e, 22, "arrivals[0].rate_per_s", "is required (or give the load");
    let e = error(&format!("{GOOD}{arrivals}load_gbps = 0\n"));
    assert_at(&e, 27, "arrivals[0].load_gbps", "must be > 0 (got 0)");
}

#[test]
fn unknown_scheme_name() {
    assert_at(&with("name = \"none\"", "name = \"tcp\""), 11, "scheme.name", "allowed: none, qcn");
}

#[test]
fn unknown_key_lists_the_allowed_ones() {
    assert_at(&with("senders = 2", "senders = 2\nsendres = 3"), 7, "topology.sendres", "unknown key; allowed:");
}

#[test]
fn wrong_type() {
    assert_at(&with("senders = 2", "senders = \"two\""), 6, "topology.senders", "must be an integer, not a string");
}

#[test]
fn unknown_scheme_parameter() {
    let e = with("name = \"none\"", "name = \"qcn\"\ngdd = 0.1");
    assert_at(&e, 12, "scheme.gdd", "unknown parameter; allowed:");
}

#[test]
fn ecm_thresholds_are_raised_together_in_any_order() {
    // Q_eq above the default Q_sc is reachable only with all three set: their order is
    // checked once the table is read, not key by key.
    let good = GOOD.replacen("buffer_kb = 64.0", "buffer_kb = 1024.0", 1);
    let raised = good.replacen("name = \"none\"", "name = \"ecm\"\nq_eq_kb = 300.0\nq_mc_kb = 480.0\nq_sc_kb = 600.0", 1);
    assert!(load_str(&raised, "good.toml", &[]).is_ok());
    let nested = good.replacen("name = \"none\"", "name = \"ecm\"\n[scheme.ecm]\nq_eq_kb = 300.0\nq_mc_kb = 480.0\nq_sc_kb = 600.0", 1);
    assert!(load_str(&nested, "good.toml", &[]).is_ok());
    let e = error_with(&good, "name = \"none\"", "name = \"ecm\"\nq_eq_kb = 300.0\nq_mc_kb = 480.0");
    assert_at(&e, 13, "scheme.q_mc_kb", "thresholds must satisfy q_eq < q_mc < q_sc");
}

#[test]
fn missing_required_table() {
    let e = error("[topology]\nkind = \"incast\"\nservers = 2\n");
    assert!(e.to_string().contains("run: the [run] table is required"), "{e}");
}

#[test]
fn bad_overrides_name_the_set_expression() {
    let e = load_str(GOOD, "bad.toml", &["run.duration_ms=-5".into()]).unwrap_err();
    assert_eq!(e.to_string(), "bad.toml: --set run.duration_ms=-5: run.duration_ms: must be > 0 (got -5)");
    let e = load_str(GOOD, "bad.toml", &["flows[7].src=x".into()]).unwrap_err();
    assert!(e.to_string().contains("out of range"), "{e}");
    let e = load_str(GOOD, "bad.toml", &["nonsense".into()]).unwrap_err();
    assert!(e.to_string().contains("key.path=value"), "{e}");
}

#[test]
fn mutated_files_never_panic() {
    // Delete, duplicate or swap characters all over the file: every result is either a
    // scenario or a one-line error.
    let bytes: Vec<char> = GOOD.chars().collect();
    let mut state = 12345u64;
    for _ in 0..3000 {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let i = (state >> 33) as usize % bytes.len();
        let j = (state >> 13) as usize % bytes.len();
        let mut mutated = bytes.clone();
        match state % 3 {
            0 => {
                mutated.remove(i);
            }
            1 => mutated.insert(i, bytes[j]),
            _ => mutated.swap(i, j),
        }
        let text: String = mutated.into_iter().collect();
        if let Err(e) = load_str(&text, "m.toml", &[]) {
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }
}

#[test]
fn a_misspelled_required_key_is_named_with_the_key_it_misses() {
    let e = with("duration_ms = 10.0", "duraton_ms = 10.0");
    assert_at(&e, 2, "run.duraton_ms", "did you mean `duration_ms` (required)?");
    let e = with("dst = \"r0\"", "dts = \"r0\"");
    assert_at(&e, 15, "flows[0].dts", "did you mean `dst`");
    // Nothing like it: the plain message.
    let e = with("duration_ms = 10.0", "");
    assert!(e.to_string().contains("is required"), "{e}");
}
