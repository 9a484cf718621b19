//! The current bucket cut finer: a bucket that reaches the wheel's turn with many
//! events (thousands of senders, each waking every few milliseconds, put dozens in
//! every 67 µs bucket) is spread over 64 sub-buckets, and the heap takes one
//! sub-bucket at a time. The heap then stays a few events deep however many are
//! pending, where pouring the whole bucket made every pop sift through dozens of
//! entries in an order no branch predictor can guess.
//!
//! A sub-bucket that is itself crowded (more than [`CUT_FINER_ABOVE`] events, as the
//! bursts of a fat-tree's thousands of flows make: hundreds per microsecond) is cut
//! once more, the same way, into 64 finer sub-buckets of 16 ns, which then reach the
//! heap one at a time: a heap of hundreds of events in random order cost a dozen
//! mispredicted branches per event.
//!
//! Order is kept exactly: every event in the heap lies in an earlier sub-bucket than
//! any still waiting here (a push into the sub-bucket last poured, or before it, goes
//! to the heap, or to the finer cut of that sub-bucket if it is after the finer
//! sub-buckets poured), and a sub-bucket is poured only into an empty heap, which
//! orders it by (time, key).
//!
//! A crowded bucket may instead be sorted whole into the heap's run
//! ([`Fine::sort_into`]): its events are placed sub-bucket after sub-bucket in one
//! buffer, then each sub-bucket sorted by (time, key), so the run pops in that
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

/// The sub-bucket of `time` in a cut whose sub-buckets are 2^`shift` ps wide.
#[inline(always)]
fn sub_of(time: u64, shift: u32) -> u32 {
    ((time >> shift) & (SUBS as u64 - 1)) as u32
}

/// Sub-buckets per bucket.
pub(super) const SUBS: u32 = 64;

/// A bucket poured with more events than this is cut into sub-buckets; a smaller
/// one goes to the heap whole, as cutting it would cost more than sifting it.
pub(super) const CUT_ABOVE: usize = 16;

/// A sub-bucket poured with more events than this is cut once more.
pub(super) const CUT_FINER_ABOVE: usize = 32;

/// The sub-buckets of the current bucket, while it is cut.
#[derive(Debug)]
pub(super) struct Fine {
    subs: Box<[Vec<Pending>]>,
    /// The vectors of sub-buckets poured, emptied with their room kept, for the next
    /// sub-buckets to fill: a few vectors' room, warm in the cache, rather than all
    /// 64 sub-buckets' (a k = 16 fabric's came to 74 KB each, touched once a bucket).
    spare: Vec<Vec<Pending>>,
    /// The buffer [`Fine::sort_into`] sorts in (kept for its room).
    sorted: Vec<Pending>,
    /// One bit per sub-bucket: whether it holds an event.
    occupied: u64,
    /// The absolute number of the bucket cut (`u64::MAX`: none).
    bucket: u64,
    /// The first sub-bucket not yet poured: a push before it goes to the heap.
    open_from: u32,
    /// Bits of the time below a sub-bucket's number.
    shift: u32,
}

