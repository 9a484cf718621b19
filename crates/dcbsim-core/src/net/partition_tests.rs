use super::*;
use crate::config::NodeKind;
use crate::topology::tests::defaults;
use crate::topology::{Topology, dumbbell, fat_tree, incast, leaf_spine, many_to_one};
use crate::units::{Bytes, Rate};

/// What the partitioner reads of a built topology.
fn input(t: &Topology) -> (Vec<bool>, Vec<CutLink>) {
    let is_host = t.nodes.iter().map(|n| n.kind == NodeKind::Host).collect();
    let links = t.links.iter().map(|l| CutLink { a: l.a as u32, b: l.b as u32, delay: l.delay.mean() }).collect();
    (is_host, links)
}

fn split(t: &Topology, parts: usize) -> Partitioning {
    let (is_host, links) = input(t);
    partition(&is_host, &links, parts)
}

/// Per part, its link ends.
fn weights(p: &Partitioning, links: &[CutLink]) -> Vec<u64> {
    let mut w = vec![0; p.parts];
    for l in links {
        w[p.part_of[l.a as usize] as usize] += 1;
        w[p.part_of[l.b as usize] as usize] += 1;
    }
    w
}

/// The links whose ends lie in different parts.
fn crossing<'a>(p: &'a Partitioning, links: &'a [CutLink]) -> impl Iterator<Item = &'a CutLink> + 'a {
    links.iter().filter(|l| p.part_of[l.a as usize] != p.part_of[l.b as usize])
}

/// The part of every node whose name starts with one of `prefixes`, asserting they
/// share one.
fn whole(t: &Topology, p: &Partitioning, prefixes: &[String]) -> u16 {
    let parts: Vec<u16> =
        (0..t.nodes.len()).filter(|&i| prefixes.iter().any(|x| t.nodes[i].name.starts_with(x))).map(|i| p.part_of[i]).collect();
    assert!(!parts.is_empty(), "no node named {prefixes:?}");
    assert!(parts.iter().all(|&q| q == parts[0]), "{prefixes:?} is split: {parts:?}");
    parts[0]
}

/// How many of `items` lie in each part.
fn per_part(p: &Partitioning, items: impl Iterator<Item = u16>) -> Vec<usize> {
    let mut n = vec![0; p.parts];
    items.for_each(|q| n[q as usize] += 1);
    n
}

fn name_of(t: &Topology, i: u32) -> &str {
    &t.nodes[i as usize].name
}

/// A fat-tree split in `parts`: pods whole and even, cores even, only agg–core links cut.
fn check_fat_tree(k: usize, parts: usize) {
    let t = fat_tree(k, &defaults());
    let (_, links) = input(&t);
    let p = split(&t, parts);
    assert_eq!(p.parts, parts);
    let pods = per_part(&p, (0..k).map(|pod| whole(&t, &p, &[format!("agg{pod}_"), format!("edge{pod}_"), format!("h{pod}_")])));
    assert!(pods.iter().all(|&n| n == k / parts), "pods per part {pods:?}");
    let cores = per_part(&p, (0..t.nodes.len()).filter(|&i| t.nodes[i].name.starts_with("core")).map(|i| p.part_of[i]));
    assert!(cores.iter().all(|&n| n == k * k / 4 / parts), "cores per part {cores:?}");
    for l in crossing(&p, &links) {
        let ends = [name_of(&t, l.a), name_of(&t, l.b)];
        assert!(ends.iter().any(|n| n.starts_with("core")) && ends.iter().any(|n| n.starts_with("agg")), "{ends:?} cut");
    }
    let w = weights(&p, &links);
    assert!(w.iter().all(|&x| x == w[0]), "weights {w:?}");
    assert_eq!(p.lookahead, Time::from_us(1));
}

#[test]
fn fat_tree_k4_halves_keep_pods_whole() {
    check_fat_tree(4, 2);
}

#[test]
fn fat_tree_k8_halves_keep_pods_whole() {
    check_fat_tree(8, 2);
}

#[test]
fn fat_tree_k8_quarters_keep_pods_whole() {
    check_fat_tree(8, 4);
}

#[test]
fn fat_tree_k16_halves_keep_pods_whole() {
    check_fat_tree(16, 2);
}

