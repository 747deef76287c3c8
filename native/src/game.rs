//! [`Game`]: one game as every generic part of this crate sees it, whatever the game.
//!
//! Each game implements it once (`terranova::game` on `Game<W>`, `medina::game` on
//! `Medina`): its positions, its action ids, the legal actions, playing one, the scores
//! and the win shares, a kind-first random action and random playouts, the encoding's
//! observation, and the hooks the searches read (an evaluation, a position key, one-ply
//! priors). Written once over it: the tree search (`common::mcts`), the alpha-beta
//! (`common::alphabeta`), the helpers below that both share (random walks, leaf values,
//! one-ply leads) and, with the `python` feature, the vector env and the native encoder
//! (`vector`) and the binding's game-independent methods (`protocol::Held`). Pure Rust:
//! `cargo test` builds it without the Python bindings.
//!
//! A game value holds what is fixed for one game (Terra Nova's board and rules, Medina's
//! player count and rules); a position is a small `Copy` value with no heap, played in
//! place.

use crate::common::kept::Kept;
use crate::common::network::InputLayout;
use crate::common::rng::Rng;

/// One game: its positions, actions, rules, encoding and the searches' hooks (the module
/// comment). Two game values are equal where their positions are of one game (the
/// vector env's starts must be).
pub trait Game: Clone + PartialEq + Send + Sync + 'static {
    /// A position: a small `Copy` value with no heap.
    type State: Copy + Send + Sync + 'static;

    /// The game's name in messages (`"Terra Nova"`, `"Medina"`).
    const NAME: &'static str;

    /// The game's id in the Python package and in a network's meta (`"terranova"`).
    const ID: &'static str;

    /// Whether the tree search may stop its rollouts early and take [`Game::evaluate`]
    /// (`mcts::Settings::rollout_limit`): Terra Nova's evaluation was measured as a leaf
    /// value (`docs/bots.md`); Medina's serves the alpha-beta only.
    const LEAF_EVALUATION: bool = false;

    fn num_players(&self) -> usize;

    /// How many action ids the encoding has: actions are `0..num_actions()`.
    fn num_actions(&self) -> usize;

    /// The seat to act, or a negative number once the game is over.
    fn to_act(&self, state: &Self::State) -> i32;

    /// Whether the game is over.
    fn is_over(&self, state: &Self::State) -> bool {
        self.to_act(state) < 0
    }

    /// Appends every legal action to `out` (none once over), in the Python engine's
    /// `legal_moves()` order, always the same for the same position.
    fn legal_actions(&self, state: &Self::State, out: &mut Vec<u32>);

    /// Appends every legal action to `out`, ascending (OpenSpiel's `legal_actions()`);
    /// the default sorts [`Game::legal_actions`]' list where it is not.
    fn legal_actions_ascending(&self, state: &Self::State, out: &mut Vec<u32>) {
        let start = out.len();
        self.legal_actions(state, out);
        if !out[start..].is_sorted() {
            out[start..].sort_unstable();
        }
    }

    /// Whether `action` is legal in `state` (false for any id that names no action).
    fn is_legal(&self, state: &Self::State, action: u32) -> bool;

    /// Plays `action`, a legal action of `state` (listed by [`Game::legal_actions`] or
    /// checked by [`Game::is_legal`]), in place.
    fn play(&self, state: &mut Self::State, action: u32);

    /// The position after a legal `action`.
    fn after(&self, state: &Self::State, action: u32) -> Self::State {
        let mut next = *state;
        self.play(&mut next, action);
        next
    }

    /// Writes each seat's score to `out` (one entry per seat; the final scores once over).
    fn scores(&self, state: &Self::State, out: &mut [f64]);

    /// Writes each seat's win share to `out` once over (1/k to each of k winners, 0 to
    /// the others), zeros before.
    fn returns(&self, state: &Self::State, out: &mut [f64]);

    /// A kind-first random legal action (a kind uniform among those with a legal
    /// action, then an action uniform within it: `ai.agent.random_move`), `None` once over.
    fn random_action(&self, state: &Self::State, rng: &mut Rng) -> Option<u32>;

    /// Plays at most `limit` kind-first random actions on `state` (fewer if the game
    /// ends first); returns how many it played. Games override it where their own
    /// moves play faster than action ids.
    fn playout(&self, state: &mut Self::State, rng: &mut Rng, limit: u32) -> u64 {
        let mut played = 0;
        while played < u64::from(limit) {
            match self.random_action(state, rng) {
                Some(action) => {
                    self.play(state, action);
                    played += 1;
                }
                None => break,
            }
        }
        played
    }

    /// Writes each seat's estimated final score to `out` (its final score once the game
    /// is over); whether the game has an evaluation (the default: none).
    fn evaluate(&self, state: &Self::State, out: &mut [f64]) -> bool {
        let _ = (state, out);
        false
    }

    /// The names of the features of the game's learned evaluation, in order (none: the
    /// game has no learned evaluation).
    fn feature_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Writes each seat's features of the learned evaluation to `out` (cleared first;
    /// seat by seat, `feature_names().len()` each); whether the game has them.
    fn evaluation_features(&self, state: &Self::State, out: &mut Vec<f64>) -> bool {
        let _ = (state, out);
        false
    }

    /// This game valued by a learned evaluation, `weights` on `feature_names()` (each
    /// seat's estimate its points plus the weighted features) instead of the hand-written
    /// one; `Err` saying why where the game has none or the weights do not fit it.
    fn with_learned_evaluation(&self, weights: &[f64]) -> Result<Self, String>
    where
        Self: Sized,
    {
        let _ = weights;
        Err(format!("{} has no learned evaluation", Self::NAME))
    }

    /// A key equal for equal positions (from any order of actions) and, but for hash
    /// collisions, different otherwise, for the alpha-beta's transposition table (the
    /// default: none, no table).
    fn key(&self, state: &Self::State) -> Option<u64> {
        let _ = state;
        None
    }

    /// Writes the one-ply value of each of `actions` (legal in `state`) for the seat to
    /// act to `values` (higher is better), for ranking a node's actions; whether it did.
    /// The default: [`one_ply_leads`] by the evaluation (none without one).
    fn action_priors(&self, state: &Self::State, actions: &[u32], values: &mut Vec<f64>) -> bool {
        one_ply_leads(self, state, actions, values)
    }

    /// The lengths of the encoding's observation (`encoding.py`): its planes (floats, C
    /// order) and its vector; `(0, 0)` for a game without one.
    fn observation_lens(&self) -> (usize, usize) {
        (0, 0)
    }

    /// Writes `state` seen by `seat` (a seat of the game): the planes as `kept` says
    /// (`common::kept`), every float of the vector (`observation_lens()` floats each).
    fn observe(&self, state: &Self::State, seat: usize, planes: &mut [f32], vector: &mut [f32], kept: &mut Kept<'_>) {
        let _ = (state, seat, planes, vector, kept);
    }

    /// Which floats of the observation as one input ([`observe_input`]) are the same in
    /// every position of this game, and which ranges one value fills, for the network's
    /// first layer (`common::network`); the default: nothing known.
    fn input_layout(&self) -> InputLayout {
        InputLayout::default()
    }

    /// Whether one seed's initial position differs from another's only by the start
    /// player (the vector env draws that alone, as the Python engine does); Medina's
    /// second edition also draws a well and a starting merchant.
    fn starts_differ_by_seat_only(&self) -> bool {
        true
    }
}

