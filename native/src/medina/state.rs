//! Medina's position (`src/tabletop/games/medina/state.py`): the [`State`] value, its
//! fields and the accessors the rules read.  The rules are in the files named as the
//! Python package's modules: where each piece may go `placement.rs`, the action ids and
//! legal moves `moves.rs`, a new game's position, applying moves and the turn order
//! `rules.rs`, final scoring `scoring.rs` and the rule flags `ruleset.rs`; random play and
//! the tree search's hooks are `search.rs`.  The second edition's additions (the well,
//! neutral domes, tea tiles, tower merchants, the tie-break; the `medina-2e.md` spec) are
//! in `second_edition.rs`; the 2-player board is `board::BOARD_2P`, read through
//! [`State::geo`].  The spec is `shared/rules/medina.md`; section numbers refer to it.
//!
//! A [`State`] is a `Copy` value of fixed size: square sets are 256-bit [`Bits`], and
//! every palace is a few bytes of metadata.  A palace's squares are not stored: the
//! street rule keeps the components (pieces and stables) of two palaces from ever
//! touching, so a palace's pieces are the orthogonally connected group of palace pieces
//! around its first piece (`anchor`), and its stables are the stables next to those
//! pieces.  Wall runs are contiguous from their tower (the gate rule keeps a gap on every
//! side), so a run is its length.

use super::board::{
    flood, geometry_for, ortho_dilate, ortho_dilate_any, touch_dilate, two_or_more_neighbors, Bits, Geometry, NUM_RUNS,
};
use super::moves::{Sources, NUM_SLOTS};
use super::ruleset::Rules;

/// At most one palace per palace piece: 4 colours × 20 pieces (§1.1).
pub const MAX_PALACES: usize = 80;
pub(crate) const NO_SQUARE: u8 = u8::MAX;
/// The owner of a palace claimed by a neutral dome, the holder of the tiles it took (2e).
pub const NEUTRAL: i8 = -2;
/// Tea tiles in the second edition.
pub const TEA_TILES: u8 = 6;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    Start,
    Play,
    Over,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Start => "start_merchant",
            Phase::Play => "play",
            Phase::Over => "over",
        }
    }
}

/// One palace (§3.1): a maximal orthogonally connected group of same-colour pieces.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Palace {
    /// Its first piece: its pieces are the connected palace pieces around it.
    pub anchor: u8,
    pub color: u8,
    /// The seat that domed it, [`NEUTRAL`] (a neutral dome, 2e) or -1.
    pub owner: i8,
    /// The square of its dome, or 255.
    pub dome: u8,
    /// Unowned and without extension squares (final, §3.1.4).
    pub abandoned: bool,
    /// Pieces plus stables (the palace-tile comparison).
    pub size: u8,
    /// Its place in the order of claims (2e `State.claims`, for the tie-break), or 255.
    pub claim: u8,
}

impl Default for Palace {
    fn default() -> Palace {
        Palace {
            anchor: 0,
            color: 0,
            owner: -1,
            dome: NO_SQUARE,
            abandoned: false,
            size: 0,
            claim: u8::MAX,
        }
    }
}

/// A Medina position (`state.State`), a plain `Copy` value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct State {
    pub rules: Rules,
    pub num_players: u8,
    pub phase: Phase,
    pub current_player: i8,
    pub placements_left: u8,
    pub obligation: bool,
    pub turn: u16,
    pub ply: u16,
    pub palace_mask: Bits,
    pub stables: Bits,
    pub merchants: Bits,
    pub walls: Bits,
    pub occupied: Bits,
    pub forbid: Bits,
    pub contested: Bits,
    pub chain: Bits,
    pub chain_ends: Bits,
    /// Per colour, the extension squares of its unfinished palace.
    pub ext: [Bits; 4],
    /// Per colour, the pieces of its unfinished palace.
    pub unfinished_pieces: [Bits; 4],
    /// Per colour, the pieces of every unowned palace (claimable under A1).
    pub unowned_pieces: [Bits; 4],
    /// Per colour, the id of its unfinished palace or -1.
    pub unfinished: [i8; 4],
    pub num_palaces: u8,
    pub palaces: [Palace; MAX_PALACES],
    /// `owned[p * 4 + c]`: the id of seat `p`'s colour-`c` palace, or -1.
    pub owned: [i8; 16],
    /// Wall pieces per run.
    pub run_len: [u8; NUM_RUNS],
    /// `supply[p * 8 + slot]`.
    pub supply: [u8; 4 * NUM_SLOTS],
    pub retired: [u8; 4],
    pub palace_tiles: [i8; 4],
    pub tower_tiles: [i8; 4],
    /// The starting merchant's square, or 255.
    pub start_square: u8,
    /// The well's square (2e), or 255.
    pub well: u8,
    /// The squares touching the well (no palace piece, no stable) and its bonus squares (2e).
    pub red: Bits,
    pub yellow: Bits,
    /// Neutral domes per seat (2e).
    pub neutral: [u8; 4],
    /// Tea tiles held per seat (2e), still to be awarded, and received this turn by the
    /// player to move.
    pub tea: [u8; 4],
    pub tea_pool: u8,
    pub tea_fresh: u8,
    /// Merchants still on each tower tile, by tower slot (2e §1.4).
    pub tower_merchants: [u8; 4],
    /// The first placement of a two-placement turn has been made (a tea tile may go, 2e).
    pub second_step: bool,
    /// Palaces claimed so far (2e: the length of `claims`; each palace keeps its place).
    pub num_claims: u8,
    /// In the play phase, `placement_sources(current_player)`: where the player to move
    /// may place (found anyway while ending the previous placement, kept as the Python
    /// engine keeps them); empty otherwise.  A function of the other fields.
    pub(super) sources: Sources,
    /// The squares next to a merchant, and next to two or more (kept as merchants are
    /// placed: every turn's merchant squares read them).  Functions of `merchants`.
    pub(super) near_merchants: Bits,
    pub(super) crowded: Bits,
    /// The building squares next to a palace piece, and the wall spaces open to a wall
    /// piece (kept as pieces are placed).  Functions of `palace_mask` and `walls`.
    pub(super) near_palaces: Bits,
    pub(super) open_walls: Bits,
}

