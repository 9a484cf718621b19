//! Sorting networks for the keys of a few events due together: a fixed sequence of
//! compare-exchanges, each a minimum and a maximum and no branch on the keys (which
//! a fabric's salted keys, in random order, mispredicted about every other time),
//! and fewer of them than an insertion that always runs to the front takes: 19 for
//! eight keys where it took 28, 60 for sixteen where it took 120.

/// Compare-exchanges `keys[a]` and `keys[b]` for each pair `(a, b)` listed, in order:
/// the smaller key to `a`. Written out pair by pair, so every index is a constant.
macro_rules! exchange {
    ($keys:ident; $(($a:literal, $b:literal)),* $(,)?) => {
        $(
            let (x, y) = ($keys[$a], $keys[$b]);
            $keys[$a] = x.min(y);
            $keys[$b] = x.max(y);
        )*
    };
}

/// Sorts eight keys: an optimal network (19 compare-exchanges in 6 layers).
#[inline(always)]
fn sort_eight(k: &mut [u64; 8]) {
    exchange!(k; (0, 2), (1, 3), (4, 6), (5, 7));
    exchange!(k; (0, 4), (1, 5), (2, 6), (3, 7));
    exchange!(k; (0, 1), (2, 3), (4, 5), (6, 7));
    exchange!(k; (2, 4), (3, 5));
    exchange!(k; (1, 4), (3, 6));
    exchange!(k; (1, 2), (3, 4), (5, 6));
}

/// Sorts sixteen keys: Green's network (60 compare-exchanges in 10 layers).
#[inline(always)]
fn sort_sixteen(k: &mut [u64; 16]) {
    exchange!(k; (0, 13), (1, 12), (2, 15), (3, 14), (4, 8), (5, 6), (7, 11), (9, 10));
    exchange!(k; (0, 5), (1, 7), (2, 9), (3, 4), (6, 13), (8, 14), (10, 15), (11, 12));
    exchange!(k; (0, 1), (2, 3), (4, 5), (6, 8), (7, 9), (10, 11), (12, 13), (14, 15));
    exchange!(k; (0, 2), (1, 3), (4, 10), (5, 11), (6, 7), (8, 9), (12, 14), (13, 15));
    exchange!(k; (1, 2), (3, 12), (4, 6), (5, 7), (8, 10), (9, 11), (13, 14));
    exchange!(k; (1, 4), (2, 6), (5, 8), (7, 10), (9, 13), (11, 14));
    exchange!(k; (2, 4), (3, 6), (9, 12), (11, 13));
    exchange!(k; (3, 5), (6, 8), (7, 9), (10, 12));
    exchange!(k; (3, 4), (5, 6), (7, 8), (9, 10), (11, 12));
    exchange!(k; (6, 7), (8, 9));
}

/// The most keys [`sort_keys`] sorts.
pub(super) const MOST: usize = 16;

/// Sorts `keys` (at most [`MOST`]) by the network for eight or sixteen, the places
/// beyond them filled with the largest key, which sorts last (an event's key is never
/// that large: its kind, in the top bits, is never all ones).
#[inline]
pub(super) fn sort_keys(keys: &mut [u64]) {
    debug_assert!(keys.len() <= MOST && keys.iter().all(|&k| k != u64::MAX));
    if keys.len() <= 8 {
        let mut k = [u64::MAX; 8];
        k[..keys.len()].copy_from_slice(keys);
        sort_eight(&mut k);
        keys.copy_from_slice(&k[..keys.len()]);
    } else {
        let mut k = [u64::MAX; 16];
        k[..keys.len()].copy_from_slice(keys);
        sort_sixteen(&mut k);
        keys.copy_from_slice(&k[..keys.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the network sorting `N` keys with `sort` sorts every input of zeros
    /// and ones: by the 0-1 principle, it then sorts every input.
    fn sorts_every_input<const N: usize>(sort: fn(&mut [u64; N])) -> bool {
        (0u32..1 << N).all(|bits| {
            let mut k: [u64; N] = std::array::from_fn(|i| u64::from(bits >> i & 1));
            sort(&mut k);
            k.is_sorted()
        })
    }

    #[test]
    fn the_networks_sort_every_input_of_zeros_and_ones() {
        assert!(sorts_every_input(sort_eight));
        assert!(sorts_every_input(sort_sixteen));
    }

    #[test]
    fn any_few_keys_come_out_sorted() {
        let mut rng = crate::rng::Rng::stream(17, "network");
        for n in 0..=MOST {
            for _ in 0..200 {
                // Keys as events' are: the kind's few top bits, then the rest.
                let mut keys: Vec<u64> = (0..n).map(|_| rng.next_u64() % (9 << 60)).collect();
                if n > 2 {
                    keys[1] = keys[0];
                }
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_keys(&mut keys);
                assert_eq!(keys, expected, "{n} keys");
            }
        }
    }
}
