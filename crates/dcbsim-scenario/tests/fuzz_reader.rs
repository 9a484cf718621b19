//! A fuzz test of the scenario reader and of `--set` overrides, on stable Rust with
//! proptest: arbitrary text, mutations of the corpus in `tests/fuzz_corpus/` (the
//! examples and the inputs of past bugs) and arbitrary overrides must give a scenario
//! or a one-line error naming the file, never a panic. The number of cases is bounded
//! (`FUZZ_CASES`, default 5000 per property) so that `cargo test` stays quick; raise it
//! to fuzz longer.

use dcbsim_scenario::load_str;
use proptest::prelude::*;
use std::path::Path;

fn cases() -> u32 {
    std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(5000)
}

fn corpus() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir).expect("the corpus").map(|e| e.expect("an entry").path()).collect();
    files.sort();
    files.iter().map(|p| std::fs::read_to_string(p).expect("a corpus file")).collect()
}

/// Loads `text` after `overrides`: either it validates, or the error is one line that
/// names the file.
fn check(text: &str, overrides: &[String]) {
    if let Err(e) = load_str(text, "fuzz.toml", overrides) {
        let line = e.to_string();
        assert!(line.starts_with("fuzz.toml"), "{line}");
        assert!(!line.contains('\n'), "{line}");
    }
}

/// Replacement values that have broken the reader or the engine before.
const NASTY: &[&str] = &[
    "0",
    "-1",
    "1e-12",
    "0.4",
    "1e300",
    "-1e300",
    "inf",
    "-inf",
    "nan",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "[]",
    "{}",
    "\"\"",
    "\"*\"",
    "true",
    "[[]]",
    "{ uniform = [2, 1] }",
    "{ exponential = -1 }",
    "\"websearch\"",
    "1e9",
    "100000",
    "7",
];

/// The keys an override may aim at (known ones and a few unknown ones).
const KEYS: &[&str] = &[
    "run.duration_ms",
    "run.seed",
    "run.sample_interval_us",
    "run.frame_bytes",
    "run.notification_latency_us",
    "topology.kind",
    "topology.senders",
    "topology.servers",
    "topology.rate_gbps",
    "topology.buffer_kb",
    "topology.delay_us",
    "topology.priorities",
    "topology.frame_service_us",
    "scheme.name",
    "scheme.w",
    "scheme.q_eq_kb",
    "scheme.timer_ms",
    "scheme.congestion_points",
    "flows[0].src",
    "flows[0].dst",
    "flows[0].rate_gbps",
    "flows[0].kind",
    "flows[0].size_kb",
    "flows[0].start_ms",
    "flows[0].stop_ms",
    "flows[0].priority",
    "flows[0].weight",
    "flows[9].src",
    "timeline[0].at_ms",
    "monitor.ports",
    "nothing.here",
    "run",
    "flows",
    "flows[0]",
];

/// One mutation of a text: an edit at a position given as a fraction of its length.
#[derive(Debug, Clone)]
enum Edit {
    Delete(f64, usize),
    Insert(f64, String),
    SwapValue(usize, usize),
    DropLine(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0, 1usize..40).prop_map(|(at, n)| Edit::Delete(at, n)),
        (0.0..1.0, "[ -~\n\u{e9}\u{1F600}]{0,12}").prop_map(|(at, s)| Edit::Insert(at, s)),
        (any::<usize>(), 0..NASTY.len()).prop_map(|(line, v)| Edit::SwapValue(line, v)),
        any::<usize>().prop_map(Edit::DropLine),
    ]
}

fn boundary(text: &str, at: f64) -> usize {
    let mut i = ((text.len() as f64) * at) as usize;
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i.min(text.len())
}

fn apply(text: &str, e: &Edit) -> String {
    match e {
        Edit::Delete(at, n) => {
            let start = boundary(text, *at);
            let mut end = (start + n).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            format!("{}{}", &text[..start], &text[end..])
        }
        Edit::Insert(at, s) => {
            let i = boundary(text, *at);
            format!("{}{}{}", &text[..i], s, &text[i..])
        }
        Edit::SwapValue(line, v) => {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let assignments: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(" = ")).collect();
            if let Some(&i) = assignments.get(line % assignments.len().max(1)) {
                let key = lines[i].split(" = ").next().unwrap_or("").to_string();
                lines[i] = format!("{key} = {}", NASTY[*v]);
            }
            lines.join("\n")
        }
        Edit::DropLine(line) => {
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let i = line % lines.len();
                lines.remove(i);
            }
            lines.join("\n")
        }
    }
}

#[test]
fn the_corpus_never_panics() {
    for text in corpus() {
        check(&text, &[]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in "(?s).{0,300}") {
        check(&text, &[]);
    }

    #[test]
    fn mutated_corpus_never_panics(pick in any::<usize>(), edits in proptest::collection::vec(edit(), 1..6)) {
        let corpus = corpus();
        let mut text = corpus[pick % corpus.len()].clone();
        for e in &edits {
            text = apply(&text, e);
        }
        check(&text, &[]);
    }

    #[test]
    fn arbitrary_overrides_never_panic(
        pick in any::<usize>(),
        sets in proptest::collection::vec((0..KEYS.len(), 0..NASTY.len(), "[ -~]{0,8}", any::<bool>()), 1..4),
    ) {
        let corpus = corpus();
        let text = &corpus[pick % corpus.len()];
        let overrides: Vec<String> = sets
            .iter()
            .map(|(k, v, raw, nasty)| format!("{}={}", KEYS[*k], if *nasty { NASTY[*v] } else { raw.as_str() }))
            .collect();
        check(text, &overrides);
    }
}
