//! The event queue: a heap for the current stretch of time, a timing wheel on the
//! picosecond clock for the next few milliseconds, and a heap for what lies beyond.
//!
//! Time is cut into buckets of 2^SHIFT ps (67 µs). Events of the current bucket (and
//! before) wait in a sorted run beside a small binary heap, ordered by (time,
//! event) (`heap.rs`: an event pushed after the others joins the run's back):
//! almost every event is scheduled a few microseconds ahead, so they hold the few
//! dozen events of a busy stretch, not the thousands of far wake-ups of a large run.
//! Events of the next SLOTS buckets wait on the wheel, each bucket a vector (read in
//! one sequential pass, not a chain of nodes to chase through memory); when the heap
//! empties, the wheel turns to the next bucket with events (found by an occupancy
//! bitmap) and pours it into the heap, which orders it. A bucket that
//! arrives crowded (more than 16 events, as when thousands of senders each wake every
//! few milliseconds) is first cut into sub-buckets (`fine.rs`: of 16 ns where events
//! come densely, as in a fabric, else of 1 µs), poured into the heap one at a time;
//! or, when the last crowded bucket took few pushes while it popped, sorted whole into
//! the run (counted by group of sub-buckets, then each sorted), which then pops
//! without a pour per sub-bucket and names the events a few pops ahead for the loop to
//! fetch (at 4,096 incast senders 0.81-0.83 of the time; a fat-tree's stretches, whose
//! events push many more into them, stay cut). Events beyond the wheel wait in a
//! second heap and move onto the wheel as it turns. The queue thus pops exactly in (time, key)
//! order, as one heap would.

use super::Event;
use super::fine::{CUT_ABOVE, DENSE_ABOVE, Fine};
use super::heap::{Entry, Heap, Pending};
use crate::units::Time;

/// Bucket width: 2^SHIFT picoseconds (67 µs).
const SHIFT: u32 = 26;
/// Sub-bucket width of a dense stream's cut bucket: 2^SUB_SHIFT picoseconds (16 ns).
#[cfg(test)]
const SUB_SHIFT: u32 = SHIFT - 12;
/// Buckets on the wheel (69 ms ahead).
const SLOTS: usize = 1 << 10;
const MASK: u64 = SLOTS as u64 - 1;
const WORDS: usize = SLOTS / 64;
const SUMMARY: usize = WORDS.div_ceil(64);

/// The deepest heap behind which [`EventQueue::near_after`] names events.
pub const NEAR_AFTER_BELOW: usize = 2;

/// A priority queue of events keyed by (time, key): see `sched/mod.rs` for why
/// events due together are ordered by what they are, not by when they were pushed.
#[derive(Debug)]
pub struct EventQueue {
    /// Events of the current bucket and before (of its sub-buckets poured, when
    /// it is cut).
    now: Heap,
    /// The current bucket's later sub-buckets, when it is cut.
    fine: Fine,
    /// The wheel's buckets, by absolute bucket number modulo SLOTS, each in insertion
    /// order.
    buckets: Box<[Vec<Pending>]>,
    /// The vectors of poured buckets, emptied with their room kept, for the next
    /// buckets to fill: room for the buckets that hold events at once, not for every
    /// slot (each slot keeping the room of its busiest turn held 11.6 MiB of a k = 8
    /// DCTCP fabric's 16 MiB at 50 ms, most of it stale transport timers).
    spare: Vec<Vec<Pending>>,
    /// One bit per bucket slot: whether it holds an event.
    words: Box<[u64]>,
    /// One bit per word of `words`: whether it is non-zero.
    summary: Box<[u64]>,
    /// The absolute number of the current bucket.
    cur: u64,
    /// Events on the wheel.
    wheel: usize,
    /// Events beyond the wheel.
    far: Heap,
    /// The bucket number of the earliest far event (`u64::MAX`: none).
    far_bucket: u64,
    /// The size of the last crowded bucket poured, and the heap's count of pushes out
    /// of order then (see [`EventQueue::sort_crowds`]).
    crowd: usize,
    out_of_order_at_pour: u64,
    /// Events pushed into the cut since the last crowded bucket was poured.
    pushed_into_cut: u64,
}

