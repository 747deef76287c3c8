//! Iterative-deepening alpha-beta over any game of this crate with an evaluation: the
//! yardstick "of the established kind" (issue #40), a fixed-depth search over a
//! hand-written evaluation such as the robots of the game sites play.
//!
//! * **Values.** The game's [`Game::evaluate`] gives each seat's estimated final
//!   score; a position's value is the searching (root) seat's estimated lead over the
//!   best other seat, `e[root] - max(e[j], j != root)`. A finished game adds
//!   `±WIN` to its final lead, so a sure win ranks above any estimate.
//! * **Paranoid reduction for 3-4 seats.** The root seat maximises that value and every
//!   other seat minimises it, as if all the others were one coalition against it
//!   (Sturtevant and Korf's *paranoid* search). That is plain minimax on the margin for
//!   two seats, and keeps alpha-beta's cutoffs for more (max^n keeps almost none). It
//!   plays safe: it assumes rivals who hurt it rather than help themselves.
//! * **Depth in actions.** Depth counts actions (Medina's placements, Terra Nova's
//!   steps), and the seat to act decides whether a node maximises or minimises, so turns
//!   of several actions by one seat need nothing special.
//! * **Ordering and width.** At nodes two or more actions from the horizon the actions
//!   are ordered best first by the game's one-ply `action_priors` (the mover's estimated
//!   lead after each), after the previous iteration's principal variation and the
//!   ply's two killer moves. With `width > 0` only the `width` best of them by the prior
//!   are searched there (the PV and killer moves always are): a selective search, as
//!   the game sites' robots are, without which the 150-500 actions of a mid-game
//!   Medina position allow depth 3 in a CPU second, not 5. Nodes one action from the horizon
//!   value every child (the prior would cost as much as the values themselves).
//! * **Transposition table** for games with a position key ([`Game::key`]): at
//!   nodes two or more actions from the horizon only, where a node's priors cost a play
//!   and an evaluation per action, so hashing the position is cheap beside them (a Medina
//!   position is about 1.9 kB, hashed whole). It keeps each node's value with its bound kind
//!   and depth, and its best action (searched first), for the whole search (all
//!   iterations). Medina's two placements a turn can transpose (A then B is B then A),
//!   though with a width few such pairs are both searched. A value read from it ends the line there, so the principal variation reported can
//!   be shorter than the depth.
//! * **Budget.** Iterative deepening from depth 1 to `max_depth`, stopped by CPU seconds
//!   of the searching thread or a stop flag; depth 1 always completes. An iteration cut
//!   short still counts where its first root move (the previous best) was searched: any
//!   root move it found better is better at the new depth.

use super::mcts::thread_cpu_seconds;
use crate::game::Game;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the table knows of a position searched at some depth.
#[derive(Clone, Copy, Debug)]
struct Entry {
    depth: u32,
    value: f64,
    bound: Bound,
    best: u32,
}

/// Whether a stored value is exact or a bound (the search failed low or high there).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    Exact,
    /// The true value is at least this (the search failed high: at least beta).
    Lower,
    /// The true value is at most this (the search failed low: at most alpha).
    Upper,
}

/// The most positions the table keeps (about 40 MB); later ones are not stored.
const TABLE_LIMIT: usize = 1 << 20;

/// Added to (or taken from) the final lead of a finished game.
pub const WIN: f64 = 1000.0;

/// How deep and how wide to search.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The deepest iteration, in actions.
    pub max_depth: u32,
    /// At most this many actions searched at nodes two or more actions from the horizon
    /// (the best by the game's prior); `0`: all of them.
    pub width: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { max_depth: 5, width: 0 }
    }
}

/// When to stop deepening (besides `Settings::max_depth`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget<'a> {
    /// CPU seconds of the searching thread.
    pub cpu_seconds: Option<f64>,
    /// Stops the search at its next check (every few hundred nodes) once set.
    pub stop: Option<&'a AtomicBool>,
}

