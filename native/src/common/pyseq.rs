//! `ActionSeq`: a position's legal actions (or the moves they stand for) as an immutable
//! Python sequence that lists nothing in Python until asked.
//!
//! A Python loop over a game with some 200 legal actions a step spent most of its time
//! building the list (200 references, one list object); `random.choice` needs only `len`
//! and one index. The sequence keeps the action ids in a Rust vector and hands out, for
//! index `i`, the prebuilt Python int of the `i`-th action, or `table[int]` when a table
//! is given (`tabletop.native` passes its action → `Move` table, so the items are the
//! Python engine's own `Move` objects). It compares equal to any list or tuple holding
//! the same items, as `tabletop.core.moves.LazyMoves` does.

use super::movetable::MoveTable;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice, PyString, PyTuple};
use std::sync::Arc;

/// The Python int of every action id of a board, made once (empty: make them on demand).
pub type Ints = Arc<Vec<Py<PyAny>>>;

/// Where a sequence reads its actions: a listed vector, or a game's own sets that can
/// count their actions and find the `i`-th one without listing them.
pub trait ActionSource: Send + Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The `i`-th action, `i < len()`.
    fn get(&self, i: usize) -> u32;
    /// Every action in order (a source whose `get` is not O(1) lists them in one pass).
    fn to_vec(&self) -> Vec<u32> {
        (0..self.len()).map(|i| self.get(i)).collect()
    }
}

impl ActionSource for Vec<u32> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn get(&self, i: usize) -> u32 {
        self[i]
    }
}

/// An immutable sequence of legal actions (see the module comment).
#[pyclass(module = "tabletop._native", name = "ActionSeq", frozen, sequence)]
pub struct ActionSeq {
    actions: Box<dyn ActionSource>,
    items: Items,
}

/// What a sequence's items are.
enum Items {
    /// The action ids (Python ints: the board's own, made once, where it has them).
    Ids(Ints),
    /// The moves of a `MoveTable` (what the protocol state hands out), and the serial
    /// number of the position whose legal moves they are (`MoveTable::move_of`; 0: none).
    Moves(Py<MoveTable>, u64),
    /// `table[action]` of any other mapping.
    Mapping(Ints, Py<PyAny>),
}

impl ActionSeq {
    /// The sequence of `actions`; items are `table[action]` when a table is given.
    pub fn new(py: Python<'_>, actions: Box<dyn ActionSource>, ints: &Ints, table: Option<Py<PyAny>>) -> Self {
        let items = match table {
            None => Items::Ids(ints.clone()),
            Some(table) => match table.bind(py).cast::<MoveTable>() {
                Ok(moves) => Items::Moves(moves.clone().unbind(), 0),
                Err(_) => Items::Mapping(ints.clone(), table),
            },
        };
        ActionSeq { actions, items }
    }

    /// The sequence of `actions` whose items are the moves of `table` (the protocol
    /// state's: no type check, and no board ints to share).
    pub fn of_moves(actions: Box<dyn ActionSource>, table: Py<MoveTable>) -> Self {
        ActionSeq {
            actions,
            items: Items::Moves(table, 0),
        }
    }

    /// The same sequence, its moves handed out as the legal moves of the position with
    /// serial number `lister` (`MoveTable::move_of`).
    pub fn listed_by(mut self, lister: u64) -> Self {
        if let Items::Moves(_, listed) = &mut self.items {
            *listed = lister;
        }
        self
    }

    fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.actions.to_vec().into_iter()
    }

    fn item<'py>(&self, py: Python<'py>, action: u32) -> PyResult<Bound<'py, PyAny>> {
        let (ints, table) = match &self.items {
            Items::Moves(moves, lister) => return moves.get().move_of(py, action, *lister),
            Items::Ids(ints) => (ints, None),
            Items::Mapping(ints, table) => (ints, Some(table)),
        };
        let key = match ints.get(action as usize) {
            Some(int) => int.bind(py).clone(),
            None => action.into_pyobject(py)?.into_any(),
        };
        match table {
            Some(table) => table.bind(py).get_item(key),
            None => Ok(key),
        }
    }

    fn items<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.ids().map(|a| self.item(py, a)).collect()
    }
}

#[pymethods]
impl ActionSeq {
    fn __len__(&self) -> usize {
        self.actions.len()
    }

