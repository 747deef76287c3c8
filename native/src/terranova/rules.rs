//! Terra Nova rules (`rules.py`): the initial position, applying moves, turn flow and the
//! end of the game (§5).
//!
//! A turn is 1 to 3 actions by one player, action 1 a move; after each action the turn
//! goes on while an action is possible. The areas a stone closes are found and scored by
//! `scoring.rs`; the end checks run after every turn and once after setup.

use super::board::ReturnRule;
use super::moves::Move;
use super::scoring::{is_area, parts_after_stone};
use super::state::{
    pioneers_per_player, AreaRecord, Game, Lines, Phase, State, MAX_RECORDED_AREAS, MAX_SEATS, TOTAL_STONES,
};
use crate::common::bits::Bits;

/// Why a game ended (E1-E5, `rules.py`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Termination {
    BoardDivided,
    OneMobilePlayer,
    PlayerEliminated,
    StonesExhausted,
    Stall,
}

impl Termination {
    pub fn name(self) -> &'static str {
        match self {
            Termination::BoardDivided => "board_divided",
            Termination::OneMobilePlayer => "one_mobile_player",
            Termination::PlayerEliminated => "player_eliminated",
            Termination::StonesExhausted => "stones_exhausted",
            Termination::Stall => "stall",
        }
    }
}

impl<const W: usize> Game<W> {
    /// The initial state: placement, `start` to place first.
    pub fn initial(&self, start: usize) -> State<W> {
        let each = pioneers_per_player(self.num_players).unwrap_or(0);
        let mut in_hand = [0; MAX_SEATS];
        for h in in_hand.iter_mut().take(self.num_players) {
            *h = each;
        }
        State {
            pioneers: [Bits::EMPTY; MAX_SEATS],
            stones: Bits::EMPTY,
            closed: Bits::EMPTY,
            filled: Bits::EMPTY,
            turn_stones: Bits::EMPTY,
            points: [0; MAX_SEATS],
            in_hand,
            removed: [0; MAX_SEATS],
            supply: TOTAL_STONES,
            movers: [(0, 0); 3],
            num_movers: 0,
            action: 0,
            moves_made: 0,
            pending_return: -1,
            turn: 0,
            ply: 0,
            stall: 0,
            current_player: start as i32,
            start_player: start as u8,
            phase: Phase::Placement,
            termination: None,
            num_areas: 0,
            areas: [AreaRecord::default(); MAX_RECORDED_AREAS],
            lines: Lines::new(&self.board, &Bits::EMPTY),
        }
    }
}

impl<const W: usize> State<W> {
    /// Plays a move known to be legal on this state (in place: a playout copies no
    /// state per move).
    pub fn play(&mut self, g: &Game<W>, mv: Move) {
        match mv {
            Move::Place(cell) => self.apply_place(g, cell),
            Move::Slide { src, dst } => self.apply_slide(g, src, dst),
            Move::Stone(cell) => self.apply_stone(g, cell),
            Move::Pass => self.finish_turn(g, false),
        }
        self.lines.sync(&g.board, &self.filled);
    }

    fn apply_place(&mut self, g: &Game<W>, cell: usize) {
        let p = self.player();
        self.pioneers[p].set(cell);
        self.in_hand[p] -= 1;
        let done = self.in_hand.iter().all(|&h| h == 0);
        self.current_player = if done {
            self.start_player as i32
        } else {
            ((p + 1) % g.num_players) as i32
        };
        self.phase = if done { Phase::Play } else { Phase::Placement };
        self.turn += 1;
        self.ply += 1;
        self.filled.set(cell);
        if done {
            if let Some(t) = self.termination_check(g) {
                self.game_over(t);
            }
        }
    }

    fn apply_slide(&mut self, g: &Game<W>, src: usize, dst: usize) {
        let p = self.player();
        self.pioneers[p].clear(src);
        self.pioneers[p].set(dst);
        let mut start = src;
        let mut found = false;
        for m in self.movers[..self.num_movers as usize].iter_mut() {
            if m.0 as usize == src {
                start = m.1 as usize;
                m.0 = dst as u16;
                found = true;
                break;
            }
        }
        if !found {
            self.movers[self.num_movers as usize] = (dst as u16, src as u16);
            self.num_movers += 1;
        }
        self.action += 1;
        let pending = if dst == start && g.rules.return_rule == ReturnRule::EndOfTurn {
            dst as i32
        } else {
            -1
        };
        self.moves_made += 1;
        self.pending_return = pending;
        self.ply += 1;
        self.filled.clear(src);
        self.filled.set(dst);
        if self.action < 3 && (self.supply > 0 || pending >= 0 || self.has_slide(g)) {
            return;
        }
        let placed = self.action > self.moves_made;
        self.finish_turn(g, placed)
    }

