//! Reading a position from Python for the states' `load` (`docs/native.md`, "Loading a
//! position"): the fields come from a mapping (what `export()` returns) or from any
//! object with attributes of the same names (a Python engine's state), and every
//! problem is a `ValueError` that names the game and the field.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt};

/// The fields of one position, read by name.
pub struct Fields<'py> {
    source: Bound<'py, PyAny>,
    game: &'static str,
}

impl<'py> Fields<'py> {
    pub fn new(source: Bound<'py, PyAny>, game: &'static str) -> Self {
        Fields { source, game }
    }

    /// `ValueError: invalid <game> position: <why>`.
    pub fn error(&self, why: impl std::fmt::Display) -> PyErr {
        invalid(self.game, why)
    }

    /// The value of `name`, `None` where there is no such key or attribute.
    pub fn raw(&self, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        if let Ok(dict) = self.source.cast::<PyDict>() {
            return dict.get_item(name);
        }
        match self.source.getattr(name) {
            Ok(value) => Ok(Some(value)),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(self.source.py()) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The value of `name` as `T`.
    pub fn get<T: FromPyObjectOwned<'py>>(&self, name: &str) -> PyResult<T> {
        let value = self
            .raw(name)?
            .ok_or_else(|| self.error(format_args!("the field {name:?} is missing")))?;
        self.extract(name, &value)
    }

    /// The value of `name` as `T`, `None` where it is missing or `None`.
    pub fn opt<T: FromPyObjectOwned<'py>>(&self, name: &str) -> PyResult<Option<T>> {
        match self.raw(name)? {
            Some(value) if !value.is_none() => self.extract(name, &value).map(Some),
            _ => Ok(None),
        }
    }

    /// `value` (the field `name`, or an item of it) as `T`.
    pub fn extract<T: FromPyObjectOwned<'py>>(&self, name: &str, value: &Bound<'py, PyAny>) -> PyResult<T> {
        value.extract::<T>().map_err(|e| {
            let e: PyErr = e.into();
            self.error(format_args!("the field {name:?} is not of the expected type ({e})"))
        })
    }

    /// The set of cells `value` (a non-negative int, bit `i` = cell `i`), as `W` words.
    pub fn words<const W: usize>(&self, name: &str, value: &Bound<'py, PyAny>) -> PyResult<[u64; W]> {
        if !value.is_instance_of::<PyInt>() {
            return Err(self.error(format_args!("the field {name:?} must be an int (a set of cells)")));
        }
        let bytes = value.call_method1("to_bytes", (W * 8, "little")).map_err(|e| {
            if e.is_instance_of::<PyOverflowError>(value.py()) {
                self.error(format_args!(
                    "the field {name:?} is negative or names a cell beyond the board"
                ))
            } else {
                e
            }
        })?;
        let bytes = bytes.cast::<PyBytes>()?.as_bytes();
        let mut words = [0u64; W];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(8)) {
            *word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
        Ok(words)
    }

    /// The set of cells of the field `name`.
    pub fn get_words<const W: usize>(&self, name: &str) -> PyResult<[u64; W]> {
        let value = self.get::<Bound<'py, PyAny>>(name)?;
        self.words(name, &value)
    }

    /// The field `name`, a sequence of sets of cells.
    pub fn get_words_list<const W: usize>(&self, name: &str) -> PyResult<Vec<[u64; W]>> {
        let items: Vec<Bound<'py, PyAny>> = self.get(name)?;
        items.iter().map(|v| self.words(name, v)).collect()
    }
}

/// `ValueError: invalid <game> position: <why>`.
pub fn invalid(game: &str, why: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("invalid {game} position: {why}"))
}
