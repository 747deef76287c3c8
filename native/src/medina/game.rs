//! Medina as a [`crate::game::Game`]: the generic parts (the searches, the vector env,
//! the binding's game-independent methods) see a [`Medina`] (player count and rules) and
//! its positions ([`State`]), actions being the encoding's ids.

use super::encode;
use super::ruleset::Rules;
use super::state::State;
use crate::common::kept::Kept;
use crate::common::network::InputLayout;
use crate::common::rng::Rng;

/// What is fixed for one Medina game: the player count and the rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Medina {
    pub num_players: usize,
    pub rules: Rules,
}

impl Medina {
    /// The game `state` is a position of.
    pub fn of(state: &State) -> Medina {
        Medina {
            num_players: state.num_players as usize,
            rules: state.rules,
        }
    }
}

impl crate::game::Game for Medina {
    type State = State;

    const NAME: &'static str = "Medina";
    const ID: &'static str = "medina";

    fn num_players(&self) -> usize {
        self.num_players
    }

    fn num_actions(&self) -> usize {
        if self.rules.second() {
            super::moves::NUM_ACTIONS_2E
        } else {
            super::moves::NUM_ACTIONS
        }
    }

    fn to_act(&self, state: &State) -> i32 {
        if state.is_terminal() {
            -1
        } else {
            i32::from(state.current_player)
        }
    }

    fn is_over(&self, state: &State) -> bool {
        state.is_terminal()
    }

    fn legal_actions(&self, state: &State, out: &mut Vec<u32>) {
        if state.is_terminal() {
            return;
        }
        state.legal().append_to(out);
    }

    fn is_legal(&self, state: &State, action: u32) -> bool {
        !state.is_terminal() && state.is_legal(action as usize)
    }

    fn play(&self, state: &mut State, action: u32) {
        state.apply_legal(action as usize);
    }

    fn scores(&self, state: &State, out: &mut [f64]) {
        for (o, &s) in out.iter_mut().zip(state.scores().iter()) {
            *o = s as f64;
        }
    }

    fn returns(&self, state: &State, out: &mut [f64]) {
        let shares = state.returns();
        out.copy_from_slice(&shares[..out.len()]);
    }

    fn random_action(&self, state: &State, rng: &mut Rng) -> Option<u32> {
        state.random_action(&mut |n| rng.below(n)).map(|a| a as u32)
    }

    fn evaluate(&self, state: &State, out: &mut [f64]) -> bool {
        let estimate = super::eval::evaluate(state);
        out.copy_from_slice(&estimate[..out.len()]);
        true
    }

    /// The hash of the whole position (its palace ids follow the order the palaces were
    /// started in, so some transpositions go unseen: they are searched again).
    fn key(&self, state: &State) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        state.hash(&mut hasher);
        Some(hasher.finish())
    }

    fn observation_lens(&self) -> (usize, usize) {
        if self.rules.second() {
            (encode::PLANES_LEN_2E, encode::VECTOR_LEN_2E)
        } else {
            (encode::PLANES_LEN, encode::VECTOR_LEN)
        }
    }

    fn observe(&self, state: &State, seat: usize, planes: &mut [f32], vector: &mut [f32], kept: &mut Kept<'_>) {
        encode::observe(state, seat, planes, vector, kept);
    }

    fn input_layout(&self) -> InputLayout {
        let (fixed, uniform) = encode::input_layout();
        InputLayout { fixed, uniform }
    }

    fn starts_differ_by_seat_only(&self) -> bool {
        !self.rules.second()
    }
}
