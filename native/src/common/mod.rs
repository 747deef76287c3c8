//! Pieces both games use: fixed-size bitsets, a small fast random generator, outcomes.

pub mod bits;
pub mod mcts;
pub mod outcome;
pub mod rng;
#[cfg(feature = "python")]
pub mod search_py;
