//! The event queue's heaps (the current stretch and the far events): sorted runs of
//! packed events keyed by (time, packed event), beside binary min-heaps for the
//! events pushed out of order.

use super::network;

/// An event waiting outside the heap: its time and its packed form.
pub(super) type Pending = (u64, u64);

/// One pending event: its time and its key, which orders events due at the same
/// time (see `sched/mod.rs`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// Picoseconds.
    pub time: u64,
    /// The event's key (its packed form, scrambled: see `Event::key`).
    pub event: u64,
}

impl Entry {
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        (self.time, self.event) < (other.time, other.event)
    }
}

impl From<Pending> for Entry {
    #[inline(always)]
    fn from((time, event): Pending) -> Entry {
        Entry { time, event }
    }
}

/// The most entries of equal times ordered by insertion or a network (more take a
/// library sort).
const SORT_BY_INSERTION_UP_TO: usize = network::MOST;

/// Sorts a few `entries` by (time, key) by insertion.
#[inline]
fn insertion_sort(entries: &mut [Entry]) {
    for i in 1..entries.len() {
        let entry = entries[i];
        let mut hole = i;
        while hole > 0 && entry.before(&entries[hole - 1]) {
            entries[hole] = entries[hole - 1];
            hole -= 1;
        }
        entries[hole] = entry;
    }
}

/// Sorts `ties`, entries of one time, by key, a digit at a time over the span of bits
/// in which their keys differ, in as few passes of at most 8 bits as cover it, the
/// digits as narrow as they can then be. A fabric phase-locked at its NICs makes groups
/// of a hundred link arrivals due together every few hundred nanoseconds, whose salted
/// keys come in no order: a comparison sort mispredicted about every other comparison
/// there. Their keys differ in about 10 bits (the port): two passes of 5 bits count
/// into 32 slots where whole bytes counted into 256, which cost more than the events.
fn radix_sort(ties: &mut [Entry], scratch: &mut Vec<Entry>) {
    let first = ties[0].event;
    let differ = ties.iter().fold(0, |acc, e| acc | (e.event ^ first));
    if differ == 0 {
        return;
    }
    let low = differ.trailing_zeros();
    let span = 64 - differ.leading_zeros() - low;
    let passes = span.div_ceil(8);
    let width = span.div_ceil(passes);
    let slots = 1usize << width;
    let n = ties.len();
    if scratch.len() < n {
        scratch.resize(n, Entry { time: 0, event: 0 });
    }
    let (mut from, mut to): (&mut [Entry], &mut [Entry]) = (ties, &mut scratch[..n]);
    let mut counts = [0u32; 256];
    for pass in 0..passes {
        let shift = low + pass * width;
        let digit = |e: &Entry| ((e.event >> shift) as usize) & (slots - 1);
        let start = &mut counts[..slots];
        start.fill(0);
        for e in from.iter() {
            start[digit(e)] += 1;
        }
        let mut sum = 0;
        for slot in start.iter_mut() {
            (*slot, sum) = (sum, sum + *slot);
        }
        for e in from.iter() {
            let slot = &mut start[digit(e)];
            to[*slot as usize] = *e;
            *slot += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    if passes % 2 == 1 {
        to.copy_from_slice(from);
    }
}

/// Sorts `entries` by (time, key) as one 128-bit number: one comparison where a
/// pair took two, and a branch.
#[inline]
fn sort_by_key(entries: &mut [Entry]) {
    entries.sort_unstable_by_key(|e| ((e.time as u128) << 64) | e.event as u128);
}

/// A run of more entries than this, poured out of order, is sorted by
/// [`sort_by_slots`].
const SORT_BY_SLOTS_ABOVE: usize = 32;

/// Slots of [`sort_by_slots`].
const SLOTS: usize = 64;

/// Sorts `entries` by (time, key) into `sorted` (which it fills with them): counted
/// into 64 slots of equal spans of time between the first and the last, placed slot
/// after slot, then each slot sorted on its own (by insertion where it holds a few).
/// A crowded stretch of a fabric comes in no order, in groups of events due together:
/// a comparison sort of the whole mispredicted its way through it.
fn sort_by_slots(entries: &[Entry], sorted: &mut Vec<Entry>) {
    let (first, last) = entries.iter().fold((u64::MAX, 0), |(lo, hi), e| (lo.min(e.time), hi.max(e.time)));
    let shift = (u64::BITS - (last - first).leading_zeros()).saturating_sub(SLOTS.trailing_zeros());
    let slot = |e: &Entry| ((e.time - first) >> shift) as usize;
    let mut ends = [0u32; SLOTS];
    // The slots that hold an entry (a crowded stretch of a fabric fills a few of
    // the 64: only those are added up and sorted).
    let mut occupied = 0u64;
    for e in entries {
        let s = slot(e);
        ends[s] += 1;
        occupied |= 1 << s;
    }
    let mut sum = 0;
    for s in ones(occupied) {
        sum += ends[s];
        ends[s] = sum;
    }
    // Every place is written below: room kept from before is not cleared first.
    sorted.resize(entries.len(), Entry { time: 0, event: 0 });
    let mut next = ends;
    for e in entries.iter().rev() {
        let at = &mut next[slot(e)];
        *at -= 1;
        sorted[*at as usize] = *e;
    }
    let mut from = 0;
    for s in ones(occupied) {
        let end = ends[s] as usize;
        let slot = &mut sorted[from..end];
        if slot.len() > SORT_BY_INSERTION_UP_TO {
            sort_by_key(slot);
        } else if slot.len() > 1 && !sort_ties(slot) {
            insertion_sort(slot);
        }
        from = end;
    }
}

/// The places of the bits set in `bits`, lowest first.
#[inline(always)]
fn ones(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let at = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            at
        })
    })
}