impl Default for EventQueue {
    fn default() -> EventQueue {
        EventQueue::new()
    }
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> EventQueue {
        EventQueue {
            now: Heap::default(),
            fine: Fine::new(SHIFT),
            buckets: (0..SLOTS).map(|_| Vec::new()).collect(),
            spare: Vec::new(),
            words: vec![0; WORDS].into_boxed_slice(),
            summary: vec![0; SUMMARY].into_boxed_slice(),
            cur: 0,
            wheel: 0,
            far: Heap::default(),
            far_bucket: u64::MAX,
            crowd: 0,
            out_of_order_at_pour: 0,
            pushed_into_cut: 0,
        }
    }

    /// Schedules `event` at `time`.
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: Event) {
        let bucket = time.0 >> SHIFT;
        if bucket <= self.cur {
            let packed = event.key(time.0);
            if !(self.fine.cuts(bucket) && self.keep_in_cut(time.0, packed)) {
                self.now.push(Entry { time: time.0, event: packed });
            }
        } else {
            self.push_later(bucket, time.0, event.key(time.0));
        }
    }

    /// Keeps an event of the cut current bucket in its sub-bucket; false when it
    /// falls before those not poured yet (it goes to the heap).
    #[inline(always)]
    fn keep_in_cut(&mut self, time: u64, event: u64) -> bool {
        self.pushed_into_cut += 1;
        self.fine.keep_after_poured(time, event)
    }

    /// Puts an event of a later bucket on the wheel or, beyond it, in the far heap.
    /// (The entry's fields come apart, as for [`Heap::push`]'s cold path.)
    #[inline(never)]
    fn push_later(&mut self, bucket: u64, time: u64, event: u64) {
        if bucket - self.cur < SLOTS as u64 {
            self.insert(bucket, time, event);
        } else {
            self.far_bucket = self.far_bucket.min(bucket);
            self.far.push(Entry { time, event });
        }
    }

    /// Appends an event to bucket `bucket` (a bucket is sorted when it is poured).
    #[inline]
    fn insert(&mut self, bucket: u64, time: u64, event: u64) {
        let slot = (bucket & MASK) as usize;
        if self.buckets[slot].is_empty() {
            self.mark(slot);
            if let Some(room) = self.spare.pop() {
                self.buckets[slot] = room;
            }
        }
        self.buckets[slot].push((time, event));
        self.wheel += 1;
    }

    #[inline]
    fn mark(&mut self, slot: usize) {
        let w = slot / 64;
        self.words[w] |= 1 << (slot % 64);
        self.summary[w / 64] |= 1 << (w % 64);
    }

    #[inline]
    fn unmark(&mut self, slot: usize) {
        let w = slot / 64;
        self.words[w] &= !(1 << (slot % 64));
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
    }

    /// The first occupied slot at or after `from` (no wrapping).
    fn occupied_from(&self, from: usize) -> Option<usize> {
        let w = from / 64;
        let bits = self.words[w] & (!0u64 << (from % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        let w = w + 1;
        let mut s = w / 64;
        if s >= SUMMARY {
            return None;
        }
        let mut sbits = self.summary[s] & (!0u64 << (w % 64));
        loop {
            if sbits != 0 {
                let w = s * 64 + sbits.trailing_zeros() as usize;
                return Some(w * 64 + self.words[w].trailing_zeros() as usize);
            }
            s += 1;
            if s >= SUMMARY {
                return None;
            }
            sbits = self.summary[s];
        }
    }

    /// The absolute number of the earliest bucket on the wheel, which holds an event.
    fn first_on_wheel(&self) -> u64 {
        let from = (self.cur & MASK) as usize;
        let slot = self.occupied_from(from).or_else(|| self.occupied_from(0)).expect("the wheel holds an event");
        self.cur + ((slot.wrapping_sub(from) as u64) & MASK)
    }

    /// The time of the earliest event.
    pub fn peek_time(&self) -> Option<Time> {
        if let Some(e) = self.now.peek() {
            return Some(Time(e.time));
        }
        if let Some(time) = self.fine.peek_time() {
            return Some(Time(time));
        }
        if self.wheel != 0 {
            let bucket = &self.buckets[(self.first_on_wheel() & MASK) as usize];
            return bucket.iter().map(|&(time, _)| Time(time)).min();
        }
        self.far.peek().map(|e| Time(e.time))
    }

    /// The next event of the current stretch, if it holds one (not necessarily the
    /// next to pop once more are pushed): what the loop may fetch ahead.
    #[inline(always)]
    pub fn peek_near(&self) -> Option<Event> {
        self.now.peek().map(|e| Event::from_key(e.event, e.time))
    }

    /// When the heap holds at most [`NEAR_AFTER_BELOW`] events and the current bucket
    /// is cut, the events of the next stretch to reach the heap (its next sub-bucket,
    /// unordered): what the loop may fetch further ahead. (Further back in a
    /// deeper heap, they are too far ahead to fetch.)
    #[inline(always)]
    pub fn near_after(&self) -> impl Iterator<Item = Event> + '_ {
        let next = match self.now.len() <= NEAR_AFTER_BELOW {
            false => &[],
            true => self.fine.next_waiting(),
        };
        next.iter().map(|&(time, key)| Event::from_key(key, time))
    }

    /// The event `d` places behind the next of the current stretch's sorted run.
    #[inline(always)]
    pub fn run_ahead(&self, d: usize) -> Option<Event> {
        if self.fine.cuts(self.cur) {
            return None;
        }
        self.now.run_ahead(d).map(|(time, key)| Event::from_key(key, time))
    }

    /// Removes and returns the earliest event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.pop_through(u64::MAX)
    }

    /// Removes and returns the earliest event if it is due before `until`.
    #[inline(always)]
    pub fn pop_before(&mut self, until: Time) -> Option<(Time, Event)> {
        self.pop_through(until.0.checked_sub(1)?)
    }

    /// Removes and returns the earliest event if it is due at `last` or before.
    #[inline(always)]
    fn pop_through(&mut self, last: u64) -> Option<(Time, Event)> {
        if self.now.is_empty() && !self.turn() {
            return None;
        }
        let e = self.now.pop_through(last)?;
        Some((Time(e.time), Event::from_key(e.event, e.time)))
    }

    /// With the heap empty, pours the current bucket's next sub-bucket, if it is cut
    /// and one is left, or else turns to the next bucket with events and pours it;
    /// returns whether there was one. (Turning early is harmless: whatever is pushed
    /// later into the current bucket or before goes to the heap, or to a sub-bucket
    /// not poured yet.)
    #[inline(never)]
    fn turn(&mut self) -> bool {
        if self.fine.pour_next(&mut self.now) {
            return true;
        }
        self.cur = if self.wheel != 0 {
            self.first_on_wheel()
        } else {
            match self.far.peek() {
                Some(e) => e.time >> SHIFT,
                None => return false,
            }
        };
        if self.far_bucket < self.cur + SLOTS as u64 {
            self.admit_far();
        }
        self.pour(self.cur);
        true
    }

    /// Moves bucket `bucket`'s events into the (empty) heap, which sorts them by
    /// (time, event). A crowded bucket is cut, or
    /// sorted whole (see [`EventQueue::sort_crowds`]).
    fn pour(&mut self, bucket: u64) {
        let slot = (bucket & MASK) as usize;
        if self.buckets[slot].is_empty() {
            return;
        }
        let mut events = std::mem::take(&mut self.buckets[slot]);
        self.unmark(slot);
        self.wheel -= events.len();
        let dense = self.pushed_into_cut + events.len() as u64 > DENSE_ABOVE;
        if events.len() <= CUT_ABOVE {
            self.now.fill(&events);
            events.clear();
        } else if self.sort_crowds(events.len()) {
            self.fine.sort_into(&mut events, &mut self.now);
        } else {
            self.fine.cut(bucket, &mut events, dense);
            self.fine.pour_next(&mut self.now);
        }
        // The emptied vector keeps its room for the next bucket to fill.
        debug_assert!(events.is_empty());
        self.spare.push(events);
    }

    /// Whether a crowded bucket of `count` events is to be sorted whole into the run
    /// rather than cut (the first one is cut): when at most an eighth as many events
    /// were pushed into the last crowded bucket while it popped (into its cut, or
    /// before its sorted run's last event). Its stretch then pops from the run, and
    /// the loop can fetch the state of events a few pops ahead. Where a stretch's
    /// events push many more into it (a fat-tree's hops, a microsecond or two apart),
    /// sorted whole they would go to the heap beside the run (the k = 8 fat-tree took
    /// 1.45-2.0 times as long), and the cut, whose sub-buckets take them, pays.
    fn sort_crowds(&mut self, count: usize) -> bool {
        let pushed = self.pushed_into_cut + self.now.out_of_order - self.out_of_order_at_pour;
        let sorted = self.crowd != 0 && pushed <= self.crowd as u64 / 8;
        (self.crowd, self.out_of_order_at_pour, self.pushed_into_cut) = (count, self.now.out_of_order, 0);
        sorted
    }

    /// Moves the far events that the wheel now reaches onto it.
    fn admit_far(&mut self) {
        let horizon = self.cur + SLOTS as u64;
        while self.far.peek().is_some_and(|e| e.time >> SHIFT < horizon) {
            let e = self.far.pop().expect("peeked");
            self.insert(e.time >> SHIFT, e.time, e.event);
        }
        self.far_bucket = self.far.peek().map_or(u64::MAX, |e| e.time >> SHIFT);
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.now.len() + self.fine.len() + self.wheel + self.far.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes and pops at random against the plain heap: every pop must agree, for
    /// times a few buckets ahead, a wheel's turn ahead, far beyond it, and equal.
    fn agrees_with_the_heap(seed: u64, spread: u64) {
        let mut rng = crate::rng::Rng::stream(seed, "wheel");
        let (mut wheel, mut heap) = (EventQueue::new(), Heap::default());
        let mut now = 0u64;
        for i in 0..20_000u32 {
            let ahead = match rng.next_u64() % 8 {
                0 => 0,
                1 => (rng.next_u64() % (SLOTS as u64)) << SHIFT,
                2 => rng.next_u64() % ((4 * spread) << SHIFT),
                3 => (SLOTS as u64) << SHIFT,
                _ => rng.next_u64() % (spread << SHIFT),
            };
            let event = Event::Timeline { entry: i * 7919 % 1009 };
            wheel.push(Time(now + ahead), event);
            heap.push(Entry { time: now + ahead, event: event.key(now + ahead) });
            if rng.chance(0.45) {
                let until = now + rng.next_u64() % (2 << SHIFT);
                let expected = heap.peek().filter(|e| e.time < until).map(|e| (Time(e.time), Event::from_key(e.event, e.time)));
                let got = wheel.pop_before(Time(until));
                assert_eq!(got, expected, "pop {i}");
                if got.is_some() {
                    heap.pop();
                }
                now = got.map_or(now.max(until), |(t, _)| t.0);
                assert_eq!(wheel.peek_time(), heap.peek().map(|e| Time(e.time)));
            }
        }
        while let Some(e) = heap.pop() {
            assert_eq!(wheel.pop(), Some((Time(e.time), Event::from_key(e.event, e.time))));
        }
        assert!(wheel.is_empty() && wheel.pop().is_none());
    }

    #[test]
    fn pops_as_the_heap_does_for_near_and_far_events() {
        agrees_with_the_heap(1, 8);
        agrees_with_the_heap(2, 1);
        agrees_with_the_heap(3, 1 << 20);
    }

    /// The queue beside a plain heap given the same pushes: every pop must agree.
    struct Twin {
        wheel: EventQueue,
        heap: Heap,
        seq: u64,
    }

    impl Twin {
        fn new() -> Twin {
            Twin { wheel: EventQueue::new(), heap: Heap::default(), seq: 0 }
        }

        /// Pushes an event at `time`, its id scrambled so that events due together are
        /// pushed out of their order.
        fn push(&mut self, time: u64) {
            let event = Event::Timeline { entry: (self.seq * 7919 % 1009) as u32 };
            self.wheel.push(Time(time), event);
            self.heap.push(Entry { time, event: event.key(time) });
            self.seq += 1;
        }

        /// Pops from both, checks that they agree and that they agree on what comes
        /// next; the time popped, if any.
        fn pop(&mut self) -> Option<u64> {
            let e = self.heap.pop()?;
            assert_eq!(self.wheel.pop(), Some((Time(e.time), Event::from_key(e.event, e.time))));
            Some(e.time)
        }

        /// Checks the next time and the count.
        fn agree(&self) {
            assert_eq!(self.wheel.peek_time(), self.heap.peek().map(|e| Time(e.time)));
            assert_eq!(self.wheel.len(), self.heap.len());
        }
    }

    #[test]
    fn a_stream_through_cut_buckets_keeps_the_room_of_a_few_sub_buckets() {
        // Each event, as it pops, pushes the next one 1.5 µs ahead, 200 in flight, as
        // a fabric's frames push their next hops: 100 events a microsecond through
        // every sub-bucket of four buckets.
        let mut twin = Twin::new();
        let sub = 1u64 << (SHIFT - 6);
        for i in 0..200 {
            twin.push(i * sub / 100);
        }
        for _ in 0..4 * 64 * 100 {
            let time = twin.pop().expect("an event in flight");
            twin.push(time + 3 * sub / 2);
        }
        twin.agree();
        // Each sub-bucket keeping its own room would hold 16,384 events' room.
        let room = twin.wheel.fine.room();
        assert!(room > 0 && room <= 8 * 128, "{room} events' room");
    }

    #[test]
    fn a_crowded_bucket_is_cut_and_still_pops_as_the_heap_does() {
        let mut rng = crate::rng::Rng::stream(4, "wheel");
        let mut twin = Twin::new();
        // A bucket's worth of events, some at equal times, pushed before the wheel
        // reaches it; then, as it pops, more pushed into it (before and after the
        // sub-buckets poured so far).
        let base = 5u64 << SHIFT;
        for _ in 0..2000 {
            twin.push(base + (rng.next_u64() % 64) * ((1 << SHIFT) / 64));
        }
        let mut cut = false;
        while let Some(time) = twin.pop() {
            cut |= !twin.wheel.fine.is_empty();
            if rng.chance(0.3) {
                twin.push(time + rng.next_u64() % (1 << (SHIFT - 3)));
            }
            twin.agree();
        }
        assert!(cut, "the bucket was cut");
        assert!(twin.wheel.is_empty());
    }

    #[test]
    fn crowded_sub_buckets_still_pop_as_the_heap_does() {
        let mut rng = crate::rng::Rng::stream(6, "wheel");
        let mut twin = Twin::new();
        // Thousands of events in three microseconds of one bucket, many at equal
        // times; then, as they pop, more pushed into the sub-bucket being popped
        // (before and after the events popped so far) and into later ones.
        let sub = 1u64 << (SHIFT - 6);
        let base = (7u64 << SHIFT) + 5 * sub;
        for _ in 0..3000 {
            twin.push(base + (rng.next_u64() % 3) * sub + (rng.next_u64() % 200) * (sub / 200));
        }
        // And hundreds at the very same picoseconds, which only a sorted run spreads.
        for _ in 0..600 {
            twin.push(base + sub + 1000 * (rng.next_u64() % 3));
        }
        let mut ran = false;
        while let Some(time) = twin.pop() {
            ran |= twin.wheel.now.runs();
            if rng.chance(0.3) {
                twin.push(time + rng.next_u64() % (sub / 4));
            }
            if rng.chance(0.05) {
                twin.push(time);
            }
            twin.agree();
        }
        assert!(ran, "a crowd was poured as a sorted run");
        assert!(twin.wheel.is_empty());
    }

    #[test]
    fn a_bucket_is_cut_into_16_ns_sub_buckets_only_where_events_come_densely() {
        let mut rng = crate::rng::Rng::stream(7, "wheel");
        let mut twin = Twin::new();
        // A sparse bucket (a dumbbell's: a few events a microsecond, each pushing one
        // more into it as it pops, so that the next crowded bucket is cut, not sorted
        // whole), then a dense one (a fabric's: thousands in the bucket).
        for _ in 0..200 {
            twin.push((3 << SHIFT) + rng.next_u64() % (1 << (SHIFT - 1)));
        }
        for _ in 0..3000 {
            twin.push((5 << SHIFT) + rng.next_u64() % (1 << SHIFT));
        }
        let (mut widths, mut pushed) = (Vec::new(), 0);
        while let Some(time) = twin.pop() {
            let bucket = time >> SHIFT;
            if widths.last().map(|&(b, _)| b) != Some(bucket) {
                widths.push((bucket, twin.wheel.fine.sub_width()));
            }
            if bucket == 3 && pushed < 200 {
                twin.push(time + (1 << (SHIFT - 2)));
                pushed += 1;
            }
            twin.agree();
        }
        assert_eq!(widths, vec![(3, 1 << (SHIFT - 6)), (5, 1 << SUB_SHIFT)]);
    }

    /// Whether the queue's current bucket was sorted whole into the run.
    fn sorted_whole(q: &EventQueue) -> bool {
        q.now.runs() && !q.fine.cuts(q.cur)
    }

    #[test]
    fn a_crowded_bucket_after_a_quiet_one_is_sorted_whole_and_pops_as_the_heap_does() {
        let mut rng = crate::rng::Rng::stream(8, "wheel");
        let mut twin = Twin::new();
        // Three crowded buckets, at equal times too. The first is cut and nothing is
        // pushed into it; the second is then sorted whole, and takes many pushes
        // while it pops, in order and out of it; the third is cut again.
        for bucket in [5u64, 6, 7] {
            for _ in 0..300 {
                twin.push((bucket << SHIFT) + (rng.next_u64() % 500) * ((1 << SHIFT) / 500));
            }
        }
        // The second also holds a crowded group of sub-buckets, which takes a stable
        // sort.
        let sub = 1u64 << SUB_SHIFT;
        for _ in 0..120 {
            twin.push((6 << SHIFT) + (rng.next_u64() % 3) * 7 * sub + (rng.next_u64() % 4) * (sub / 4));
        }
        let mut seen = Vec::new();
        while let Some(time) = twin.pop() {
            let bucket = time >> SHIFT;
            if seen.last().map(|&(b, _)| b) != Some(bucket) {
                seen.push((bucket, sorted_whole(&twin.wheel)));
            }
            if bucket == 6 && rng.chance(0.5) {
                twin.push(time + rng.next_u64() % (1 << (SHIFT - 2)));
            }
            twin.agree();
        }
        assert_eq!(seen, vec![(5, false), (6, true), (7, false)]);
        assert!(twin.wheel.is_empty());
    }

    #[test]
    fn a_sorted_bucket_names_the_events_a_few_pops_ahead() {
        let mut rng = crate::rng::Rng::stream(9, "wheel");
        let mut q = EventQueue::new();
        for (bucket, entries) in [(5u64, 0..100u32), (6, 100..400)] {
            for entry in entries {
                q.push(Time((bucket << SHIFT) + rng.next_u64() % (1 << SHIFT)), Event::Timeline { entry });
            }
        }
        let mut named = std::collections::VecDeque::new();
        let mut checked = 0;
        while let Some((_, event)) = q.pop() {
            if let Some((due, expected)) = named.front().copied() {
                if due == 0 {
                    assert_eq!(event, expected);
                    named.pop_front();
                    checked += 1;
                }
            }
            named.iter_mut().for_each(|(due, _)| *due -= 1);
            if let Some(ahead) = q.run_ahead(3) {
                named.push_back((3, ahead));
            }
        }
        // The second bucket, sorted whole, names its events but the last three.
        assert!(checked >= 290, "{checked}");
    }

    #[test]
    fn near_after_names_the_events_that_pop_once_the_heap_empties() {
        let mut rng = crate::rng::Rng::stream(5, "wheel");
        let mut q = EventQueue::new();
        let base = 5u64 << SHIFT;
        for entry in 0..500 {
            q.push(Time(base + rng.next_u64() % (1 << SHIFT)), Event::Timeline { entry });
        }
        let mut checked = 0;
        while q.pop().is_some() {
            let mut next: Vec<Event> = q.near_after().collect();
            assert!(next.is_empty() || q.now.len() <= NEAR_AFTER_BELOW);
            if next.is_empty() {
                continue;
            }
            for _ in 0..q.now.len() {
                q.pop();
            }
            let mut popped: Vec<Event> = (0..next.len()).filter_map(|_| q.pop().map(|(_, e)| e)).collect();
            let key = |e: &Event| match e {
                Event::Timeline { entry } => *entry,
                _ => unreachable!(),
            };
            next.sort_by_key(key);
            popped.sort_by_key(key);
            assert_eq!(next, popped);
            checked += 1;
        }
        assert!(checked > 10, "{checked} sub-buckets checked");
    }

    #[test]
    fn an_event_behind_the_wheel_still_pops_first() {
        let mut q = EventQueue::new();
        q.push(Time(10 << SHIFT), Event::Sample);
        assert_eq!(q.pop_before(Time(5 << SHIFT)), None);
        q.push(Time(3 << SHIFT), Event::PortFree { port: 1 });
        q.push(Time(3 << SHIFT), Event::PortFree { port: 2 });
        assert_eq!(q.pop(), Some((Time(3 << SHIFT), Event::PortFree { port: 1 })));
        assert_eq!(q.pop(), Some((Time(3 << SHIFT), Event::PortFree { port: 2 })));
        assert_eq!(q.pop(), Some((Time(10 << SHIFT), Event::Sample)));
    }
}
