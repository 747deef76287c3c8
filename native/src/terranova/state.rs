//! The Terra Nova position (`state.py`): the fields of `state.State`, the game they are
//! played in (board, rules, player count) and the empty cells kept in the lines layout.
//!
//! The rules over a position lie beside it, as in the Python package: move generation and
//! legality in [`super::moves`] (`moves.py`), applying moves, turn flow and the end of the
//! game in [`super::rules`] (`rules.py`), zones and scoring in [`super::scoring`]
//! (`scoring.py`), random play and the tree search's hooks in [`super::search`]. Each
//! function mirrors the Python function of the same name step by step, so that the two
//! engines agree exactly (the differential tests compare them at every step). A [`State`]
//! is a small `Copy` value: fixed-size bitsets over the cells, no heap.

use super::board::{Board, Rules};
use super::rules::Termination;
use crate::common::bits::Bits;

/// Stones in the supply at the start (`state.TOTAL_STONES`).
pub const TOTAL_STONES: i32 = 80;
/// The most seats.
pub const MAX_SEATS: usize = 4;
/// The words of a state's [`Lines`] per word of its bitsets (`[Bits<W>; 8]`: room for
/// six copies of the board with padding on the maps people play).
pub const LINE_WORDS_PER_W: usize = 8;

/// The most scored areas a state records ([`AreaRecord`]): random games score about a
/// dozen. A state that scores more still plays by the rules (it counts them in
/// `num_areas`), but cannot export its areas (`export()` leaves them out).
pub const MAX_RECORDED_AREAS: usize = 32;

/// What a scored area's record cannot derive from the position: the area's cells are the
/// component of `closed` holding `cell` (areas never touch: an area is a whole zone of
/// the open cells of its time, which later areas lie in and earlier ones bound), and
/// its landscapes, value and awards follow from the cells, the counts and the rules
/// (`scoring::ScoredArea`). Eight bytes, so that the position stays a small copy.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct AreaRecord {
    /// The turn in which it was scored.
    pub turn: u32,
    /// Its lowest cell.
    pub cell: u16,
    /// Pioneers per seat in it when scored, four bits a seat (at most 13 each).
    pub counts: u16,
}

impl AreaRecord {
    /// Seat `p`'s pioneers in the area when it was scored.
    pub fn count(&self, p: usize) -> i32 {
        i32::from(self.counts >> (4 * p) & 15)
    }

    /// The counts of `counts` (each below 16) packed four bits a seat.
    pub fn pack_counts(counts: &[i32]) -> u16 {
        counts
            .iter()
            .enumerate()
            .fold(0, |packed, (p, &c)| packed | ((c as u16 & 15) << (4 * p)))
    }
}

/// Pioneers per player by player count (`state.PIONEERS_PER_PLAYER`).
pub fn pioneers_per_player(num_players: usize) -> Option<i32> {
    match num_players {
        2 => Some(13),
        3 => Some(10),
        4 => Some(8),
        _ => None,
    }
}

/// The phases of `state.py`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Phase {
    Placement,
    Play,
    Over,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Placement => "placement",
            Phase::Play => "play",
            Phase::Over => "over",
        }
    }
}

/// Everything fixed for one game: the board, the rules, the player count, and how the
/// searches value a position (`eval::evaluate`: learned weights, or `None` for the
/// hand-written evaluation).
#[derive(Clone, Debug)]
pub struct Game<const W: usize> {
    pub board: Board<W>,
    pub rules: Rules,
    pub num_players: usize,
    pub learned: Option<super::eval::Weights>,
}

/// A Terra Nova position (the fields of `state.State`, same names and meanings).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct State<const W: usize> {
    pub pioneers: [Bits<W>; MAX_SEATS],
    pub stones: Bits<W>,
    pub closed: Bits<W>,
    /// Pioneers, stones and closed cells (`state.filled`).
    pub filled: Bits<W>,
    pub turn_stones: Bits<W>,
    pub points: [i32; MAX_SEATS],
    pub in_hand: [i32; MAX_SEATS],
    pub removed: [i32; MAX_SEATS],
    pub supply: i32,
    /// `(current cell, turn-start cell)` of each pioneer moved this turn.
    pub movers: [(u16, u16); 3],
    pub num_movers: u8,
    pub action: u8,
    pub moves_made: u8,
    pub pending_return: i32,
    pub turn: u32,
    pub ply: u32,
    pub stall: u32,
    pub current_player: i32,
    pub start_player: u8,
    pub phase: Phase,
    pub termination: Option<Termination>,
    /// How many areas have been scored (`len(state.areas)`).
    pub num_areas: u32,
    /// The first [`MAX_RECORDED_AREAS`] scored areas in the order scored (`state.areas`,
    /// `scoring::scored_areas`); the rest are default.
    pub areas: [AreaRecord; MAX_RECORDED_AREAS],
    /// The empty cells in the lines layout, for counting slides (derived from `filled`).
    pub lines: Lines<W>,
}