/// Sorts a few entries (at most [`SORT_BY_INSERTION_UP_TO`]) by key with a sorting
/// network (`network.rs`) if they are ties, entries of one time, and returns whether
/// they were (and are now sorted). A network is a fixed sequence of compare-exchanges,
/// each a minimum and a maximum and no branch on the keys, which a fabric's salted
/// keys, in random order, mispredicted about every other time.
#[inline]
fn sort_ties(entries: &mut [Entry]) -> bool {
    let mut keys = [0u64; SORT_BY_INSERTION_UP_TO];
    let time = entries[0].time;
    let mut ties = true;
    for (key, e) in keys.iter_mut().zip(entries.iter()) {
        *key = e.event;
        ties &= e.time == time;
    }
    if !ties {
        return false;
    }
    network::sort_first(&mut keys, entries.len());
    for (e, &key) in entries.iter_mut().zip(keys.iter()) {
        e.event = key;
    }
    true
}

/// A stretch poured at once whose events after the first few come in time order
/// puts at most this many first ones in the heap (see [`Heap::fill`]).
const HEAP_UP_TO: usize = 2;

/// A stretch of at most this many events is poured by insertion into the run.
const SORT_UP_TO: usize = 4;

/// While fewer entries than this are live in the run and the heap is empty, an entry
/// pushed out of order is inserted into the run rather than heaped (a few moves near
/// its back, where jittered senders' next events land).
const INSERT_BELOW: usize = 16;

/// A run whose popped front reaches this many entries (and half its length) is
/// compacted before an insertion.
const COMPACT_AT: usize = 256;

/// A sorted run of entries popped from its front, beside a binary min-heap of 16-byte
/// entries ordered by (time, event) for what cannot join the run cheaply; the earlier of
/// the two fronts pops first.
///
/// Events mostly come in time order (each sender's next frame after the others'
/// frames): those entries join the run at its back and pop without a comparison,
/// where each pop from a heap of five sifts through two levels. A stretch poured at once becomes
/// the run, sorted if it comes out of order, but for a few early pushes that lie
/// later than the rest, which wait in the heap. The heap is sifted by moving a hole
/// rather than by swaps (a 4-ary heap and an unordered array with a linear scan were
/// both slower where a few dozen events are pending; docs/speed.md).
#[derive(Debug, Default)]
pub(super) struct Heap {
    heap: Vec<Entry>,
    /// Entries sorted by (time, event), popped from `run_next` on (empty once all have
    /// popped).
    run: Vec<Entry>,
    run_next: usize,
    /// Entries pushed before the run's last one, counted (the queue reads this to
    /// choose how to pour a crowded bucket).
    pub out_of_order: u64,
    /// Room for [`radix_sort`] (kept for its capacity).
    scratch: Vec<Entry>,
}

