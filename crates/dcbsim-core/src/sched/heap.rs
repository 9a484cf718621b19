//! The event queue's heaps (the current stretch and the far events): binary min-heaps
//! of packed events keyed by (time, sequence).

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

/// A binary min-heap of 24-byte entries ordered by (time, seq), sifted by moving a hole
/// rather than by swaps. (A 4-ary heap and an unordered array with a linear scan both
/// measured slower, where a few dozen events are pending.)
#[derive(Debug, Default)]
pub(super) struct Heap {
    heap: Vec<Entry>,
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
        self.heap.first()
    }

    /// Removes and returns the earliest entry.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Entry> {
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
    /// linear time), numbering them from `next_seq` on.
    pub fn fill(&mut self, events: &[Pending], next_seq: &mut u64) {
        debug_assert!(self.heap.is_empty());
        let first = *next_seq;
        self.heap.extend(events.iter().zip(first..).map(|(&(time, event), seq)| Entry { time, seq, event }));
        *next_seq += events.len() as u64;
        for i in (0..self.heap.len() / 2).rev() {
            let entry = self.heap[i];
            Self::sift_down(&mut self.heap, i, entry);
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
}