#[test]
fn fat_tree_k8_thirds_are_balanced_by_cores() {
    let t = fat_tree(8, &defaults());
    let (_, links) = input(&t);
    let p = split(&t, 3);
    assert_eq!(p.parts, 3);
    let pods = per_part(&p, (0..8).map(|pod| whole(&t, &p, &[format!("agg{pod}_"), format!("edge{pod}_"), format!("h{pod}_")])));
    assert_eq!(pods.iter().sum::<usize>(), 8);
    assert!(pods.iter().all(|&n| (2..=3).contains(&n)), "pods per part {pods:?}");
    let w = weights(&p, &links);
    let (lo, hi) = (*w.iter().min().unwrap(), *w.iter().max().unwrap());
    assert!(hi * 2 <= lo * 3, "weights {w:?}");
}

#[test]
fn fat_tree_asked_for_more_parts_than_pods_gets_one_per_pod() {
    let p = split(&fat_tree(4, &defaults()), 16);
    assert_eq!(p.parts, 4);
}

#[test]
fn leaf_spine_keeps_each_leaf_with_its_hosts() {
    let t = leaf_spine(8, 4, 8, Rate::from_gbps(40), &defaults());
    let (_, links) = input(&t);
    for parts in [2, 4] {
        let p = split(&t, parts);
        assert_eq!(p.parts, parts);
        let leaves = per_part(&p, (0..8).map(|l| whole(&t, &p, &[format!("leaf{l}"), format!("h{l}_")])));
        assert!(leaves.iter().all(|&n| n == 8 / parts), "leaves per part {leaves:?}");
        let spines = per_part(&p, (0..4).map(|s| whole(&t, &p, &[format!("spine{s}")])));
        assert!(spines.iter().all(|&n| n == 4 / parts), "spines per part {spines:?}");
        assert!(crossing(&p, &links).all(|l| name_of(&t, l.a).starts_with("leaf") && name_of(&t, l.b).starts_with("spine")));
    }
}

#[test]
fn one_switch_with_hosts_is_one_part() {
    for t in [dumbbell(16, 1, Rate::from_gbps(10), &defaults()), incast(8, &defaults())] {
        let p = split(&t, 4);
        assert_eq!((p.parts, p.lookahead), (1, Time::NEVER));
        assert!(p.part_of.iter().all(|&q| q == 0));
    }
}

#[test]
fn a_lone_switch_above_one_leaf_is_not_worth_a_part() {
    let p = split(&many_to_one(1, 8, Rate::from_gbps(40), Bytes::from_kb(64), &defaults()), 2);
    assert_eq!(p.parts, 1);
}

#[test]
fn many_to_one_splits_its_tors() {
    let t = many_to_one(4, 8, Rate::from_gbps(40), Bytes::from_kb(64), &defaults());
    let p = split(&t, 2);
    assert_eq!(p.parts, 2);
    let tors = per_part(&p, (0..4).map(|k| whole(&t, &p, &[format!("tor{k}"), format!("h{k}_")])));
    assert_eq!(tors, vec![2, 2]);
}

#[test]
fn dumbbell_with_two_switches_is_cut_at_its_trunk() {
    let t = dumbbell(4, 4, Rate::from_gbps(10), &defaults());
    let (_, links) = input(&t);
    let p = split(&t, 4);
    assert_eq!(p.parts, 2);
    let cut: Vec<_> = crossing(&p, &links).map(|l| (name_of(&t, l.a), name_of(&t, l.b))).collect();
    assert_eq!(cut, vec![("sw0", "sw1")]);
}

#[test]
fn one_part_puts_everything_in_part_zero() {
    for parts in [0, 1] {
        let p = split(&fat_tree(4, &defaults()), parts);
        assert_eq!((p.parts, p.lookahead), (1, Time::NEVER));
        assert!(p.part_of.iter().all(|&q| q == 0));
    }
}

#[test]
fn empty_network_is_one_empty_part() {
    let p = partition(&[], &[], 4);
    assert_eq!(p, Partitioning { part_of: vec![], parts: 1, lookahead: Time::NEVER });
}

/// Switches at `order` (a chain in that order, or a ring when `ring`), each with
/// `hosts` hosts; switch `i` is node `i`, so `order` scrambles the numbering.
fn chain(order: &[u32], hosts: usize, ring: bool) -> (Vec<bool>, Vec<CutLink>) {
    let n = order.len();
    let mut is_host = vec![false; n];
    let link = |a, b| CutLink { a, b, delay: Time::from_us(1) };
    let mut links: Vec<CutLink> = order.windows(2).map(|w| link(w[0], w[1])).collect();
    if ring {
        links.push(link(order[n - 1], order[0]));
    }
    for &s in order {
        for _ in 0..hosts {
            is_host.push(true);
            links.push(link(s, is_host.len() as u32 - 1));
        }
    }
    (is_host, links)
}

