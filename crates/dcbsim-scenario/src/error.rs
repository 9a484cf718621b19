//! Scenario errors: one line naming the file, the position, the key and what is allowed.

use std::fmt;

/// Where a value of the scenario came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A position in the file (1-based line and column).
    File {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
    },
    /// A `--set key=value` override.
    Override(String),
    /// Nowhere in particular (a default, or the document as a whole).
    Nowhere,
}

impl Origin {
    /// The position of byte `offset` in `text`.
    pub fn at(text: &str, offset: usize) -> Origin {
        let offset = offset.min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let column = before.rfind('\n').map_or(before.chars().count(), |n| before[n + 1..].chars().count()) + 1;
        Origin::File { line, column }
    }
}

/// A scenario that cannot run, with the place and key at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The scenario file as given.
    pub file: String,
    /// Line of the fault, from 1 (0 when it lies in an override or nowhere).
    pub line: usize,
    /// Column of the fault, from 1 (0 when it lies in an override or nowhere).
    pub column: usize,
    /// Key path of the fault (`flows[2].rate_gbps`).
    pub key: String,
    /// What is wrong and what is allowed.
    pub message: String,
    /// The `--set` expression at fault, if any.
    pub set: Option<String>,
}

impl ScenarioError {
    /// An error at `origin` in `file`.
    pub fn new(file: &str, origin: &Origin, key: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        let (line, column, set) = match origin {
            Origin::File { line, column } => (*line, *column, None),
            Origin::Override(expr) => (0, 0, Some(expr.clone())),
            Origin::Nowhere => (0, 0, None),
        };
        ScenarioError { file: file.to_string(), line, column, key: key.into(), message: message.into(), set }
    }
}

/// `text` on one line: line breaks it quotes from the input are escaped.
fn one_line(text: &str) -> String {
    text.replace('\r', "\\r").replace('\n', "\\n")
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.key.is_empty() { String::new() } else { format!("{}: ", one_line(&self.key)) };
        let message = one_line(&self.message);
        match (&self.set, self.line) {
            (Some(expr), _) => write!(f, "{}: --set {}: {}{}", self.file, one_line(expr), key, message),
            (None, 0) => write!(f, "{}: {}{}", self.file, key, message),
            (None, line) => write!(f, "{}:{}:{}: {}{}", self.file, line, self.column, key, message),
        }
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based() {
        let text = "a = 1\nbb = 2\n";
        assert_eq!(Origin::at(text, 0), Origin::File { line: 1, column: 1 });
        assert_eq!(Origin::at(text, 6), Origin::File { line: 2, column: 1 });
        assert_eq!(Origin::at(text, 11), Origin::File { line: 2, column: 6 });
    }

    #[test]
    fn line_breaks_quoted_from_the_input_stay_on_one_line() {
        let e = ScenarioError::new("s.toml", &Origin::File { line: 9, column: 8 }, "topology.kind", "unknown \"ge\neric\"");
        assert_eq!(e.to_string(), "s.toml:9:8: topology.kind: unknown \"ge\\neric\"");
    }

    #[test]
    fn display_names_file_position_key_and_message() {
        let e = ScenarioError::new("s.toml", &Origin::File { line: 3, column: 7 }, "run.duration_ms", "must be > 0");
        assert_eq!(e.to_string(), "s.toml:3:7: run.duration_ms: must be > 0");
        let e = ScenarioError::new("s.toml", &Origin::Override("run.seed=x".into()), "run.seed", "must be an integer");
        assert_eq!(e.to_string(), "s.toml: --set run.seed=x: run.seed: must be an integer");
    }
}
