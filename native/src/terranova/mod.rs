//! Terra Nova: the rules of `src/tabletop/games/terranova/` in Rust, for any valid map.
//!
//! The files mirror the Python package's, so that a reader of one finds the same thing in
//! the other: [`board`] (`board.py`: the map's tables), [`state`] (`state.py`: the
//! position), [`moves`] (`moves.py`: move kinds and values, action ids, legal move
//! generation and legality), [`rules`] (`rules.py`: the initial position, applying moves,
//! turn flow, the end of the game), [`scoring`] (`scoring.py`: zones and scoring),
//! [`eval`] (`heuristics.py`), [`encode`] (`encoding.py`'s observations) and [`load`] (a
//! position from its fields). [`search`] holds random play (`ai.agent.random_move`),
//! [`game`] is Terra Nova as a `crate::game::Game` (the searches, the encoder, the vector
//! env), [`setup`] reads the setup from the Python initial state and, with the `python`
//! feature, `py` is the `tabletop._native` class.

pub mod board;
pub mod encode;
pub mod eval;
pub mod game;
pub mod load;
pub mod moves;
#[cfg(feature = "python")]
pub mod py;
pub mod rules;
pub mod scoring;
pub mod search;
pub mod setup;
pub mod state;

#[cfg(test)]
mod tests;
