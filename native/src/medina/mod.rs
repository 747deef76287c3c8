//! Medina's rules in Rust, both editions, exactly as the Python engine
//! (`tabletop.games.medina`) plays them, in files named as the Python package's modules:
//! [`board`] (the grid, both board sides and 256-bit square sets), [`state`] (the
//! position), [`ruleset`] (the rule flags and presets), [`placement`] (where each piece
//! may go), [`moves`] (action ids, move kinds, the legal actions), [`rules`] (a new game,
//! applying actions, the turn order and the game end), [`scoring`] (scores and winners),
//! [`second_edition`] (the well, neutral domes, tea tiles, the claims' order and the
//! tie-break), [`eval`] (`heuristics.py`), [`encode`] (both editions' research
//! observations, `encoding.py`), [`load`] (a position from its fields), [`setup`] (the
//! setup the Python adapter sends), [`search`] (kind-first random play), [`game`]
//! (Medina as a `crate::game::Game`) and, with the `python` feature, `py` (the
//! `tabletop._native.MedinaState` class of the contract in `docs/native.md`).
//!
//! # How the position is held
//!
//! [`state::State`] is a `Copy` value of about 1.9 KB with no heap: square sets are
//! [`board::Bits`] (four `u64`), supplies and owners are byte arrays, and palaces are
//! 7-byte records in a fixed array of 80 (one per palace piece at most).  Two facts of the
//! rules keep it small:
//!
//! * the street rule keeps the components of two palaces from ever touching (not even
//!   diagonally), so a palace's pieces are the orthogonal group of palace pieces around
//!   its first piece, and its stables are the stables next to those pieces: no per-palace
//!   masks are stored (the unfinished palaces' pieces and, for A1, the unowned palaces'
//!   pieces are kept per colour, since every turn reads them);
//! * the gate rule keeps a gap on every side, so each wall run is contiguous from its tower
//!   and is stored as a length.
//!
//! As the Python engine does, the state keeps where the player to move may place
//! (`placement_sources`), found anyway while deciding whether the turn goes on; legal moves
//! and kind-first random moves are read from it.  It also keeps, as pieces are placed, the
//! squares next to merchants (and next to two), next to palace pieces and the open wall
//! spaces, which every turn's sources read; `State::reset_kept` computes them all for a
//! loaded position, and a unit test checks after every action of random games that the
//! kept sets are those recomputed.  A Python sequence of legal actions holds them counted
//! per block (`LegalWords`), so its `i`-th action is found without listing them.  The last-player dome obligation (§5.2) is
//! applied on top when pending, its lookahead (A8) by placing each candidate on a copy.
//!
//! # Exactness
//!
//! Legal actions come out in the Python `legal_moves()` order (kinds in `KINDS` order,
//! palace colours in order, squares ascending), which for Medina is also ascending action
//! id.  `tests/native/test_medina_differential.py` and `python -m tabletop.native.check medina`
//! compare both engines at every step of random games over every player count, preset and
//! flag; the unit tests here cover the board tables and a few rules.

pub mod board;
pub mod encode;
pub mod eval;
pub mod game;
pub mod load;
pub mod moves;
pub mod placement;
pub mod rules;
pub mod ruleset;
pub mod scoring;
pub mod search;
pub mod second_edition;
pub mod setup;
pub mod state;

#[cfg(feature = "python")]
pub mod py;

#[cfg(test)]
mod tests;