/// Writes `state` seen by `seat` as one input of a network: the planes (C order), then
/// the vector (`out`: the two lengths of [`Game::observation_lens`] together).
pub fn observe_input<G: Game>(game: &G, state: &G::State, seat: usize, out: &mut [f32]) {
    let (planes, vector) = out.split_at_mut(game.observation_lens().0);
    game.observe(state, seat, planes, vector, &mut Kept::Full);
}

/// The most seats of any game here: buffers of seat values are this long.
pub const MAX_SEATS: usize = 4;

/// `value`'s lead over the best other seat of `values` (the value itself with one seat).
pub fn lead(values: &[f64], seat: usize) -> f64 {
    if values.len() < 2 {
        return values[seat];
    }
    let rival = values
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != seat)
        .fold(f64::NEG_INFINITY, |m, (_, &v)| m.max(v));
    values[seat] - rival
}

/// Each action's estimated lead for the seat to act (its estimated final score minus the
/// best rival's) after the action; a finished game adds 1000 times the seat's win share,
/// so a winning action ranks first (the Python `heuristic_margin`). `false` (and nothing
/// written) where the game has no evaluation or is over.
pub fn one_ply_leads<G: Game>(game: &G, state: &G::State, actions: &[u32], values: &mut Vec<f64>) -> bool {
    let seat = game.to_act(state);
    let n = game.num_players();
    let mut estimate = [0.0; MAX_SEATS];
    if seat < 0 || !game.evaluate(state, &mut estimate[..n]) {
        return false;
    }
    let seat = seat as usize;
    let mut shares = [0.0; MAX_SEATS];
    values.clear();
    for &action in actions {
        let child = game.after(state, action);
        game.evaluate(&child, &mut estimate[..n]);
        let mut value = lead(&estimate[..n], seat);
        if game.is_over(&child) {
            game.returns(&child, &mut shares[..n]);
            value += 1000.0 * shares[seat];
        }
        values.push(value);
    }
    true
}

