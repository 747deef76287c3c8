//! Medina's random play: kind-first random actions (a kind uniform among those with a
//! legal move, then a move uniform within it); `crate::game::Game::playout` plays them to
//! the end. The searches see Medina through `medina::game`; the evaluation they use is
//! `eval.rs`.

use super::board::NUM_SQUARES;
use super::moves::{Sources, DOME_BLOCK, MERCHANT_BLOCK, NEUTRAL_BLOCK, STABLE_BLOCK, TEA_ACTION, WALL_BLOCK};
use super::state::{Phase, State};

impl Sources {
    /// A kind-first random action among these sources (the legal actions when no dome
    /// obligation is pending): `Legal::kinds` and `Legal::nth_of_kind` without building a
    /// `Legal`; `pass_action` when there is none.
    fn random_action(&self, pass_action: usize, below: &mut impl FnMut(u32) -> u32) -> usize {
        if !self.any {
            return pass_action;
        }
        // Kinds in order: palace (blocks 1-4), dome, neutral, stable, merchant, wall, tea.
        let singles = [
            (DOME_BLOCK, self.dome),
            (NEUTRAL_BLOCK, self.neutral),
            (STABLE_BLOCK, self.stable),
            (MERCHANT_BLOCK, self.merchant),
            (WALL_BLOCK, self.wall),
        ];
        let mut kinds = [0usize; 7];
        let mut n = 0;
        if self.has_palace {
            kinds[0] = 0;
            n = 1;
        }
        for (i, (_, bits)) in singles.iter().enumerate() {
            if bits.any() {
                kinds[n] = i + 1;
                n += 1;
            }
        }
        if self.tea {
            kinds[n] = singles.len() + 1;
            n += 1;
        }
        let kind = kinds[below(n as u32) as usize];
        if kind > singles.len() {
            return TEA_ACTION;
        }
        if kind > 0 {
            let (block, bits) = singles[kind - 1];
            return block * NUM_SQUARES + bits.nth(below(bits.count()));
        }
        let total: u32 = self.palace.iter().map(|b| b.count()).sum();
        let mut i = below(total);
        for (col, bits) in self.palace.iter().enumerate() {
            let c = bits.count();
            if i < c {
                return (col + 1) * NUM_SQUARES + bits.nth(i);
            }
            i -= c;
        }
        unreachable!("the palace kind has a move")
    }
}

impl State {
    /// One kind-first random legal action (kind uniform, then move uniform within it),
    /// `below(n)` giving a uniform number in `0..n`; `None` when the game is over.
    pub fn random_action(&self, below: &mut impl FnMut(u32) -> u32) -> Option<usize> {
        match self.phase {
            Phase::Over => None,
            Phase::Play if !self.obligation => Some(self.sources.random_action(self.pass_action(), below)),
            _ => {
                let legal = self.legal();
                let (kinds, n) = legal.kinds();
                let kind = kinds[below(n as u32) as usize] as usize;
                let count = legal.count_of_kind(kind);
                Some(legal.nth_of_kind(kind, below(count)))
            }
        }
    }
}