impl State {
    pub fn is_terminal(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The board side of this game (the 2-player side only in the second edition).
    #[inline]
    pub fn geo(&self) -> &'static Geometry {
        geometry_for(self.num_players as usize)
    }

    /// Sets the kept sets from the other fields (a loaded position): the squares next to
    /// merchants, and the placement sources (in play the player to act's
    /// `placement_sources`, else empty).
    pub fn reset_kept(&mut self) {
        self.near_merchants = ortho_dilate_any(self.merchants);
        self.crowded = two_or_more_neighbors(self.merchants);
        self.near_palaces = ortho_dilate(self.palace_mask) & self.geo().building;
        self.open_walls = self.wall_squares_now();
        self.sources = match self.phase {
            Phase::Play => self.placement_sources(self.current_player as usize),
            Phase::Start | Phase::Over => Sources::default(),
        };
        // Without the obligation the kept sources are the legal moves, tea included (2e).
        if self.phase == Phase::Play && !self.obligation && self.tea_legal() {
            self.sources.tea = true;
            self.sources.any = true;
        }
    }

    #[inline]
    pub(crate) fn sup(&self, player: usize, slot: usize) -> u8 {
        self.supply[player * NUM_SLOTS + slot]
    }

    /// The pieces of palace `pid`.
    #[inline]
    pub fn palace_pieces(&self, pid: usize) -> Bits {
        let pal = &self.palaces[pid];
        if pal.owner < 0 && self.unfinished[pal.color as usize] == pid as i8 {
            return self.unfinished_pieces[pal.color as usize];
        }
        flood(Bits::single(pal.anchor as usize), self.palace_mask)
    }

    /// The stables of a palace with these pieces.
    #[inline]
    pub(super) fn stables_of(&self, pieces: Bits) -> Bits {
        ortho_dilate(pieces) & self.stables
    }
}

/// The state's wall pieces per run, as the Python `runs` masks.
pub fn run_masks(state: &State) -> [Bits; NUM_RUNS] {
    let mut out = [Bits::EMPTY; NUM_RUNS];
    for (r, o) in out.iter_mut().enumerate() {
        *o = state.geo().run_masks[r][state.run_len[r] as usize];
    }
    out
}

/// The touch zone of a palace (its components plus every square touching one).
pub fn palace_touch(state: &State, pid: usize) -> Bits {
    let pieces = state.palace_pieces(pid);
    touch_dilate(pieces | state.stables_of(pieces))
}

/// The stables of palace `pid`.
pub fn palace_stables(state: &State, pid: usize) -> Bits {
    state.stables_of(state.palace_pieces(pid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::rng::Rng;
    use crate::medina::board::WIDTH;

    #[test]
    fn the_kept_sets_are_those_recomputed_from_the_position_after_every_action() {
        let mut rng = Rng::new(5);
        for (players, preset) in [
            (3, "default"),
            (4, "boardspace"),
            (3, "boardspace_legacy"),
            (4, "default"),
            (2, "second_edition"),
            (3, "boardspace_v2"),
            (4, "second_edition"),
        ] {
            let mut rules = Rules::preset(preset).expect("a preset");
            rules.new_chain_may_touch_one = players == 4;
            for game in 0..6 {
                let mut s = State::new(players, 0, rules);
                if rules.second() {
                    s.place_well(2 * WIDTH + 4 + game);
                    s.place_start(5 * WIDTH + 3);
                }
                while let Some(action) = s.random_action(&mut |k| rng.below(k)) {
                    s.apply_legal(action);
                    let mut recomputed = s;
                    recomputed.reset_kept();
                    assert_eq!(recomputed, s, "{preset}, {players} players, ply {}", s.ply);
                    // Each unfinished palace's extension squares, from its pieces.
                    let free = s.geo().building.andnot(s.occupied).andnot(s.contested);
                    for col in 0..4 {
                        assert_eq!(
                            s.ext[col],
                            ortho_dilate(s.unfinished_pieces[col]) & free,
                            "{preset}, ply {}",
                            s.ply
                        );
                    }
                    // A palace is abandoned only when no free square is next to it.
                    for pid in 0..s.num_palaces as usize {
                        if s.palaces[pid].abandoned {
                            assert!(
                                (ortho_dilate(s.palace_pieces(pid)) & free).is_empty(),
                                "{preset}, ply {}",
                                s.ply
                            );
                        }
                    }
                }
            }
        }
    }
}