#[test]
fn chain_gets_balanced_contiguous_runs() {
    // Numbered out of order, so the far end must be found rather than assumed.
    let order = [4, 0, 7, 2, 5, 1, 8, 3, 6];
    let (is_host, links) = chain(&order, 3, false);
    for parts in [2, 3] {
        let p = partition(&is_host, &links, parts);
        assert_eq!(p.parts, parts);
        assert_eq!(crossing(&p, &links).count(), parts - 1, "parts {parts}");
        let w = weights(&p, &links);
        let (lo, hi) = (*w.iter().min().unwrap(), *w.iter().max().unwrap());
        assert!(hi * 2 <= lo * 3, "weights {w:?}");
    }
}

#[test]
fn ring_halves_are_arcs() {
    let order: Vec<u32> = (0..8).collect();
    let (is_host, links) = chain(&order, 2, true);
    let p = partition(&is_host, &links, 2);
    assert_eq!(p.parts, 2);
    assert_eq!(crossing(&p, &links).count(), 2);
    let w = weights(&p, &links);
    assert_eq!(w[0], w[1]);
}

#[test]
fn zero_delay_link_is_never_cut() {
    let order = [0, 1, 2, 3, 4, 5];
    let (is_host, mut links) = chain(&order, 2, false);
    // The middle link, where a halving would cut; the cut moves to one beside it.
    links[2].delay = Time::ZERO;
    links[1].delay = Time::from_ns(300);
    links[3].delay = Time::from_ns(300);
    let p = partition(&is_host, &links, 2);
    assert_eq!(p.part_of[2], p.part_of[3]);
    assert_eq!(p.parts, 2);
    assert_eq!(p.lookahead, Time::from_ns(300));
    assert!(crossing(&p, &links).all(|l| l.delay > Time::ZERO));
}

#[test]
fn a_glued_group_heavier_than_a_fair_share_is_not_split_around() {
    // Chain 0-1-2-3, the middle glued: 5 + 12 + 5 link ends, so no two parts are
    // within 2x of each other; one part is the useful answer.
    let (is_host, mut links) = chain(&[0, 1, 2, 3], 2, false);
    links[1].delay = Time::ZERO;
    assert_eq!(partition(&is_host, &links, 2).parts, 1);
}

#[test]
fn hosts_share_their_switch_part() {
    let t = fat_tree(8, &defaults());
    let (is_host, links) = input(&t);
    let p = partition(&is_host, &links, 3);
    for l in &links {
        if is_host[l.a as usize] || is_host[l.b as usize] {
            assert_eq!(p.part_of[l.a as usize], p.part_of[l.b as usize]);
        }
    }
}

#[test]
fn links_without_hosts_or_with_isolated_nodes_make_no_empty_part() {
    // A star plus two nodes without links: still one part with work.
    let (mut is_host, links) = chain(&[0], 4, false);
    is_host.extend([false, true]);
    let p = partition(&is_host, &links, 3);
    assert_eq!(p.parts, 1);
    // Switches only (no host anywhere): cut as a chain.
    let links: Vec<CutLink> = (0..5).map(|i| CutLink { a: i, b: i + 1, delay: Time::from_us(2) }).collect();
    let p = partition(&[false; 6], &links, 2);
    assert_eq!((p.parts, p.lookahead), (2, Time::from_us(2)));
    assert_eq!(p.part_of, vec![0, 0, 0, 1, 1, 1]);
}

#[test]
fn same_network_gives_same_split_whatever_the_link_order() {
    let t = fat_tree(8, &defaults());
    let (is_host, links) = input(&t);
    let first = partition(&is_host, &links, 3);
    assert_eq!(partition(&is_host, &links, 3), first);
    let reversed: Vec<CutLink> = links.iter().rev().map(|l| CutLink { a: l.b, b: l.a, delay: l.delay }).collect();
    assert_eq!(partition(&is_host, &reversed, 3), first);
}

#[test]
fn parts_are_numbered_by_first_node_and_all_used() {
    let p = split(&fat_tree(8, &defaults()), 3);
    assert_eq!(p.part_of[0], 0);
    let mut seen = 0;
    for &q in &p.part_of {
        assert!((q as usize) <= seen);
        seen = seen.max(q as usize + 1);
    }
    assert_eq!(seen, p.parts);
}
