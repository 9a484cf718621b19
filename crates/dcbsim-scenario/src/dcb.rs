//! `[pfc]` (802.1Qbb priority flow control) and `[ets]` (802.1Qaz enhanced
//! transmission selection).

use crate::doc::{Node, Value};
use crate::network::port_ref;
use crate::reader::{Result, Table};
use dcbsim_core::config::PortRef;
use dcbsim_core::net::{EtsSpec, PfcSpec};
use dcbsim_core::topology::Topology;
use dcbsim_core::units::Bytes;

const PFC_KEYS: &[&str] = &["priorities", "xoff_kb", "xon_kb", "headroom_kb", "quanta", "ports", "alpha", "shared_buffer_kb"];
const ETS_KEYS: &[&str] = &["weights", "ports"];

fn kb(x: f64) -> Bytes {
    Bytes((x * 1024.0).round() as u64)
}

/// A list of 802.1p priorities as a bit mask.
fn priorities(t: &Table, key: &str) -> Result<Option<u8>> {
    let Some(node) = t.get(key) else { return Ok(None) };
    let bad = |n: &Node| t.error(key, Some(n), "must be a list of priorities, integers 0..=7");
    let Value::Array(items) = &node.value else {
        let msg = format!("must be a list of priorities, integers 0..=7 (got {}; write [{}] for one)", node.value.type_name(), short(node));
        return Err(t.error(key, Some(node), msg));
    };
    let mut mask = 0u8;
    for n in items {
        match n.value {
            Value::Int(q) if (0..=7).contains(&q) => mask |= 1 << q,
            _ => return Err(bad(n)),
        }
    }
    Ok(Some(mask))
}

/// A scalar as written, for a message (a string is quoted).
fn short(node: &Node) -> String {
    match &node.value {
        Value::Int(i) => i.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Str(s) => format!("\"{}\"", s.chars().take(20).collect::<String>()),
        other => other.type_name().to_string(),
    }
}

/// One size for every port, and sizes by port.
type PerPort = (Option<Bytes>, Vec<(PortRef, Bytes)>);

/// A size in KB for every port, or a table of sizes by port name (`ecn_k_kb`'s form).
fn kb_or_ports(t: &Table, key: &str, zero_ok: bool, topo: &Topology) -> Result<PerPort> {
    let Some(node) = t.get(key) else { return Ok((None, Vec::new())) };
    let number = |n: &Node, at: &Table, k: &str| match n.value {
        Value::Int(i) if i > 0 || (zero_ok && i == 0) => Ok(kb(i as f64)),
        Value::Float(f) if f.is_finite() && (f > 0.0 || (zero_ok && f == 0.0)) => Ok(kb(f)),
        _ => Err(at.error(k, Some(n), if zero_ok { "must be a number of KB >= 0" } else { "must be a number of KB > 0" })),
    };
    match &node.value {
        Value::Table(_) => {
            let sub = Table::new(t.file(), &t.key_path(key), node)?;
            let mut ports = Vec::new();
            for (name, v) in sub.rest() {
                ports.push((port_ref(&sub, name, name, v, topo)?, number(v, &sub, name)?));
            }
            Ok((None, ports))
        }
        Value::Int(_) | Value::Float(_) => Ok((Some(number(node, t, key)?), Vec::new())),
        _ => Err(t.error(key, Some(node), "must be a number of KB or a table { \"node:peer\" = KB }")),
    }
}

fn ports(t: &Table, key: &str, topo: &Topology) -> Result<Option<Vec<PortRef>>> {
    match t.strings(key)? {
        None => Ok(None),
        Some(list) => list.iter().map(|&(name, node)| port_ref(t, key, name, node, topo)).collect::<Result<_>>().map(Some),
    }
}

/// Reads `[pfc]`.
pub fn read_pfc(t: Option<&Table>, topo: &Topology) -> Result<PfcSpec> {
    let mut spec = PfcSpec::default();
    let Some(t) = t else { return Ok(spec) };
    spec.lossless = t.required("priorities", priorities(t, "priorities")?)?;
    let (xoff, xoff_ports) = kb_or_ports(t, "xoff_kb", false, topo)?;
    let (xon, xon_ports) = kb_or_ports(t, "xon_kb", true, topo)?;
    let (headroom, headroom_ports) = kb_or_ports(t, "headroom_kb", true, topo)?;
    spec.xoff = xoff.unwrap_or(spec.xoff);
    spec.xon = xon;
    spec.headroom = headroom;
    (spec.xoff_ports, spec.xon_ports, spec.headroom_ports) = (xoff_ports, xon_ports, headroom_ports);
    spec.quanta = t.integer("quanta", 1, u16::MAX as i64)?.map_or(spec.quanta, |q| q as u16);
    spec.ports = ports(t, "ports", topo)?;
    if let Some(xon) = spec.xon.filter(|x| x.0 > spec.xoff.0) {
        return Err(t.error("xon_kb", t.get("xon_kb"), format!("must not exceed xoff_kb ({} > {} bytes)", xon.0, spec.xoff.0)));
    }
    read_dynamic_threshold(t, &mut spec)?;
    t.finish(PFC_KEYS)?;
    Ok(spec)
}

/// `alpha` and `shared_buffer_kb`: the dynamic threshold, instead of a static X_off.
fn read_dynamic_threshold(t: &Table, spec: &mut PfcSpec) -> Result<()> {
    spec.alpha = t.positive("alpha")?;
    spec.shared_buffer = t.positive("shared_buffer_kb")?.map(kb);
    if spec.alpha.is_none() {
        if let Some(node) = t.get("shared_buffer_kb") {
            return Err(t.error("shared_buffer_kb", Some(node), "is for the dynamic threshold; set alpha too"));
        }
        return Ok(());
    }
    for key in ["xoff_kb", "xon_kb"] {
        if let Some(node) = t.get(key) {
            return Err(t.error(key, Some(node), "give a static threshold (xoff_kb, xon_kb) or alpha, not both"));
        }
    }
    Ok(())
}

/// Reads `[ets]`.
pub fn read_ets(t: Option<&Table>, topo: &Topology) -> Result<EtsSpec> {
    let mut spec = EtsSpec::default();
    let Some(t) = t else { return Ok(spec) };
    let node = t.required("weights", t.get("weights"))?;
    let bad =
        |n: &Node| t.error("weights", Some(n), "must be a list of up to 8 weights (integers >= 0, one per priority; 0: strict priority)");
    let Value::Array(items) = &node.value else { return Err(bad(node)) };
    if items.len() > 8 {
        return Err(bad(node));
    }
    for (q, n) in items.iter().enumerate() {
        match n.value {
            Value::Int(w) if (0..=1_000_000).contains(&w) => spec.weights[q] = w as u32,
            _ => return Err(bad(n)),
        }
    }
    if !spec.is_on() {
        return Err(t.error("weights", Some(node), "at least one priority needs a weight > 0"));
    }
    spec.ports = ports(t, "ports", topo)?;
    t.finish(ETS_KEYS)?;
    Ok(spec)
}
