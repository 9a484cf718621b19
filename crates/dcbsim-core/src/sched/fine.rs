//! The current bucket cut finer: a bucket that reaches the wheel's turn with many
//! events (thousands of senders, each waking every few milliseconds, put dozens in
//! every 67 µs bucket; a fat-tree's thousands of flows, hundreds every microsecond)
//! is spread over sub-buckets, and the heap takes one sub-bucket at a time. The heap
//! then stays a few events deep however many are pending, where pouring the whole
//! bucket made every pop sift through dozens of entries in an order no branch
//! predictor can guess.
//!
//! A dense stream of events (more than [`DENSE_ABOVE`] to a bucket, 32 a
//! microsecond) is cut into 4,096 sub-buckets of 16 ns, a sparser one into 64 of
//! 1 µs. A fabric's sub-buckets of 16 ns then hold a few dozen events each, and each
//! event is placed once before it reaches the heap, where 1 µs sub-buckets cut again
//! into 16 ns ones when crowded placed it twice (docs/speed.md); a dumbbell's 1 µs
//! sub-buckets hold a few events each, where 16 ns ones would pour one at a time. An
//! occupancy bit per sub-bucket and one per word of them find the next sub-bucket to
//! pour in two steps.
//!
//! Order is kept exactly: every event in the heap lies in an earlier sub-bucket than
//! any still waiting here (a push into the sub-bucket last poured, or before it, goes
//! to the heap), and a sub-bucket is poured only into an empty heap, which orders it
//! by (time, key).
//!
//! A crowded bucket may instead be sorted whole into the heap's run
//! ([`Fine::sort_into`]): its events are placed group after group (64 groups of
//! 1 µs) in one buffer, then each group sorted by (time, key), so the run pops in that
//! order.

use super::heap::{Heap, Pending};

/// The most events sorted by insertion (more take a library sort).
const SORT_BY_INSERTION_UP_TO: usize = 16;

/// Sorts `events` by (time, key): by insertion where few, by the library's stable
/// sort (which finds the runs of events that come almost in order) where many.
#[inline]
fn sort_by_time(events: &mut [Pending]) {
    if events.len() > SORT_BY_INSERTION_UP_TO {
        events.sort();
    } else {
        sort_by_insertion(events);
    }
}

/// Sorts `events` by (time, key) by insertion.
#[inline]
fn sort_by_insertion(events: &mut [Pending]) {
    for i in 1..events.len() {
        let e = events[i];
        let mut hole = i;
        while hole > 0 && events[hole - 1] > e {
            events[hole] = events[hole - 1];
            hole -= 1;
        }
        events[hole] = e;
    }
}

/// Sub-buckets per bucket of a dense stream.
const SUBS: u32 = 4096;

/// Sub-buckets per bucket of a sparse stream.
const SPARSE_SUBS: u32 = 64;

/// A bucket of a stream of more events than this (those it holds when the wheel
/// reaches it and those pushed into the cut before it) is cut into 16 ns
/// sub-buckets.
pub(super) const DENSE_ABOVE: u64 = 2048;

/// Groups of sub-buckets a bucket sorted whole is counted into ([`Fine::sort_into`]):
/// counting into all 4,096 would cost more than the dozens of events of an incast's
/// bucket.
const GROUPS: usize = 64;

/// One bit per sub-bucket, whether it holds an event, and one per word of them,
/// whether it is non-zero.
#[derive(Debug)]
struct Occupied {
    words: [u64; SUBS as usize / 64],
    summary: u64,
}

impl Occupied {
    const EMPTY: Occupied = Occupied { words: [0; SUBS as usize / 64], summary: 0 };

    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.summary == 0
    }

    #[inline(always)]
    fn set(&mut self, sub: u32) {
        self.words[sub as usize / 64] |= 1 << (sub % 64);
        self.summary |= 1 << (sub / 64);
    }

    #[inline(always)]
    fn clear(&mut self, sub: u32) {
        let w = sub as usize / 64;
        self.words[w] &= !(1 << (sub % 64));
        if self.words[w] == 0 {
            self.summary &= !(1 << w);
        }
    }

    /// The first sub-bucket holding an event; the set must not be empty.
    #[inline(always)]
    fn first(&self) -> u32 {
        let w = self.summary.trailing_zeros();
        w * 64 + self.words[w as usize].trailing_zeros()
    }
}