/// What one search found.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaBetaResult {
    /// The best root action (`None` if the root has no legal action or is over).
    pub action: Option<u32>,
    /// Its value for the root seat (the lead of the principal variation's end).
    pub value: f64,
    /// The deepest iteration completed (0 if none: the game is over).
    pub depth: u32,
    /// Nodes visited, every iteration counted.
    pub nodes: u64,
    /// Nodes answered by the transposition table.
    pub table_hits: u64,
    /// The principal variation of the deepest iteration that counted.
    pub pv: Vec<u32>,
}

/// How often, in nodes, the clock and the stop flag are read.
const CHECK_EVERY: u64 = 256;

struct Searcher<'a, G: Game> {
    game: &'a G,
    root_seat: usize,
    settings: Settings,
    deadline: Option<f64>,
    stop: Option<&'a AtomicBool>,
    /// Whether the running iteration may be cut short (not depth 1).
    may_abort: bool,
    aborted: bool,
    /// Whether some leaf was not a finished game (deeper iterations could differ).
    hit_horizon: bool,
    nodes: u64,
    scores: Vec<f64>,
    /// Per ply: the actions, the priors, the best line found below.
    actions: Vec<Vec<u32>>,
    priors: Vec<Vec<f64>>,
    pv: Vec<Vec<u32>>,
    killers: Vec<[u32; 2]>,
    /// The previous iteration's principal variation, searched first.
    previous_pv: Vec<u32>,
    /// The best root move of the running iteration, once its search is complete.
    root_best: Option<(u32, f64)>,
    /// The transposition table, by `Game::key` (empty for games without one).
    table: std::collections::HashMap<u64, Entry>,
    /// Nodes answered from the table.
    table_hits: u64,
}

