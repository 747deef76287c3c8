//! Medina's final scoring (`src/tabletop/games/medina/scoring.py`; §5.4, and 2e §5.4's
//! well bonus): each seat's score, the winners and the win shares.  The second edition's
//! tie-break (2e §5.5, E13) is `second_edition.rs`.

use super::board::{ortho_dilate, ortho_dilate_any, Bits};
use super::state::{Phase, State};

impl State {
    /// Each seat's score if the game ended now (§5.4).
    pub fn scores(&self) -> [i64; 4] {
        self.scores_with(|pid| {
            let pieces = self.palace_pieces(pid);
            (pieces, pieces | self.stables_of(pieces))
        })
    }

    /// [`State::scores`] with each palace's pieces and components (its pieces and
    /// stables) from `parts_of` (a caller that has them already: `encode::observe`).
    pub fn scores_with(&self, parts_of: impl Fn(usize) -> (Bits, Bits)) -> [i64; 4] {
        let mut totals = [0i64; 4];
        for (col, &holder) in self.palace_tiles.iter().enumerate() {
            if holder >= 0 {
                totals[holder as usize] += col as i64 + 1;
            }
        }
        for (slot, &holder) in self.tower_tiles.iter().enumerate() {
            if holder >= 0 {
                totals[holder as usize] += self.rules.tower_values[slot];
            }
        }
        for pid in 0..self.num_palaces as usize {
            let pal = self.palaces[pid];
            if pal.owner < 0 {
                continue;
            }
            let (pieces, comps) = parts_of(pid);
            let reach = if self.rules.stable_adjacency_scores {
                comps
            } else {
                pieces
            };
            totals[pal.owner as usize] += (comps.count()
                + (ortho_dilate(reach) & self.merchants).count()
                + (ortho_dilate_any(comps) & self.walls).count()
                + 4 * (comps & self.yellow).count()) as i64;
        }
        totals
    }

    /// The seats with the top score (the winners once the game is over), or the one the
    /// tie-break picks among them (2e E13, `tie_break="largest_palace"`).
    pub fn winners(&self) -> ([u8; 4], usize) {
        let scores = self.scores();
        let n = self.num_players as usize;
        let top = scores[..n].iter().copied().max().unwrap_or(0);
        let mut out = [0u8; 4];
        let mut k = 0;
        for (seat, &s) in scores[..n].iter().enumerate() {
            if s == top {
                out[k] = seat as u8;
                k += 1;
            }
        }
        if k > 1 && self.rules.tie_break_largest_palace {
            return ([self.tie_break_winner(&out[..k]), 0, 0, 0], 1);
        }
        (out, k)
    }

    /// Win shares once over (1/k to each of k winners), zeros before.
    pub fn returns(&self) -> [f64; 4] {
        let mut out = [0.0; 4];
        if self.phase != Phase::Over {
            return out;
        }
        let (winners, k) = self.winners();
        for &w in &winners[..k] {
            out[w as usize] = 1.0 / k as f64;
        }
        out
    }
}
