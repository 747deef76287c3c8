//! Terra Nova's observation in Rust: the planes and the vector of
//! `src/tabletop/games/terranova/encoding.py` (`TerraNovaEncoding.observe`), value for
//! value, written into buffers the caller owns. The Python encoding stays the readable
//! definition; `tests/envs/test_native_encoding.py` compares the two on random positions.
//!
//! Reads the position through the fields listed in [`Layout::write_planes`] and
//! [`write_vector`] only, so a change of the state's layout touches these two functions.

use super::board::Board;
use super::state::{Game, Phase, State, MAX_SEATS, TOTAL_STONES};
use crate::common::kept::Kept;

/// Score planes hold `points / SCORE_SCALE` (`encoding.SCORE_SCALE`).
pub const SCORE_SCALE: f64 = 100.0;
/// Entries of the vector (`TerraNovaEncoding.spec.vector`).
pub const VECTOR_LEN: usize = 23;
/// Planes after the landscape planes: 4 pioneers, stones, closed, moved, turn_start,
/// must_move, actions_left, supply, 4 scores.
const PLANES_AFTER_LANDS: usize = 4 + 5 + 2 + MAX_SEATS;

/// Where each cell lies in a plane, and the planes that never change (the map's cells and
/// landscapes), for one board (`Board::layout`).
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub height: usize,
    pub width: usize,
    pub num_lands: usize,
    /// Cell index -> position in a plane: `(r - r_min) * width + (q - q_min)`.
    pos: Vec<u32>,
    /// The planes `cell` and `land:*` (the first `1 + num_lands` planes).
    fixed: Vec<f32>,
}

impl Layout {
    /// The layout of `board` (the encoding's `_pos` and `_template`).
    pub fn new<const W: usize>(board: &Board<W>) -> Layout {
        let q_min = board.coords.iter().map(|c| c.0).min().unwrap_or(0);
        let q_max = board.coords.iter().map(|c| c.0).max().unwrap_or(0);
        let r_min = board.coords.iter().map(|c| c.1).min().unwrap_or(0);
        let r_max = board.coords.iter().map(|c| c.1).max().unwrap_or(0);
        let width = (q_max - q_min + 1) as usize;
        let height = (r_max - r_min + 1) as usize;
        let pos: Vec<u32> = board
            .coords
            .iter()
            .map(|&(q, r)| ((r - r_min) as usize * width + (q - q_min) as usize) as u32)
            .collect();
        let hw = width * height;
        let mut fixed = vec![0.0f32; (1 + board.num_lands) * hw];
        for (cell, &p) in pos.iter().enumerate() {
            fixed[p as usize] = 1.0;
            fixed[(1 + board.land[cell] as usize) * hw + p as usize] = 1.0;
        }
        Layout {
            height,
            width,
            num_lands: board.num_lands,
            pos,
            fixed,
        }
    }

    /// Cells of one plane.
    pub fn plane_size(&self) -> usize {
        self.height * self.width
    }

    /// How many planes (`len(spec.planes)`).
    pub fn num_planes(&self) -> usize {
        1 + self.num_lands + PLANES_AFTER_LANDS
    }

    /// Floats of the planes (`planes * height * width`).
    pub fn planes_len(&self) -> usize {
        self.num_planes() * self.plane_size()
    }

    /// Writes the planes of `s` seen by `seat` into `out` (`planes_len()` floats, C order),
    /// every float of it. Reads `pioneers`, `stones`, `closed`, `movers`, `pending_return`,
    /// `phase`, `action`, `supply` and `points`.
    pub fn write_planes<const W: usize>(&self, g: &Game<W>, s: &State<W>, seat: usize, out: &mut [f32]) {
        self.write_planes_kept(g, s, seat, out, &mut Kept::Full);
    }