/// Whether a random walk of at most `horizon` kind-first random actions from `state`
/// ends the game.
pub fn ends_within<G: Game>(game: &G, state: &G::State, rng: &mut Rng, horizon: u32) -> bool {
    let mut walked = *state;
    game.playout(&mut walked, rng, horizon);
    game.is_over(&walked)
}

/// What a seat's value in a search is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Objective {
    /// Its win share: 1/k to each of k winners, 0 to the others (the rollout MCTS's).
    #[default]
    Win,
    /// Its placing: the share of the other seats it finished ahead of (ties half), the
    /// score the SPRT and the pairwise tables give a seat. With two seats the same as
    /// the win share but for tie-breaks; with three or four it also tells second from
    /// last, which a win share leaves at 0 for both.
    Placing,
}

impl Objective {
    /// The objective a network file's meta names (`"win"` or `"placing"`).
    pub fn parse(name: &str) -> Option<Objective> {
        match name {
            "win" => Some(Objective::Win),
            "placing" => Some(Objective::Placing),
            _ => None,
        }
    }

    /// What a value head's softmax over `seats` seats is multiplied by to give this
    /// objective's values: win shares sum to 1, placings to `seats / 2`.
    pub fn softmax_scale(self, seats: usize) -> f64 {
        match self {
            Objective::Win => 1.0,
            Objective::Placing => seats as f64 / 2.0,
        }
    }
}

/// Each seat's placing by `scores` ([`Objective::Placing`]).
pub fn placings(scores: &[f64], out: &mut [f64]) {
    let rivals = (scores.len().max(2) - 1) as f64;
    for (i, value) in out.iter_mut().enumerate() {
        let ahead: f64 = scores
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, &s)| match scores[i].total_cmp(&s) {
                std::cmp::Ordering::Greater => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Less => 0.0,
            })
            .sum();
        *value = ahead / rivals;
    }
}

/// Each seat's value of a finished game (or one whose seat to act has no action) under
/// `objective`; `scores` gets the scores.
pub fn final_values<G: Game>(game: &G, state: &G::State, objective: Objective, values: &mut [f64], scores: &mut [f64]) {
    game.scores(state, scores);
    match objective {
        Objective::Win => game.returns(state, values),
        Objective::Placing => placings(scores, values),
    }
}

