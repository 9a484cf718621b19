//! Cache-line prefetches: a hint that state will be read soon, so that its cache miss
//! overlaps the work before the read instead of stalling it.
//!
//! A prefetch never faults and changes no result; unlike a load it does not hold up
//! the instructions after it while the line is on its way. On targets other than
//! x86-64 it does nothing.

/// Starts fetching the cache line holding `value` into every level of the cache.
#[inline(always)]
pub(crate) fn line_of<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
