//! What the threads of a split run share: the frames they hand each other at the
//! barrier, with their probes, the barrier itself, and each part's next event.

use crate::net::telemetry::{NO_PROBE, Probe};
use crate::packet::Packet;
use crate::units::Time;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// A frame handed over at a barrier: the crossing port it left by, when it reaches
/// the far end, the frame, and where its probe is among the [`Letters`]' probes
/// ([`NO_PROBE`]: it carries none).
#[derive(Clone, Copy, Debug)]
pub struct Mail {
    pub(super) port: u32,
    pub(super) arrival: Time,
    pub(super) pkt: Packet,
    pub(super) probe: u32,
}

/// Frames handed over, with the probes of those that carry one (a probe lives in
/// its part's arena, `net/telemetry.rs`: it travels by value, and the receiving part
/// keeps it in its own).
#[derive(Debug, Default)]
pub struct Letters {
    pub(super) mail: Vec<Mail>,
    pub(super) probes: Vec<Probe>,
}

impl Letters {
    /// Adds frame `m` and the probe it carries, if any.
    pub(super) fn post(&mut self, mut m: Mail, probe: Option<&Probe>) {
        if let Some(p) = probe {
            m.probe = self.probes.len() as u32;
            self.probes.push(*p);
        }
        self.mail.push(m);
    }

    /// Moves `other`'s letters to the end of these, leaving `other` empty: by a swap
    /// of their buffers when these are empty (the mailbox of a part that one part
    /// alone writes to, as with two), saving a copy of every frame.
    pub(super) fn take(&mut self, other: &mut Letters) {
        if self.mail.is_empty() && self.probes.is_empty() {
            std::mem::swap(self, other);
        } else {
            self.append(other);
        }
    }

    /// Moves `other`'s letters to the end of these (its room kept).
    pub(super) fn append(&mut self, other: &mut Letters) {
        let offset = self.probes.len() as u32;
        let moved = other.mail.drain(..).map(|m| Mail { probe: if m.probe == NO_PROBE { NO_PROBE } else { m.probe + offset }, ..m });
        self.mail.extend(moved);
        self.probes.append(&mut other.probes);
    }

    pub(super) fn clear(&mut self) {
        self.mail.clear();
        self.probes.clear();
    }
}

/// How long a thread spins at the barrier before it sleeps (a few µs).
const SPINS_BEFORE_SLEEP: u32 = 1 << 12;

/// How many times a thread of a run with more parts than cores gives its core up at
/// the barrier before it sleeps (a few ms when no other thread wants it).
const YIELDS_BEFORE_SLEEP: u32 = 1 << 12;

/// Threads meeting between windows: a counter each arrival adds one to, spun on (a
/// sleeping barrier costs 12-19 µs a round here, against windows of tens of µs of
/// work; docs/speed.md), and slept on only by a thread that has spun a while in vain
/// (its core is wanted elsewhere). With more threads than cores, a waiting thread
/// holds the core a part it waits for needs: it gives the core up at once instead,
/// and sleeps only after a while. Public for `--example barrier`, which measures it.
#[derive(Debug)]
pub struct Barrier {
    arrived: AtomicUsize,
    threads: usize,
    /// How a waiting thread waits before it sleeps.
    patience: Patience,
    /// A thread failed: it will not come again.
    broken: AtomicBool,
    /// Threads asleep at the barrier, and what wakes them.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

/// How a thread waits at the barrier before it sleeps: it spins, then gives its
/// core up (yields) to another thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Patience {
    /// Spins first.
    pub spins: u32,
    /// Then yields.
    pub yields: u32,
}

impl Patience {
    /// How threads wait when `threads` of them share `cores`. Threads no more than
    /// the cores spin, since the thread they wait for has a core of its own (a
    /// yield would hand theirs to any other process that wants it, for a whole
    /// time slice). More threads than cores yield, so that a part whose thread is
    /// not running gets the core (docs/speed.md has both measured).
    pub fn for_cores(threads: usize, cores: usize) -> Patience {
        if threads <= cores {
            Patience { spins: SPINS_BEFORE_SLEEP, yields: 0 }
        } else {
            Patience { spins: 0, yields: YIELDS_BEFORE_SLEEP }
        }
    }
}

/// How long a sleeper sleeps before it looks again, should a wake-up be missed.
const NAP: Duration = Duration::from_millis(1);

impl Barrier {
    /// A barrier for `threads` threads on this machine's cores.
    pub fn new(threads: usize) -> Barrier {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Barrier::waiting(threads, Patience::for_cores(threads, cores))
    }