/// A bucket poured with more events than this is cut into sub-buckets; a smaller
/// one goes to the heap whole, as cutting it would cost more than sifting it.
pub(super) const CUT_ABOVE: usize = 16;

/// The sub-buckets of the current bucket, while it is cut.
#[derive(Debug)]
pub(super) struct Fine {
    /// The sub-buckets, none until a bucket is first cut (a run whose buckets are
    /// never crowded, or a part's emptied queue, holds no room for 4,096 of them).
    subs: Vec<Vec<Pending>>,
    /// The vectors of sub-buckets poured, emptied with their room kept, for the next
    /// sub-buckets to fill: a few vectors' room, warm in the cache, rather than every
    /// sub-bucket's (a k = 16 fabric's 1 µs sub-buckets came to 74 KB each, touched
    /// once a bucket).
    spare: Vec<Vec<Pending>>,
    /// The buffer [`Fine::sort_into`] sorts in (kept for its room).
    sorted: Vec<Pending>,
    /// Which sub-buckets hold events.
    occupied: Occupied,
    /// The absolute number of the bucket cut (`u64::MAX`: none).
    bucket: u64,
    /// The first sub-bucket not yet poured: a push before it goes to the heap.
    open_from: u32,
    /// Bits of the time below a sub-bucket's number, in the bucket cut.
    shift: u32,
    /// The bits of a sub-bucket's number, in the bucket cut.
    sub_mask: u64,
    /// Bits of the time below a bucket's number.
    bucket_shift: u32,
}

impl Fine {
    /// No bucket cut, for buckets of 2^`bucket_shift` ps.
    pub fn new(bucket_shift: u32) -> Fine {
        Fine {
            subs: Vec::new(),
            spare: Vec::new(),
            sorted: Vec::new(),
            occupied: Occupied::EMPTY,
            bucket: u64::MAX,
            open_from: 0,
            shift: bucket_shift - SUBS.trailing_zeros(),
            sub_mask: SUBS as u64 - 1,
            bucket_shift,
        }
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.subs.iter().map(Vec::len).sum()
    }

    /// Whether it holds the cut of bucket `bucket`.
    #[inline(always)]
    pub fn cuts(&self, bucket: u64) -> bool {
        bucket == self.bucket
    }