/// The empty cells in the lines layout of `board.py`: six copies of the board, copy `d`
/// laid out line by line along direction `d`, a padding bit after every line and in
/// every gap (`Board::cell_line_pos`). There, the cells a pioneer can slide to in
/// direction `d` are the run of set bits right after its position in copy `d`, so its
/// slides in that direction are counted by one bit scan, and the `k`-th slide is found
/// without listing any.
///
/// Listing some 200 slides by walking the rays cell by cell was about four fifths of a
/// random playout's time (and most of `legal_actions`). An action fills or empties one
/// or two cells (more when an area closes): six bits each to flip, which
/// [`State::play`] does. The lines are a cache of `filled`: they know the `filled` they
/// were made for, and a state whose `filled` changed elsewhere (or a board whose layout
/// does not fit, `Board::lines_fit`) walks the rays instead. Two states compare equal
/// whatever their caches.
#[derive(Clone, Copy)]
pub struct Lines<const W: usize> {
    /// The layout's bits, little-endian bytes (so that 64 bits from any bit are one read).
    pub(super) words: [[[u8; 8]; W]; LINE_WORDS_PER_W],
    /// The filled cells `words` is for.
    pub(super) filled: Bits<W>,
}

impl<const W: usize> PartialEq for Lines<W> {
    fn eq(&self, _: &Self) -> bool {
        true // derived from the state's `filled`, which the state compares
    }
}

impl<const W: usize> Eq for Lines<W> {}

impl<const W: usize> std::fmt::Debug for Lines<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lines")
    }
}

impl<const W: usize> Lines<W> {
    /// The lines of a board with `filled` cells.
    pub fn new(b: &Board<W>, filled: &Bits<W>) -> Self {
        // Every cell filled is all bits clear; then the empty cells are flipped.
        let mut lines = Lines {
            words: [[[0; 8]; W]; LINE_WORDS_PER_W],
            filled: b.all,
        };
        lines.sync(b, filled);
        lines
    }

    /// Brings the lines up to `filled`: flips the six bits of every changed cell.
    #[inline]
    pub fn sync(&mut self, b: &Board<W>, filled: &Bits<W>) {
        if !b.lines_fit {
            return;
        }
        let changed = self.filled ^ *filled;
        for cell in changed.iter() {
            let bytes = self.words.as_flattened_mut().as_flattened_mut();
            for &p in b.cell_line_pos[cell].iter() {
                bytes[p as usize >> 3] ^= 1 << (p & 7);
            }
        }
        self.filled = *filled;
    }

    /// How many empty cells follow the layout position `p` in a row (a run is shorter
    /// than a ray, at most 56 cells: `Board::lines_fit`).
    #[inline]
    pub(super) fn run_after(&self, p: u32) -> u32 {
        let next = p as usize + 1;
        let bytes = self.words.as_flattened().as_flattened();
        let at = next >> 3;
        // The 57 or more bits from `next` on, in one read.
        let window = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
        (window >> (next & 7)).trailing_ones()
    }

    /// The reach of the pioneer on `cell` in each direction: the empty cells in a row.
    #[inline]
    pub(super) fn reach(&self, b: &Board<W>, cell: usize) -> [u32; 6] {
        b.cell_line_pos[cell].map(|p| self.run_after(p))
    }
}

impl<const W: usize> State<W> {
    #[inline]
    pub(super) fn player(&self) -> usize {
        self.current_player as usize
    }

    #[inline]
    pub(super) fn movers(&self) -> &[(u16, u16)] {
        &self.movers[..self.num_movers as usize]
    }

    pub fn is_terminal(&self) -> bool {
        self.termination.is_some()
    }

    /// s(X) of the pioneer now on `cell`.
    pub(super) fn start_cell(&self, cell: usize) -> usize {
        for &(cur, start) in self.movers() {
            if cur as usize == cell {
                return start as usize;
            }
        }
        cell
    }

    /// Whether seat `p` has a pioneer next to an empty cell.
    #[inline]
    pub(super) fn can_step(&self, g: &Game<W>, own: &Bits<W>) -> bool {
        let empty = g.board.all.minus(&self.filled);
        own.iter().any(|c| g.board.neighbor_masks[c].intersects(&empty))
    }

    /// The lines layout of the empty cells, where it is up to date (`Lines`).
    #[inline]
    pub(super) fn lines(&self, g: &Game<W>) -> Option<&Lines<W>> {
        (g.board.lines_fit && self.lines.filled == self.filled).then_some(&self.lines)
    }
}
