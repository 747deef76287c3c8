//! Medina's Python bindings (stub: registers nothing yet).

use pyo3::prelude::*;

/// Adds Medina's classes to the module (none yet).
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
