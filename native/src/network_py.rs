//! The network search's Python side (issue #40): `Network`, a policy and value network
//! loaded once into Rust and shared read-only by searches on any thread, and
//! `puct_search(state, network, ...)`, PUCT from a native position (`common::puct`).
//! `tabletop.native.puct` reads the `.npz` file and plays the search as an agent.

use crate::common::mcts::Budget;
use crate::common::network::{Architecture, Array, Geometry, IndexArray, Network, MAX_PARAMETERS};
use crate::common::puct::{self, check_fits, Settings, MAX_BATCH};
use crate::common::rng::Rng;
use crate::common::search_py::SearchStop;
use crate::game::Game;
use crate::vector::with_position;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::HashMap;
use std::sync::Arc;

/// A policy and value network (the format of `docs/bots.md`, "The network in the
/// search"), immutable once made.
#[pyclass(module = "tabletop._native", name = "Network", frozen)]
pub struct PyNetwork {
    network: Arc<Network>,
}

/// The float32 values and shape of the buffer `obj` (`what` names it in errors).
fn read_array(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Array> {
    let buffer = PyBuffer::<f32>::get(obj)
        .map_err(|e| PyValueError::new_err(format!("the network's {what} is not a float32 array ({e})")))?;
    if buffer.item_count() > MAX_PARAMETERS {
        return Err(PyValueError::new_err(format!(
            "the network's {what} has more than {MAX_PARAMETERS} values"
        )));
    }
    Ok(Array {
        shape: buffer.shape().to_vec(),
        values: buffer.to_vec(obj.py())?,
    })
}

/// A cells network's geometry from its dict (`PyNetwork::from_arrays`).
fn read_geometry(dict: &Bound<'_, PyDict>) -> PyResult<Geometry> {
    let size = |name: &str| -> PyResult<usize> {
        dict.get_item(name)?
            .ok_or_else(|| PyValueError::new_err(format!("the cell geometry has no {name:?}")))?
            .extract::<usize>()
            .map_err(|_| PyValueError::new_err(format!("the cell geometry's {name} is not a whole number")))
    };
    let sizes = ["num_planes", "plane_size", "vector_size", "num_heads", "num_classes"];
    let mut arrays = HashMap::new();
    for (name, value) in dict.iter() {
        let name: String = name.extract()?;
        if sizes.contains(&name.as_str()) {
            continue;
        }
        let buffer = PyBuffer::<i64>::get(&value)
            .map_err(|e| PyValueError::new_err(format!("the cell geometry's {name} is not an int64 array ({e})")))?;
        if buffer.item_count() > MAX_PARAMETERS {
            return Err(PyValueError::new_err(format!(
                "the cell geometry's {name} has more than {MAX_PARAMETERS} values"
            )));
        }
        let array = IndexArray {
            shape: buffer.shape().to_vec(),
            values: buffer.to_vec(value.py())?,
        };
        arrays.insert(name, array);
    }
    Ok(Geometry {
        num_planes: size("num_planes")?,
        plane_size: size("plane_size")?,
        vector_size: size("vector_size")?,
        num_heads: size("num_heads")?,
        num_classes: size("num_classes")?,
        arrays,
    })
}

#[pymethods]
impl PyNetwork {
    /// The network of the `.npz` file `path`, read by `tabletop.native.puct.load_network`
    /// (NumPy reads the file; once per file, shared): `ConfigError` saying what is wrong.
    #[new]
    fn new(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let loaded = py
            .import("tabletop.native.puct")?
            .call_method1("load_network", (path,))?;
        let loaded = loaded.cast::<PyNetwork>()?;
        Ok(PyNetwork {
            network: loaded.get().network.clone(),
        })
    }

    /// The network of `meta` (the file's JSON) and `arrays` (name -> float32 array:
    /// `w0, b0, ..., policy_w, policy_b, value_w, value_b` for a dense network; for a
    /// cells one also `policy_global_w, value_hidden_w, value_hidden_b`) and, for a cells
    /// network only, its game's `geometry`: a dict of the int64 arrays of
    /// `CellInputs.index_arrays()` (`positions, gather, action_cells, action_heads,
    /// action_classes`) and the ints `num_planes, plane_size, vector_size` (of
    /// `CellInputs`), `num_heads, num_classes` (of its `CellGeometry`). `ValueError`
    /// saying what is wrong where anything does not fit.
    #[staticmethod]
    #[pyo3(signature = (meta, arrays, *, geometry = None))]
    fn from_arrays(meta: &str, arrays: &Bound<'_, PyDict>, geometry: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut read = HashMap::new();
        for (name, value) in arrays.iter() {
            let name: String = name.extract()?;
            let array = read_array(&value, &name)?;
            read.insert(name, array);
        }
        let geometry = geometry.map(read_geometry).transpose()?;
        let network = Network::with_geometry(meta, read, geometry).map_err(PyValueError::new_err)?;
        Ok(PyNetwork {
            network: Arc::new(network),
        })
    }

    /// The file's meta JSON, as read.
    #[getter]
    fn meta(&self) -> &str {
        &self.network.meta.json
    }

    #[getter]
    fn game(&self) -> &str {
        &self.network.meta.game
    }

    #[getter]
    fn num_players(&self) -> usize {
        self.network.meta.num_players
    }

    #[getter]
    fn ruleset(&self) -> &str {
        &self.network.meta.ruleset
    }

    #[getter]
    fn input_size(&self) -> usize {
        self.network.meta.input_size
    }

    #[getter]
    fn num_actions(&self) -> usize {
        self.network.meta.num_actions
    }

    #[getter]
    fn hidden(&self) -> Vec<usize> {
        self.network.meta.hidden.clone()
    }

    /// `"dense"` or `"cells"` (the meta's `architecture`).
    #[getter]
    fn architecture(&self) -> &str {
        match self.network.meta.architecture {
            Architecture::Dense => "dense",
            Architecture::Cells => "cells",
        }
    }

    /// Every logit and the value head (relative seats) of each row of `inputs` (a
    /// float32 array of `n x input_size`, or one row): `(logits, values)`, lists of rows.
    #[allow(clippy::type_complexity)]
    fn forward(&self, inputs: &Bound<'_, PyAny>) -> PyResult<(Vec<Vec<f32>>, Vec<Vec<f32>>)> {
        let array = read_array(inputs, "inputs")?;
        let size = self.network.input_size();
        let n = match array.shape[..] {
            [i] if i == size => 1,
            [n, i] if i == size => n,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "inputs of shape {:?}: (n, {size}) or ({size},) expected",
                    array.shape
                )))
            }
        };
        let (logits, values) = self.network.forward(&array.values, n);
        let rows = |flat: Vec<f32>, width: usize| flat.chunks(width).map(<[f32]>::to_vec).collect();
        Ok((
            rows(logits, self.network.num_actions()),
            rows(values, self.network.num_players()),
        ))
    }

    /// The network's view of a native position alone: `(priors, values)`, the prior of
    /// each legal action as `(action, prior)` and each seat's value (absolute seats; the
    /// returns once the game is over). `ValueError` if the network is not this game's.
    fn evaluate(&self, state: &Bound<'_, PyAny>) -> PyResult<puct::PositionEvaluation> {
        with_position(state, |held| held.network_evaluation(&self.network))?.map_err(PyValueError::new_err)
    }

    fn __repr__(&self) -> String {
        let meta = &self.network.meta;
        format!(
            "<Network {} {}p ruleset={} inputs={} hidden={:?} actions={}>",
            meta.game, meta.num_players, meta.ruleset, meta.input_size, meta.hidden, meta.num_actions
        )
    }
}

