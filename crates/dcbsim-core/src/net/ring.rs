//! The frames on a link, in order: a ring buffer whose room is a power of two, so
//! that an index wraps by a mask. The library's `VecDeque` wraps by a comparison,
//! and a fabric's event reads its links' rings several times (the frame arriving,
//! the next one, the last one when a frame is put on, the first one not started).

/// A first-in, first-out ring of `Copy` values.
#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// The room: empty, or a power of two long.
    slots: Box<[T]>,
    /// Where the first value is.
    head: u32,
    /// How many values it holds.
    len: u32,
    /// The room's length less one: an index wraps by this mask. (32 bits, as `head`
    /// and `len`, so that the ring takes no more room in a port than the library's
    /// `VecDeque`: a port's fields are laid out by cache line.)
    mask: u32,
}

impl<T> Default for Ring<T> {
    fn default() -> Ring<T> {
        Ring { slots: Box::default(), head: 0, len: 0, mask: 0 }
    }
}

impl<T: Copy> Ring<T> {
    /// An empty ring with no room.
    pub fn new() -> Ring<T> {
        Ring::default()
    }

    /// How many values it holds.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether it holds none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many values it has room for.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// The slot of the value `i` places behind the first (the room is not empty).
    #[inline(always)]
    fn slot(&self, i: usize) -> usize {
        (self.head as usize + i) & self.mask as usize
    }

    /// Adds `value` at the back.
    #[inline(always)]
    pub fn push_back(&mut self, value: T) {
        if self.len() == self.slots.len() {
            self.grow(value);
        }
        let at = self.slot(self.len());
        self.slots[at] = value;
        self.len += 1;
    }

    /// Takes the first value, if any.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        Some(self.take_front())
    }

    /// Takes the first value of a ring that holds one (it panics otherwise), as it
    /// is, with no `Option` around it: an arriving frame taken through `pop_front`'s
    /// `Option` had its kind byte (the niche that says `None`) stored apart from the
    /// rest, and the wider loads that copied the frame on waited for those stores
    /// (docs/speed.md).
    #[inline(always)]
    pub fn take_front(&mut self) -> T {
        assert!(self.len != 0, "take_front of an empty ring");
        let value = self.slots[self.head as usize];
        self.head = self.slot(1) as u32;
        self.len -= 1;
        value
    }

    /// The first value, if any.
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    /// The last value, if any.
    #[inline(always)]
    pub fn back(&self) -> Option<&T> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// The value `i` places behind the first, if there is one.
    #[inline(always)]
    pub fn get(&self, i: usize) -> Option<&T> {
        if i < self.len() { Some(&self.slots[self.slot(i)]) } else { None }
    }

    /// The values, first to last.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        (0..self.len()).map(|i| &self.slots[self.slot(i)])
    }

    /// Takes the values from the `from`-th on, in order, leaving the ones before.
    pub fn split_off(&mut self, from: usize) -> Vec<T> {
        let from = from.min(self.len());
        let taken = (from..self.len()).map(|i| self.slots[self.slot(i)]).collect();
        self.len = from as u32;
        taken
    }

    /// Twice the room (four slots at first), the values moved to its front in order
    /// and the new slots filled with `filler`. (A ring of 2^31 values, 80 GB of
    /// frames, grows no more.)
    #[cold]
    #[inline(never)]
    fn grow(&mut self, filler: T) {
        let room = (self.slots.len() * 2).max(4);
        assert!(room <= 1 << 31, "a ring of more than 2^31 values");
        let mut slots = Vec::with_capacity(room);
        slots.extend(self.iter().copied());
        slots.resize(room, filler);
        self.slots = slots.into_boxed_slice();
        self.head = 0;
        self.mask = (room - 1) as u32;
    }
}

impl<T: Copy> std::ops::Index<usize> for Ring<T> {
    type Output = T;

    /// The value `i` places behind the first (it panics when there is none).
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        self.get(i).expect("an index within the ring")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn a_ring_keeps_the_order_of_a_queue_through_growth_and_wrapping() {
        let mut rng = crate::rng::Rng::stream(19, "ring");
        let (mut ring, mut queue) = (Ring::new(), VecDeque::new());
        for step in 0..20_000u64 {
            // Bursts of pushes and of pops, so that the ring grows and wraps.
            if rng.chance(if step % 2_000 < 1_000 { 0.7 } else { 0.3 }) {
                ring.push_back(step);
                queue.push_back(step);
            } else {
                assert_eq!(ring.pop_front(), queue.pop_front());
            }
            assert_eq!(ring.len(), queue.len());
            assert_eq!(ring.front(), queue.front());
            assert_eq!(ring.back(), queue.back());
            let i = rng.next_u64() as usize % (queue.len() + 2);
            assert_eq!(ring.get(i), queue.get(i));
            assert!(ring.capacity().is_power_of_two() || ring.capacity() == 0);
        }
        assert!(ring.iter().eq(queue.iter()));
        let tail: Vec<u64> = queue.drain(queue.len() / 2..).collect();
        assert_eq!(ring.split_off(ring.len() / 2), tail);
        assert!(ring.iter().eq(queue.iter()));
    }

    #[test]
    fn an_empty_ring_gives_nothing() {
        let mut ring: Ring<u32> = Ring::new();
        assert_eq!((ring.pop_front(), ring.front(), ring.back(), ring.get(0)), (None, None, None, None));
        assert!(ring.split_off(0).is_empty());
    }
}
