//! Leaf-spine and fat-tree topologies, ECMP and flow pairings, from scenario files.

mod common;

use common::{assert_at, error_with};
use dcbsim_scenario::load_str;
use std::collections::{HashMap, HashSet};

const LEAF_SPINE: &str = r#"
[run]
duration_ms = 2.0
[topology]
kind = "leaf_spine"
leaves = 4
spines = 4
hosts_per_leaf = 4
[[flows]]
src = "h0_*"
dst = "h3_*"
pairing = "all_to_all"
"#;

const FAT_TREE: &str = r#"
[run]
duration_ms = 1.0
[topology]
kind = "fat_tree"
k = 4
[[flows]]
src = "h*"
dst = "h*"
pairing = "permutation"
"#;

/// Each flow's path, by flow name.
fn paths(text: &str, overrides: &[String]) -> HashMap<String, Vec<String>> {
    let scenario = load_str(text, "fabric.toml", overrides).expect("valid");
    let report = scenario.build(scenario.seed).expect("builds").run();
    report.flows.into_iter().map(|f| (f.name, f.path)).collect()
}

#[test]
fn ecmp_spreads_a_leaf_spine_over_its_spines() {
    let paths = paths(LEAF_SPINE, &[]);
    assert_eq!(paths.len(), 16, "4 × 4 flows from leaf 0 to leaf 3");
    let spines: HashSet<&str> = paths.values().map(|p| p[1].as_str()).collect();
    assert!(spines.len() >= 3, "16 flows use at least 3 of the 4 uplinks: {spines:?}");
    for p in paths.values() {
        assert_eq!(p.len(), 4, "host, leaf up, spine down, leaf to host: {p:?}");
        assert!(p[1].starts_with("leaf0:spine") && p[2].ends_with(":leaf3"), "{p:?}");
    }
}

#[test]
fn without_ecmp_one_spine_carries_every_flow() {
    let paths = paths(LEAF_SPINE, &["topology.ecmp=false".into()]);
    let spines: HashSet<&str> = paths.values().map(|p| p[1].as_str()).collect();
    assert_eq!(spines, HashSet::from(["leaf0:spine0"]));
}

#[test]
fn the_same_seed_gives_the_same_paths_and_another_hash_seed_others() {
    assert_eq!(paths(LEAF_SPINE, &[]), paths(LEAF_SPINE, &[]));
    let other = paths(LEAF_SPINE, &["topology.ecmp_seed=99".into()]);
    assert_ne!(paths(LEAF_SPINE, &[]), other);
}

#[test]
fn a_permutation_on_a_fat_tree_sends_to_every_host_once() {
    let scenario = load_str(FAT_TREE, "fabric.toml", &[]).expect("valid");
    let flows = &scenario.config.flows;
    assert_eq!(flows.len(), 16);
    let sinks: HashSet<usize> = flows.iter().map(|f| f.dst).collect();
    assert_eq!(sinks.len(), 16);
    assert!(flows.iter().all(|f| f.src != f.dst));
    let again = load_str(FAT_TREE, "fabric.toml", &[]).expect("valid");
    let pairs = |s: &dcbsim_scenario::Scenario| s.config.flows.iter().map(|f| (f.src, f.dst)).collect::<Vec<_>>();
    assert_eq!(pairs(&scenario), pairs(&again), "drawn from the run's seed");
    let reseeded = load_str(FAT_TREE, "fabric.toml", &["run.seed=2".into()]).expect("valid");
    assert_ne!(pairs(&scenario), pairs(&reseeded));
}

#[test]
fn fat_tree_flows_between_pods_cross_a_core_switch() {
    let paths = paths(FAT_TREE, &[]);
    for (name, p) in &paths {
        let (src_pod, dst_pod) = (&p[0][1..2], &p.last().expect("a hop").split(':').nth(1).expect("a peer")[1..2]);
        if src_pod != dst_pod {
            assert_eq!(p.len(), 6, "{name}: host, edge, agg, core, agg, edge: {p:?}");
            assert!(p[3].starts_with("core"), "{p:?}");
        }
    }
}

