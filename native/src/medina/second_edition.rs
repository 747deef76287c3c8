//! The second edition's rules (`shared/rules/medina-2e.md`) as the Python engine plays
//! them: the well and its squares, neutral domes, tea tiles, the claims' order and the
//! tie-break, and the last-player dome obligation's second-edition checks (`rules.py`,
//! `moves.py`, `placement.py`, `scoring.py`).  The 2-player board is `board::BOARD_2P`;
//! the rest of the rules (and the flags that apply in either edition) are in the files
//! named as the Python modules (`placement.rs`, `moves.rs`, `rules.rs`, `scoring.rs`;
//! the flags and their parsing, `neutral_domes` included, `ruleset.rs`).

use super::board::{Bits, TOUCH_CLOSED, WIDTH};
use super::moves::{DOME, NUM_SLOTS, PURPLE};
use super::state::State;

/// The red squares (touching the well) and the yellow bonus squares of a well on `well`
/// (2e §1.5, E5: the cross of four squares two steps away, or the plaza ring of twelve),
/// the yellow ones within `building`.
pub fn well_squares(well: usize, plaza_ring: bool, building: Bits) -> (Bits, Bits) {
    const CROSS: [(isize, isize); 4] = [(-2, 0), (2, 0), (0, -2), (0, 2)];
    const RING: [(isize, isize); 12] = [
        (-2, -1),
        (-2, 0),
        (-2, 1),
        (2, -1),
        (2, 0),
        (2, 1),
        (-1, -2),
        (0, -2),
        (1, -2),
        (-1, 2),
        (0, 2),
        (1, 2),
    ];
    let red = TOUCH_CLOSED[well].andnot(Bits::single(well));
    let (col, row) = ((well % WIDTH) as isize, (well / WIDTH) as isize);
    let offsets: &[(isize, isize)] = if plaza_ring { &RING } else { &CROSS };
    let mut yellow = Bits::EMPTY;
    for &(dc, dr) in offsets {
        let (c, r) = (col + dc, row + dr);
        if (0..WIDTH as isize).contains(&c) && (0..13).contains(&r) {
            yellow = yellow.with(r as usize * WIDTH + c as usize);
        }
    }
    (red, yellow & building)
}

impl State {
    /// Puts the well on `sq` (setup, 2e §2.1): the square is never empty, and no palace
    /// piece or stable may ever go on a red square (the street-rule sets say so).
    pub fn place_well(&mut self, sq: usize) {
        let (red, yellow) = well_squares(sq, self.rules.well_bonus_plaza_ring, self.geo().building);
        self.well = sq as u8;
        self.red = red;
        self.yellow = yellow;
        self.occupied |= Bits::single(sq);
        self.forbid |= red;
        self.contested |= red;
        self.reset_kept();
    }

    /// Palace pieces a neutral dome may go on (2e §3.2.5, E3): a palace a dome could
    /// claim by its status, any colour; with `neutral_dome_any_unowned` any unowned palace.
    pub fn neutral_targets(&self) -> Bits {
        let claim = if self.rules.neutral_dome_any_unowned || self.rules.abandoned_palace_claimable {
            &self.unowned_pieces
        } else {
            &self.unfinished_pieces
        };
        claim[0] | claim[1] | claim[2] | claim[3]
    }

    /// Tea tiles `player` may spend now (2e E7: not those received this turn, if so ruled).
    pub fn tea_usable(&self, player: usize) -> i32 {
        let mut held = i32::from(self.tea[player]);
        if held > 0 && !self.rules.tea_usable_turn_received && player as i8 == self.current_player {
            held -= i32::from(self.tea_fresh);
        }
        held
    }

    /// Whether the current player may spend a tea tile now (2e §2.2): at the second step
    /// of a two-placement turn, holding one, and not when the second placement must be a dome.
    pub fn tea_legal(&self) -> bool {
        let player = self.current_player as usize;
        if !self.second_step || self.placements_left != 1 || self.tea_usable(player) <= 0 {
            return false;
        }
        !(self.obligation && self.sup(player, DOME) > 0 && self.dome_targets(player).any())
    }

    /// Pieces in `player`'s supply, neutral domes included (tea tiles are not pieces).
    pub fn supply_count(&self, player: usize) -> u32 {
        let own: u32 = self.supply[player * NUM_SLOTS..(player + 1) * NUM_SLOTS]
            .iter()
            .map(|&c| u32::from(c))
            .sum();
        own + u32::from(self.neutral[player])
    }

    /// Whether `player` is the only able player (A7: the only one with pieces) and can
    /// place an own dome: the last-player dome obligation (§5.2), decided after the first
    /// placement with `obligation_recheck` (E12b).
    pub fn alone_with_dome(&self, player: usize) -> bool {
        if !(self.sup(player, DOME) > 0 && self.dome_targets(player).any()) {
            return false;
        }
        let n = self.num_players as usize;
        let mut others = (1..n).map(|k| (player + k) % n);
        if self.rules.last_player_by_supply {
            others.all(|q| self.supply_count(q) == 0)
        } else {
            !others.any(|q| self.is_able(q))
        }
    }

    /// Records the claim of palace `pid` by `owner` (a seat or `NEUTRAL`): its place in the
    /// order of claims, and a purple claim's tea tiles (2e §4.3: half the pool, rounded up,
    /// to the claiming seat, or to the box for a neutral dome).
    pub(crate) fn record_claim(&mut self, pid: usize, owner: i8) {
        self.palaces[pid].claim = self.num_claims;
        self.num_claims += 1;
        if self.palaces[pid].color as usize != PURPLE {
            return;
        }
        let share = self.tea_pool.div_ceil(2);
        if share == 0 {
            return;
        }
        self.tea_pool -= share;
        if owner >= 0 {
            self.tea[owner as usize] += share;
            self.tea_fresh += share;
        }
    }

    /// The palace ids in the order their domes were placed (the Python `claims`).
    pub fn claims(&self) -> Vec<usize> {
        let mut out = vec![usize::MAX; self.num_claims as usize];
        for pid in 0..self.num_palaces as usize {
            let claim = self.palaces[pid].claim as usize;
            if claim < out.len() {
                out[claim] = pid;
            }
        }
        out
    }

    /// The winner among `tied` seats by `tie_break="largest_palace"` (2e §5.5, BGA): the
    /// largest player-owned palace, then the one whose palace of that size was claimed
    /// first (`scoring.tie_break_winner`; the first of equals).
    pub fn tie_break_winner(&self, tied: &[u8]) -> u8 {
        let key = |seat: u8| -> (i32, i32) {
            (0..self.num_palaces as usize)
                .map(|pid| self.palaces[pid])
                .filter(|pal| pal.owner == seat as i8 && pal.claim != u8::MAX)
                .map(|pal| (i32::from(pal.size), -i32::from(pal.claim)))
                .max()
                .unwrap_or((0, -i32::from(self.num_claims)))
        };
        let mut best = tied[0];
        for &seat in &tied[1..] {
            if key(seat) > key(best) {
                best = seat;
            }
        }
        best
    }
}