/// A leaf's value: at most `limit` kind-first random actions from `state` (`u32::MAX`:
/// to the end), then each seat's win share in `returns` if the game is over, else (for
/// a game with an evaluation) the logistic of its estimated lead over the best rival,
/// in units of `max(1.5, 0.1 * top estimate)` points (the Python levels' `ScoreValue`);
/// a game without one plays on to the end. `scores` gets the final or estimated scores.
/// Under [`Objective::Placing`] the values are placings: of the final scores, or the mean
/// over the rivals of the logistic of the estimated lead over each.
pub fn leaf_values<G: Game>(
    game: &G,
    state: &G::State,
    limit: u32,
    objective: Objective,
    rng: &mut Rng,
    returns: &mut [f64],
    scores: &mut [f64],
) {
    let mut end = *state;
    game.playout(&mut end, rng, limit);
    if !game.is_over(&end) && game.evaluate(&end, scores) {
        let top = scores.iter().fold(0.0f64, |m, e| m.max(e.abs()));
        let unit = (0.1 * top).max(1.5);
        let logistic = |lead: f64| 1.0 / (1.0 + (-lead / unit).exp());
        for (i, value) in returns.iter_mut().enumerate() {
            *value = match objective {
                Objective::Win => logistic(lead(scores, i)),
                Objective::Placing => {
                    let rivals = (scores.len().max(2) - 1) as f64;
                    let sum: f64 = (0..scores.len())
                        .filter(|&j| j != i)
                        .map(|j| logistic(scores[i] - scores[j]))
                        .sum();
                    sum / rivals
                }
            };
        }
        return;
    }
    if !game.is_over(&end) {
        game.playout(&mut end, rng, u32::MAX);
    }
    final_values(game, &end, objective, returns, scores);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::medina::game::Medina;
    use crate::medina::ruleset::Rules as MedinaRules;
    use crate::medina::state::State as MedinaState;
    use crate::terranova::board::{Board, Rules};
    use crate::terranova::state::Game as TerraNova;

    #[test]
    fn a_placing_is_the_share_of_rivals_finished_ahead_of() {
        let mut out = [0.0; 3];
        placings(&[1.0, 2.0, 3.0], &mut out);
        assert_eq!(out, [0.0, 0.5, 1.0]);
        placings(&[3.0, 5.0, 5.0], &mut out);
        assert_eq!(out, [0.0, 0.75, 0.75]);
        let mut two = [0.0; 2];
        placings(&[4.0, 4.0], &mut two);
        assert_eq!(two, [0.5, 0.5]);
    }

    #[test]
    fn placing_values_tell_second_from_last_where_win_shares_cannot() {
        use test_games::Podium;
        let (mut values, mut scores) = ([0.0; 3], [0.0; 3]);
        for objective in [Objective::Win, Objective::Placing] {
            let mut seen = Vec::new();
            for action in [1u32, 2] {
                let mut rng = Rng::new(1);
                leaf_values(
                    &Podium,
                    &Podium.after(&0, action),
                    u32::MAX,
                    objective,
                    &mut rng,
                    &mut values,
                    &mut scores,
                );
                seen.push(values);
            }
            match objective {
                Objective::Win => assert_eq!(seen, vec![[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]),
                Objective::Placing => assert_eq!(seen, vec![[0.0, 1.0, 0.5], [0.5, 1.0, 0.0]]),
            }
        }
    }

    /// Along random games from `start`: the listed actions are the legal ones (each
    /// checked legal, unique, below `num_actions`, none once over), a random action is one
    /// of them, the win shares are zero before the end and sum to 1 after it, and the
    /// one-ply leads rank every listed action.
    fn check_the_contract<G: Game>(game: &G, start: G::State, seed: u64) {
        let mut rng = Rng::new(seed);
        let mut state = start;
        let n = game.num_players();
        let mut actions = Vec::new();
        let mut shares = [0.0; MAX_SEATS];
        let mut priors = Vec::new();
        for ply in 0.. {
            actions.clear();
            game.legal_actions(&state, &mut actions);
            game.returns(&state, &mut shares[..n]);
            if game.is_over(&state) {
                assert!(actions.is_empty() && game.to_act(&state) < 0);
                assert!((shares[..n].iter().sum::<f64>() - 1.0).abs() < 1e-12, "{shares:?}");
                assert!(game.random_action(&state, &mut rng).is_none());
                return;
            }
            assert!(shares[..n].iter().all(|&r| r == 0.0));
            assert!((0..n as i32).contains(&game.to_act(&state)));
            let mut sorted = actions.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), actions.len(), "ply {ply}: an action listed twice");
            assert!(actions
                .iter()
                .all(|&a| (a as usize) < game.num_actions() && game.is_legal(&state, a)));
            assert!(!game.is_legal(&state, game.num_actions() as u32));
            if ply % 25 == 0 {
                assert!(game.action_priors(&state, &actions, &mut priors));
                assert_eq!(priors.len(), actions.len());
            }
            let action = game.random_action(&state, &mut rng).expect("an action before the end");
            assert!(actions.contains(&action), "ply {ply}: {action} is not listed");
            game.play(&mut state, action);
        }
    }

    #[test]
    fn both_games_keep_the_contract() {
        let mut cells = Vec::new();
        for r in -4i32..=4 {
            for q in -4i32..=4 {
                if (q + r).abs() <= 4 {
                    cells.push((q, r, ((q * 3 + r * 5).rem_euclid(6)) as u8));
                }
            }
        }
        let water = [false, false, false, false, false, true];
        for players in 2..=4 {
            let terra_nova = TerraNova::<4> {
                board: Board::new(&cells, &water).unwrap(),
                rules: Rules::default(),
                num_players: players,
                learned: None,
            };
            check_the_contract(&terra_nova, terra_nova.initial(0), players as u64);
        }
        for players in 3..=4 {
            let start = MedinaState::new(players, 1, MedinaRules::preset("default").expect("a preset"));
            check_the_contract(&Medina::of(&start), start, players as u64);
        }
    }
}