impl<G: Game> Searcher<'_, G> {
    /// The root seat's lead over the best other seat here.
    fn value(&mut self, state: &G::State) -> f64 {
        let n = self.game.num_players();
        if !self.game.evaluate(state, &mut self.scores[..n]) {
            self.game.scores(state, &mut self.scores[..n]);
        }
        let own = self.scores[self.root_seat];
        let rival = (0..n)
            .filter(|&j| j != self.root_seat)
            .fold(f64::NEG_INFINITY, |m, j| m.max(self.scores[j]));
        let lead = if n > 1 { own - rival } else { own };
        if self.game.is_over(state) {
            lead + WIN * lead.signum() * (lead != 0.0) as u8 as f64
        } else {
            self.hit_horizon = true;
            lead
        }
    }

    fn out_of_budget(&self) -> bool {
        self.stop.is_some_and(|flag| flag.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|deadline| thread_cpu_seconds() >= deadline)
    }

    /// Orders `actions` best first (previous PV move, killers, then by prior where
    /// `depth >= 2`) and, with a width, keeps the best `width` of them plus those moves.
    fn order(
        &mut self,
        state: &G::State,
        depth: u32,
        ply: usize,
        following_pv: bool,
        table_move: Option<u32>,
        actions: &mut Vec<u32>,
    ) {
        if depth >= 2 && actions.len() > 1 {
            let mut priors = std::mem::take(&mut self.priors[ply]);
            priors.clear();
            if self.game.action_priors(state, actions, &mut priors) {
                let mut ranked: Vec<(f64, u32)> = priors.iter().copied().zip(actions.iter().copied()).collect();
                // Best first; ties in the game's own action order (a stable sort).
                ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
                actions.clear();
                actions.extend(ranked.iter().map(|r| r.1));
            }
            self.priors[ply] = priors;
        }
        let mut first: [Option<u32>; 4] = [None; 4];
        if following_pv {
            first[0] = self.previous_pv.get(ply).copied();
        }
        first[1] = table_move;
        first[2] = Some(self.killers[ply][0]);
        first[3] = Some(self.killers[ply][1]);
        let mut front = 0;
        for candidate in first.into_iter().flatten() {
            if let Some(at) = actions[front..].iter().position(|&a| a == candidate) {
                actions[front..=front + at].rotate_right(1);
                front += 1;
            }
        }
        if depth >= 2 && self.settings.width > 0 {
            actions.truncate((self.settings.width as usize).max(front));
        }
    }

    fn alphabeta(
        &mut self,
        state: &G::State,
        depth: u32,
        ply: usize,
        following_pv: bool,
        mut alpha: f64,
        mut beta: f64,
    ) -> f64 {
        self.nodes += 1;
        self.pv[ply].clear();
        if self.may_abort && self.nodes.is_multiple_of(CHECK_EVERY) && self.out_of_budget() {
            self.aborted = true;
        }
        if self.aborted {
            return 0.0;
        }
        let seat = self.game.to_act(state);
        if seat < 0 || depth == 0 {
            return self.value(state);
        }
        if self.actions.len() <= ply + 1 {
            self.actions.push(Vec::new());
            self.priors.push(Vec::new());
            self.pv.push(Vec::new());
            self.killers.push([u32::MAX; 2]);
        }
        // The table, two or more actions from the horizon (see the module's notes).
        let key = if depth >= 2 { self.game.key(state) } else { None };
        let mut table_move = None;
        if let Some(entry) = key.and_then(|k| self.table.get(&k)) {
            table_move = Some(entry.best);
            if entry.depth >= depth && ply > 0 {
                let v = entry.value;
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => v >= beta,
                    Bound::Upper => v <= alpha,
                };
                if cut {
                    self.table_hits += 1;
                    return v;
                }
            }
        }
        let (alpha_in, beta_in) = (alpha, beta);
        let mut actions = std::mem::take(&mut self.actions[ply]);
        actions.clear();
        self.game.legal_actions(state, &mut actions);
        if actions.is_empty() {
            self.actions[ply] = actions;
            return self.value(state);
        }
        self.order(state, depth, ply, following_pv, table_move, &mut actions);
        let maximising = seat as usize == self.root_seat;
        let mut best = if maximising { f64::NEG_INFINITY } else { f64::INFINITY };
        for (i, &action) in actions.iter().enumerate() {
            let child = self.game.after(state, action);
            let on_pv = following_pv && i == 0 && self.previous_pv.get(ply) == Some(&action);
            let value = self.alphabeta(&child, depth - 1, ply + 1, on_pv, alpha, beta);
            if self.aborted {
                break;
            }
            let better = if maximising { value > best } else { value < best };
            if better {
                best = value;
                let (head, tail) = self.pv.split_at_mut(ply + 1);
                head[ply].clear();
                head[ply].push(action);
                head[ply].extend_from_slice(&tail[0]);
                if ply == 0 {
                    self.root_best = Some((action, value));
                }
            }
            if maximising {
                alpha = alpha.max(value);
            } else {
                beta = beta.min(value);
            }
            if alpha >= beta {
                let killers = &mut self.killers[ply];
                if killers[0] != action {
                    killers[1] = killers[0];
                    killers[0] = action;
                }
                break;
            }
        }
        if let (Some(key), false) = (key, self.aborted) {
            if let Some(&best_action) = self.pv[ply].first() {
                let bound = if best <= alpha_in {
                    Bound::Upper
                } else if best >= beta_in {
                    Bound::Lower
                } else {
                    Bound::Exact
                };
                let entry = Entry {
                    depth,
                    value: best,
                    bound,
                    best: best_action,
                };
                if self.table.len() < TABLE_LIMIT || self.table.contains_key(&key) {
                    self.table.insert(key, entry);
                }
            }
        }
        self.actions[ply] = actions;
        best
    }
}