    /// Whether no event waits.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.occupied.is_empty()
    }

    /// Puts an event in its sub-bucket. (A sub-bucket holds events exactly when its
    /// bit is set: its length, which the push reads anyway, tells.)
    #[inline(always)]
    fn place(&mut self, sub: u32, time: u64, event: u64) {
        if self.subs[sub as usize].is_empty() {
            self.take_room(sub);
            self.occupied.set(sub);
        }
        self.subs[sub as usize].push((time, event));
    }

    /// Gives the empty sub-bucket `sub` the room of the vector poured last, if it has
    /// none of its own.
    #[inline(always)]
    fn take_room(&mut self, sub: u32) {
        let events = &mut self.subs[sub as usize];
        if events.capacity() == 0
            && let Some(room) = self.spare.pop()
        {
            *events = room;
        }
    }

    /// The room held for events: the sub-buckets' and the spare vectors'.
    #[cfg(test)]
    pub fn room(&self) -> usize {
        self.subs.iter().chain(&self.spare).map(Vec::capacity).sum()
    }

    /// The width of the sub-buckets of the bucket cut (or last cut), in ps.
    #[cfg(test)]
    pub fn sub_width(&self) -> u64 {
        1 << self.shift
    }

    /// The sub-bucket of `time` in the bucket cut.
    #[inline(always)]
    fn sub(&self, time: u64) -> u32 {
        ((time >> self.shift) & self.sub_mask) as u32
    }

    /// Keeps an event known to fall in the cut bucket if it falls after the
    /// sub-buckets already poured; otherwise gives it back (it goes to the heap).
    #[inline(always)]
    pub fn keep_after_poured(&mut self, time: u64, event: u64) -> bool {
        debug_assert_eq!(time >> self.bucket_shift, self.bucket);
        let sub = self.sub(time);
        if sub < self.open_from {
            return false;
        }
        self.place(sub, time, event);
        true
    }

    /// Cuts `bucket`, whose events are `events`, which it empties, into the
    /// sub-buckets of a `dense` stream or of a sparse one; the sub-buckets must be
    /// empty.
    pub fn cut(&mut self, bucket: u64, events: &mut Vec<Pending>, dense: bool) {
        debug_assert!(self.occupied.is_empty());
        let subs = if dense { SUBS } else { SPARSE_SUBS };
        self.shift = self.bucket_shift - subs.trailing_zeros();
        if self.subs.is_empty() {
            self.subs.resize_with(SUBS as usize, Vec::new);
        }
        self.sub_mask = subs as u64 - 1;
        self.bucket = bucket;
        self.open_from = 0;
        for &(time, event) in events.iter() {
            self.place(self.sub(time), time, event);
        }
        events.clear();
    }

    /// Sorts a bucket's events `events` (it empties them) by (time, key) into the
    /// run of the empty heap `heap`: counted by group of sub-buckets, placed in one
    /// buffer group after group, each group then sorted and the whole appended to the
    /// run. (Spread over the sub-buckets' own vectors instead, the sort took a ninth
    /// of the run at 4,096 senders.)
    pub fn sort_into(&mut self, events: &mut Vec<Pending>, heap: &mut Heap) {
        debug_assert!(self.occupied.is_empty() && self.bucket == u64::MAX);
        let group_shift = self.bucket_shift - GROUPS.trailing_zeros();
        let group_of = |time: u64| (time >> group_shift) as usize % GROUPS;
        let mut ends = [0u32; GROUPS];
        for &(time, _) in events.iter() {
            ends[group_of(time)] += 1;
        }
        let crowded = ends.iter().any(|&n| n as usize > SORT_BY_INSERTION_UP_TO);
        let mut start = 0;
        for end in ends.iter_mut() {
            start += *end;
            *end = start;
        }
        let sorted = &mut self.sorted;
        sorted.clear();
        sorted.resize(events.len(), (0, 0));
        let mut next = ends;
        for &(time, event) in events.iter().rev() {
            let group = group_of(time);
            next[group] -= 1;
            sorted[next[group] as usize] = (time, event);
        }
        events.clear();
        if crowded {
            let mut from = 0;
            for &end in &ends {
                sort_by_time(&mut sorted[from..end as usize]);
                from = end as usize;
            }
        } else {
            // One insertion sort over the whole: no event moves past the group before
            // its own, whose events all come earlier.
            sort_by_insertion(sorted);
        }
        heap.extend_run(sorted);
    }

    /// Pours the next sub-bucket into the empty heap `heap`; false (and no bucket cut
    /// any more) when none is left.
    #[inline]
    pub fn pour_next(&mut self, heap: &mut Heap) -> bool {
        debug_assert_eq!(heap.len(), 0);
        if self.occupied.is_empty() {
            self.bucket = u64::MAX;
            return false;
        }
        let sub = self.occupied.first();
        self.occupied.clear(sub);
        self.open_from = sub + 1;
        // Its room goes to the next sub-bucket to fill.
        let mut events = std::mem::take(&mut self.subs[sub as usize]);
        heap.fill(&events);
        events.clear();
        if events.capacity() != 0 {
            self.spare.push(events);
        }
        true
    }

    /// The events (in no order) of the next sub-bucket to pour, if any.
    #[inline(always)]
    pub fn next_waiting(&self) -> &[Pending] {
        if self.occupied.is_empty() {
            return &[];
        }
        &self.subs[self.occupied.first() as usize]
    }

    /// The earliest time waiting, if any.
    pub fn peek_time(&self) -> Option<u64> {
        if self.occupied.is_empty() {
            return None;
        }
        self.subs[self.occupied.first() as usize].iter().map(|&(time, _)| time).min()
    }
}