/// Small games for the searches' unit tests.
#[cfg(test)]
pub(crate) mod test_games {
    use super::Game;
    use crate::common::kept::Kept;
    use crate::common::rng::Rng;

    /// Nim with one heap of at most 15: take 1 or 2 (action ids 1 and 2; id 0 is never
    /// legal); whoever takes the last wins. Its observation (for the network search): a
    /// plane of 16 cells, the heap's size marked.
    #[derive(Clone, PartialEq)]
    pub struct Nim;

    impl Game for Nim {
        type State = (u32, u8);
        const NAME: &'static str = "Nim";
        const ID: &'static str = "nim";

        fn num_players(&self) -> usize {
            2
        }

        fn num_actions(&self) -> usize {
            3
        }

        fn to_act(&self, state: &(u32, u8)) -> i32 {
            if state.0 == 0 {
                -1
            } else {
                state.1 as i32
            }
        }

        fn legal_actions(&self, state: &(u32, u8), out: &mut Vec<u32>) {
            out.extend((1..=2).filter(|&take| take <= state.0));
        }

        fn is_legal(&self, state: &(u32, u8), action: u32) -> bool {
            (1..=2).contains(&action) && action <= state.0
        }

        fn play(&self, state: &mut (u32, u8), action: u32) {
            *state = (state.0 - action, 1 - state.1);
        }

        fn scores(&self, state: &(u32, u8), out: &mut [f64]) {
            self.returns(state, out);
        }

        fn returns(&self, state: &(u32, u8), out: &mut [f64]) {
            out.fill(0.0);
            if state.0 == 0 {
                // The seat that moved last took the last.
                out[1 - state.1 as usize] = 1.0;
            }
        }

        fn random_action(&self, state: &(u32, u8), rng: &mut Rng) -> Option<u32> {
            match state.0 {
                0 => None,
                1 => Some(1),
                _ => Some(1 + rng.below(2)),
            }
        }

        fn observation_lens(&self) -> (usize, usize) {
            (16, 0)
        }

        fn observe(
            &self,
            state: &(u32, u8),
            _seat: usize,
            planes: &mut [f32],
            _vector: &mut [f32],
            _kept: &mut Kept<'_>,
        ) {
            planes.fill(0.0);
            planes[state.0 as usize] = 1.0;
        }
    }

    /// Three seats, one decision: seat 0 picks where it finishes behind seat 1, who wins
    /// either way: last (action 1: scores 1, 3, 2) or second (action 2: scores 2, 3, 1).
    /// The state is the action taken (0: none yet).
    #[derive(Clone, PartialEq)]
    pub struct Podium;

    impl Podium {
        const SCORES: [[f64; 3]; 3] = [[0.0; 3], [1.0, 3.0, 2.0], [2.0, 3.0, 1.0]];
    }

    impl Game for Podium {
        type State = u8;
        const NAME: &'static str = "Podium";
        const ID: &'static str = "podium";

        fn num_players(&self) -> usize {
            3
        }

        fn num_actions(&self) -> usize {
            3
        }

        fn to_act(&self, state: &u8) -> i32 {
            if *state == 0 {
                0
            } else {
                -1
            }
        }

        fn legal_actions(&self, state: &u8, out: &mut Vec<u32>) {
            if *state == 0 {
                out.extend([1, 2]);
            }
        }

        fn is_legal(&self, state: &u8, action: u32) -> bool {
            *state == 0 && (1..=2).contains(&action)
        }

        fn play(&self, state: &mut u8, action: u32) {
            *state = action as u8;
        }

        fn scores(&self, state: &u8, out: &mut [f64]) {
            out.copy_from_slice(&Self::SCORES[*state as usize]);
        }

        fn returns(&self, state: &u8, out: &mut [f64]) {
            out.fill(0.0);
            if *state != 0 {
                out[1] = 1.0;
            }
        }

        fn random_action(&self, state: &u8, rng: &mut Rng) -> Option<u32> {
            (*state == 0).then(|| 1 + rng.below(2))
        }

        fn observation_lens(&self) -> (usize, usize) {
            (3, 0)
        }

        fn observe(&self, state: &u8, _seat: usize, planes: &mut [f32], _vector: &mut [f32], _kept: &mut Kept<'_>) {
            planes.fill(0.0);
            planes[*state as usize] = 1.0;
        }
    }
}
