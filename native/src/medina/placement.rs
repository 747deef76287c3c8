//! Medina's placement rules (`src/tabletop/games/medina/placement.py`): where each kind of
//! piece may go, as square sets (§2.1, §3.1-3.5).  Where a neutral dome may go (2e) is
//! `second_edition.rs`; which of these a player may use, their supply considered, is
//! `moves.rs`.

use super::board::{Bits, ORTHO_MASK, WIDTH};
use super::state::State;

impl State {
    /// Where the starting merchant may go (§2.1, A10).
    pub fn start_squares(&self) -> Bits {
        if self.rules.start_merchant_anywhere {
            self.geo().building
        } else {
            self.geo().inner
        }
    }

    /// Empty building squares touching no palace piece and no stable (§3.1.3).
    #[inline]
    pub fn new_palace_squares(&self) -> Bits {
        self.geo().building.andnot(self.occupied).andnot(self.forbid)
    }

    /// Empty squares next to a palace piece that touch no other palace (§3.3).
    #[inline]
    pub fn stable_squares(&self) -> Bits {
        self.near_palaces.andnot(self.occupied).andnot(self.contested)
    }

    /// The active chain's extensions, else the squares of a new chain (§3.4, A2).
    #[inline]
    pub fn merchant_squares(&self) -> Bits {
        let free = self.geo().building.andnot(self.occupied);
        let m = if self.chain_ends.any() {
            // The chain has one or two ends.
            let ends = ORTHO_MASK[self.chain_ends.lowest()] | ORTHO_MASK[self.chain_ends.highest()];
            (ends & free).andnot(self.crowded)
        } else {
            Bits::EMPTY
        };
        if m.any() {
            m
        } else if self.rules.new_chain_may_touch_one {
            free.andnot(self.crowded)
        } else {
            free.andnot(self.near_merchants)
        }
    }

    /// Empty wall spaces next to exactly one of {tower, wall piece} along their side (§3.5).
    #[inline]
    pub fn wall_squares(&self) -> Bits {
        self.open_walls
    }

    /// `self` with its open wall spaces found (a new position's: next to the towers).
    pub(super) fn with_open_walls(mut self) -> State {
        self.open_walls = self.wall_squares_now();
        self
    }

    /// [`State::wall_squares`] from the wall pieces.
    pub(super) fn wall_squares_now(&self) -> Bits {
        let geo = self.geo();
        let occ = self.walls | geo.tower_mask;
        let w = WIDTH as u32;
        ((geo.horizontal_walls & (occ.shl(1) ^ occ.shr(1))) | (geo.vertical_walls & (occ.shl(w) ^ occ.shr(w))))
            .andnot(self.walls)
    }

    /// Palace pieces `player` may dome: claimable palaces of colours they don't own (§3.2, A1).
    #[inline]
    pub fn dome_targets(&self, player: usize) -> Bits {
        let claim = if self.rules.abandoned_palace_claimable {
            &self.unowned_pieces
        } else {
            &self.unfinished_pieces
        };
        let mut m = Bits::EMPTY;
        for (c, pieces) in claim.iter().enumerate() {
            if self.owned[player * 4 + c] < 0 {
                m |= *pieces;
            }
        }
        m
    }
}
