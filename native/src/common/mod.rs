//! Pieces both games use: fixed-size bitsets, a small fast random generator, outcomes,
//! and (with the `python` feature) the lazy action sequence both bindings return.

pub mod alphabeta;
pub mod bits;
pub mod kept;
pub mod mcts;
#[cfg(feature = "python")]
pub mod movetable;
pub mod network;
pub mod outcome;
pub mod pool;
pub mod puct;
#[cfg(feature = "python")]
pub mod pyfields;
pub mod pyrandom;
#[cfg(feature = "python")]
pub mod pyseq;
pub mod rng;
#[cfg(feature = "python")]
pub mod search_py;
