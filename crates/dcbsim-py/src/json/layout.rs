//! The layout of dcbsim's JSON outputs, as a `serde_json` formatter: the outer levels
//! indented, each deeper container on one line, so that a summary holds one line per
//! port, flow or arrival source (readable, and a hundred thousand flows' summary
//! stays a few megabytes).

use std::io::{self, Write};

use serde_json::ser::Formatter;

/// Indents containers nested less than `one_line_depth` deep (the outermost is at
/// depth 0) by two spaces a level, an item a line; writes the others on one line with
/// `", "` between items and `": "` after keys, as Python's `json` module does.
pub struct Layout {
    one_line_depth: usize,
    /// Containers open around the next thing written.
    depth: usize,
    /// Whether the innermost open container has an item yet.
    has_value: bool,
}

impl Layout {
    /// A layout indenting the containers nested less than `one_line_depth` deep.
    pub fn new(one_line_depth: usize) -> Layout {
        Layout { one_line_depth, depth: 0, has_value: false }
    }

    /// Whether the container at `depth` is indented.
    fn indented(&self, depth: usize) -> bool {
        depth < self.one_line_depth
    }

    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value && self.indented(self.depth) {
            w.write_all(b"\n")?;
            indent(w, self.depth)?;
        }
        w.write_all(bracket)
    }

    /// What goes before an item of the innermost container.
    fn item<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if self.indented(self.depth - 1) {
            w.write_all(if first { b"\n" } else { b",\n" })?;
            indent(w, self.depth)
        } else if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }
}

fn indent<W: ?Sized + Write>(w: &mut W, depth: usize) -> io::Result<()> {
    for _ in 0..depth {
        w.write_all(b"  ")?;
    }
    Ok(())
}

impl Formatter for Layout {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.item(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Layout;
    use serde::Serialize;

    fn written(value: &serde_json::Value, depth: usize) -> String {
        let mut out = Vec::new();
        value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, Layout::new(depth))).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn outer_levels_are_indented_and_deeper_containers_on_one_line() {
        let value = serde_json::json!({"a": [1, {"b": [2, 3], "c": {}}], "d": [], "e": {"f": [4]}});
        let expected = "{\n  \"a\": [\n    1,\n    {\"b\": [2, 3], \"c\": {}}\n  ],\n  \"d\": [],\n  \"e\": {\n    \"f\": [4]\n  }\n}";
        assert_eq!(written(&value, 2), expected);
    }

    #[test]
    fn depth_zero_writes_everything_on_one_line() {
        let value = serde_json::json!({"a": [1, {"b": []}], "c": "x"});
        assert_eq!(written(&value, 0), "{\"a\": [1, {\"b\": []}], \"c\": \"x\"}");
    }
}
