//! `[transport]` (TCP and DCTCP parameters, ECN marking) and `[incast]` (the incast
//! application and its server flows).

use crate::doc::Value;
use crate::network::{RunSection, param_value, port_ref, scheme_value};
use crate::reader::{Result, Table};
use crate::traffic::Flows;
use dcbsim_core::config::{FlowKind, FlowSpec, IncastSpec, NodeKind};
use dcbsim_core::param::{ParamError, ParamValue, Params};
use dcbsim_core::topology::Topology;
use dcbsim_core::transport::{EcnMarking, TcpParams, Transport};
use dcbsim_core::units::{Bytes, Time};

fn kb(x: f64) -> Bytes {
    Bytes((x * 1024.0).round() as u64)
}

/// Reads `[transport]`: every key a parameter of [`TcpParams`], and `ecn_k_kb`, a
/// threshold for every switch port or a table of thresholds by port name.
pub fn read_transport(t: Option<&Table>, topo: &Topology) -> Result<TcpParams> {
    let mut params = TcpParams::default();
    let Some(t) = t else { return Ok(params) };
    for (key, node) in t.rest() {
        if key == "ecn_k_kb" {
            params.ecn = match &node.value {
                Value::Table(_) => {
                    let sub = Table::new(t.file(), &t.key_path(key), node)?;
                    let mut ports = Vec::new();
                    for (name, k) in sub.rest() {
                        let port = port_ref(&sub, name, name, k, topo)?;
                        match param_value(k).map(|v| positive(&v, name)) {
                            Some(Ok(x)) => {
                                crate::units::check(key, x).map_err(|m| sub.error(name, Some(k), m))?;
                                ports.push((port, kb(x)))
                            }
                            Some(Err(m)) => return Err(sub.error(name, Some(k), m)),
                            None => return Err(sub.error(name, Some(k), "must be a number of KB > 0")),
                        }
                    }
                    EcnMarking::Ports(ports)
                }
                _ => match param_value(node).map(|v| positive(&v, key)) {
                    Some(Ok(x)) => {
                        crate::units::check(key, x).map_err(|m| t.error(key, Some(node), m))?;
                        EcnMarking::All(kb(x))
                    }
                    Some(Err(m)) => return Err(t.error(key, Some(node), m)),
                    None => return Err(t.error(key, Some(node), "must be a number of KB > 0 or a table { \"node:peer\" = KB }")),
                },
            };
            continue;
        }
        let value = scheme_value(t, key, key, node)?;
        params.set(key, &value).map_err(|m| t.error(key, Some(node), transport_error(m)))?;
    }
    params.check().map_err(|m| t.error("rto_max_ms", t.get("rto_max_ms"), m))?;
    Ok(params)
}

/// The message of a `[transport]` parameter refused, naming `ecn_k_kb` among the
/// allowed keys (it is read here, not by the parameter table).
fn transport_error(error: ParamError) -> String {
    match error {
        ParamError::Unknown { mut allowed } => {
            allowed.push("ecn_k_kb".to_string());
            ParamError::Unknown { allowed }.to_string()
        }
        other => other.to_string(),
    }
}

/// The number `value` given for `name` if it is > 0.
fn positive(value: &ParamValue, name: &str) -> std::result::Result<f64, String> {
    match value {
        ParamValue::Number(x) if x.is_finite() && *x > 0.0 => Ok(*x),
        ParamValue::Number(x) => Err(format!("{name} must be > 0 (got {x})")),
        _ => Err(format!("{name} must be a number")),
    }
}

const INCAST_KEYS: &[&str] = &["client", "servers", "sru_kb", "blocks", "transport", "frame_bytes", "start_ms", "response_jitter_us"];

/// Reads `[incast]`: one greedy server flow per server (named `srv0…` after the
/// hosts), appended to `flows`, and the application over them.
pub fn read_incast(t: Option<&Table>, run: &RunSection, topo: &Topology, flows: &mut Flows) -> Result<Option<IncastSpec>> {
    let Some(t) = t else { return Ok(None) };
    let (client_name, client_node) = t.required("client", t.string("client")?)?;
    let client = topo
        .index(client_name)
        .filter(|&i| topo.nodes[i].kind == NodeKind::Host)
        .ok_or_else(|| t.error("client", Some(client_node), format!("no host \"{client_name}\"")))?;
    let (pattern, node) = t.required("servers", t.string("servers")?)?;
    let servers: Vec<usize> = match pattern.strip_suffix('*') {
        Some(prefix) => (0..topo.nodes.len()).filter(|&i| topo.nodes[i].name.starts_with(prefix)).collect(),
        None => topo.index(pattern).into_iter().collect(),
    };
    let servers: Vec<usize> = servers.into_iter().filter(|&i| topo.nodes[i].kind == NodeKind::Host && i != client).collect();
    if servers.is_empty() {
        return Err(t.error("servers", Some(node), format!("no host other than the client matches \"{pattern}\"")));
    }
    let sru = kb(t.required("sru_kb", t.positive("sru_kb")?)?);
    let blocks = t.integer("blocks", 1, u32::MAX as i64)?.map(|b| b as u32);
    let transport = crate::kinds::transport(t)?;
    if transport == Transport::None {
        return Err(t.error("transport", t.get("transport"), "is required; allowed: tcp, dctcp"));
    }
    let frame_bytes = t.integer("frame_bytes", 64, 9216)?.map_or(run.frame_bytes, |b| b as u32);
    let start = Time::from_ms_f64(t.non_negative("start_ms")?.unwrap_or(0.0));
    let response_jitter = Time::from_us_f64(t.non_negative("response_jitter_us")?.unwrap_or(0.0));
    if response_jitter > run.duration {
        return Err(t.error("response_jitter_us", t.get("response_jitter_us"), "must not exceed the run's duration"));
    }
    t.finish(INCAST_KEYS)?;
    let group = flows.group_names.len();
    let mut indices = Vec::new();
    for &src in &servers {
        indices.push(flows.specs.len());
        flows.specs.push(FlowSpec {
            name: format!("incast-{}", topo.nodes[src].name),
            src,
            dst: client,
            kind: FlowKind::Greedy,
            rate: None,
            max_rate: None,
            frame_bytes,
            jitter: 0.0,
            priority: 0,
            aimd: None,
            weight: 1.0,
            transport,
            scheme: None,
            start: Time::ZERO,
            stop: None,
        });
        flows.origin.push(group);
    }
    flows.group_names.push(Some("incast".to_string()));
    Ok(Some(IncastSpec { flows: indices, sru: sru.0, blocks, start, response_jitter }))
}
