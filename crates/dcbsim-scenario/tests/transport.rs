//! `transport` on flows, the `[transport]` table and the `[incast]` application.

use dcbsim_core::transport::{EcnMarking, Transport};
use dcbsim_core::units::{Bytes, Time};
use dcbsim_scenario::{ScenarioError, load_str};

const GOOD: &str = r#"[run]
duration_ms = 100.0

[topology]
kind = "incast"
servers = 4
rate_gbps = 1.0

[transport]
rto_min_ms = 10.0
g = 0.0625
delayed_ack = false
ecn_k_kb = 32.0

[[flows]]
src = "srv0"
dst = "client"
transport = "dctcp"
kind = "finite"
size_kb = 100.0

[incast]
client = "client"
servers = "srv*"
sru_kb = 64.0
transport = "tcp"
blocks = 3
"#;

fn error(from: &str, to: &str) -> ScenarioError {
    assert!(GOOD.contains(from), "{from}");
    load_str(&GOOD.replacen(from, to, 1), "bad.toml", &[]).expect_err("must be refused")
}

fn assert_at(e: &ScenarioError, line: usize, key: &str, words: &str) {
    assert_eq!((e.line, e.key.as_str()), (line, key), "{e}");
    assert!(e.to_string().contains(words), "{e}");
}

#[test]
fn transports_parameters_and_incast_are_read() {
    let s = load_str(GOOD, "good.toml", &[]).unwrap();
    let c = &s.config;
    assert_eq!(c.flows[0].transport, Transport::Dctcp);
    assert_eq!(c.tcp.rto_min, Time::from_ms(10));
    assert_eq!(c.tcp.ecn, EcnMarking::All(Bytes(32 * 1024)));
    let app = c.incast.as_ref().unwrap();
    assert_eq!(app.flows, vec![1, 2, 3, 4]);
    assert_eq!((app.sru, app.blocks), (64 * 1024, Some(3)));
    assert!(c.flows[1..].iter().all(|f| f.transport == Transport::Tcp && f.dst == 1));
    let r = s.build(1).unwrap().run();
    assert_eq!(r.incast.unwrap().blocks.len(), 3);
}

#[test]
fn ecn_thresholds_per_port() {
    let s = load_str(&GOOD.replace("ecn_k_kb = 32.0", "ecn_k_kb = { \"sw0:client\" = 20.0 }"), "good.toml", &[]).unwrap();
    assert!(matches!(&s.config.tcp.ecn, EcnMarking::Ports(p) if p.len() == 1 && p[0].1 == Bytes(20 * 1024)));
    let e = error("ecn_k_kb = 32.0", "ecn_k_kb = { \"sw0:nowhere\" = 20.0 }");
    assert_at(&e, 13, "transport.ecn_k_kb.sw0:nowhere", "unknown node \"nowhere\"");
}

#[test]
fn bad_transport_values_name_the_key_and_the_allowed_values() {
    assert_at(&error("transport = \"dctcp\"", "transport = \"reno\""), 18, "flows[0].transport", "allowed: none, tcp, dctcp");
    assert_at(&error("g = 0.0625", "g = 2.0"), 11, "transport.g", "g must be in (0, 1]");
    assert_at(&error("rto_min_ms = 10.0", "rto_min_ms = -1.0"), 10, "transport.rto_min_ms", "must be > 0");
    assert_at(&error("delayed_ack = false", "delayed_ack = 1"), 12, "transport.delayed_ack", "true or false");
    assert_at(&error("g = 0.0625", "cwnd = 3"), 11, "transport.cwnd", "allowed: rto_min_ms");
    assert_at(&error("transport = \"tcp\"", "transport = \"none\""), 26, "incast.transport", "allowed: tcp, dctcp");
    assert_at(&error("sru_kb = 64.0", "sru_kb = 0"), 25, "incast.sru_kb", "must be > 0");
}

#[test]
fn a_constant_flow_over_tcp_is_refused_at_its_key() {
    let e = error("kind = \"finite\"\nsize_kb = 100.0", "kind = \"constant\"\nrate_gbps = 0.1");
    assert_eq!(e.key, "flows[0].transport", "{e}");
}
