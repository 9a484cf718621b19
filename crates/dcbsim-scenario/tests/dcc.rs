//! DCC in scenarios: per-flow `aimd`, the scheme's parameters, priorities, and the errors.

use dcbsim_core::cc::{Aimd, SchemeConfig};
use dcbsim_scenario::load_str;

fn scenario(scheme: &str, flow: &str) -> String {
    format!(
        r#"[run]
duration_ms = 10.0

[topology]
kind = "dumbbell"
senders = 2

[scheme]
name = "dcc"
{scheme}

[[flows]]
src = "s*"
dst = "r0"
{flow}
"#
    )
}

#[test]
fn aimd_and_priority_reach_the_flows() {
    let s = load_str(&scenario("", "priority = 3\naimd = { a = 1.5, b = 0.8 }"), "d.toml", &[]).unwrap();
    assert!(s.config.flows.iter().all(|f| f.priority == 3 && f.aimd == Some(Aimd { a: 1.5, b: 0.8 })));
    let s = load_str(&scenario("", ""), "d.toml", &["flows[0].aimd.a=2".into(), "flows[0].aimd.b=1".into()]);
    assert_eq!(s.unwrap().config.flows[0].aimd, Some(Aimd { a: 2.0, b: 1.0 }));
    let s = load_str(&scenario("", ""), "d.toml", &[]).unwrap();
    assert_eq!(s.config.flows[0].aimd, None);
}

#[test]
fn scheme_parameters_are_read() {
    let s = load_str(&scenario("p_s = 0.5\na = 1.2\nincrease_every_slot = false", ""), "d.toml", &[]).unwrap();
    let SchemeConfig::Dcc(p) = &s.config.scheme else { panic!("not dcc") };
    assert_eq!((p.bytes_per_sample(), p.aimd.a, p.increase_every_slot), (3000, 1.2, false));
}

#[test]
fn bad_aimd_and_parameters_name_the_key_and_position() {
    for (scheme, flow, line, key, words) in [
        ("", "aimd = { a = 0, b = 0.5 }", 15, "flows[0].aimd.a", "must be > 0"),
        ("", "aimd = { a = 1, b = 1.5 }", 15, "flows[0].aimd.b", "b must be in [0, 1]"),
        ("", "aimd = { a = 1 }", 15, "flows[0].aimd.b", "is required"),
        ("", "aimd = { a = 1, b = 0.5, c = 2 }", 15, "flows[0].aimd.c", "unknown key; allowed: a, b"),
        ("", "aimd = 2", 15, "flows[0].aimd", "table"),
        ("t_eq_bytes = 200000", "", 10, "scheme.t_eq_bytes", "t_eq < t_sc"),
        ("p_s = 2", "", 10, "scheme.p_s", "(0, 1]"),
        ("drop_below_priority = 9", "", 10, "scheme.drop_below_priority", "0..=8"),
        ("drop_policy = 1", "", 10, "scheme.drop_policy", "true or false"),
        ("slot = 3", "", 10, "scheme.slot", "allowed: t_eq_bytes"),
    ] {
        let e = load_str(&scenario(scheme, flow), "d.toml", &[]).expect_err(flow);
        let text = e.to_string();
        assert_eq!((e.line, e.key.as_str()), (line, key), "{text}");
        assert!(text.contains(words) && text.starts_with("d.toml:") && !text.contains('\n'), "{text}");
    }
}