    /// [`Layout::write_planes`], or with `Kept::Update` only what changed since the
    /// write that filled `out` and `undo` (`Kept::Track` or `Kept::Update`): a vector env
    /// rewrites a game's planes each step, and writing 20 kB a step was most of its time
    /// on large batches.
    pub fn write_planes_kept<const W: usize>(
        &self,
        g: &Game<W>,
        s: &State<W>,
        seat: usize,
        out: &mut [f32],
        kept: &mut Kept<'_>,
    ) {
        let hw = self.plane_size();
        let out = &mut out[..self.planes_len()];
        kept.start(out, self.fixed.len(), &self.fixed);
        let PlaneStarts {
            pioneers0,
            stones,
            closed,
            moved,
            turn_start,
            must_move,
            actions_left_plane,
            supply_plane,
            score0,
        } = self.plane_starts();
        let n = g.num_players;
        let pos = &self.pos;
        for (player, own) in s.pioneers[..n].iter().enumerate() {
            let plane = pioneers0 + relative(player, seat, n) * hw;
            for cell in own.iter() {
                kept.set(out, plane + pos[cell] as usize);
            }
        }
        for cell in s.stones.iter() {
            kept.set(out, stones + pos[cell] as usize);
        }
        for cell in s.closed.iter() {
            kept.set(out, closed + pos[cell] as usize);
        }
        for &(cur, start) in &s.movers[..s.num_movers as usize] {
            kept.set(out, moved + pos[cur as usize] as usize);
            kept.set(out, turn_start + pos[start as usize] as usize);
        }
        if s.pending_return >= 0 {
            kept.set(out, must_move + pos[s.pending_return as usize] as usize);
        }
        kept.fill(
            out,
            actions_left_plane..actions_left_plane + hw,
            0,
            (actions_left(s) as f64 / 3.0) as f32,
        );
        kept.fill(
            out,
            supply_plane..supply_plane + hw,
            1,
            (s.supply as f64 / TOTAL_STONES as f64) as f32,
        );
        let mut scores = [0.0f64; MAX_SEATS];
        for (player, &points) in s.points[..n].iter().enumerate() {
            scores[relative(player, seat, n)] = points as f64 / SCORE_SCALE;
        }
        for (rel, &score) in scores.iter().enumerate() {
            kept.fill(out, score0 + rel * hw..score0 + (rel + 1) * hw, 2 + rel, score as f32);
        }
        kept.finish(out);
    }
}

/// Where each plane after the fixed ones starts (a float index of the planes).
struct PlaneStarts {
    pioneers0: usize,
    stones: usize,
    closed: usize,
    moved: usize,
    turn_start: usize,
    must_move: usize,
    actions_left_plane: usize,
    supply_plane: usize,
    score0: usize,
}

impl Layout {
    fn plane_starts(&self) -> PlaneStarts {
        let hw = self.plane_size();
        let pioneers0 = self.fixed.len();
        let stones = pioneers0 + 4 * hw;
        let closed = stones + hw;
        let moved = closed + hw;
        let turn_start = moved + hw;
        let must_move = turn_start + hw;
        let actions_left_plane = must_move + hw;
        let supply_plane = actions_left_plane + hw;
        let score0 = supply_plane + hw;
        PlaneStarts {
            pioneers0,
            stones,
            closed,
            moved,
            turn_start,
            must_move,
            actions_left_plane,
            supply_plane,
            score0,
        }
    }

    /// Where the planes are the same for every position of the board (`cell`, `land:*`)
    /// and which planes are one value throughout (actions left, supply, scores), as
    /// ranges of floats: the network's first layer sums those rows of its weights once
    /// (`common::network::InputLayout`).
    pub fn input_layout(&self) -> (std::ops::Range<usize>, Vec<std::ops::Range<usize>>) {
        let hw = self.plane_size();
        let starts = self.plane_starts();
        let filled = [starts.actions_left_plane, starts.supply_plane]
            .into_iter()
            .chain((0..MAX_SEATS).map(|rel| starts.score0 + rel * hw));
        (0..self.fixed.len(), filled.map(|start| start..start + hw).collect())
    }
}

/// `(player - seat) % n`: seats counted from the observer.
#[inline]
pub fn relative(player: usize, seat: usize, n: usize) -> usize {
    (player + n - seat % n) % n
}

