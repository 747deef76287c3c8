//! `MoveTable`: a game's action ids and the Python engine's `Move` objects, both ways,
//! for the protocol state (`crate::protocol`) and the sequences it hands out.
//!
//! A listed move is `table[action]`, and `apply(move)` needs the id back. Kept in Python
//! (a dict of moves and a dict keyed by `id(move)`), the two lookups touched a Python int
//! and two dict entries a step, scattered over memory, and object addresses hash poorly:
//! together about a tenth of a Terra Nova step in a Python loop. Here a move is one
//! vector slot and an id one lookup by the object's address.

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// The moves of one encoding decoded so far (see the module comment).
#[pyclass(module = "tabletop._native", name = "MoveTable", frozen)]
pub struct MoveTable {
    /// The game's `Encoding`: `decode(action)` and `encode(move)`.
    encoding: Py<PyAny>,
    known: Mutex<Known>,
}

#[derive(Default)]
struct Known {
    /// `moves[action]`: the decoded `Move`, kept alive here (so its address is its own).
    moves: Vec<Option<Py<PyAny>>>,
    /// The action of each move in `moves`, by the object's address.
    ids: HashMap<usize, i64, BuildHasherDefault<AddressHasher>>,
    /// The address, action and lister (`MoveTable::move_of`) of the move handed out
    /// last: a Python loop applies the move it was just handed, found here without a
    /// probe of `ids` (a cold line).
    last: (usize, i64, u64),
}

/// Hashes an object address: the bits above the allocator's 16-byte alignment, mixed by
/// one multiplication (Fibonacci hashing).
#[derive(Default)]
pub struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, address: usize) {
        self.0 = ((address as u64) >> 4).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

fn poisoned() -> PyErr {
    PyValueError::new_err("a move table's lock was poisoned")
}

impl MoveTable {
    /// The `Move` of `action`, decoded on first use. `lister` is the serial number of the
    /// position among whose legal moves it is handed out (`NativeState`), or 0: the
    /// table remembers it with the move until it hands out another (`listed_action`).
    pub fn move_of<'py>(&self, py: Python<'py>, action: u32, lister: u64) -> PyResult<Bound<'py, PyAny>> {
        let slot = action as usize;
        {
            let mut known = self.known.lock().map_err(|_| poisoned())?;
            if let Some(Some(mv)) = known.moves.get(slot) {
                let mv = mv.bind(py).clone();
                known.last = (mv.as_ptr() as usize, action as i64, lister);
                return Ok(mv);
            }
        }
        // Decoded without the lock held: `decode` is Python, and may take the GIL's turn.
        let mv = self.encoding.bind(py).call_method1("decode", (action,))?;
        let mut known = self.known.lock().map_err(|_| poisoned())?;
        if known.moves.len() <= slot {
            known.moves.resize_with(slot + 1, || None);
        }
        if let Some(first) = &known.moves[slot] {
            return Ok(first.bind(py).clone()); // decoded meanwhile by another thread
        }
        known.moves[slot] = Some(mv.clone().unbind());
        known.ids.insert(mv.as_ptr() as usize, action as i64);
        known.last = (mv.as_ptr() as usize, action as i64, lister);
        Ok(mv)
    }

    /// The action of `mv` if it is a move this table handed out, and the lister it was
    /// handed out with if it is the last one handed out (else 0).
    pub fn listed_action(&self, mv: &Bound<'_, PyAny>) -> Option<(i64, u64)> {
        let known = self.known.lock().ok()?;
        let address = mv.as_ptr() as usize;
        if known.last.0 == address {
            return Some((known.last.1, known.last.2));
        }
        known.ids.get(&address).map(|&action| (action, 0))
    }

    /// The action of any `Move` of the game (`Encoding.encode`, which raises for others).
    pub fn action_of(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<i64> {
        match self.listed_action(mv) {
            Some((action, _)) => Ok(action),
            None => self.encoding.bind(py).call_method1("encode", (mv,))?.extract(),
        }
    }
}

#[pymethods]
impl MoveTable {
    #[new]
    fn new(encoding: Py<PyAny>) -> Self {
        MoveTable {
            encoding,
            known: Mutex::new(Known::default()),
        }
    }

    /// The encoding the moves are decoded with.
    #[getter]
    fn encoding(&self, py: Python<'_>) -> Py<PyAny> {
        self.encoding.clone_ref(py)
    }

    /// The `Move` of an action id (`KeyError` for a negative one; the encoding's error for
    /// one it does not have).
    fn __getitem__<'py>(&self, py: Python<'py>, action: i64) -> PyResult<Bound<'py, PyAny>> {
        let id = u32::try_from(action).map_err(|_| PyKeyError::new_err(action))?;
        self.move_of(py, id, 0)
    }

    /// The action id of `move` (`ValueError` if it is not a move of this encoding).
    fn encode(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<i64> {
        let mv = r#move; // the protocol's name for it, `move`, is Rust's keyword
        self.action_of(py, mv)
    }

    /// How many moves have been decoded.
    fn __len__(&self) -> usize {
        self.known.lock().map_or(0, |known| known.ids.len())
    }
}