impl Heap {
    /// Adds `entry`: at the run's back when it comes after the run's last entry (or
    /// nothing is in the run); among the run's last entries when it ties with the last
    /// one but its key puts it first; else inserted into a short run when the heap is
    /// empty, or into the heap.
    #[inline(always)]
    pub fn push(&mut self, entry: Entry) {
        match self.run.last() {
            Some(last) if entry.before(last) => match entry.time == last.time {
                true => self.push_tie(entry.time, entry.event),
                false => self.push_out_of_order(entry.time, entry.event),
            },
            _ => self.run.push(entry),
        }
    }

    /// Adds an entry due before the run's last entry (out of line: only events out of
    /// order come here). Its fields come apart: an entry passed whole went through the
    /// stack, and the hot path's append then reloaded it with one wide load from two
    /// narrower stores, which the processor cannot forward (the profile's hottest
    /// instruction of the send; 1.3 M fewer instructions per 200 ms of the dumbbell
    /// without it, no wall-time change measurable here).
    #[inline(never)]
    fn push_out_of_order(&mut self, time: u64, event: u64) {
        self.out_of_order += 1;
        let entry = Entry { time, event };
        if !self.heap.is_empty() || self.run.len() - self.run_next >= INSERT_BELOW {
            return self.push_heap(entry);
        }
        if self.run_next >= COMPACT_AT && 2 * self.run_next >= self.run.len() {
            self.run.drain(..self.run_next);
            self.run_next = 0;
        }
        self.insert_in_run(entry);
    }

    /// Adds an entry due with the run's last one whose key puts it first (phase-locked
    /// senders' frames reach a port together, pushed one by one): inserted among the
    /// run's last entries due then where a short run and an empty heap would take an
    /// entry pushed out of order, else heaped. Not counted as out of order, as it says
    /// nothing of how a bucket is pushed into as it pops. Out of line, and calling
    /// nothing when it inserts, so saving no registers (three fifths of the
    /// instructions of an insertion through [`Heap::push_out_of_order`], whose other
    /// paths need them).
    #[inline(never)]
    fn push_tie(&mut self, time: u64, event: u64) {
        if !self.heap.is_empty() || self.run.len() - self.run_next >= INSERT_BELOW || self.run.len() == self.run.capacity() {
            return self.push_tie_aside(time, event);
        }
        let last = *self.run.last().expect("a tie has a last entry");
        self.insert_tie(Entry { time, event }, last);
    }

    /// [`Heap::push_tie`] into the heap, or where the run must grow first.
    #[inline(never)]
    fn push_tie_aside(&mut self, time: u64, event: u64) {
        let entry = Entry { time, event };
        if !self.heap.is_empty() || self.run.len() - self.run_next >= INSERT_BELOW {
            return self.push_heap(entry);
        }
        self.run.reserve(1);
        let last = *self.run.last().expect("a tie has a last entry");
        self.insert_tie(entry, last);
    }

    /// Puts `entry` into the run at its place among the entries not popped yet,
    /// moving the later ones back (a few, near the back).
    #[inline(always)]
    fn insert_in_run(&mut self, entry: Entry) {
        let mut hole = self.run.len();
        self.run.push(entry);
        while hole > self.run_next && entry.before(&self.run[hole - 1]) {
            self.run[hole] = self.run[hole - 1];
            hole -= 1;
        }
        self.run[hole] = entry;
    }

