//! The searches' Python side: the tree search's (`common::mcts`) `search(**options)` and
//! the alpha-beta's (`common::alphabeta`) `alphabeta(**options)`, methods both state
//! classes share, and `SearchStop`, the flag that stops a running search from another
//! thread (`docs/native.md`, "Tree search").

use super::alphabeta;
use super::mcts::{self, Budget, Settings};
use super::rng::Rng;
use crate::game::Game;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A flag that stops the searches it is given (`state.search(stop=flag)`) at their next
/// check, a few simulations later; thread-safe.
#[pyclass(module = "tabletop._native", name = "SearchStop", frozen)]
pub struct SearchStop {
    pub(crate) flag: Arc<AtomicBool>,
}

#[pymethods]
impl SearchStop {
    #[new]
    fn new() -> Self {
        SearchStop {
            flag: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Stops the searches running with this flag (and any started before `clear`).
    fn set(&self) {
        self.flag.store(true, Ordering::Relaxed);
    }

    fn clear(&self) {
        self.flag.store(false, Ordering::Relaxed);
    }

    #[getter]
    fn is_set(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

/// The options of `search(**options)`, read from Python keywords.
pub struct Options {
    settings: Settings,
    simulations: Option<u64>,
    cpu_seconds: Option<f64>,
    wall_seconds: Option<f64>,
    seed: u64,
    stop: Option<Arc<AtomicBool>>,
    root_order: Option<Vec<u32>>,
    evaluation: Option<Vec<f64>>,
}

impl Options {
    /// Reads `simulations`, `cpu_seconds`, `wall_seconds` (at least one of these three, or
    /// `stop`), `seed`, `uct_c`, `widening`, `widening_power`, `margin_weight`,
    /// `rank_root`, `rank_visits`, `horizon` (`mcts::Settings`), `stop` (a `SearchStop`)
    /// and `rollout_limit`, `root_order` (action ids, best first: the root ranked so
    /// where `rank_root` asks, instead of by the game's one-ply priors), and `evaluation`
    /// (the weights of the game's learned evaluation, `Game::with_learned_evaluation`,
    /// valuing the leaves and ranking the nodes instead of the hand-written one).
    pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut options = Options {
            settings: Settings::default(),
            simulations: None,
            cpu_seconds: None,
            wall_seconds: None,
            seed: 0,
            stop: None,
            root_order: None,
            evaluation: None,
        };
        if let Some(kwargs) = kwargs {
            for (key, value) in kwargs.iter() {
                let key: String = key.extract()?;
                match key.as_str() {
                    "simulations" => options.simulations = value.extract()?,
                    "cpu_seconds" => options.cpu_seconds = value.extract()?,
                    "wall_seconds" => options.wall_seconds = value.extract()?,
                    "seed" => options.seed = value.extract()?,
                    "uct_c" => options.settings.uct_c = value.extract()?,
                    "widening" => options.settings.widening = value.extract()?,
                    "margin_weight" => options.settings.margin_weight = value.extract()?,
                    "widening_power" => options.settings.widening_power = value.extract()?,
                    "rank_root" => options.settings.rank_root = value.extract()?,
                    "rank_visits" => options.settings.rank_visits = value.extract()?,
                    "horizon" => options.settings.horizon = value.extract()?,
                    "rollout_limit" => options.settings.rollout_limit = value.extract()?,
                    "root_order" => options.root_order = value.extract()?,
                    "evaluation" => options.evaluation = value.extract()?,
                    "stop" => {
                        if !value.is_none() {
                            options.stop = Some(value.cast::<SearchStop>()?.get().flag.clone());
                        }
                    }
                    other => return Err(PyValueError::new_err(format!("search has no option {other:?}"))),
                }
            }
        }
        if options.simulations.is_none()
            && options.cpu_seconds.is_none()
            && options.wall_seconds.is_none()
            && options.stop.is_none()
        {
            return Err(PyValueError::new_err(
                "search needs a budget: simulations, cpu_seconds, wall_seconds or stop",
            ));
        }
        let seconds = [options.cpu_seconds, options.wall_seconds];
        if seconds.iter().flatten().any(|s| !(s.is_finite() && *s >= 0.0)) {
            return Err(PyValueError::new_err("search times must be finite and not negative"));
        }
        let settings = &options.settings;
        if !(settings.uct_c.is_finite()
            && settings.widening.is_finite()
            && settings.widening_power.is_finite()
            && settings.widening_power >= 0.0)
        {
            return Err(PyValueError::new_err(
                "uct_c and widening must be finite, widening_power finite and not negative",
            ));
        }
        if !(0.0..=1.0).contains(&settings.margin_weight) {
            return Err(PyValueError::new_err("margin_weight must be between 0 and 1"));
        }
        Ok(options)
    }
}

/// Searches from `root` without holding the GIL; returns a dict: `action` (the most
/// visited root action, `None` once the game is over), `simulations`, `nodes`,
/// `node_bytes`, `tree_bytes`, `children` (`[(action, visits, mean reward)]`).
/// `ValueError` for a `rollout_limit` where the game's leaves take no evaluation
/// (`Game::LEAF_EVALUATION`).
pub fn run<G: Game>(py: Python<'_>, game: &G, root: &G::State, options: &Options) -> PyResult<Py<PyAny>> {
    if options.settings.rollout_limit.is_some() && !G::LEAF_EVALUATION {
        return Err(PyValueError::new_err(format!(
            "{}'s search has no evaluation in Rust: rollouts go to the end",
            G::NAME
        )));
    }
    if let Some(weights) = &options.evaluation {
        let learned = game.with_learned_evaluation(weights).map_err(PyValueError::new_err)?;
        return search_with_game(py, &learned, root, options);
    }
    search_with_game(py, game, root, options)
}

fn search_with_game<G: Game>(py: Python<'_>, game: &G, root: &G::State, options: &Options) -> PyResult<Py<PyAny>> {
    let result = py.detach(|| {
        let budget = Budget {
            simulations: options.simulations,
            cpu_seconds: options.cpu_seconds,
            wall_seconds: options.wall_seconds,
            stop: options.stop.as_deref(),
        };
        mcts::search_ordered(
            game,
            root,
            &options.settings,
            &budget,
            &mut Rng::new(options.seed),
            options.root_order.as_deref(),
        )
    });
    let out = PyDict::new(py);
    out.set_item("action", result.action)?;
    out.set_item("simulations", result.simulations)?;
    out.set_item("nodes", result.nodes)?;
    out.set_item("node_bytes", result.node_bytes)?;
    out.set_item("tree_bytes", result.tree_bytes)?;
    out.set_item("children", result.children)?;
    Ok(out.into_any().unbind())
}

/// The options of `alphabeta(**options)`, read from Python keywords.
pub struct AlphaBetaOptions {
    settings: alphabeta::Settings,
    cpu_seconds: Option<f64>,
    stop: Option<Arc<AtomicBool>>,
}

/// The deepest `max_depth` accepted (the search keeps a few buffers per ply).
pub const MAX_ALPHABETA_DEPTH: u32 = 64;

impl AlphaBetaOptions {
    /// Reads `max_depth` (1 to `MAX_ALPHABETA_DEPTH`, default 5), `width` (default 0:
    /// every action), `cpu_seconds` and `stop` (a `SearchStop`).
    pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut options = AlphaBetaOptions {
            settings: alphabeta::Settings::default(),
            cpu_seconds: None,
            stop: None,
        };
        if let Some(kwargs) = kwargs {
            for (key, value) in kwargs.iter() {
                let key: String = key.extract()?;
                match key.as_str() {
                    "max_depth" => options.settings.max_depth = value.extract()?,
                    "width" => options.settings.width = value.extract()?,
                    "cpu_seconds" => options.cpu_seconds = value.extract()?,
                    "stop" => {
                        if !value.is_none() {
                            options.stop = Some(value.cast::<SearchStop>()?.get().flag.clone());
                        }
                    }
                    other => return Err(PyValueError::new_err(format!("alphabeta has no option {other:?}"))),
                }
            }
        }
        if !(1..=MAX_ALPHABETA_DEPTH).contains(&options.settings.max_depth) {
            return Err(PyValueError::new_err(format!(
                "max_depth must be between 1 and {MAX_ALPHABETA_DEPTH}"
            )));
        }
        if options.cpu_seconds.is_some_and(|s| !(s.is_finite() && s >= 0.0)) {
            return Err(PyValueError::new_err("cpu_seconds must be finite and not negative"));
        }
        Ok(options)
    }
}

/// Searches from `root` by alpha-beta without holding the GIL; returns a dict: `action`
/// (`None` once the game is over), `value` (the root seat's lead at the end of the
/// principal variation), `depth` (the deepest iteration completed), `nodes`,
/// `table_hits` (nodes answered by the transposition table), `pv`.
pub fn run_alphabeta<G: Game>(
    py: Python<'_>,
    game: &G,
    root: &G::State,
    options: &AlphaBetaOptions,
) -> PyResult<Py<PyAny>> {
    let result = py.detach(|| {
        let budget = alphabeta::Budget {
            cpu_seconds: options.cpu_seconds,
            stop: options.stop.as_deref(),
        };
        alphabeta::search(game, root, &options.settings, &budget)
    });
    let out = PyDict::new(py);
    out.set_item("action", result.action)?;
    out.set_item("value", result.value)?;
    out.set_item("depth", result.depth)?;
    out.set_item("nodes", result.nodes)?;
    out.set_item("table_hits", result.table_hits)?;
    out.set_item("pv", result.pv)?;
    Ok(out.into_any().unbind())
}

/// Adds `SearchStop` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SearchStop>()
}
