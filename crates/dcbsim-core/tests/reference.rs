//! The reference of every scheme's and the transport's parameters, rendered from their
//! tables, must match `docs/scheme-parameters.md`; `DCBSIM_WRITE_DOCS=1 cargo test -p
//! dcbsim-core --test reference` writes it anew.

use dcbsim_core::cc::SchemeConfig;
use dcbsim_core::transport::TcpParams;

/// One table in Markdown.
fn table(rows: &[[String; 4]]) -> String {
    let mut text = String::from("| name | takes | default | meaning |\n|---|---|---|---|\n");
    for [names, takes, default, doc] in rows {
        text += &format!("| {names} | {takes} | {default} | {doc} |\n");
    }
    text
}

fn reference() -> String {
    let mut text = String::from(
        "# Scheme and transport parameters\n\n\
         Written from the parameter tables in `crates/dcbsim-core/src/cc/` and `transport/mod.rs` \
         (`DCBSIM_WRITE_DOCS=1 cargo test -p dcbsim-core --test reference`); do not edit by hand. \
         A name with a unit suffix also takes any suffix of the same kind (`_ms`, `_us`, `_ns`; \
         `_kb`, `_bytes`; `_gbps`, `_mbps`): the engine sees picoseconds, bytes and bits per second. \
         Each scheme's model page (`docs/models/`) says where its defaults come from and what we chose.\n",
    );
    for (names, rows) in SchemeConfig::reference() {
        let title = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        text += &format!("\n## `[scheme]` {title}\n\n");
        text += &if rows.is_empty() { "No parameters.\n".to_string() } else { table(&rows) };
    }
    text += "\n## `[transport]`\n\nBesides `ecn_k_kb` (see `docs/scenario-format.md`):\n\n";
    text += &table(&dcbsim_core::param::reference_rows::<TcpParams>());
    text
}

#[test]
fn the_parameter_reference_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scheme-parameters.md");
    let text = reference();
    if std::env::var_os("DCBSIM_WRITE_DOCS").is_some() {
        std::fs::write(path, &text).expect("docs/ writable");
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(on_disk == text, "docs/scheme-parameters.md is out of date: DCBSIM_WRITE_DOCS=1 cargo test -p dcbsim-core --test reference");
}
