//! Port names that cannot silently miss: every key naming a port refuses a port that
//! does not carry what the key acts on, at the key, with "did you mean" the reverse
//! port when that one fits.

mod common;

use common::{assert_at, error, error_with};
use dcbsim_scenario::{ScenarioError, load_str};

/// Two switches: senders s0, s1 on sw0, receivers r0, r1 on sw1; a QCN-controlled
/// greedy flow s0→r0 and a constant-rate flow s1→r1.
const DUMBBELL: &str = r#"[run]
duration_ms = 2.0

[topology]
kind = "dumbbell"
senders = 2
receivers = 2

[scheme]
name = "qcn"
congestion_points = ["sw0:sw1"]

[monitor]
ports = ["sw0:sw1"]

[[flows]]
src = "s0"
dst = "r0"

[[flows]]
src = "s1"
dst = "r1"
kind = "constant"
rate_gbps = 1.0
"#;

fn accepted(good: &str, from: &str, to: &str) {
    assert!(good.contains(from), "{from}");
    if let Err(e) = load_str(&good.replacen(from, to, 1), "good.toml", &[]) {
        panic!("{e}");
    }
}

/// `base` with `extra` tables after it.
fn with(base: &str, extra: &str) -> Result<dcbsim_scenario::Scenario, ScenarioError> {
    load_str(&format!("{base}{extra}"), "bad.toml", &[])
}

#[test]
fn the_base_scenarios_load() {
    load_str(DUMBBELL, "good.toml", &[]).unwrap();
    load_str(TCP, "good.toml", &[]).unwrap();
}

#[test]
fn a_congestion_point_facing_away_from_the_data_is_refused_with_the_reverse_port() {
    let e = error_with(DUMBBELL, "congestion_points = [\"sw0:sw1\"]", "congestion_points = [\"sw0:sw1\", \"sw1:sw0\"]");
    assert_at(&e, 11, "scheme.congestion_points", "no flow's data crosses \"sw1:sw0\"");
    assert!(e.to_string().ends_with("did you mean \"sw0:sw1\"?"), "{e}");
    assert_eq!(e.column, 33, "{e}");
    // A receiver's egress: a host port, refused as such before any crossing check.
    let e = error_with(DUMBBELL, "[\"sw0:sw1\"]\n\n[monitor]", "[\"r0:sw1\"]\n\n[monitor]");
    assert!(e.to_string().ends_with("\"r0:sw1\" is a host's port; congestion points sit on switch ports; did you mean \"sw1:r0\"?"), "{e}");
}

#[test]
fn a_congestion_point_crossed_only_by_constant_rate_flows_is_error_with() {
    let e = error_with(DUMBBELL, "congestion_points = [\"sw0:sw1\"]", "congestion_points = [\"sw1:r1\"]");
    assert_at(&e, 11, "scheme.congestion_points", "only constant-rate flows cross \"sw1:r1\"");
    accepted(DUMBBELL, "congestion_points = [\"sw0:sw1\"]", "congestion_points = [\"sw1:r0\"]");
    accepted(DUMBBELL, "congestion_points = [\"sw0:sw1\"]", "congestion_points = \"all\"");
}

#[test]
fn an_override_naming_the_wrong_direction_points_at_the_override() {
    let set = vec!["scheme.congestion_points=[\"sw1:sw0\"]".to_string()];
    let e = load_str(DUMBBELL, "s.toml", &set).unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("s.toml: --set scheme.congestion_points="), "{text}");
    assert!(text.ends_with("did you mean \"sw0:sw1\"?"), "{text}");
}

#[test]
fn the_quickstart_with_the_receivers_port_reversed_is_error_with() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/dcbsim/scenarios/examples/quickstart.toml");
    let sets = ["monitor.ports=[\"r0:sw0\"]", "timeline=[{at_ms = 10.0, port = \"r0:sw0\", rate_gbps = 1.0}]"];
    for set in sets {
        let e = dcbsim_scenario::load_file(&root, &[set.to_string()]).unwrap_err();
        assert!(e.to_string().contains("no traffic crosses \"r0:sw0\""), "{e}");
        assert!(e.to_string().ends_with("did you mean \"sw0:r0\"?"), "{e}");
    }
}