/// Searches `root` by iterative deepening until `settings.max_depth` or the budget.
pub fn search<G: Game>(game: &G, root: &G::State, settings: &Settings, budget: &Budget<'_>) -> AlphaBetaResult {
    let seat = game.to_act(root);
    let mut result = AlphaBetaResult {
        action: None,
        value: 0.0,
        depth: 0,
        nodes: 0,
        table_hits: 0,
        pv: Vec::new(),
    };
    if seat < 0 {
        return result;
    }
    let mut searcher = Searcher {
        game,
        root_seat: seat as usize,
        settings: *settings,
        deadline: budget.cpu_seconds.map(|seconds| thread_cpu_seconds() + seconds),
        stop: budget.stop,
        may_abort: false,
        aborted: false,
        hit_horizon: false,
        nodes: 0,
        scores: vec![0.0; game.num_players()],
        actions: vec![Vec::new()],
        priors: vec![Vec::new()],
        pv: vec![Vec::new()],
        killers: vec![[u32::MAX; 2]],
        previous_pv: Vec::new(),
        root_best: None,
        table: std::collections::HashMap::new(),
        table_hits: 0,
    };
    for depth in 1..=settings.max_depth.max(1) {
        searcher.may_abort = depth > 1;
        searcher.hit_horizon = false;
        searcher.root_best = None;
        let value = searcher.alphabeta(root, depth, 0, true, f64::NEG_INFINITY, f64::INFINITY);
        if searcher.aborted {
            // The previous best was searched first: a root move found better is better.
            if let Some((action, value)) = searcher.root_best {
                if result.action != Some(action) {
                    result.action = Some(action);
                    result.value = value;
                    result.pv = searcher.pv[0].clone();
                }
            }
            break;
        }
        result.depth = depth;
        result.value = value;
        result.pv = searcher.pv[0].clone();
        result.action = result.pv.first().copied();
        searcher.previous_pv = result.pv.clone();
        if !searcher.hit_horizon || searcher.out_of_budget() {
            break; // the whole tree is searched, or no time for another iteration
        }
    }
    result.nodes = searcher.nodes;
    result.table_hits = searcher.table_hits;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::rng::Rng;

    /// A race to a target: each seat in turn adds 1, 2 or 3 to its own counter (actions
    /// 0, 1, 2; a turn is `per_turn` actions), and may instead "hit": take 2 from the
    /// next seat's counter (action 3). The game ends after `length` actions; scores are
    /// the counters. The state: counters, actions played.
    #[derive(Clone, Copy, PartialEq)]
    struct Race {
        seats: usize,
        per_turn: u32,
        length: u32,
        /// Whether action 3 (the hit) exists.
        hits: bool,
        /// Whether positions have a key (a transposition table).
        keyed: bool,
    }

    type RaceState = ([i32; 4], u32);

    impl Game for Race {
        type State = RaceState;
        const NAME: &'static str = "Race";
        const ID: &'static str = "race";
        fn num_players(&self) -> usize {
            self.seats
        }
        fn num_actions(&self) -> usize {
            4
        }
        fn to_act(&self, state: &RaceState) -> i32 {
            if state.1 >= self.length {
                -1
            } else {
                ((state.1 / self.per_turn) as usize % self.seats) as i32
            }
        }
        fn legal_actions(&self, state: &RaceState, out: &mut Vec<u32>) {
            if !self.is_over(state) {
                out.extend(0..if self.hits { 4 } else { 3 });
            }
        }
        fn is_legal(&self, state: &RaceState, action: u32) -> bool {
            !self.is_over(state) && action < if self.hits { 4 } else { 3 }
        }
        fn play(&self, state: &mut RaceState, action: u32) {
            let seat = self.to_act(state) as usize;
            if action == 3 {
                state.0[(seat + 1) % self.seats] -= 2;
            } else {
                state.0[seat] += action as i32 + 1;
            }
            state.1 += 1;
        }
        fn scores(&self, state: &RaceState, out: &mut [f64]) {
            for (o, &c) in out.iter_mut().zip(state.0.iter()) {
                *o = c as f64;
            }
        }
        fn returns(&self, state: &RaceState, out: &mut [f64]) {
            out.fill(0.0);
            if self.is_over(state) {
                let winners = crate::common::outcome::winners(&state.0[..self.seats]);
                for &w in &winners {
                    out[w] = 1.0 / winners.len() as f64;
                }
            }
        }
        fn random_action(&self, _state: &RaceState, _rng: &mut Rng) -> Option<u32> {
            unreachable!("alpha-beta plays no random actions")
        }
        fn evaluate(&self, state: &RaceState, out: &mut [f64]) -> bool {
            self.scores(state, out);
            true
        }
        fn key(&self, state: &RaceState) -> Option<u64> {
            let mut key = state.1 as u64;
            for &c in &state.0 {
                key = key.wrapping_mul(1_000_003).wrapping_add(c as u64);
            }
            self.keyed.then_some(key)
        }
        /// None: the tests of the width give their own (`Misled`); the others search
        /// every action in the listed order.
        fn action_priors(&self, _state: &RaceState, _actions: &[u32], _values: &mut Vec<f64>) -> bool {
            false
        }
    }

    fn settings(max_depth: u32) -> Settings {
        Settings { max_depth, width: 0 }
    }

    #[test]
    fn two_seats_take_the_biggest_step_and_see_the_whole_short_game() {
        let game = Race {
            seats: 2,
            per_turn: 1,
            length: 4,
            hits: false,
            keyed: false,
        };
        let result = search(&game, &([0; 4], 0), &settings(10), &Budget::default());
        // Every seat adds 3 each time: 6 - 6, a tie, and the tree (4 actions) is whole.
        assert_eq!((result.action, result.depth, result.value), (Some(2), 4, 0.0));
        assert_eq!(result.pv, vec![2, 2, 2, 2]);
        // 1 + 3 + 9 + 27 + 81 nodes at most per iteration, fewer with the cutoffs.
        assert!(result.nodes < 4 * 121, "{}", result.nodes);
    }

    #[test]
    fn a_finished_game_is_worth_more_than_any_estimate() {
        let game = Race {
            seats: 2,
            per_turn: 1,
            length: 1,
            hits: false,
            keyed: false,
        };
        let result = search(&game, &([0; 4], 0), &settings(3), &Budget::default());
        assert_eq!((result.action, result.value, result.depth), (Some(2), WIN + 3.0, 1));
    }

    #[test]
    fn a_turn_of_two_actions_is_one_seat_maximising_twice() {
        // Seat 0 acts twice, then seat 1 twice: seat 0's best line is 3 + 3, and it
        // expects seat 1 to answer with two steps of 3 as well.
        let game = Race {
            seats: 2,
            per_turn: 2,
            length: 4,
            hits: false,
            keyed: false,
        };
        let result = search(&game, &([0; 4], 0), &settings(4), &Budget::default());
        assert_eq!((result.pv.clone(), result.value), (vec![2, 2, 2, 2], WIN * 0.0));
        // At depth 3 the line ends after one of seat 1's actions: a lead of 6 - 3.
        let shallow = search(&game, &([0; 4], 0), &settings(3), &Budget::default());
        assert_eq!((shallow.pv, shallow.value), (vec![2, 2, 2], 3.0));
    }

    #[test]
    fn three_seats_are_paranoid_the_others_play_against_the_root() {
        // Seat 0 moves, then seats 1 and 2 (one action each); a hit takes 2 from the next
        // seat, and seat 0 follows seat 2. After seat 0's step of 3, seat 2's own best is
        // a step of 3 (3-3-3, a tie for seat 0), but paranoid search expects it to hit
        // seat 0 and seat 1 to take its 3 (1-3-0): seat 0 loses by 2.
        let game = Race {
            seats: 3,
            per_turn: 1,
            length: 3,
            hits: true,
            keyed: false,
        };
        let result = search(&game, &([0; 4], 0), &settings(3), &Budget::default());
        assert_eq!(result.pv, vec![2, 2, 3]);
        assert_eq!(result.value, -WIN - 2.0);
        // Had each seat played for itself (3 each), seat 0 would have tied: paranoid
        // search values the root's position below what selfish rivals leave it.
        let mut selfish = ([0; 4], 0);
        for action in [2, 2, 2] {
            game.play(&mut selfish, action);
        }
        let mut scores = [0.0; 3];
        game.evaluate(&selfish, &mut scores);
        assert!(scores[0] - scores[1].max(scores[2]) > result.value + WIN);
    }

    #[test]
    fn a_cpu_budget_or_a_stop_flag_ends_the_deepening_after_depth_one() {
        let game = Race {
            seats: 3,
            per_turn: 2,
            length: 200,
            hits: true,
            keyed: false,
        };
        let stop = AtomicBool::new(true);
        let stopped = search(
            &game,
            &([0; 4], 0),
            &settings(60),
            &Budget {
                cpu_seconds: None,
                stop: Some(&stop),
            },
        );
        assert_eq!(stopped.depth, 1);
        assert!(stopped.action.is_some());
        let timed = search(
            &game,
            &([0; 4], 0),
            &settings(60),
            &Budget {
                cpu_seconds: Some(0.05),
                stop: None,
            },
        );
        assert!(timed.depth >= 1 && timed.depth < 60, "{}", timed.depth);
    }

    #[test]
    fn the_width_prunes_by_the_prior_and_reports_the_depth() {
        /// The race with a prior that ranks the smallest step first (a bad prior).
        #[derive(Clone, PartialEq)]
        struct Misled(Race);
        impl Game for Misled {
            type State = RaceState;
            const NAME: &'static str = "Misled";
            const ID: &'static str = "misled";
            fn num_players(&self) -> usize {
                self.0.num_players()
            }
            fn num_actions(&self) -> usize {
                self.0.num_actions()
            }
            fn to_act(&self, state: &RaceState) -> i32 {
                self.0.to_act(state)
            }
            fn legal_actions(&self, state: &RaceState, out: &mut Vec<u32>) {
                self.0.legal_actions(state, out)
            }
            fn is_legal(&self, state: &RaceState, action: u32) -> bool {
                self.0.is_legal(state, action)
            }
            fn play(&self, state: &mut RaceState, action: u32) {
                self.0.play(state, action)
            }
            fn scores(&self, state: &RaceState, out: &mut [f64]) {
                self.0.scores(state, out)
            }
            fn returns(&self, state: &RaceState, out: &mut [f64]) {
                self.0.returns(state, out)
            }
            fn random_action(&self, state: &RaceState, rng: &mut Rng) -> Option<u32> {
                self.0.random_action(state, rng)
            }
            fn evaluate(&self, state: &RaceState, out: &mut [f64]) -> bool {
                self.0.evaluate(state, out)
            }
            fn action_priors(&self, _state: &RaceState, actions: &[u32], values: &mut Vec<f64>) -> bool {
                values.extend(actions.iter().map(|&a| -(a as f64)));
                true
            }
        }
        let game = Misled(Race {
            seats: 2,
            per_turn: 1,
            length: 10,
            hits: false,
            keyed: false,
        });
        let narrow = Settings { max_depth: 4, width: 1 };
        // Two or more actions from the horizon only the prior's first (a step of 1) and
        // the previous iteration's line are searched: the line the depth-1 search found
        // at the root is kept, and the search costs fewer nodes than a full one.
        let result = search(&game, &([0; 4], 0), &narrow, &Budget::default());
        let wide = search(&game, &([0; 4], 0), &settings(4), &Budget::default());
        assert_eq!((result.depth, wide.depth), (4, 4));
        assert_eq!(result.action, Some(2));
        assert_eq!(wide.pv, vec![2, 2, 2, 2]);
        assert!(result.nodes < wide.nodes, "{} {}", result.nodes, wide.nodes);
    }

    #[test]
    fn the_transposition_table_keeps_the_values_and_saves_nodes() {
        // Turns of two steps: 1 then 3 and 3 then 1 are one position.
        for seats in [2, 3] {
            let plain = Race {
                seats,
                per_turn: 2,
                length: 12,
                hits: true,
                keyed: false,
            };
            let keyed = Race { keyed: true, ..plain };
            for depth in [3, 5, 6] {
                let without = search(&plain, &([0; 4], 0), &settings(depth), &Budget::default());
                let with = search(&keyed, &([0; 4], 0), &settings(depth), &Budget::default());
                assert_eq!(
                    (with.value, with.action),
                    (without.value, without.action),
                    "{seats} seats, depth {depth}"
                );
                assert_eq!(without.table_hits, 0);
                if depth >= 5 {
                    assert!(
                        with.table_hits > 0 && with.nodes < without.nodes,
                        "{} {}",
                        with.nodes,
                        without.nodes
                    );
                }
            }
        }
    }
}