/// The settings and budget of one `puct_search` call, checked.
pub struct PuctRequest {
    settings: Settings,
    simulations: Option<u64>,
    cpu_seconds: Option<f64>,
    wall_seconds: Option<f64>,
    seed: u64,
    stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// Searches `root` of `game` without holding the GIL (the game and the position copied
/// first, so the search holds nothing of the Python object).
pub(crate) fn run<G: Game>(
    py: Python<'_>,
    game: &G,
    root: &G::State,
    network: &Network,
    request: &PuctRequest,
) -> PyResult<puct::SearchResult> {
    check_fits(game, network).map_err(PyValueError::new_err)?;
    let (game, root) = (game.clone(), *root);
    Ok(py.detach(move || {
        let budget = Budget {
            simulations: request.simulations,
            cpu_seconds: request.cpu_seconds,
            wall_seconds: request.wall_seconds,
            stop: request.stop.as_deref(),
        };
        puct::search(
            &game,
            &root,
            network,
            &request.settings,
            &budget,
            &mut Rng::new(request.seed),
        )
    }))
}

/// PUCT from a native position (`NativeState`, `TerraNovaState` or `MedinaState`) with
/// `network` as prior and leaf value, until the first budget is reached (`simulations`,
/// `cpu_seconds` of the searching thread, `wall_seconds`, or `stop`, a `SearchStop`; at
/// least one). Returns a dict: `action` (the most visited root action; `None` once the
/// game is over), `visits` (`[(action, visits)]` of the root's children), `value` (each
/// seat's mean value at the root, absolute seats), `simulations`, `evaluations` (network
/// calls), `nodes`, `tree_bytes`. With a simulation budget a seed gives the same search
/// on every run; a search stops early at `puct::MAX_TREE_BYTES` of tree. `leaf_mix`
/// blends each leaf's network value with the game's own leaf value (a random playout of
/// at most `leaf_rollout` actions, `None`: to the end; see `common::puct`); with
/// `leaf_horizon` H > 0, to the end wherever a random walk of H actions from the root ends
/// the game.
#[pyfunction]
#[pyo3(signature = (
    state, network, simulations = None, c_puct = 1.5, seed = 0, dirichlet_alpha = 0.0,
    dirichlet_fraction = 0.0, cpu_seconds = None, wall_seconds = None, batch_size = 8, stop = None,
    leaf_mix = 0.0, leaf_rollout = None, leaf_horizon = 0
))]
#[allow(clippy::too_many_arguments)]
fn puct_search(
    py: Python<'_>,
    state: &Bound<'_, PyAny>,
    network: &PyNetwork,
    simulations: Option<u64>,
    c_puct: f64,
    seed: u64,
    dirichlet_alpha: f64,
    dirichlet_fraction: f64,
    cpu_seconds: Option<f64>,
    wall_seconds: Option<f64>,
    batch_size: usize,
    stop: Option<&Bound<'_, SearchStop>>,
    leaf_mix: f64,
    leaf_rollout: Option<u32>,
    leaf_horizon: u32,
) -> PyResult<Py<PyAny>> {
    if simulations.is_none() && cpu_seconds.is_none() && wall_seconds.is_none() && stop.is_none() {
        return Err(PyValueError::new_err(
            "puct_search needs a budget: simulations, cpu_seconds, wall_seconds or stop",
        ));
    }
    if simulations == Some(0) {
        return Err(PyValueError::new_err("simulations must be at least 1"));
    }
    if [cpu_seconds, wall_seconds]
        .iter()
        .flatten()
        .any(|s| !(s.is_finite() && *s >= 0.0))
    {
        return Err(PyValueError::new_err("search times must be finite and not negative"));
    }
    if !(c_puct.is_finite() && c_puct >= 0.0) {
        return Err(PyValueError::new_err("c_puct must be finite and not negative"));
    }
    if !(1..=MAX_BATCH).contains(&batch_size) {
        return Err(PyValueError::new_err(format!(
            "batch_size must be from 1 to {MAX_BATCH}"
        )));
    }
    if !(0.0..=1.0).contains(&dirichlet_fraction) {
        return Err(PyValueError::new_err("dirichlet_fraction must be from 0 to 1"));
    }
    if dirichlet_fraction > 0.0 && !(dirichlet_alpha.is_finite() && dirichlet_alpha > 0.0) {
        return Err(PyValueError::new_err(
            "dirichlet_alpha must be finite and positive where there is noise",
        ));
    }
    if !(0.0..=1.0).contains(&leaf_mix) {
        return Err(PyValueError::new_err("leaf_mix must be from 0 to 1"));
    }
    let request = PuctRequest {
        settings: Settings {
            c_puct,
            batch_size,
            dirichlet_alpha,
            dirichlet_fraction,
            leaf_mix,
            leaf_rollout: leaf_rollout.unwrap_or(u32::MAX),
            leaf_horizon,
        },
        simulations,
        cpu_seconds,
        wall_seconds,
        seed,
        stop: stop.map(|s| s.get().flag.clone()),
    };
    let result = with_position(state, |held| held.puct(py, &network.network, &request))??;
    let out = PyDict::new(py);
    out.set_item("action", result.action)?;
    out.set_item("visits", result.visits)?;
    out.set_item("children", result.children)?;
    out.set_item("value", result.value)?;
    out.set_item("simulations", result.simulations)?;
    out.set_item("evaluations", result.evaluations)?;
    out.set_item("nodes", result.nodes)?;
    out.set_item("tree_bytes", result.tree_bytes)?;
    Ok(out.into_any().unbind())
}

/// Adds `Network` and `puct_search` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyNetwork>()?;
    m.add_function(wrap_pyfunction!(puct_search, m)?)
}