    fn apply_stone(&mut self, g: &Game<W>, cell: usize) {
        let b = &g.board;
        self.stones.set(cell);
        if g.rules.immediate_scoring {
            let open_after = b.all.minus(&(self.stones | self.closed));
            let parts = parts_after_stone(g, cell, &open_after);
            if parts.len > 0 {
                self.score_parts(g, parts.as_slice());
                let own = self.pioneers[self.player()];
                let mut kept = 0;
                for i in 0..self.num_movers as usize {
                    let m = self.movers[i];
                    if own.get(m.0 as usize) {
                        self.movers[kept] = m;
                        kept += 1;
                    }
                }
                self.num_movers = kept as u8;
            }
        }
        self.action += 1;
        self.supply -= 1;
        self.pending_return = -1;
        self.ply += 1;
        self.filled.set(cell);
        self.filled |= self.closed;
        self.turn_stones.set(cell);
        if self.action < 3 && (self.stone_targets(g).any() || self.has_slide(g)) {
            return;
        }
        self.finish_turn(g, true)
    }

    fn finish_turn(&mut self, g: &Game<W>, placed_stone: bool) {
        let b = &g.board;
        let rules = &g.rules;
        if !rules.immediate_scoring {
            // Scoring changes only pioneers, points and closed cells: the zones and the
            // turn's stones are those of the turn's end.
            let open = b.all.minus(&(self.stones | self.closed));
            let turn_stones = self.turn_stones;
            let mut remaining = open;
            while let Some(low) = remaining.lowest() {
                let zone = b.flood_fill(&Bits::single(low), &remaining);
                remaining = remaining.minus(&zone);
                if is_area(g, &zone) && (rules.score_on_type_reduction || split_off(g, &zone, &open, &turn_stones)) {
                    self.score_parts(g, &[zone]);
                }
            }
        }
        let passed = self.action == 0;
        self.current_player = ((self.current_player as usize + 1) % g.num_players) as i32;
        self.phase = Phase::Play;
        self.clear_turn();
        self.turn_stones = Bits::EMPTY;
        self.turn += 1;
        if passed {
            self.ply += 1;
        }
        self.stall = if placed_stone { 0 } else { self.stall + 1 };
        self.filled |= self.closed;
        if let Some(t) = self.termination_check(g) {
            self.game_over(t);
        }
    }

    /// Forgets the turn in progress: its actions and movers.
    fn clear_turn(&mut self) {
        self.action = 0;
        self.num_movers = 0;
        self.movers = [(0, 0); 3];
        self.moves_made = 0;
        self.pending_return = -1;
    }

    fn game_over(&mut self, termination: Termination) {
        self.current_player = -1;
        self.phase = Phase::Over;
        self.clear_turn();
        self.termination = Some(termination);
    }

    // -- the end of the game (§5) ------------------------------------------------------------

    /// How many seats can still move by the ruleset's mobility test (counting stops at
    /// `stop_at`).
    pub fn mobile_players(&self, g: &Game<W>, stop_at: usize) -> usize {
        let b = &g.board;
        let seats = &self.pioneers[..g.num_players];
        if g.rules.potential_mobility {
            let empty = b.all.minus(&self.filled);
            let open = b.all.minus(&(self.stones | self.closed));
            let reach = b.flood_fill(&empty, &open);
            return seats.iter().filter(|own| own.intersects(&reach)).count();
        }
        let mut found = 0;
        for own in seats {
            if self.can_step(g, own) {
                found += 1;
                if found >= stop_at {
                    break;
                }
            }
        }
        found
    }

    /// The end condition (E1-E5) that holds here, checked at the end of a turn.
    pub fn termination_check(&self, g: &Game<W>) -> Option<Termination> {
        let b = &g.board;
        let rules = &g.rules;
        if b.all.minus(&(self.stones | self.closed)).is_empty() {
            return Some(Termination::BoardDivided);
        }
        if self.mobile_players(g, 2) <= 1 {
            return Some(Termination::OneMobilePlayer);
        }
        if rules.end_on_player_eliminated && self.pioneers[..g.num_players].iter().any(|p| p.is_empty()) {
            return Some(Termination::PlayerEliminated);
        }
        if rules.end_on_stones_exhausted && self.supply <= 0 {
            return Some(Termination::StonesExhausted);
        }
        let limit = rules.stall_limit_rounds;
        if limit > 0 && self.stall as u64 >= limit as u64 * g.num_players as u64 {
            return Some(Termination::Stall);
        }
        None
    }

    /// The seats with the top score once over, else none.
    pub fn winners(&self, g: &Game<W>) -> Vec<usize> {
        if self.termination.is_none() {
            return Vec::new();
        }
        crate::common::outcome::winners(&self.points[..g.num_players])
    }
}

/// `_split_off`: whether this turn's stones cut `zone` off from a larger zone.
fn split_off<const W: usize>(g: &Game<W>, zone: &Bits<W>, open: &Bits<W>, turn_stones: &Bits<W>) -> bool {
    let then = *open | *turn_stones;
    let old_zone = g.board.flood_fill(zone, &then);
    (old_zone & *open).minus(zone).any()
}