    /// A barrier for `threads` threads that wait with `patience`.
    pub fn waiting(threads: usize, patience: Patience) -> Barrier {
        Barrier {
            arrived: AtomicUsize::new(0),
            threads,
            patience,
            broken: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// How the barrier's threads wait.
    pub fn patience(&self) -> Patience {
        self.patience
    }

    /// Waits for every thread's `round`-th arrival (rounds count from 0, each thread
    /// counting its own). Panics when a thread has [broken](Barrier::break_off) it,
    /// rather than wait for ever.
    pub fn wait(&self, round: usize) {
        let target = (round + 1) * self.threads;
        if self.arrived.fetch_add(1, Ordering::SeqCst) + 1 == target {
            self.wake_sleepers();
            return;
        }
        let Patience { spins: most_spins, yields: most_yields } = self.patience;
        let (mut spins, mut yields) = (0u32, 0u32);
        while !self.passed(target) {
            if spins < most_spins {
                spins += 1;
                std::hint::spin_loop();
            } else if yields < most_yields {
                yields += 1;
                std::thread::yield_now();
            } else {
                self.sleep_until(target);
            }
        }
    }

    /// Whether every thread has come for the round that ends at `target` arrivals
    /// (panics when the barrier is broken).
    fn passed(&self, target: usize) -> bool {
        if self.broken.load(Ordering::SeqCst) {
            panic!("another part of the run failed");
        }
        self.arrived.load(Ordering::SeqCst) >= target
    }

    /// More threads than free cores: a spinner would hold the core the thread it waits
    /// for needs (a yielding one as well, under load), so after a while it sleeps
    /// until the last thread comes.
    fn sleep_until(&self, target: usize) {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        while !self.passed_or_broken(target) {
            guard = self.wake.wait_timeout(guard, NAP).unwrap_or_else(|e| e.into_inner()).0;
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }

    fn passed_or_broken(&self, target: usize) -> bool {
        self.broken.load(Ordering::SeqCst) || self.arrived.load(Ordering::SeqCst) >= target
    }

    /// The last thread of a round wakes those that went to sleep waiting for it.
    fn wake_sleepers(&self) {
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
    }

    /// A thread fails and will not come again: the others stop waiting.
    pub fn break_off(&self) {
        self.broken.store(true, Ordering::SeqCst);
        self.wake_sleepers();
    }
}

/// Breaks the barrier if its thread unwinds (a part that panics must not leave the
/// others spinning).
pub(super) struct BreakOnPanic<'a>(pub(super) &'a Barrier);

impl Drop for BreakOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.break_off();
        }
    }
}

/// What the threads share, twice over (a window writes the set of its parity, which
/// no thread reads again before the next barrier but one): a mailbox per part, and
/// each part's next event after the window (its own, or a frame it sent across).
pub(super) struct Exchange {
    pub(super) mailboxes: [Vec<Mutex<Letters>>; 2],
    pub(super) next: [Vec<Padded>; 2],
    /// Per part, when the first frame it holds back arrives.
    pub(super) held: [Vec<Padded>; 2],
    pub(super) barrier: Barrier,
    /// The simulated time every part has reached (the first part's window ends).
    pub(super) reached: AtomicU64,
    /// The watcher asks the run to stop.
    pub(super) stop: AtomicBool,
    /// Whether the parts stop after a window's barrier: the first part's reading of
    /// `stop` before it, which every part reads after it (so they stop together).
    pub(super) halting: [AtomicBool; 2],
    /// The parts stopped before the run's end.
    pub(super) halted: AtomicBool,
    /// The thread that watches, woken when a part ends.
    pub(super) watcher: Option<std::thread::Thread>,
    /// Where the parts' streamed samples are put together, if they stream.
    pub(super) streamer: Option<Mutex<super::stream::Streamer>>,
}

/// An atomic on a cache line of its own: parts write theirs at every window, and
/// neighbours on one line would take it from each other.
#[repr(align(64))]
pub(super) struct Padded(pub(super) AtomicU64);

impl Exchange {
    pub(super) fn new(parts: usize) -> Exchange {
        let mailboxes = || (0..parts).map(|_| Mutex::new(Letters::default())).collect();
        let next = || (0..parts).map(|_| Padded(AtomicU64::new(u64::MAX))).collect();
        Exchange {
            mailboxes: [mailboxes(), mailboxes()],
            next: [next(), next()],
            held: [next(), next()],
            barrier: Barrier::new(parts),
            reached: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            halting: [AtomicBool::new(false), AtomicBool::new(false)],
            halted: AtomicBool::new(false),
            watcher: None,
            streamer: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_that_fails_breaks_the_barrier_for_the_others() {
        let barrier = Barrier::new(2);
        let waited = std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                barrier.wait(0);
                barrier.wait(1);
            });
            let failing = s.spawn(|| {
                let _guard = BreakOnPanic(&barrier);
                barrier.wait(0);
                panic!("a part fails");
            });
            assert!(failing.join().is_err());
            waiter.join()
        });
        let message = waited.expect_err("the waiter stops waiting").downcast::<&str>().expect("a message");
        assert_eq!(*message, "another part of the run failed");
    }

    #[test]
    fn threads_beyond_the_cores_give_theirs_up_where_the_others_spin() {
        for (threads, cores) in [(2, 2), (1, 8), (8, 8)] {
            let p = Patience::for_cores(threads, cores);
            assert!(p.spins > 0 && p.yields == 0, "{threads} threads on {cores} cores: {p:?}");
        }
        for (threads, cores) in [(3, 2), (16, 2), (2, 1)] {
            let p = Patience::for_cores(threads, cores);
            assert!(p.spins == 0 && p.yields > 0, "{threads} threads on {cores} cores: {p:?}");
        }
    }

    #[test]
    fn threads_waiting_any_way_pass_each_round_together() {
        let ways = [Patience::for_cores(5, 5), Patience::for_cores(5, 1), Patience { spins: 0, yields: 0 }];
        for patience in ways {
            let (threads, rounds) = (5, 300);
            let barrier = Barrier::waiting(threads, patience);
            let arrivals = AtomicUsize::new(0);
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|| {
                        for round in 0..rounds {
                            arrivals.fetch_add(1, Ordering::SeqCst);
                            barrier.wait(round);
                            // Nobody passes before everyone has come.
                            assert!(arrivals.load(Ordering::SeqCst) >= (round + 1) * threads, "{patience:?}");
                        }
                    });
                }
            });
            assert_eq!(arrivals.into_inner(), threads * rounds);
        }
    }
}
