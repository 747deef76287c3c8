//! The Python classes of a game's Rust position, written once for every game:
//! [`game_classes!`] makes a game's state class (`TerraNovaState`, `MedinaState`: the
//! contract of `docs/native.md`, "The class each game exports") and its mutable twin
//! (`TerraNovaMutableState`, ...) from the game's [`Position`], so each game's `py.rs`
//! holds only what is its own: reading its setup, its position's parts, its extras.

/// Makes the Python methods of `$state` (a `#[pyclass]` implementing
/// [`crate::protocol::Position`]) and its mutable twin `$mutable` (Python name
/// `$mutable_name`), with the game's own methods `$extra` (its `#[new]`, ...) in the same
/// `#[pymethods]` block.
#[macro_export]
macro_rules! game_classes {
    ($state:ident, $mutable:ident, $mutable_name:tt, { $($extra:tt)* }) => {
        #[pyo3::pymethods]
        impl $state {
            $($extra)*

            #[getter]
            fn num_players(&self) -> usize {
                $crate::protocol::Protocol::num_players(self)
            }

            /// The seat to act (-1 once the game is over).
            #[getter]
            fn current_player(&self) -> i64 {
                $crate::protocol::Protocol::current_player(self)
            }

            #[getter]
            fn ply(&self) -> u32 {
                $crate::protocol::Protocol::ply(self)
            }

            #[getter]
            fn turn(&self) -> u32 {
                $crate::protocol::Protocol::turn(self)
            }

            /// Action ids run from 0 to this (exclusive), as the encoding's.
            #[getter]
            fn num_distinct_actions(&self) -> usize {
                $crate::protocol::Protocol::num_actions(self)
            }

            fn is_terminal(&self) -> bool {
                $crate::protocol::Protocol::is_terminal(self)
            }

            /// The legal action ids in the Python `legal_moves()` order, as a lazy sequence
            /// (`ActionSeq`); with `table`, its items are `table[action]`.
            #[pyo3(signature = (table = None))]
            fn legal_actions(
                &self,
                py: pyo3::Python<'_>,
                table: Option<pyo3::Py<pyo3::PyAny>>,
            ) -> pyo3::PyResult<$crate::common::pyseq::ActionSeq> {
                $crate::protocol::Position::action_seq(self, py, None, table)
            }

            /// The legal actions of one kind (none for an unknown kind), as `legal_actions`.
            #[pyo3(signature = (kind, table = None))]
            fn legal_actions_of_kind(
                &self,
                py: pyo3::Python<'_>,
                kind: &str,
                table: Option<pyo3::Py<pyo3::PyAny>>,
            ) -> pyo3::PyResult<$crate::common::pyseq::ActionSeq> {
                $crate::protocol::Position::action_seq(self, py, Some(kind), table)
            }

            /// One byte per action id: 1 where it is legal here (`Encoding.action_mask`).
            fn legal_mask<'py>(&self, py: pyo3::Python<'py>) -> pyo3::Bound<'py, pyo3::types::PyBytes> {
                let mut mask = vec![0u8; $crate::protocol::Protocol::num_actions(self)];
                $crate::protocol::Protocol::mark_legal(self, &mut mask);
                pyo3::types::PyBytes::new(py, &mask)
            }

            /// The legal kinds, as a tuple of (interned) names.
            fn legal_kinds<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyTuple>> {
                $crate::protocol::Protocol::kinds(self, py)
            }

            fn is_legal(&self, action: i64) -> bool {
                $crate::protocol::Protocol::action_is_legal(self, action)
            }

            /// The state after `action`; `ValueError` if it is not legal here.
            fn apply(&self, action: i64) -> pyo3::PyResult<Self> {
                let mut next = self.clone();
                $crate::protocol::Position::play_or_why(&mut next, action)
                    .map_err(pyo3::exceptions::PyValueError::new_err)?;
                Ok(next)
            }

            /// A copy that `apply_action` changes in place.
            fn mutable_copy(&self) -> $mutable {
                $mutable { position: self.clone() }
            }

            fn scores(&self) -> Vec<i64> {
                $crate::protocol::Protocol::score_list(self)
            }

            fn returns(&self) -> Vec<f64> {
                $crate::protocol::Protocol::return_list(self)
            }

            /// The winning seats (none before the end).
            fn winners(&self) -> Vec<usize> {
                $crate::protocol::Protocol::winner_list(self)
            }

            fn termination(&self) -> Option<&'static str> {
                $crate::protocol::Protocol::termination_name(self)
            }

            /// The Python `State`'s fields of the same names (bitsets as ints), the inverse
            /// of `load`.
            fn export<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
                $crate::protocol::Position::export(self, py)
            }

            /// This game at the position `fields` (the inverse of `export`): `export()`'s
            /// dict, or a Python engine state of the same game. `ValueError` saying what is
            /// wrong where it is not a position of this game (`<game>::load`).
            fn load(&self, fields: pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<Self> {
                $crate::protocol::Position::load(self, fields)
            }

            /// Plays `n` kind-first random games to the end from here, in Rust with the GIL
            /// released; returns `(games, actions)`.
            fn random_playouts(&self, py: pyo3::Python<'_>, n: u64, seed: u64) -> (u64, u64) {
                py.detach(|| $crate::protocol::Protocol::random_playouts(self, n, seed))
            }

            /// The tree search from here with the options of `common::search_py` (budgets,
            /// seed, settings, stop flag): a dict with the chosen action and the tree's size.
            #[pyo3(signature = (**options))]
            fn search(
                &self,
                py: pyo3::Python<'_>,
                options: Option<&pyo3::Bound<'_, pyo3::types::PyDict>>,
            ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                let options = $crate::common::search_py::Options::from_kwargs(options)?;
                $crate::protocol::Protocol::search(self, py, &options)
            }

            /// The alpha-beta search from here over the game's evaluation, with the options
            /// of `common::search_py::AlphaBetaOptions` (`max_depth`, `width`, `cpu_seconds`,
            /// `stop`): a dict with the chosen action, its value, the depth reached, nodes.
            #[pyo3(signature = (**options))]
            fn alphabeta(
                &self,
                py: pyo3::Python<'_>,
                options: Option<&pyo3::Bound<'_, pyo3::types::PyDict>>,
            ) -> pyo3::PyResult<pyo3::Py<pyo3::PyAny>> {
                let options = $crate::common::search_py::AlphaBetaOptions::from_kwargs(options)?;
                $crate::protocol::Protocol::alphabeta(self, py, &options)
            }

            /// Each seat's estimated final score: the game's evaluation in Rust
            /// (`heuristics.evaluate`; `terranova/eval.rs`, `medina/eval.rs`, the first
            /// edition's terms); `ValueError` for a game without one.
            fn evaluate(&self) -> pyo3::PyResult<Vec<f64>> {
                $crate::protocol::Protocol::evaluation(self)
                    .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("this game has no evaluation in Rust"))
            }

            /// The learned evaluation's inputs here: `(names, rows)`, a row of features per
            /// seat (`terranova/eval.rs`, `FEATURE_NAMES`); `ValueError` for a game without
            /// a learned evaluation.
            fn evaluation_features(&self) -> pyo3::PyResult<(Vec<&'static str>, Vec<Vec<f64>>)> {
                $crate::protocol::Protocol::evaluation_features(self).ok_or_else(|| {
                    pyo3::exceptions::PyValueError::new_err("this game has no learned evaluation")
                })
            }

            fn __copy__(slf: pyo3::PyRef<'_, Self>) -> pyo3::PyRef<'_, Self> {
                slf
            }

            fn __deepcopy__<'py>(
                slf: pyo3::PyRef<'py, Self>,
                _memo: pyo3::Bound<'py, pyo3::PyAny>,
            ) -> pyo3::PyRef<'py, Self> {
                slf
            }

            fn __repr__(&self) -> String {
                $crate::protocol::Position::describe(self)
            }
        }

        impl $crate::protocol::Reused for $state {
            fn with_spares<R>(f: impl FnOnce(&mut Vec<Box<Self>>) -> R) -> Option<R> {
                thread_local! {
                    // The boxes themselves are what is kept (their allocations), hence `Vec<Box<_>>`.
                    #[allow(clippy::vec_box)]
                    static SPARES: std::cell::RefCell<Vec<Box<$state>>> = const { std::cell::RefCell::new(Vec::new()) };
                }
                SPARES.try_with(|spares| f(&mut spares.borrow_mut())).ok()
            }
        }

        /// A position that `apply_action` changes in place, as OpenSpiel's states do: a
        /// Python loop over action ids then makes no object per move. Made by the state
        /// class's `mutable_copy()`; `state()` gives an immutable state of it. The states
        /// behind the game protocol stay immutable (one initial position is shared by
        /// every game that starts from it).
        #[pyo3::pyclass(module = "tabletop._native", name = $mutable_name)]
        pub struct $mutable {
            position: $state,
        }

        #[pyo3::pymethods]
        impl $mutable {
            #[getter]
            fn current_player(&self) -> i64 {
                $crate::protocol::Protocol::current_player(&self.position)
            }

            fn is_terminal(&self) -> bool {
                $crate::protocol::Protocol::is_terminal(&self.position)
            }

            /// As the state class's `legal_actions` (the sequence keeps its actions when
            /// this position changes).
            #[pyo3(signature = (table = None))]
            fn legal_actions(
                &self,
                py: pyo3::Python<'_>,
                table: Option<pyo3::Py<pyo3::PyAny>>,
            ) -> pyo3::PyResult<$crate::common::pyseq::ActionSeq> {
                $crate::protocol::Position::action_seq(&self.position, py, None, table)
            }

            /// Plays `action` here; `ValueError` (and no change) if it is not legal.
            fn apply_action(&mut self, action: i64) -> pyo3::PyResult<()> {
                $crate::protocol::Position::play_or_why(&mut self.position, action)
                    .map_err(pyo3::exceptions::PyValueError::new_err)
            }

            fn returns(&self) -> Vec<f64> {
                $crate::protocol::Protocol::return_list(&self.position)
            }

            /// Another mutable copy of this position.
            #[pyo3(name = "clone")]
            fn copy(&self) -> Self {
                $mutable { position: self.position.clone() }
            }

            /// This position as an immutable state.
            fn state(&self) -> $state {
                self.position.clone()
            }

            fn __repr__(&self) -> String {
                format!("<mutable {}>", &$crate::protocol::Position::describe(&self.position)[1..])
            }
        }
    };
}
