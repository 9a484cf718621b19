// Each test binary that includes this module uses a subset of it.
#![allow(dead_code)]

//! What the bad-input tests share: loading a scenario that must be refused, and
//! checking where its one-line message points.

use dcbsim_scenario::{ScenarioError, load_str};

/// The error of loading `text` as `bad.toml`, which must be refused.
pub fn error(text: &str) -> ScenarioError {
    load_str(text, "bad.toml", &[]).expect_err("must be refused")
}

/// The error of `good` with `from` replaced by `to`.
pub fn error_with(good: &str, from: &str, to: &str) -> ScenarioError {
    assert!(good.contains(from), "{from}");
    error(&good.replacen(from, to, 1))
}

/// The message is one line, at `bad.toml:line`, naming `key`, and says `words`.
pub fn assert_at(e: &ScenarioError, line: usize, key: &str, words: &str) {
    assert_eq!((e.line, e.key.as_str()), (line, key), "{e}");
    assert!(e.to_string().contains(words), "{e}");
    assert!(e.to_string().starts_with(&format!("bad.toml:{line}:")), "{e}");
    assert!(!e.to_string().contains('\n'));
}
