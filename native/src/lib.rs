//! The native engines of tabletop: each game's rules in Rust, exactly as the Python
//! engines (`src/tabletop/games/*`) play them, exposed to Python as `tabletop._native`.
//!
//! One module per game (`terranova`, `medina`), shared pieces in `common`. The Python
//! bindings (`<game>::py`) exist only with the `python` feature, so `cargo test` runs on
//! plain Rust. The contract the Python adapter (`tabletop.native`) relies on is in
//! `docs/native.md`.

#[cfg(feature = "python")]
#[macro_use]
pub mod binding;
pub mod bench_players;
pub mod common;
pub mod game;
#[cfg(test)]
mod input_layout_tests;
pub mod medina;
#[cfg(feature = "python")]
pub mod network_py;
#[cfg(feature = "python")]
pub mod protocol;
pub mod terranova;
#[cfg(feature = "python")]
pub mod vector;

#[cfg(feature = "python")]
use pyo3::prelude::*;

/// The extension module `tabletop._native`: one state class per game, and the lazy
/// sequence of legal actions they return.
#[cfg(feature = "python")]
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<common::pyseq::ActionSeq>()?;
    terranova::py::register(m)?;
    medina::py::register(m)?;
    common::search_py::register(m)?;
    protocol::register(m)?;
    vector::register(m)?;
    network_py::register(m)?;
    bench_players::py::register(m)?;
    Ok(())
}