#[test]
fn a_monitored_port_no_traffic_crosses_is_error_with() {
    let e = error_with(DUMBBELL, "ports = [\"sw0:sw1\"]", "ports = [\"sw1:sw0\"]");
    assert_at(&e, 14, "monitor.ports", "no traffic crosses \"sw1:sw0\"");
    assert!(e.to_string().ends_with("did you mean \"sw0:sw1\"?"), "{e}");
    // A sender's egress carries its data: watching a NIC's queue is allowed.
    accepted(DUMBBELL, "ports = [\"sw0:sw1\"]", "ports = [\"s0:sw0\", \"sw1:r1\"]");
    // s0 sends, nothing comes back to it: the reverse is meant.
    let e = error_with(DUMBBELL, "ports = [\"sw0:sw1\"]", "ports = [\"sw0:s0\"]");
    assert!(e.to_string().ends_with("did you mean \"s0:sw0\"?"), "{e}");
    // No hint when the reverse carries nothing either: an idle receiver.
    let idle = DUMBBELL.replace("receivers = 2", "receivers = 3");
    let e = error_with(&idle, "ports = [\"sw0:sw1\"]", "ports = [\"sw1:r2\"]");
    assert_at(&e, 14, "monitor.ports", "no traffic crosses \"sw1:r2\"");
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

#[test]
fn a_timeline_port_or_link_no_traffic_crosses_is_error_with() {
    let tail = "\n[[timeline]]\nat_ms = 1.0\nport = \"sw1:sw0\"\nrate_gbps = 1.0\n";
    let e = error(&format!("{DUMBBELL}{tail}"));
    assert_at(&e, 28, "timeline[0].port", "did you mean \"sw0:sw1\"?");
    load_str(&format!("{DUMBBELL}{}", tail.replace("sw1:sw0", "sw0:sw1")), "good.toml", &[]).unwrap();
    // A link counts both ways.
    load_str(&format!("{DUMBBELL}{}", tail.replace("port = \"sw1:sw0\"", "link = \"sw1:sw0\"")), "good.toml", &[]).unwrap();
    let idle = DUMBBELL.replace("receivers = 2", "receivers = 3");
    let e = load_str(&format!("{idle}\n[[timeline]]\nat_ms = 1.0\nlink = \"r2:sw1\"\nrate_gbps = 1.0\n"), "bad.toml", &[]).unwrap_err();
    assert_at(&e, 28, "timeline[0].link", "no traffic crosses the link \"r2:sw1\" in either direction");
}

/// DCTCP from srv0 and srv1 to the client, and a constant flow with no transport from srv2.
const TCP: &str = r#"[run]
duration_ms = 2.0

[topology]
kind = "incast"
servers = 3

[transport]
ecn_k_kb = { "sw0:client" = 20.0 }

[[flows]]
src = ["srv0", "srv1"]
dst = "client"
transport = "dctcp"
kind = "finite"
size_kb = 100.0

[[flows]]
src = "srv2"
dst = "client"
kind = "constant"
rate_gbps = 1.0
"#;

#[test]
fn acknowledgements_count_as_traffic_but_not_for_a_congestion_point() {
    // sw0:srv0 carries only srv0's acknowledgements: a queue and a rate apply there...
    with(TCP, "\n[monitor]\nports = [\"sw0:srv0\"]\n").unwrap();
    // ...a congestion point does not (it samples data frames).
    let e = error_with(TCP, "[transport]", "[scheme]\nname = \"qcn\"\ncongestion_points = [\"sw0:srv0\"]\n[transport]");
    assert_at(&e, 10, "scheme.congestion_points", "only TCP acknowledgements cross \"sw0:srv0\"");
    // srv2 runs no transport: nothing comes back to it.
    let e = with(TCP, "\n[monitor]\nports = [\"sw0:srv2\"]\n").unwrap_err();
    assert!(e.to_string().contains("no traffic crosses \"sw0:srv2\""), "{e}");
    assert!(e.to_string().ends_with("did you mean \"srv2:sw0\"?"), "{e}");
}

#[test]
fn an_ecn_threshold_needs_dctcp_data() {
    let e = error_with(TCP, "{ \"sw0:client\" = 20.0 }", "{ \"sw0:srv1\" = 20.0 }");
    assert_at(&e, 9, "transport.ecn_k_kb.sw0:srv1", "no DCTCP flow's data crosses \"sw0:srv1\"");
    // The reverse (srv1:sw0) carries DCTCP data but is a host's port: no hint.
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

#[test]
fn incast_and_arrival_flows_count() {
    let incast = TCP.replace(
        "[[flows]]\nsrc = [\"srv0\", \"srv1\"]",
        "[incast]\nclient = \"client\"\nservers = \"srv*\"\nsru_kb = 64.0\ntransport = \"tcp\"\n\n[[flows]]\nsrc = [\"srv0\", \"srv1\"]",
    );
    with(&incast, "\n[scheme]\nname = \"qcn\"\ncongestion_points = [\"sw0:client\"]\n").unwrap();
    let arrivals = DUMBBELL.replace("ports = [\"sw0:sw1\"]", "ports = [\"sw1:r1\", \"sw0:sw1\"]").replace(
        "[[flows]]\nsrc = \"s1\"\ndst = \"r1\"\nkind = \"constant\"\nrate_gbps = 1.0\n",
        "[[arrivals]]\nname = \"mice\"\nsrc = \"s1\"\ndst = \"r1\"\nrate_per_s = 1000\nsize_kb = 10\n",
    );
    accepted(&arrivals, "congestion_points = [\"sw0:sw1\"]", "congestion_points = [\"sw1:r1\"]");
}

const PFC: &str = "\n[pfc]\npriorities = [3]\nports = [\"sw1:sw0\"]\nheadroom_kb = { \"sw1:sw0\" = 20 }\n";

#[test]
fn pfc_ports_name_an_ingress_that_lossless_traffic_enters() {
    let lossless = DUMBBELL.replace("dst = \"r0\"", "dst = \"r0\"\npriority = 3");
    load_str(&format!("{lossless}{PFC}"), "good.toml", &[]).unwrap();
    let e = load_str(&format!("{lossless}{}", PFC.replacen("[\"sw1:sw0\"]", "[\"sw0:sw1\"]", 1)), "bad.toml", &[]).unwrap_err();
    assert_at(&e, 29, "pfc.ports", "PFC at \"sw0:sw1\" watches the frames sw0 receives from sw1");
    assert!(e.to_string().ends_with("did you mean \"sw1:sw0\"?"), "{e}");
    let e = load_str(&format!("{lossless}{}", PFC.replacen("{ \"sw1:sw0\"", "{ \"sw0:sw1\"", 1)), "bad.toml", &[]).unwrap_err();
    assert_at(&e, 30, "pfc.headroom_kb.sw0:sw1", "did you mean \"sw1:sw0\"?");
    // The traffic is there but of priority 0 only.
    let e = load_str(&format!("{DUMBBELL}{PFC}"), "bad.toml", &[]).unwrap_err();
    assert!(e.to_string().contains("none of a lossless priority (3) arrives that way (only priorities 0)"), "{e}");
}

#[test]
fn ets_ports_need_traffic() {
    let ets = "\n[ets]\nweights = [1, 1]\nports = [\"sw1:sw0\"]\n";
    let e = load_str(&format!("{DUMBBELL}{ets}"), "bad.toml", &[]).unwrap_err();
    assert_at(&e, 28, "ets.ports", "no traffic crosses \"sw1:sw0\"");
    assert!(e.to_string().ends_with("did you mean \"sw0:sw1\"?"), "{e}");
}

/// Four flows from leaf 0 to leaf 3 of a leaf-spine, spread over the spines by ECMP.
const LEAF_SPINE: &str = r#"[run]
duration_ms = 1.0
[topology]
kind = "leaf_spine"
leaves = 4
spines = 4
hosts_per_leaf = 2
[[flows]]
src = "h0_*"
dst = "h3_*"
[monitor]
ports = ["spine2:leaf3"]
"#;

#[test]
fn any_equal_cost_path_counts_and_the_wrong_way_down_is_refused() {
    // Every spine lies on a shortest path from leaf0 to leaf3, whichever ECMP picks.
    load_str(LEAF_SPINE, "good.toml", &[]).unwrap();
    load_str(LEAF_SPINE, "good.toml", &["topology.ecmp=false".into(), "monitor.ports=[\"spine3:leaf3\"]".into()]).unwrap();
    let e = error_with(LEAF_SPINE, "spine2:leaf3", "spine2:leaf0");
    assert_at(&e, 12, "monitor.ports", "no traffic crosses \"spine2:leaf0\"");
    assert!(e.to_string().ends_with("did you mean \"leaf0:spine2\"?"), "{e}");
    let e = error_with(LEAF_SPINE, "spine2:leaf3", "spine2:leaf1");
    assert!(e.to_string().ends_with("no traffic crosses \"spine2:leaf1\" (neither a flow's data nor TCP acknowledgements)"), "{e}");
}
