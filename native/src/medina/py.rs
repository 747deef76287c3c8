//! Medina's Python bindings: `tabletop._native.MedinaState`, the contract of
//! `docs/native.md` (every method the generic adapter `tabletop.native` calls).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};

use super::board::{Bits, NUM_SQUARES};
use super::game::Medina;
use super::moves::{Legal, LegalWords, KINDS, NUM_ACTIONS_2E};
use super::setup;
use super::state::{palace_stables, palace_touch, run_masks, State};
use crate::common::movetable::MoveTable;
use crate::common::pyfields::Fields;
use crate::common::pyseq::{interned, ActionSeq, ActionSource, Ints};
use crate::protocol::{Held, HeldPosition, Position, Protocol};

/// An immutable Medina position backed by the Rust engine.  A free list keeps dropped
/// objects for reuse: a Python loop makes one per move, and allocating an object of this
/// size costs more than the move itself.
#[pyclass(module = "tabletop._native", name = "MedinaState", frozen, freelist = 256)]
pub struct MedinaState {
    state: State,
}

impl Clone for MedinaState {
    fn clone(&self) -> Self {
        MedinaState { state: self.state }
    }

    /// One copy into the reused box (`protocol::Spare`), not a copy made and then moved.
    fn clone_from(&mut self, source: &Self) {
        self.state = source.state;
    }
}

fn bad(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// A set of squares as a Python int (bit `sq`), like the Python engine's bitsets.
fn bits_to_py<'py>(py: Python<'py>, bits: Bits) -> PyResult<Bound<'py, PyAny>> {
    let mut bytes = [0u8; 32];
    for (i, word) in bits.0.iter().enumerate() {
        bytes[i * 8..(i + 1) * 8].copy_from_slice(&word.to_le_bytes());
    }
    py.get_type::<PyInt>()
        .call_method1("from_bytes", (PyBytes::new(py, &bytes), "little"))
}

/// The Python ints of every action id, made once: a sequence of legal actions then hands
/// out references (ids above 256 are not among Python's cached small ints).
static ACTION_INTS: PyOnceLock<Ints> = PyOnceLock::new();

/// Legal actions (all, or of one kind) as a sequence, counted once and indexed over
/// their words (`LegalWords`), never listed.
fn action_seq(py: Python<'_>, legal: LegalWords, table: Option<Py<PyAny>>) -> PyResult<ActionSeq> {
    let ints = ACTION_INTS.get_or_try_init(py, || {
        (0..NUM_ACTIONS_2E)
            .map(|a| a.into_pyobject(py).map(|i| i.into_any().unbind()))
            .collect::<Result<Vec<_>, _>>()
            .map(Ints::new)
    })?;
    Ok(ActionSeq::new(py, Box::new(legal), ints, table))
}

impl ActionSource for LegalWords {
    fn len(&self) -> usize {
        self.count()
    }

    fn get(&self, i: usize) -> u32 {
        self.nth(i) as u32
    }

    fn to_vec(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.count());
        self.for_each(|a| out.push(a as u32));
        out
    }
}

/// The kind names as interned Python strings, made once.
static KIND_STRS: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();

fn action_of(state: &State, action: i64) -> Option<usize> {
    usize::try_from(action).ok().filter(|&a| a < state.num_actions())
}

/// Plays `action` on `state`; why not (and no change) if it is not legal there.
fn apply_in_place(state: &mut State, action: i64) -> Result<(), String> {
    let a =
        action_of(state, action).ok_or_else(|| format!("action {action} is not in range({})", state.num_actions()))?;
    state.apply(a)
}

fn kind_index(kind: &str) -> Option<usize> {
    KINDS.iter().position(|&k| k == kind)
}

impl MedinaState {
    /// The legal actions of `kind` (all with `None`; none for an unknown kind).
    fn legal_words(&self, kind: Option<&str>) -> LegalWords {
        match kind {
            None => self.state.legal_words(),
            Some(kind) => kind_index(kind).map_or_else(|| Legal::NONE.words(), |k| self.state.legal_words_of_kind(k)),
        }
    }
}

