//! Flow weights: one for all, one per flow of a glob, and the errors.

use dcbsim_scenario::load_str;

fn scenario(weight: &str) -> String {
    format!(
        r#"[run]
duration_ms = 10.0

[topology]
kind = "dumbbell"
senders = 3

[scheme]
name = "fqcn"

[[flows]]
src = "s*"
dst = "r0"
{weight}
"#
    )
}

fn weights(weight: &str) -> Vec<f64> {
    let s = load_str(&scenario(weight), "w.toml", &[]).expect("loads");
    s.config.flows.iter().map(|f| f.weight).collect()
}

#[test]
fn weight_defaults_to_one_and_spreads_over_a_glob() {
    assert_eq!(weights(""), vec![1.0; 3]);
    assert_eq!(weights("weight = 2.5"), vec![2.5; 3]);
    assert_eq!(weights("weight = [4, 2, 1]"), vec![4.0, 2.0, 1.0]);
}

#[test]
fn bad_weights_name_the_key_and_position() {
    for (text, words) in [
        ("weight = 0", "finite number > 0"),
        ("weight = -1.0", "finite number > 0"),
        ("weight = \"heavy\"", "finite number > 0"),
        ("weight = [1, 2]", "2 weights for 3 flows"),
        ("weight = []", "empty list"),
        ("weight = [1, 0, 2]", "finite number > 0"),
        ("weight = nan", "finite number > 0"),
    ] {
        let e = load_str(&scenario(text), "w.toml", &[]).expect_err(text);
        assert_eq!(e.line, 14, "{text}: {e}");
        assert!(e.key.ends_with("weight"), "{text}: {e}");
        assert!(e.to_string().contains(words), "{text}: {e}");
    }
}

#[test]
fn fqcn_and_afqcn_parameters_are_checked() {
    let base = scenario("");
    let with = |extra: &str| base.replace("name = \"fqcn\"", extra);
    assert!(load_str(&with("name = \"afqcn\"\nalpha = 0.8\ninterval_us = 50.0"), "w.toml", &[]).is_ok());
    for (text, words) in [
        ("name = \"afqcn\"\nalpha = 1.5", "alpha must be in [0, 1]"),
        ("name = \"afqcn\"\ngain = 0", "gain must be in (0, 1]"),
        ("name = \"afqcn\"\nbogus = 1", "allowed: q_eq_kb"),
        ("name = \"fqcn\"\nalpha = 0.5", "unknown parameter"),
    ] {
        let e = load_str(&with(text), "w.toml", &[]).expect_err(text);
        assert!(e.to_string().contains(words), "{text}: {e}");
    }
}