#[test]
fn fabric_mistakes_are_refused_with_the_key() {
    let e = error_with(FAT_TREE, "k = 4", "k = 5");
    assert_at(&e, 6, "topology.k", "must be even");
    let e = error_with(LEAF_SPINE, "hosts_per_leaf = 4", "hosts_per_leaf = 4\nuplink_gbps = 40\noversubscription = 2");
    assert_at(&e, 10, "topology.oversubscription", "not both");
    let e = error_with(FAT_TREE, "dst = \"h*\"", "dst = \"h0_*\"");
    assert_at(&e, 10, "flows[0].pairing", "as many destinations as sources (16 and 4)");
    let e = error_with(LEAF_SPINE, "pairing = \"all_to_all\"", "pairing = \"mesh\"");
    assert_at(&e, 12, "flows[0].pairing", "allowed: matched, all_to_all, permutation");
    let e = error_with(LEAF_SPINE, "hosts_per_leaf = 4", "hosts_per_leaf = 4\necmp = \"yes\"");
    assert_at(&e, 9, "topology.ecmp", "must be true or false");
    let e = error_with(LEAF_SPINE, "hosts_per_leaf = 4", "hosts_per_leaf = 4\necmp = false\necmp_seed = 3");
    assert_at(&e, 10, "topology.ecmp_seed", "is for ECMP");
}

#[test]
fn all_to_all_skips_a_host_sending_to_itself() {
    let text = LEAF_SPINE.replace("dst = \"h3_*\"", "dst = \"h0_*\"");
    let scenario = load_str(&text, "fabric.toml", &[]).expect("valid");
    assert_eq!(scenario.config.flows.len(), 4 * 3);
}

#[test]
fn the_dynamic_threshold_is_read_and_checked() {
    let pfc = format!("{LEAF_SPINE}[pfc]\npriorities = [0]\nalpha = 0.5\nshared_buffer_kb = 512\n");
    let scenario = load_str(&pfc, "fabric.toml", &[]).expect("valid");
    assert_eq!(scenario.config.pfc.alpha, Some(0.5));
    assert_eq!(scenario.config.pfc.shared_buffer.map(|b| b.0), Some(512 * 1024));
    let e = error_with(&pfc, "alpha = 0.5", "alpha = 0.5\nxoff_kb = 40");
    assert_at(&e, 16, "pfc.xoff_kb", "or alpha, not both");
    let e = error_with(&pfc, "alpha = 0.5\n", "");
    assert_at(&e, 15, "pfc.shared_buffer_kb", "set alpha too");
}

/// A built fat-tree, as the partitioner reads it, splits by pods: its links once each
/// with their delay, hosts marked, and only aggregation–core links crossing.
#[test]
fn a_built_fat_tree_splits_by_pods() {
    let scenario = load_str(FAT_TREE, "fabric.toml", &["topology.delay_us=2".to_string()]).expect("valid");
    let sim = scenario.build(scenario.seed).expect("builds");
    let (is_host, links) = sim.links_to_cut();
    // k = 4: 16 hosts, 20 switches; 16 host links, 16 edge–aggregation, 16 aggregation–core.
    assert_eq!((is_host.len(), is_host.iter().filter(|&&h| h).count(), links.len()), (36, 16, 48));
    assert!(links.iter().all(|l| l.delay == dcbsim_core::units::Time::from_us(2)));
    let split = dcbsim_core::net::partition::partition(&is_host, &links, 2);
    assert_eq!((split.parts, split.lookahead), (2, dcbsim_core::units::Time::from_us(2)));
    let names: Vec<&str> = sim.config().nodes.iter().map(|n| n.name.as_str()).collect();
    for l in &links {
        let (a, b) = (names[l.a as usize], names[l.b as usize]);
        if split.part_of[l.a as usize] != split.part_of[l.b as usize] {
            assert!(a.starts_with("core") || b.starts_with("core"), "{a}–{b} crosses");
        }
    }
}
