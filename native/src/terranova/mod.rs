//! Terra Nova: the rules of `src/tabletop/games/terranova/` in Rust, for any valid map.

pub mod board;
pub mod encode;
pub mod eval;
pub mod load;
#[cfg(feature = "python")]
pub mod py;
pub mod rules;
pub mod scoring;
pub mod search;
pub mod setup;
pub mod state;

#[cfg(test)]
mod tests;
