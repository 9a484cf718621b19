//! The event queue's heaps (the current stretch and the far events): binary min-heaps
//! of packed events keyed by (time, sequence), beside a sorted run for a crowd of
//! events poured at once.

/// An event waiting outside the heap: its time and its packed form.
pub(super) type Pending = (u64, u64);

/// One pending event: its time, its insertion number and its packed form.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// Picoseconds.
    pub time: u64,
    /// Insertion number: equal times pop in insertion order.
    pub seq: u64,
    /// The packed event.
    pub event: u64,
}

impl Entry {
    #[inline]
    fn before(&self, other: &Entry) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A stretch poured with more events than this is sorted into a run rather than
/// heaped: each of its events then pops without a sift through a deep heap. (A
/// fat-tree's line-rate senders put hundreds of events at the very same picoseconds,
/// which no finer cut can spread.)
const RUN_ABOVE: usize = 32;

/// A binary min-heap of 24-byte entries ordered by (time, seq), sifted by moving a hole
/// rather than by swaps (a 4-ary heap and an unordered array with a linear scan both
/// measured slower, where a few dozen events are pending), and a sorted run of the
/// events of a crowded stretch poured at once, popped from its front: the earlier of
/// the two fronts pops first.
#[derive(Debug, Default)]
pub(super) struct Heap {
    heap: Vec<Entry>,
    /// A crowded stretch's events sorted by (time, seq), popped from `run_next` on
    /// (empty once all have popped).
    run: Vec<Entry>,
    run_next: usize,
}

impl Heap {
    /// Adds `entry`.
    #[inline(always)]
    pub fn push(&mut self, entry: Entry) {
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

    /// Adds the events `events`, in insertion order, to an empty heap at once (in
    /// linear time, or sorted into the run when they are many), numbering them from
    /// `next_seq` on.
    pub fn fill(&mut self, events: &[Pending], next_seq: &mut u64) {
        debug_assert_eq!(self.len(), 0);
        let first = *next_seq;
        if events.len() > RUN_ABOVE {
            self.fill_run(events, next_seq);
            return;
        }
        self.heap.extend(events.iter().zip(first..).map(|(&(time, event), seq)| Entry { time, seq, event }));
        *next_seq += events.len() as u64;
        for i in (0..self.heap.len() / 2).rev() {
            let entry = self.heap[i];
            Self::sift_down(&mut self.heap, i, entry);
        }
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

    /// [`Heap::fill`] of a crowd: sorted into the run (out of line: only a crowded
    /// stretch comes here).
    #[inline(never)]
    fn fill_run(&mut self, events: &[Pending], next_seq: &mut u64) {
        let first = *next_seq;
        self.run.extend(events.iter().zip(first..).map(|(&(time, event), seq)| Entry { time, seq, event }));
        *next_seq += events.len() as u64;
        self.run.sort_unstable_by_key(|e| (e.time, e.seq));
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len() + self.run.len() - self.run_next
    }
}