    /// Puts `entry`, due with the run's last entry `last` and before it, among the
    /// run's entries due then: `last` moves back without a second comparison.
    #[inline(always)]
    fn insert_tie(&mut self, entry: Entry, last: Entry) {
        let mut hole = self.run.len() - 1;
        self.run.push(last);
        while hole > self.run_next && entry.before(&self.run[hole - 1]) {
            self.run[hole] = self.run[hole - 1];
            hole -= 1;
        }
        self.run[hole] = entry;
    }

    /// Adds `entry` to the heap.
    #[inline(always)]
    fn push_heap(&mut self, entry: Entry) {
        let mut hole = self.heap.len();
        self.heap.push(entry);
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if !entry.before(&self.heap[parent]) {
                break;
            }
            self.heap[hole] = self.heap[parent];
            hole = parent;
        }
        self.heap[hole] = entry;
    }

    /// The earliest entry.
    #[inline]
    pub fn peek(&self) -> Option<&Entry> {
        self.run_front().or(self.heap.first())
    }

    /// The run's front, if a run is being popped and its front comes before the
    /// heap's top.
    #[inline(always)]
    fn run_front(&self) -> Option<&Entry> {
        let first = self.run.get(self.run_next)?;
        self.heap.first().is_none_or(|top| first.before(top)).then_some(first)
    }

    /// Removes and returns the earliest entry.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Entry> {
        self.pop_through(u64::MAX)
    }

    /// Removes and returns the earliest entry if it is due at `last` or before.
    #[inline(always)]
    pub fn pop_through(&mut self, last: u64) -> Option<Entry> {
        if !self.run.is_empty() {
            if let Some(&first) = self.run_front() {
                if first.time > last {
                    return None;
                }
                self.run_next += 1;
                if self.run_next == self.run.len() {
                    self.run.clear();
                    self.run_next = 0;
                }
                return Some(first);
            }
        }
        if self.heap.first()?.time > last {
            return None;
        }
        let last = self.heap.pop()?;
        let Some(&top) = self.heap.first() else {
            return Some(last);
        };
        Self::sift_down(&mut self.heap, 0, last);
        Some(top)
    }

    /// Puts `entry` into the hole at `hole`, moving smaller children up.
    #[inline(always)]
    fn sift_down(heap: &mut [Entry], mut hole: usize, entry: Entry) {
        let len = heap.len();
        let mut child = 2 * hole + 1;
        while child + 1 < len {
            if heap[child + 1].before(&heap[child]) {
                child += 1;
            }
            if !heap[child].before(&entry) {
                break;
            }
            heap[hole] = heap[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child + 1 == len && heap[child].before(&entry) {
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = entry;
    }

    /// Adds the events `events` to an empty heap at once. Those after the first
    /// [`HEAP_UP_TO`] or
    /// fewer, if in time order, become the run and the first ones go to the heap (an
    /// event pushed long before the others, as a sample is, comes first and lies later
    /// than the rest); otherwise they all become the run, sorted. (Heaped whole when
    /// out of order, up to 32 of them, a stretch kept the heap: each out-of-order push
    /// while it held entries went to it, and every pop sifted: sixteen incast senders,
    /// whose 67 µs buckets come up a dozen events deep and jittered, cost 57 ns per
    /// event against 50.6 now, and the k = 8 fat-tree under PFC 0.77 s against 0.68.)
    pub fn fill(&mut self, events: &[Pending]) {
        debug_assert_eq!(self.len(), 0);
        if events.len() <= SORT_UP_TO {
            return self.fill_few(events);
        }
        let in_order = events.windows(2).rev().take_while(|w| w[0].0 <= w[1].0).count() + 1;
        let ahead = events.len() - in_order;
        if ahead > HEAP_UP_TO {
            self.run.extend(events.iter().map(|&e| Entry::from(e)));
            return self.sort_run();
        }
        let mut entries = events.iter().map(|&e| Entry::from(e));
        for entry in entries.by_ref().take(ahead) {
            self.push_heap(entry);
        }
        self.run.extend(entries);
        self.order_ties();
    }

    /// Orders by key the entries of the run (in time order) due together, each group
    /// of equal times on its own (a group of hundreds, as a fabric's flows starting
    /// together make, takes the library's sort).
    #[inline]
    fn order_ties(&mut self) {
        let run = &mut self.run[self.run_next..];
        let mut from = 0;
        while from + 1 < run.len() {
            let time = run[from].time;
            if run[from + 1].time != time {
                from += 1;
                continue;
            }
            let to = from + run[from..].iter().take_while(|e| e.time == time).count();
            let ties = &mut run[from..to];
            if ties.len() > SORT_BY_INSERTION_UP_TO {
                radix_sort(ties, &mut self.scratch);
            } else {
                insertion_sort(ties);
            }
            from = to;
        }
    }

    /// [`Heap::fill`] of at most [`SORT_UP_TO`] events: sorted into the run as they
    /// come (a sparse cut's sub-buckets, one or two events each, skip the check of
    /// their order and the heap).
    #[inline]
    fn fill_few(&mut self, events: &[Pending]) {
        for &e in events {
            self.insert_in_run(Entry::from(e));
        }
    }

    /// The time and key of the event `d` places behind the run's front, if the run
    /// holds one.
    #[inline(always)]
    pub fn run_ahead(&self, d: usize) -> Option<Pending> {
        self.run.get(self.run_next + d).map(|e| (e.time, e.event))
    }

    /// Appends events that come after every entry held, in (time, event) order, to
    /// the run of an empty heap.
    #[inline]
    pub fn extend_run(&mut self, events: &[Pending]) {
        debug_assert!(self.heap.is_empty());
        debug_assert!(events.windows(2).all(|w| w[0] <= w[1]));
        self.run.extend(events.iter().map(|&e| Entry::from(e)));
    }

    /// Whether a sorted run is being popped.
    #[cfg(test)]
    pub fn runs(&self) -> bool {
        !self.run.is_empty()
    }

    /// Whether no entry is held.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.run.is_empty()
    }

    /// Sorts the run of a stretch poured at once out of time order (out of line: a
    /// stretch poured in order, the common case, does not come here): a few by the
    /// library's sort, more by [`sort_by_slots`] (a k = 16 fabric sorts most of its
    /// events here, docs/speed.md).
    #[inline(never)]
    fn sort_run(&mut self) {
        debug_assert_eq!(self.run_next, 0);
        if self.run.len() <= SORT_BY_SLOTS_ABOVE {
            return sort_by_key(&mut self.run);
        }
        sort_by_slots(&self.run, &mut self.scratch);
        std::mem::swap(&mut self.run, &mut self.scratch);
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len() + self.run.len() - self.run_next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Pushes (at `ahead` of the last time popped, give or take `spread`) and pops at
    /// random, against a sorted set: every pop must agree. Returns whether entries
    /// went to the heap, were inserted into the run, and whether the run was compacted.
    fn agrees_with_a_sorted_set(seed: u64, ahead: u64, spread: u64, pops: f64) -> (bool, bool, bool) {
        let mut rng = crate::rng::Rng::stream(seed, "run");
        let (mut heap, mut set) = (Heap::default(), BTreeSet::new());
        let (mut seq, mut now) = (0u64, 0u64);
        let (mut heaped, mut inserted, mut compacted) = (false, false, false);
        for _ in 0..20_000 {
            if rng.chance(pops) {
                let popped = heap.pop().map(|e| (e.time, e.event));
                assert_eq!(popped, set.pop_first());
                now = popped.map_or(now, |(t, _)| t);
            } else {
                let time = now + ahead + rng.next_u64() % (spread + 1);
                let (run_len, run_next) = (heap.run.len(), heap.run_next);
                let out_of_order = heap.run.last().is_some_and(|last| time < last.time);
                heap.push(Entry { time, event: seq });
                set.insert((time, seq));
                seq += 1;
                heaped |= !heap.heap.is_empty();
                inserted |= out_of_order && heap.run.len() == run_len + 1;
                compacted |= heap.run_next < run_next;
            }
            assert_eq!(heap.len(), set.len());
        }
        while let Some(e) = heap.pop() {
            assert_eq!(Some((e.time, e.event)), set.pop_first());
        }
        assert!(set.is_empty());
        (heaped, inserted, compacted)
    }

    #[test]
    fn in_order_pushes_stay_in_the_run() {
        let (heaped, inserted, _) = agrees_with_a_sorted_set(1, 1000, 0, 0.5);
        assert!(!heaped && !inserted);
    }

    #[test]
    fn jittered_pushes_are_inserted_or_heaped_and_pop_in_order() {
        let (heaped, inserted, compacted) = agrees_with_a_sorted_set(2, 1000, 400, 0.5);
        assert!(heaped && inserted && compacted, "{heaped} {inserted} {compacted}");
        agrees_with_a_sorted_set(3, 0, 5, 0.3);
        agrees_with_a_sorted_set(4, 0, 1 << 20, 0.6);
    }

    #[test]
    fn ties_pushed_in_any_key_order_pop_sorted() {
        // Few distinct times, keys at random: most pushes tie with the run's last entry,
        // half of them before it; some come earlier still (into the heap or the run).
        let mut rng = crate::rng::Rng::stream(12, "ties");
        let (mut heap, mut set) = (Heap::default(), BTreeSet::new());
        let mut now = 0u64;
        let mut tied = false;
        for _ in 0..20_000 {
            if rng.chance(0.4) {
                let popped = heap.pop().map(|e| (e.time, e.event));
                assert_eq!(popped, set.pop_first());
                now = popped.map_or(now, |(t, _)| t);
            } else {
                let time = now + rng.next_u64() % 3;
                let event = rng.next_u64();
                tied |= heap.run.last().is_some_and(|last| last.time == time && event < last.event);
                heap.push(Entry { time, event });
                set.insert((time, event));
            }
            assert_eq!(heap.len(), set.len());
        }
        while let Some(e) = heap.pop() {
            assert_eq!(Some((e.time, e.event)), set.pop_first());
        }
        assert!(tied && set.is_empty());
    }

    #[test]
    fn crowds_of_few_or_many_times_pop_in_time_then_event_order() {
        let mut rng = crate::rng::Rng::stream(9, "crowd");
        let mut heap = Heap::default();
        for (size, times) in [(33, 1), (40, 2), (42, 4), (133, 6), (200, 16), (200, 17), (500, 300), (64, 64)] {
            // Times in runs, as a crowd comes: each run a random one of `times` values.
            let mut events: Vec<Pending> = Vec::new();
            // Events of equal times are pushed in no particular order of their own.
            while events.len() < size {
                let time = 1000 + 7 * (rng.next_u64() % times);
                for _ in 0..1 + rng.next_u64() % 5 {
                    events.push((time, rng.next_u64() % 1000));
                }
            }
            events.truncate(size);
            heap.fill(&events);
            let mut expected = events.clone();
            expected.sort();
            let popped: Vec<(u64, u64)> = std::iter::from_fn(|| heap.pop()).map(|e| (e.time, e.event)).collect();
            assert_eq!(popped, expected, "{size} events at {times} times");
        }
    }

    #[test]
    fn sorting_by_slots_agrees_with_a_sort_of_the_whole() {
        let mut rng = crate::rng::Rng::stream(13, "slots");
        let mut sorted = Vec::new();
        // (entries, span of their times, distinct keys): one time, fewer times than
        // slots, times on a lattice with ties of a dozen, spans up to the whole range.
        let cases = [
            (40, 0, 1000),
            (33, 5, 4),
            (75, 16_383, 1 << 20),
            (100, 63, 2),
            (64, 64, 1 << 40),
            (300, 1_000_000, 50),
            (50, u64::MAX, u64::MAX),
        ];
        for (n, span, keys) in cases {
            let lattice = (span / 10).max(1);
            let entries: Vec<Entry> = (0..n)
                .map(|i| {
                    let offset = match i % 3 {
                        0 => rng.next_u64() % span.saturating_add(1).max(1),
                        _ => (rng.next_u64() % 10) * lattice,
                    };
                    let time = if span == u64::MAX && i < 2 { [0, u64::MAX][i] } else { offset.min(span) };
                    Entry { time, event: rng.next_u64() % keys }
                })
                .collect();
            sort_by_slots(&entries, &mut sorted);
            let mut expected: Vec<(u64, u64)> = entries.iter().map(|e| (e.time, e.event)).collect();
            expected.sort_unstable();
            let got: Vec<(u64, u64)> = sorted.iter().map(|e| (e.time, e.event)).collect();
            assert_eq!(got, expected, "{n} entries over {span} ps");
        }
    }

    #[test]
    fn radix_sort_orders_ties_whatever_bits_their_keys_differ_in() {
        let mut rng = crate::rng::Rng::stream(11, "radix");
        let mut scratch = Vec::new();
        let masks = [
            (17, u64::MAX),
            (100, 0xff << 40),
            (256, 0x0fff_0000_0000_00f0),
            (33, 1 << 63),
            (20, 0),
            (120, 0x3ff << 32),
            (40, 0x1ff << 35),
            (60, 0xf << 60 | 0x3ff << 32),
        ];
        for (n, mask) in masks {
            let base = rng.next_u64() & !mask;
            let mut ties: Vec<Entry> = (0..n).map(|_| Entry { time: 9, event: base | (rng.next_u64() & mask) }).collect();
            let mut expected: Vec<u64> = ties.iter().map(|e| e.event).collect();
            expected.sort_unstable();
            radix_sort(&mut ties, &mut scratch);
            assert_eq!(ties.iter().map(|e| e.event).collect::<Vec<_>>(), expected, "{n} keys, mask {mask:x}");
        }
    }

    #[test]
    fn a_crowd_filled_out_of_order_pops_sorted() {
        let mut heap = Heap::default();
        let events: Vec<Pending> = [(5u64, 0u64), (3, 2), (3, 1), (9, 3), (1, 4)].to_vec();
        heap.fill(&events);
        let popped: Vec<(u64, u64)> = std::iter::from_fn(|| heap.pop()).map(|e| (e.time, e.event)).collect();
        assert_eq!(popped, vec![(1, 4), (3, 1), (3, 2), (5, 0), (9, 3)]);
    }

    /// A heap filled with events at `times` (each event its index).
    fn filled(times: &[u64]) -> Heap {
        let mut heap = Heap::default();
        let events: Vec<Pending> = times.iter().zip(0..).map(|(&t, e)| (t, e)).collect();
        heap.fill(&events);
        heap
    }

    #[test]
    fn a_stretch_poured_out_of_order_becomes_the_sorted_run() {
        let mut heap = filled(&[50, 30, 90, 10, 70, 20]);
        assert!(heap.heap.is_empty());
        assert!(heap.run.windows(2).all(|w| w[0].before(&w[1])));
        // A push out of order then goes into the run too, not to a heap of its own.
        heap.push(Entry { time: 60, event: 6 });
        assert!(heap.heap.is_empty());
        let popped: Vec<u64> = std::iter::from_fn(|| heap.pop()).map(|e| e.time).collect();
        assert_eq!(popped, vec![10, 20, 30, 50, 60, 70, 90]);
    }

    #[test]
    fn a_few_early_pushes_lying_later_wait_in_the_heap() {
        // A sample pushed long before (at 95), then arrivals in time order.
        let mut heap = filled(&[95, 10, 20, 20, 40, 50]);
        assert_eq!((heap.heap.len(), heap.run.len()), (1, 5));
        // Later arrivals still join the run's back.
        heap.push(Entry { time: 60, event: 6 });
        assert_eq!((heap.heap.len(), heap.run.len(), heap.out_of_order), (1, 6, 0));
        let popped: Vec<(u64, u64)> = std::iter::from_fn(|| heap.pop()).map(|e| (e.time, e.event)).collect();
        assert_eq!(popped, vec![(10, 1), (20, 2), (20, 3), (40, 4), (50, 5), (60, 6), (95, 0)]);
    }
}