    fn __getitem__<'py>(&self, py: Python<'py>, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(i) = index.extract::<isize>() {
            let n = self.actions.len() as isize;
            let at = if i < 0 { i + n } else { i };
            if !(0..n).contains(&at) {
                return Err(PyIndexError::new_err("action index out of range"));
            }
            return self.item(py, self.actions.get(at as usize));
        }
        if index.is_instance_of::<PySlice>() {
            return self.to_tuple(py)?.as_any().get_item(index);
        }
        Err(PyTypeError::new_err(format!(
            "indices must be integers or slices, not {}",
            index.get_type().name()?
        )))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, self.items(py)?)?.as_any().try_iter()?.into_any())
    }

    fn __contains__(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        for a in self.ids() {
            if self.item(py, a)?.eq(value)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn __richcmp__(&self, py: Python<'_>, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let comparable = other.is_instance_of::<PyList>()
            || other.is_instance_of::<PyTuple>()
            || other.is_instance_of::<ActionSeq>()
            || other.hasattr("to_tuple")?;
        if !comparable || !matches!(op, CompareOp::Eq | CompareOp::Ne) {
            return Ok(py.NotImplemented());
        }
        let theirs = PyTuple::new(py, other.try_iter()?.collect::<PyResult<Vec<_>>>()?)?;
        let equal = self.to_tuple(py)?.eq(theirs)?;
        Ok((equal == matches!(op, CompareOp::Eq))
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind())
    }

    /// Copies and pickles are the tuple of the items (equal to the sequence).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyTuple>,))> {
        let tuple_type = py.get_type::<PyTuple>().into_any();
        Ok((tuple_type, (self.to_tuple(py)?,)))
    }

    /// The action ids (not the items), ascending, as a list: `Encoding.legal_actions`
    /// of a native state, sorted here rather than by Python's `sorted`.
    fn ascending_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let mut ids = self.actions.to_vec();
        ids.sort_unstable();
        let ints = match &self.items {
            Items::Ids(ints) | Items::Mapping(ints, _) => Some(ints),
            Items::Moves(..) => None,
        };
        let items = ids
            .into_iter()
            .map(|a| match ints.and_then(|ints| ints.get(a as usize)) {
                Some(int) => int.bind(py).clone(),
                None => {
                    let Ok(int) = a.into_pyobject(py);
                    int.into_any()
                }
            });
        PyList::new(py, items)
    }

    /// The items as a tuple.
    fn to_tuple<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.items(py)?)
    }

    /// The first index of `value` in `[start, stop)` (`ValueError` if absent), as
    /// `list.index`, negative bounds counting from the end.
    #[pyo3(signature = (value, start = 0, stop = None))]
    fn index(&self, py: Python<'_>, value: &Bound<'_, PyAny>, start: isize, stop: Option<isize>) -> PyResult<usize> {
        let ids: Vec<u32> = self.ids().collect();
        let len = ids.len() as isize;
        let clamp = |bound: isize| (if bound < 0 { bound + len } else { bound }).clamp(0, len) as usize;
        let (start, stop) = (clamp(start), clamp(stop.unwrap_or(len)));
        for (i, &a) in ids.iter().enumerate().take(stop).skip(start) {
            if self.item(py, a)?.eq(value)? {
                return Ok(i);
            }
        }
        Err(PyValueError::new_err("value is not in the sequence"))
    }

    /// How many items equal `value`, as `list.count`.
    fn count(&self, py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut found = 0;
        for a in self.ids() {
            if self.item(py, a)?.eq(value)? {
                found += 1;
            }
        }
        Ok(found)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let items = PyList::new(py, self.items(py)?)?;
        Ok(format!("ActionSeq({})", items.repr()?))
    }
}

/// Interned Python strings for names (kind names), made once per name list.
pub fn interned<'py>(py: Python<'py>, names: &[&'static str]) -> Vec<Py<PyString>> {
    names.iter().map(|n| PyString::intern(py, n).unbind()).collect()
}

/// The action count shared by a batch of states (`step_batch`), checking the batch.
pub fn batch_size(sizes: impl Iterator<Item = usize>, actions: &[i64]) -> PyResult<usize> {
    let mut shared = None;
    let mut games = 0;
    for size in sizes {
        games += 1;
        if shared.is_some_and(|s| s != size) {
            return Err(PyValueError::new_err(
                "step_batch: the states are of different boards (num_distinct_actions differ)",
            ));
        }
        shared = Some(size);
    }
    if games != actions.len() {
        return Err(PyValueError::new_err(format!(
            "step_batch: {games} states but {} actions",
            actions.len()
        )));
    }
    Ok(shared.unwrap_or(0))
}