impl Fine {
    /// No bucket cut, for buckets of 2^`bucket_shift` ps.
    pub fn new(bucket_shift: u32) -> Fine {
        Fine {
            subs: (0..SUBS).map(|_| Vec::new()).collect(),
            spare: Vec::new(),
            sorted: Vec::new(),
            occupied: 0,
            bucket: u64::MAX,
            open_from: 0,
            shift: bucket_shift - SUBS.trailing_zeros(),
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
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.occupied == 0
    }

    /// Puts an event in its sub-bucket.
    #[inline(always)]
    fn place(&mut self, sub: u32, time: u64, event: u64) {
        if self.occupied & (1 << sub) == 0 {
            self.take_room(sub);
        }
        self.subs[sub as usize].push((time, event));
        self.occupied |= 1 << sub;
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

    #[inline(always)]
    fn sub(&self, time: u64) -> u32 {
        sub_of(time, self.shift)
    }

    /// Keeps the event if it falls in the cut bucket `bucket` (its time shifted by
    /// the cut's bucket shift), after the sub-buckets already poured; otherwise gives
    /// it back (it goes to the heap, or a finer cut).
    #[inline(always)]
    pub fn keep(&mut self, bucket: u64, time: u64, event: u64) -> bool {
        debug_assert_eq!(bucket, time >> (self.shift + SUBS.trailing_zeros()));
        bucket == self.bucket && self.keep_after_poured(time, event)
    }

    /// [`Fine::keep`] of an event known to fall in the cut bucket.
    #[inline(always)]
    pub fn keep_after_poured(&mut self, time: u64, event: u64) -> bool {
        debug_assert_eq!(time >> (self.shift + SUBS.trailing_zeros()), self.bucket);
        let sub = self.sub(time);
        if sub < self.open_from {
            return false;
        }
        self.place(sub, time, event);
        true
    }

    /// Cuts `bucket`, whose events are `events`, which it empties;
    /// the sub-buckets must be empty.
    pub fn cut(&mut self, bucket: u64, events: &mut Vec<Pending>) {
        debug_assert_eq!(self.occupied, 0);
        self.bucket = bucket;
        self.open_from = 0;
        for &(time, event) in events.iter() {
            self.place(self.sub(time), time, event);
        }
        events.clear();
    }

    /// Sorts a bucket's events `events` (it empties them) by (time, key) into the
    /// run of the empty heap `heap`: counted by sub-bucket, placed in one buffer
    /// sub-bucket after sub-bucket, each sub-bucket then sorted and the whole
    /// appended to the run. (Spread over
    /// the 64 sub-buckets' own vectors instead, the sort took a ninth of the run at
    /// 4,096 senders.)
    pub fn sort_into(&mut self, events: &mut Vec<Pending>, heap: &mut Heap) {
        debug_assert!(self.occupied == 0 && self.bucket == u64::MAX);
        let mut ends = [0u32; SUBS as usize];
        for &(time, _) in events.iter() {
            ends[self.sub(time) as usize] += 1;
        }
        let crowded = ends.iter().any(|&n| n as usize > SORT_BY_INSERTION_UP_TO);
        let mut start = 0;
        for end in ends.iter_mut() {
            start += *end;
            *end = start;
        }
        let (shift, sorted) = (self.shift, &mut self.sorted);
        sorted.clear();
        sorted.resize(events.len(), (0, 0));
        let mut next = ends;
        for &(time, event) in events.iter().rev() {
            let sub = sub_of(time, shift) as usize;
            next[sub] -= 1;
            sorted[next[sub] as usize] = (time, event);
        }
        events.clear();
        if crowded {
            let mut from = 0;
            for &end in &ends {
                sort_by_time(&mut sorted[from..end as usize]);
                from = end as usize;
            }
        } else {
            // One insertion sort over the whole: no event moves past the sub-bucket
            // before its own, whose events all come earlier.
            sort_by_insertion(sorted);
        }
        heap.extend_run(sorted);
    }

    /// Pours the next sub-bucket into the empty heap `heap`; false (and no bucket cut any more) when none is left. A
    /// crowded sub-bucket is cut into `finer` (which must be empty) and its first
    /// finer sub-bucket poured.
    #[inline]
    pub fn pour_next(&mut self, heap: &mut Heap, finer: Option<&mut Fine>) -> bool {
        debug_assert_eq!(heap.len(), 0);
        if self.occupied == 0 {
            self.bucket = u64::MAX;
            return false;
        }
        let sub = self.occupied.trailing_zeros();
        self.occupied &= !(1 << sub);
        self.open_from = sub + 1;
        let events = &mut self.subs[sub as usize];
        match finer {
            Some(finer) if events.len() > CUT_FINER_ABOVE => {
                finer.cut_and_pour((self.bucket << SUBS.trailing_zeros()) | sub as u64, events, heap);
            }
            _ => {
                heap.fill(events);
                events.clear();
            }
        }
        // Its room goes to the next sub-bucket to fill.
        let room = std::mem::take(&mut self.subs[sub as usize]);
        if room.capacity() != 0 {
            self.spare.push(room);
        }
        true
    }

    /// Cuts `bucket` (see [`Fine::cut`]) and pours its first sub-bucket: out of line,
    /// as only a crowded stretch comes here.
    #[inline(never)]
    fn cut_and_pour(&mut self, bucket: u64, events: &mut Vec<Pending>, heap: &mut Heap) {
        self.cut(bucket, events);
        self.pour_next(heap, None);
    }

    /// The events (in no order) of the next sub-bucket to pour, if any.
    #[inline(always)]
    pub fn next_waiting(&self) -> &[Pending] {
        if self.occupied == 0 {
            return &[];
        }
        &self.subs[self.occupied.trailing_zeros() as usize]
    }

    /// The earliest time waiting, if any.
    pub fn peek_time(&self) -> Option<u64> {
        if self.occupied == 0 {
            return None;
        }
        self.subs[self.occupied.trailing_zeros() as usize].iter().map(|&(time, _)| time).min()
    }
}