game_classes!(MedinaState, MedinaMutableState, "MedinaMutableState", {
    #[new]
    fn py_new(setup_json: &str) -> PyResult<Self> {
        Ok(MedinaState {
            state: setup::from_json(setup_json).map_err(bad)?,
        })
    }

    /// The initial state of another seed of this state's config (this state being an
    /// initial one): the Python game's second-edition draw `(well, start square)` (names;
    /// `"none"`, `""`: none) placed on a fresh position of the same rules and start player
    /// (`MedinaGame.initial_draw`; the native adapter's start without a Python state).
    fn with_draw(&self, draw: (String, String)) -> PyResult<Self> {
        let template = &self.state;
        let mut state = State::new(
            template.num_players as usize,
            template.current_player.max(0) as usize,
            template.rules,
        );
        let (well, start) = draw;
        if well != "none" {
            let sq = setup::parse_square(&well)
                .filter(|&sq| state.rules.second() && state.geo().inner.has(sq))
                .ok_or_else(|| bad(format!("medina draw: bad well square {well:?}")))?;
            state.place_well(sq);
        }
        if !start.is_empty() {
            let sq = setup::parse_square(&start)
                .filter(|&sq| state.start_squares().andnot(state.occupied).has(sq))
                .ok_or_else(|| bad(format!("medina draw: bad start square {start:?}")))?;
            state.place_start(sq);
            state.ply = 0;
        }
        Ok(MedinaState { state })
    }

    /// The state of a hand-made position of this game (a Python engine state, or
    /// `export()`'s fields): as `load`, without the accounting of a game played from the
    /// start (`load::load_position`), for the spec scenarios' test positions.
    fn load_position(&self, fields: Bound<'_, PyAny>) -> PyResult<Self> {
        let fields = Fields::new(fields, "Medina");
        let state = super::load::read_position(self.state.rules, self.state.num_players as usize, &fields)?;
        Ok(MedinaState { state })
    }
});

/// Adds `MedinaState` to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::protocol::add_game::<MedinaState>(m)?;
    m.add_class::<MedinaMutableState>()
}

