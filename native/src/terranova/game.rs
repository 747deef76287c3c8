//! Terra Nova as a [`crate::game::Game`]: the generic parts (the searches, the vector
//! env, the binding's game-independent methods) see a [`Game`] (board, rules, player
//! count) and its positions, actions being the encoding's ids.

use super::encode;
use super::state::{Game, State};
use crate::common::kept::Kept;
use crate::common::network::InputLayout;
use crate::common::rng::Rng;

/// One game: the same board (cells and landscapes), rules and player count.
impl<const W: usize> PartialEq for Game<W> {
    fn eq(&self, other: &Self) -> bool {
        self.num_players == other.num_players
            && self.rules == other.rules
            && self.board.coords == other.board.coords
            && self.board.land == other.board.land
    }
}

impl<const W: usize> crate::game::Game for Game<W> {
    type State = State<W>;

    const NAME: &'static str = "Terra Nova";
    const ID: &'static str = "terranova";
    const LEAF_EVALUATION: bool = true;

    fn num_players(&self) -> usize {
        self.num_players
    }

    fn num_actions(&self) -> usize {
        self.board.num_actions()
    }

    fn to_act(&self, state: &State<W>) -> i32 {
        if state.is_terminal() {
            -1
        } else {
            state.current_player
        }
    }

    fn is_over(&self, state: &State<W>) -> bool {
        state.is_terminal()
    }

    fn legal_actions(&self, state: &State<W>, out: &mut Vec<u32>) {
        if state.is_terminal() {
            return;
        }
        for &kind in state.legal_kinds(self).as_slice() {
            state.actions_of_kind(self, kind, out);
        }
    }

    fn is_legal(&self, state: &State<W>, action: u32) -> bool {
        encode::is_legal(self, state, action)
    }

    fn play(&self, state: &mut State<W>, action: u32) {
        encode::play_legal(self, state, action);
    }

    fn scores(&self, state: &State<W>, out: &mut [f64]) {
        for (o, &p) in out.iter_mut().zip(state.points.iter()) {
            *o = f64::from(p);
        }
    }

    fn returns(&self, state: &State<W>, out: &mut [f64]) {
        out.fill(0.0);
        let winners = state.winners(self);
        for &p in winners.iter() {
            out[p] = 1.0 / winners.len() as f64;
        }
    }

    fn random_action(&self, state: &State<W>, rng: &mut Rng) -> Option<u32> {
        state
            .random_move(self, rng, &mut Vec::new())
            .map(|mv| self.encode(mv) as u32)
    }

    /// Plays moves, not action ids (no encoding and decoding a move).
    fn playout(&self, state: &mut State<W>, rng: &mut Rng, limit: u32) -> u64 {
        let mut slides = Vec::new();
        let mut played = 0;
        while played < u64::from(limit) && !state.is_terminal() {
            match state.random_move(self, rng, &mut slides) {
                Some(mv) => {
                    state.play(self, mv);
                    played += 1;
                }
                None => break, // never happens in a consistent position; stop rather than spin
            }
        }
        played
    }

    fn evaluate(&self, state: &State<W>, out: &mut [f64]) -> bool {
        let estimate = super::eval::evaluate(self, state);
        out.copy_from_slice(&estimate[..out.len()]);
        true
    }

    fn feature_names(&self) -> &'static [&'static str] {
        &super::eval::FEATURE_NAMES
    }

    fn evaluation_features(&self, state: &State<W>, out: &mut Vec<f64>) -> bool {
        out.clear();
        let features = super::eval::features(self, state);
        for seat in features.iter().take(self.num_players) {
            out.extend_from_slice(seat);
        }
        true
    }

    fn with_learned_evaluation(&self, weights: &[f64]) -> Result<Self, String> {
        let weights: super::eval::Weights = weights.try_into().map_err(|_| {
            format!(
                "Terra Nova's learned evaluation takes {} weights, not {}",
                super::eval::NUM_FEATURES,
                weights.len()
            )
        })?;
        if !weights.iter().all(|w| w.is_finite()) {
            return Err("the evaluation's weights must be finite".into());
        }
        Ok(Game {
            learned: Some(weights),
            ..self.clone()
        })
    }

    fn observation_lens(&self) -> (usize, usize) {
        (self.board.layout.planes_len(), encode::VECTOR_LEN)
    }

    fn observe(&self, state: &State<W>, seat: usize, planes: &mut [f32], vector: &mut [f32], kept: &mut Kept<'_>) {
        self.board.layout.write_planes_kept(self, state, seat, planes, kept);
        encode::write_vector(self, state, seat, vector);
    }

    fn legal_actions_ascending(&self, state: &State<W>, out: &mut Vec<u32>) {
        // Listed by their ids directly: sorting the slides cost a third of an OpenSpiel step.
        if !state.is_terminal() {
            state.legal_actions_ascending(self, out);
        }
    }

    fn input_layout(&self) -> InputLayout {
        let (fixed, uniform) = self.board.layout.input_layout();
        InputLayout { fixed, uniform }
    }
}
