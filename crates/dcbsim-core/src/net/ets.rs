//! ETS (802.1Qaz): deficit weighted round robin between the traffic classes that
//! have a weight, below the strict-priority classes.

/// The DWRR state of one port.
#[derive(Clone, Debug, Default)]
pub struct Dwrr {
    /// Per class, the bytes added to its deficit each round (weight × quantum unit);
    /// zero for a strict-priority class.
    pub quantum: Vec<u64>,
    /// Per class, the bytes it may still send this round.
    pub deficit: Vec<u64>,
    /// The class whose turn it is.
    pub cursor: usize,
}

/// Bytes per unit of weight in a round: one full-size frame, so that a class with
/// weight 1 sends at least one frame per round.
pub const QUANTUM_UNIT: u64 = 1500;

impl Dwrr {
    /// DWRR over classes with these weights (zero: strict priority).
    pub fn new(weights: &[u32]) -> Dwrr {
        let quantum: Vec<u64> = weights.iter().map(|&w| w as u64 * QUANTUM_UNIT).collect();
        let cursor = quantum.iter().position(|&q| q > 0).unwrap_or(0);
        let mut deficit = vec![0; weights.len()];
        deficit[cursor] = quantum[cursor];
        Dwrr { quantum, deficit, cursor }
    }

    /// Whether class `c` is served by weight.
    #[inline]
    pub fn is_weighted(&self, c: usize) -> bool {
        self.quantum[c] > 0
    }

    /// Picks the weighted class to serve next, given each class's head frame size
    /// (`None`: empty or paused). Some weighted class must have a head frame.
    pub fn pick(&mut self, head: impl Fn(usize) -> Option<u64>) -> usize {
        let n = self.quantum.len();
        loop {
            let c = self.cursor;
            match head(c) {
                Some(bytes) if self.quantum[c] > 0 && self.deficit[c] >= bytes => {
                    self.deficit[c] -= bytes;
                    return c;
                }
                Some(_) if self.quantum[c] > 0 => {}
                _ => self.deficit[c] = 0,
            }
            // The turn passes to the next weighted class, which gets its quantum.
            let mut next = (c + 1) % n;
            while self.quantum[next] == 0 {
                next = (next + 1) % n;
            }
            self.cursor = next;
            self.deficit[next] += self.quantum[next];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backlogged_classes_share_by_weight() {
        // Classes 0 (strict, unused here), 1 weight 1, 2 weight 3; 1000-byte frames.
        let mut d = Dwrr::new(&[0, 1, 3]);
        let mut sent = [0u64; 3];
        for _ in 0..4000 {
            let c = d.pick(|c| (c > 0).then_some(1000));
            sent[c] += 1000;
        }
        assert_eq!(sent[0], 0);
        let share = sent[2] as f64 / (sent[1] + sent[2]) as f64;
        assert!((share - 0.75).abs() < 0.001, "{share}");
    }

    #[test]
    fn an_empty_class_yields_its_turn_and_keeps_no_credit() {
        let mut d = Dwrr::new(&[1, 1]);
        for _ in 0..10 {
            assert_eq!(d.pick(|c| (c == 1).then_some(1500)), 1);
        }
        assert_eq!(d.deficit[0], 0);
    }
}
