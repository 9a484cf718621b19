//! Criterion micro-benchmarks of the core: the event queue and a short dumbbell run.
#![allow(missing_docs)] // criterion's macros generate undocumented functions

use criterion::{Criterion, criterion_group, criterion_main};
use dcbsim_core::config::{FlowKind, FlowSpec, LinkSpec, NodeKind, NodeSpec, SimConfig};
use dcbsim_core::sched::{Event, EventQueue};
use dcbsim_core::sim::Simulation;
use dcbsim_core::units::{Bytes, Rate, Time};
use std::hint::black_box;

/// A queue holding `pending` events; each step pops the earliest and pushes one later,
/// as the event loop does.
fn event_queue(c: &mut Criterion) {
    for pending in [16u64, 1024] {
        c.bench_function(&format!("event queue pop+push, {pending} pending"), |b| {
            let mut q = EventQueue::new();
            for i in 0..pending {
                q.push(Time(i * 997 % 1000), Event::PortFree { port: i as u32 });
            }
            b.iter(|| {
                let (t, e) = q.pop().unwrap();
                q.push(Time(t.0 + 1000 + (t.0 % 7)), black_box(e));
            });
        });
    }
}

/// 4,096 senders each waking every 2.6 ms, jittered by 10 %, as in the incast
/// benchmark: about 100 events wait in each bucket of the wheel when it comes up (the
/// queue cuts such a bucket into sub-buckets).
fn crowded_queue(c: &mut Criterion) {
    const GAP: u64 = 2_600_000_000;
    c.bench_function("event queue pop+push, 4096 senders 2.6 ms apart", |b| {
        let mut q = EventQueue::new();
        for i in 0..4096u64 {
            q.push(Time(i * GAP / 4096), Event::PortFree { port: i as u32 });
        }
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            let jitter = (t.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % (GAP / 5);
            q.push(Time(t.0 + GAP - GAP / 10 + jitter), black_box(e));
        });
    });
}

/// Five senders 3.2 µs apart, as in the dumbbell benchmark: each popped event comes
/// back a period later, in step (`jitter` 0: every push after the others, so it joins
/// the queue's sorted run) or with its gap jittered by up to 10 % either way (pushes
/// then come out of order about a third of the time).
fn five_senders(c: &mut Criterion) {
    const PERIOD: u64 = 3_200_000;
    for (name, jitter) in [("in step", 0), ("jittered 10 %", PERIOD / 5)] {
        c.bench_function(&format!("event queue pop+push, 5 senders {name}"), |b| {
            let mut q = EventQueue::new();
            for i in 0..5u64 {
                q.push(Time(i * PERIOD / 5), Event::LinkArrival { port: i as u32 });
            }
            b.iter(|| {
                let (t, e) = q.pop().unwrap();
                let spread = match jitter {
                    0 => 0,
                    j => (t.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) % j,
                };
                q.push(Time(t.0 + PERIOD - jitter / 2 + spread), black_box(e));
            });
        });
    }
}

/// Line-rate senders in step, as in a fat-tree's all-to-all: 1,024 events wait at 8
/// instants 800 ns apart, and each popped event comes back 6.4 µs later, at the same
/// picoseconds as others (the queue cuts such a stretch into sub-buckets and pops a
/// crowd at one instant from a sorted run).
fn lockstep_queue(c: &mut Criterion) {
    const FRAME: u64 = 800_000;
    c.bench_function("event queue pop+push, 1024 events at 8 instants", |b| {
        let mut q = EventQueue::new();
        for i in 0..1024u64 {
            q.push(Time((i % 8) * FRAME), Event::PortFree { port: i as u32 });
        }
        b.iter(|| {
            let (t, e) = q.pop().unwrap();
            q.push(Time(t.0 + 8 * FRAME), black_box(e));
        });
    });
}

/// The dumbbell_10g benchmark shape, 10 ms long.
fn dumbbell(duration: Time) -> SimConfig {
    let mut cfg = SimConfig::new(duration);
    cfg.nodes.push(NodeSpec { name: "sw0".into(), kind: NodeKind::Switch });
    cfg.nodes.push(NodeSpec { name: "r0".into(), kind: NodeKind::Host });
    let link = |a, b| LinkSpec {
        a,
        b,
        rate: Rate::from_gbps(10),
        delay: Time::from_us(1).into(),
        buffer: Bytes(131_072),
        priorities: 1,
        frame_service: None,
    };
    cfg.links.push(link(0, 1));
    for i in 0..5 {
        cfg.nodes.push(NodeSpec { name: format!("s{i}"), kind: NodeKind::Host });
        cfg.links.push(link(i + 2, 0));
        let rate = Some(Rate::from_gbps_f64(2.5));
        cfg.flows.push(FlowSpec { rate, ..FlowSpec::new(&format!("f{i}"), i + 2, 1, FlowKind::Constant) });
    }
    cfg
}

fn whole_run(c: &mut Criterion) {
    let cfg = dumbbell(Time::from_ms(10));
    c.bench_function("dumbbell_10g, 10 ms simulated", |b| b.iter(|| Simulation::new(cfg.clone(), 1).unwrap().run().events));
}

criterion_group!(benches, event_queue, crowded_queue, five_senders, lockstep_queue, whole_run);
criterion_main!(benches);
