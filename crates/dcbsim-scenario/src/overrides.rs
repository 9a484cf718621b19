//! `--set key.path=value` overrides, applied to the document before it is read.

use crate::doc::{Entry, Node, Value, parse_value};
use crate::error::Origin;

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A table key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// Splits `flows[0].rate_gbps` or `flows.0.rate_gbps` into steps.
pub fn parse_path(path: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() && rest.is_empty() {
            return Err(format!("empty key in \"{path}\""));
        }
        if !name.is_empty() {
            steps.push(match name.parse::<usize>() {
                Ok(i) => Step::Index(i),
                Err(_) => Step::Key(name.to_string()),
            });
        }
        while let Some(stripped) = rest.strip_prefix('[') {
            let end = stripped.find(']').ok_or_else(|| format!("missing ']' in \"{path}\""))?;
            let index = stripped[..end].parse().map_err(|_| format!("bad index in \"{path}\""))?;
            steps.push(Step::Index(index));
            rest = &stripped[end + 1..];
        }
        if !rest.is_empty() {
            return Err(format!("unexpected \"{rest}\" in \"{path}\""));
        }
    }
    Ok(steps)
}

/// Applies one `key.path=value` override to `doc`.
pub fn apply(doc: &mut Node, expr: &str) -> Result<(), String> {
    let (path, raw) = expr.split_once('=').ok_or("expected key.path=value")?;
    let steps = parse_path(path.trim())?;
    let value = parse_value(raw.trim(), expr);
    let mut node = doc;
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        node = match (step, &mut node.value) {
            (Step::Key(key), Value::Table(entries)) => {
                if !entries.iter().any(|e| &e.key == key) {
                    let empty = Node { value: Value::Table(Vec::new()), at: Origin::Override(expr.to_string()) };
                    let key_at = Origin::Override(expr.to_string());
                    entries.push(Entry { key: key.clone(), key_at, node: empty });
                }
                &mut entries.iter_mut().find(|e| &e.key == key).expect("just ensured").node
            }
            (Step::Index(index), Value::Array(items)) => {
                let len = items.len();
                items.get_mut(*index).ok_or_else(|| format!("index {index} is out of range (the list has {len})"))?
            }
            (Step::Key(key), other) => return Err(format!("cannot set \"{key}\" inside {}", other.type_name())),
            (Step::Index(index), other) => return Err(format!("cannot index [{index}] into {}", other.type_name())),
        };
        if last {
            *node = value;
            return Ok(());
        }
    }
    Err("empty key path".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::parse;

    #[test]
    fn paths_accept_dots_and_brackets() {
        let expect = vec![Step::Key("flows".into()), Step::Index(2), Step::Key("rate_gbps".into())];
        assert_eq!(parse_path("flows.2.rate_gbps").unwrap(), expect);
        assert_eq!(parse_path("flows[2].rate_gbps").unwrap(), expect);
        assert!(parse_path("flows[x]").is_err());
        assert!(parse_path("a..b").is_err());
    }

    #[test]
    fn overrides_replace_add_and_refuse() {
        let mut doc = parse("[run]\nduration_ms = 5.0\n[[flows]]\nsrc = \"a\"\n").unwrap();
        apply(&mut doc, "run.duration_ms=7").unwrap();
        apply(&mut doc, "run.seed=3").unwrap();
        apply(&mut doc, "flows[0].src=b").unwrap();
        let text = toml::to_string(&crate::doc::to_toml(&doc)).unwrap();
        assert!(text.contains("duration_ms = 7") && text.contains("seed = 3") && text.contains("src = \"b\""), "{text}");
        assert!(apply(&mut doc, "flows[3].src=b").unwrap_err().contains("out of range"));
        assert!(apply(&mut doc, "run.duration_ms.x=1").is_err());
        assert!(apply(&mut doc, "no_equals").is_err());
    }
}