/// `state.actions_left`: actions the player to move may still take (0 outside play).
#[inline]
pub fn actions_left<const W: usize>(s: &State<W>) -> i32 {
    if s.phase == Phase::Play {
        3 - i32::from(s.action)
    } else {
        0
    }
}

/// Writes the vector of `s` seen by `seat` into `out` ([`VECTOR_LEN`] floats, every one).
/// Reads `phase`, `current_player`, `action`, `supply`, `points`, `in_hand`, `removed`
/// and `stall`.
pub fn write_vector<const W: usize>(g: &Game<W>, s: &State<W>, seat: usize, out: &mut [f32]) {
    let out = &mut out[..VECTOR_LEN];
    out.fill(0.0);
    let n = g.num_players;
    out[match s.phase {
        Phase::Placement => 0,
        Phase::Play => 1,
        Phase::Over => 2,
    }] = 1.0;
    if s.phase != Phase::Over {
        out[3 + relative(s.current_player as usize, seat, n)] = 1.0;
    }
    out[7] = actions_left(s) as f32;
    out[8] = s.supply as f32;
    for player in 0..n {
        let rel = relative(player, seat, n);
        out[9 + rel] = s.points[player] as f32;
        out[13 + rel] = s.in_hand[player] as f32;
        out[17 + rel] = s.removed[player] as f32;
    }
    out[21] = s.stall as f32;
    out[22] = n as f32;
}

/// The legal actions of `s` into `out` (cleared first), kind by kind (not sorted).
pub fn legal_actions_into<const W: usize>(g: &Game<W>, s: &State<W>, out: &mut Vec<u32>) {
    out.clear();
    for &kind in s.legal_kinds(g).as_slice() {
        s.actions_of_kind(g, kind, out);
    }
}

/// Plays `action`, known to be legal (listed by [`legal_actions_into`]).
pub fn play_legal<const W: usize>(g: &Game<W>, s: &mut State<W>, action: u32) {
    if let Some(mv) = g.decode_listed(action as usize) {
        s.play(g, mv);
    }
}

/// Whether `action` is legal in `s`.
pub fn is_legal<const W: usize>(g: &Game<W>, s: &State<W>, action: u32) -> bool {
    !s.is_terminal() && g.decode(action as usize).is_some_and(|mv| s.is_legal(g, mv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::rng::Rng;

    #[test]
    fn relative_seats_count_from_the_observer() {
        assert_eq!(relative(0, 0, 3), 0);
        assert_eq!(relative(0, 1, 3), 2);
        assert_eq!(relative(2, 1, 3), 1);
    }

    #[test]
    fn planes_mark_every_pioneer_once_through_a_game() {
        // The 37-cell disc of board.py's docstring (the board tests' map).
        let mut cells = Vec::new();
        for r in -3i32..=3 {
            for q in -3i32..=3 {
                if (q + r).abs() <= 3 {
                    cells.push((q, r, ((q + 2 * r).rem_euclid(4)) as u8));
                }
            }
        }
        let board = Board::<1>::new(&cells, &[false, false, false, true]).expect("a valid disc");
        let game = Game {
            board,
            rules: Default::default(),
            num_players: 2,
            learned: None,
        };
        let layout = Layout::new(&game.board);
        let mut s = game.initial(0);
        let mut rng = Rng::new(3);
        let mut slides = Vec::new();
        let mut planes = vec![0.0; layout.planes_len()];
        let mut vector = vec![0.0; VECTOR_LEN];
        let hw = layout.plane_size();
        let pioneers0 = (1 + layout.num_lands) * hw;
        while let Some(mv) = s.random_move(&game, &mut rng, &mut slides) {
            s.play(&game, mv);
            layout.write_planes(&game, &s, 1, &mut planes);
            write_vector(&game, &s, 1, &mut vector);
            let marked: f32 = planes[pioneers0..pioneers0 + 2 * hw].iter().sum();
            let on_board = (s.pioneers[0].count() + s.pioneers[1].count()) as f32;
            assert_eq!(marked, on_board);
            assert_eq!(vector[22], 2.0);
        }
    }
}
