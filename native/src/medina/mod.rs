//! Medina's rules in Rust, exactly as the Python engine (`tabletop.games.medina`) plays
//! them: [`board`] (the grid and square sets), [`state`] (the position, legal moves,
//! applying moves, scoring, random play) and, with the `python` feature, `py` (the
//! `tabletop._native.MedinaState` class).

pub mod board;
pub mod state;

#[cfg(feature = "python")]
pub mod py;

#[cfg(test)]
mod tests;
