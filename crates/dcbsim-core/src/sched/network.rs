//! Sorting networks for the keys of a few events due together: a fixed sequence of
//! compare-exchanges, each a minimum and a maximum and no branch on the keys (which
//! a fabric's salted keys, in random order, mispredicted about every other time),
//! and fewer of them than an insertion that always runs to the front takes: 19 for
//! eight keys where it took 28, 40 for twelve where it took 66, 60 for sixteen
//! where it took 120.

/// Compare-exchanges `keys[a]` and `keys[b]` for each pair `(a, b)` listed with `b`
/// below `n`, in order: the smaller key to `a`. Written out pair by pair, so every
/// index is a constant; with `n` a constant too, the pairs beyond it are left out
/// when compiled (a network sorting `n` keys sorts fewer when the places from
/// `n` up hold the largest key: every pair reaching those places leaves both
/// keys where they are).
macro_rules! exchange {
    ($keys:ident, $n:expr; $(($a:literal, $b:literal)),* $(,)?) => {
        $(
            if $b < $n {
                let (x, y) = ($keys[$a], $keys[$b]);
                $keys[$a] = x.min(y);
                $keys[$b] = x.max(y);
            }
        )*
    };
}

/// Sorts the first `N` of eight keys: an optimal network (19 compare-exchanges in 6
/// layers for eight), pruned to `N`.
#[inline(always)]
fn sort_eight<const N: usize>(k: &mut [u64; 8]) {
    exchange!(k, N; (0, 2), (1, 3), (4, 6), (5, 7));
    exchange!(k, N; (0, 4), (1, 5), (2, 6), (3, 7));
    exchange!(k, N; (0, 1), (2, 3), (4, 5), (6, 7));
    exchange!(k, N; (2, 4), (3, 5));
    exchange!(k, N; (1, 4), (3, 6));
    exchange!(k, N; (1, 2), (3, 4), (5, 6));
}

/// Sorts the first `N` of sixteen keys: Green's network (60 compare-exchanges in 10
/// layers for sixteen), pruned to `N`.
#[inline(always)]
fn sort_sixteen<const N: usize>(k: &mut [u64; 16]) {
    exchange!(k, N; (0, 13), (1, 12), (2, 15), (3, 14), (4, 8), (5, 6), (7, 11), (9, 10));
    exchange!(k, N; (0, 5), (1, 7), (2, 9), (3, 4), (6, 13), (8, 14), (10, 15), (11, 12));
    exchange!(k, N; (0, 1), (2, 3), (4, 5), (6, 8), (7, 9), (10, 11), (12, 13), (14, 15));
    exchange!(k, N; (0, 2), (1, 3), (4, 10), (5, 11), (6, 7), (8, 9), (12, 14), (13, 15));
    exchange!(k, N; (1, 2), (3, 12), (4, 6), (5, 7), (8, 10), (9, 11), (13, 14));
    exchange!(k, N; (1, 4), (2, 6), (5, 8), (7, 10), (9, 13), (11, 14));
    exchange!(k, N; (2, 4), (3, 6), (9, 12), (11, 13));
    exchange!(k, N; (3, 5), (6, 8), (7, 9), (10, 12));
    exchange!(k, N; (3, 4), (5, 6), (7, 8), (9, 10), (11, 12));
    exchange!(k, N; (6, 7), (8, 9));
}

/// The first eight places of sixteen.
#[inline(always)]
fn eight(keys: &mut [u64; MOST]) -> &mut [u64; 8] {
    keys.first_chunk_mut().expect("eight places of sixteen")
}

/// The most keys [`sort_first`] sorts.
pub(super) const MOST: usize = 16;

/// Sorts the first `n` of `keys` (`n` at most [`MOST`]; the others are left alone) by
/// a network pruned to `n`: the one for eight up to eight keys, Green's for sixteen
/// above.
#[inline]
pub(super) fn sort_first(keys: &mut [u64; MOST], n: usize) {
    match n {
        0 | 1 => {}
        2 => sort_eight::<2>(eight(keys)),
        3 => sort_eight::<3>(eight(keys)),
        4 => sort_eight::<4>(eight(keys)),
        5 => sort_eight::<5>(eight(keys)),
        6 => sort_eight::<6>(eight(keys)),
        7 => sort_eight::<7>(eight(keys)),
        8 => sort_eight::<8>(eight(keys)),
        9 => sort_sixteen::<9>(keys),
        10 => sort_sixteen::<10>(keys),
        11 => sort_sixteen::<11>(keys),
        12 => sort_sixteen::<12>(keys),
        13 => sort_sixteen::<13>(keys),
        14 => sort_sixteen::<14>(keys),
        15 => sort_sixteen::<15>(keys),
        _ => sort_sixteen::<16>(keys),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `sort`, a network on `W` wires pruned to the first `n`, sorts every
    /// input of zeros and ones on those (by the 0-1 principle, it then sorts every
    /// input) and leaves the other wires alone.
    fn sorts_every_input<const W: usize>(n: usize, sort: fn(&mut [u64; W])) -> bool {
        (0u32..1 << n).all(|bits| {
            let mut k: [u64; W] = std::array::from_fn(|i| if i < n { u64::from(bits >> i & 1) } else { 7 });
            sort(&mut k);
            k[..n].is_sorted() && k[n..].iter().all(|&x| x == 7)
        })
    }

    #[test]
    fn the_networks_pruned_to_each_size_sort_every_input_of_zeros_and_ones() {
        let eight: [fn(&mut [u64; 8]); 7] =
            [sort_eight::<2>, sort_eight::<3>, sort_eight::<4>, sort_eight::<5>, sort_eight::<6>, sort_eight::<7>, sort_eight::<8>];
        for (n, sort) in (2..).zip(eight) {
            assert!(sorts_every_input(n, sort), "{n} of eight");
        }
        let sixteen: [fn(&mut [u64; 16]); 8] = [
            sort_sixteen::<9>,
            sort_sixteen::<10>,
            sort_sixteen::<11>,
            sort_sixteen::<12>,
            sort_sixteen::<13>,
            sort_sixteen::<14>,
            sort_sixteen::<15>,
            sort_sixteen::<16>,
        ];
        for (n, sort) in (9..).zip(sixteen) {
            assert!(sorts_every_input(n, sort), "{n} of sixteen");
        }
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
                let mut places = [u64::MAX; MOST];
                places[..n].copy_from_slice(&keys);
                sort_first(&mut places, n);
                assert_eq!(places[..n], expected, "{n} keys");
                assert!(places[n..].iter().all(|&k| k == u64::MAX), "{n} keys: the other places left alone");
            }
        }
    }
}
