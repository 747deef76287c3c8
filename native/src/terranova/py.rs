//! Terra Nova's Python bindings.

use pyo3::prelude::*;

/// Adds Terra Nova's classes to the module.
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