impl Position for MedinaState {
    fn with_held<R>(&self, f: impl FnOnce(&dyn HeldPosition) -> R) -> R {
        f(&Held {
            game: &Medina::of(&self.state),
            state: &self.state,
        })
    }
    fn ply(&self) -> u32 {
        self.state.ply as u32
    }
    fn turn(&self) -> u32 {
        self.state.turn as u32
    }
    fn kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let names = KIND_STRS.get_or_init(py, || interned(py, &KINDS));
        let (kinds, n) = self.state.legal().kinds();
        PyTuple::new(py, kinds[..n].iter().map(|&k| names[k as usize].bind(py)))
    }
    fn actions(&self, kind: Option<&str>, table: Py<MoveTable>) -> ActionSeq {
        ActionSeq::of_moves(Box::new(self.legal_words(kind)), table)
    }
    fn termination_name(&self) -> Option<&'static str> {
        self.state.is_terminal().then_some("no_legal_placements")
    }
    fn action_seq(&self, py: Python<'_>, kind: Option<&str>, table: Option<Py<PyAny>>) -> PyResult<ActionSeq> {
        action_seq(py, self.legal_words(kind), table)
    }
    fn play(&mut self, action: i64) -> bool {
        apply_in_place(&mut self.state, action).is_ok()
    }
    fn play_or_why(&mut self, action: i64) -> Result<(), String> {
        apply_in_place(&mut self.state, action)
    }
    fn play_listed(&mut self, action: i64) {
        let action = action_of(&self.state, action);
        debug_assert!(
            action.is_some_and(|a| self.state.is_legal(a)),
            "action {action:?} was listed as legal"
        );
        if let Some(action) = action {
            self.state.apply_legal(action);
        }
    }
    /// The Python `State` fields of the same names (bitsets as ints, tuples as lists).
    fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.state;
        let n = s.num_players as usize;
        let d = PyDict::new(py);
        d.set_item("num_players", n)?;
        d.set_item("phase", s.phase.name())?;
        d.set_item("current_player", s.current_player)?;
        d.set_item("placements_left", s.placements_left)?;
        d.set_item("obligation", s.obligation)?;
        d.set_item("turn", s.turn)?;
        d.set_item("ply", s.ply)?;
        for (name, bits) in [
            ("palace_mask", s.palace_mask),
            ("stables", s.stables),
            ("merchants", s.merchants),
            ("walls", s.walls),
            ("occupied", s.occupied),
            ("forbid", s.forbid),
            ("contested", s.contested),
            ("chain", s.chain),
            ("chain_ends", s.chain_ends),
        ] {
            d.set_item(name, bits_to_py(py, bits)?)?;
        }
        let mut palaces = Vec::with_capacity(s.num_palaces as usize);
        for pid in 0..s.num_palaces as usize {
            let p = s.palaces[pid];
            let dome = if p.dome as usize >= NUM_SQUARES {
                -1
            } else {
                p.dome as i64
            };
            let fields: Vec<Bound<'py, PyAny>> = vec![
                p.color.into_pyobject(py)?.into_any(),
                bits_to_py(py, s.palace_pieces(pid))?,
                bits_to_py(py, palace_stables(s, pid))?,
                bits_to_py(py, palace_touch(s, pid))?,
                p.owner.into_pyobject(py)?.into_any(),
                dome.into_pyobject(py)?.into_any(),
                pyo3::types::PyBool::new(py, p.abandoned).to_owned().into_any(),
            ];
            palaces.push(PyList::new(py, fields)?);
        }
        d.set_item("palaces", PyList::new(py, palaces)?)?;
        d.set_item("unfinished", s.unfinished.to_vec())?;
        let ext: PyResult<Vec<_>> = s.ext.iter().map(|&b| bits_to_py(py, b)).collect();
        d.set_item("ext", ext?)?;
        d.set_item("owned", s.owned[..4 * n].to_vec())?;
        let runs: PyResult<Vec<_>> = run_masks(s).iter().map(|&b| bits_to_py(py, b)).collect();
        d.set_item("runs", runs?)?;
        d.set_item(
            "supply",
            s.supply[..8 * n].iter().map(|&c| c as u32).collect::<Vec<_>>(),
        )?;
        d.set_item("retired", s.retired.iter().map(|&c| c as u32).collect::<Vec<_>>())?;
        d.set_item("palace_tiles", s.palace_tiles.to_vec())?;
        d.set_item("tower_tiles", s.tower_tiles.to_vec())?;
        let start = if s.start_square as usize >= NUM_SQUARES {
            -1
        } else {
            s.start_square as i64
        };
        d.set_item("start_square", start)?;
        let well = if s.well as usize >= NUM_SQUARES {
            -1
        } else {
            s.well as i64
        };
        d.set_item("well", well)?;
        d.set_item("red", bits_to_py(py, s.red)?)?;
        d.set_item("yellow", bits_to_py(py, s.yellow)?)?;
        d.set_item("neutral", s.neutral[..n].iter().map(|&c| c as u32).collect::<Vec<_>>())?;
        d.set_item("tea", s.tea[..n].iter().map(|&c| c as u32).collect::<Vec<_>>())?;
        d.set_item("tea_pool", s.tea_pool)?;
        d.set_item("tea_fresh", s.tea_fresh)?;
        d.set_item(
            "tower_merchants",
            s.tower_merchants.iter().map(|&c| c as u32).collect::<Vec<_>>(),
        )?;
        d.set_item("second_step", s.second_step)?;
        d.set_item("claims", s.claims())?;
        Ok(d)
    }
    fn load(&self, fields: Bound<'_, PyAny>) -> PyResult<Self> {
        let fields = Fields::new(fields, "Medina");
        let state = super::load::read_state(self.state.rules, self.state.num_players as usize, &fields)?;
        Ok(MedinaState { state })
    }
    fn describe(&self) -> String {
        let scores: Vec<String> = Protocol::score_list(self).iter().map(|s| s.to_string()).collect();
        format!(
            "<native medina.State turn={} ply={} player={} scores={}>",
            self.state.turn,
            self.state.ply,
            self.state.current_player,
            scores.join("-")
        )
    }
}
