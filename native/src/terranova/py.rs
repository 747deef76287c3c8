//! Terra Nova's Python bindings: `tabletop._native.TerraNovaState` (the contract of
//! `docs/native.md`). Boards of up to 256 cells use 4-word bitsets, larger ones (up to
//! the map limit of 1,000 cells) 16-word ones.

use super::load;
use super::moves::{ActionRuns, Kind};
use super::scoring::scored_areas;
use super::setup;
use super::state::{Game, State, MAX_SEATS};
use crate::common::movetable::MoveTable;
use crate::common::pyfields::Fields;
use crate::common::pyrandom::PyRandom;
use crate::common::pyseq::{interned, ActionSeq, ActionSource, Ints};
use crate::protocol::{Held, HeldPosition, Position};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyInt, PyString, PyTuple};
use std::sync::Arc;

// The small state inline (no allocation per `apply`), the rare large one boxed: inline,
// it made every Python object the size of a 1,000-cell state (about 1.6 kB), and
// allocating that cost more than the move.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
enum Inner {
    Small(Arc<Game<4>>, State<4>),
    Large(Arc<Game<16>>, Box<State<16>>),
}

/// Runs `$body` with `$g: &Arc<Game<W>>` and `$s: &State<W>` for whichever size it is.
macro_rules! with {
    ($inner:expr, |$g:ident, $s:ident| $body:expr) => {
        match $inner {
            Inner::Small($g, $s) => $body,
            Inner::Large($g, $s) => {
                let $s: &State<16> = $s;
                $body
            }
        }
    };
}

/// A Terra Nova position in the native engine (immutable from Python). A free list keeps
/// dropped objects for reuse: a Python loop makes one per move.
#[pyclass(module = "tabletop._native", name = "TerraNovaState", frozen, freelist = 256)]
pub struct TerraNovaState {
    inner: Inner,
    /// The Python int of every action id, made once per board (boards with at most
    /// `MAX_CACHED_INTS` actions): a sequence of legal actions then hands out references.
    ints: Ints,
}

/// The kind names as interned Python strings (`Kind` order: place, move, stone, pass).
static KIND_STRS: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();

/// Boards with more actions than this hand out fresh ints (a 1,000-cell map has ~380,000).
const MAX_CACHED_INTS: usize = 50_000;

/// A position's [`ActionRuns`] with the game whose board reads them.
struct BoardRuns<const W: usize> {
    game: Arc<Game<W>>,
    runs: ActionRuns<W>,
}

impl<const W: usize> ActionSource for BoardRuns<W> {
    fn len(&self) -> usize {
        self.runs.len()
    }

    fn get(&self, i: usize) -> u32 {
        self.runs.get(&self.game.board, i)
    }

    fn to_vec(&self) -> Vec<u32> {
        self.runs.to_vec(&self.game.board)
    }
}

/// The actions of `kinds` as a sequence: counted and indexed over their runs where the
/// state keeps its lines (`ActionRuns`), else listed.
fn actions_of<const W: usize>(g: &Arc<Game<W>>, s: &State<W>, kinds: &[Kind]) -> Box<dyn ActionSource> {
    if let Some(runs) = s.action_runs(g, kinds) {
        return Box::new(BoardRuns { game: g.clone(), runs });
    }
    let mut out = Vec::new();
    for &kind in kinds {
        s.actions_of_kind(g, kind, &mut out);
    }
    Box::new(out)
}

impl TerraNovaState {
    /// The legal actions of `kind` (all with `None`; none for an unknown kind).
    fn action_source(&self, kind: Option<&str>) -> Box<dyn ActionSource> {
        with!(&self.inner, |g, s| match kind {
            None => actions_of(g, s, s.legal_kinds(g).as_slice()),
            Some(kind) => actions_of(g, s, Kind::from_name(kind).as_slice()),
        })
    }

    fn with_inner(&self, inner: Inner) -> Self {
        TerraNovaState {
            inner,
            ints: self.ints.clone(),
        }
    }
}

fn bits_to_int<'py, const W: usize>(
    py: Python<'py>,
    bits: &crate::common::bits::Bits<W>,
) -> PyResult<Bound<'py, PyAny>> {
    py.get_type::<PyInt>()
        .call_method1("from_bytes", (PyBytes::new(py, &bits.to_le_bytes()), "little"))
}

fn export<'py, const W: usize>(py: Python<'py>, g: &Game<W>, s: &State<W>) -> PyResult<Bound<'py, PyDict>> {
    let n = g.num_players;
    let d = PyDict::new(py);
    d.set_item("current_player", s.current_player)?;
    d.set_item("phase", s.phase.name())?;
    let pioneers: PyResult<Vec<_>> = s.pioneers[..n].iter().map(|p| bits_to_int(py, p)).collect();
    d.set_item("pioneers", pioneers?)?;
    d.set_item("stones", bits_to_int(py, &s.stones)?)?;
    d.set_item("closed", bits_to_int(py, &s.closed)?)?;
    d.set_item("filled", bits_to_int(py, &s.filled)?)?;
    d.set_item("turn_stones", bits_to_int(py, &s.turn_stones)?)?;
    d.set_item("supply", s.supply)?;
    d.set_item("points", s.points[..n].to_vec())?;
    d.set_item("in_hand", s.in_hand[..n].to_vec())?;
    d.set_item("removed", s.removed[..n].to_vec())?;
    d.set_item("action", s.action)?;
    let movers: Vec<(u16, u16)> = s.movers[..s.num_movers as usize].to_vec();
    d.set_item("movers", movers)?;
    d.set_item("moves_made", s.moves_made)?;
    d.set_item("pending_return", s.pending_return)?;
    d.set_item("turn", s.turn)?;
    d.set_item("ply", s.ply)?;
    d.set_item("stall", s.stall)?;
    d.set_item("start_player", s.start_player)?;
    d.set_item("num_areas", s.num_areas)?;
    // `scoring.ScoredArea`'s fields in order; left out where more areas were scored than
    // a state records (`MAX_RECORDED_AREAS`).
    if let Some(areas) = scored_areas(g, s) {
        let areas: Vec<_> = areas
            .iter()
            .map(|area| {
                let a = load::AreaFields::of(g, area);
                (a.cells, a.landscapes, a.t, a.value, a.counts, a.awards, a.turn)
            })
            .collect();
        d.set_item("areas", areas)?;
    }
    Ok(d)
}

game_classes!(TerraNovaState, TerraNovaMutableState, "TerraNovaMutableState", {
    /// The initial state of the setup `{"config": ..., "initial": <Python initial to_json()>}`.
    #[new]
    fn new(py: Python<'_>, setup_json: &str) -> PyResult<Self> {
        let setup: serde_json::Value =
            serde_json::from_str(setup_json).map_err(|e| PyValueError::new_err(format!("bad setup JSON: {e}")))?;
        let cells = setup
            .get("initial")
            .and_then(|i| i.get("cells"))
            .and_then(|c| c.as_array())
            .map_or(0, |c| c.len());
        let inner = if cells <= 256 {
            let (g, s) = setup::from_json::<4>(&setup).map_err(PyValueError::new_err)?;
            Inner::Small(Arc::new(g), s)
        } else {
            let (g, s) = setup::from_json::<16>(&setup).map_err(PyValueError::new_err)?;
            Inner::Large(Arc::new(g), Box::new(s))
        };
        let num_actions = with!(&inner, |g, _s| g.board.num_actions());
        let ints = if num_actions <= MAX_CACHED_INTS {
            (0..num_actions)
                .filter_map(|a| a.into_pyobject(py).ok().map(|i| i.into_any().unbind()))
                .collect()
        } else {
            Vec::new()
        };
        Ok(TerraNovaState {
            inner,
            ints: Arc::new(ints),
        })
    }

    /// The Python game's `initial_draw(config)` for a config that names its start player
    /// or has an int seed: `(config, start player)`, the player drawn as the Python
    /// engine draws it (`random.Random(seed).randrange(num_players)`, `common::pyrandom`);
    /// `None` for any other config, whose draw the Python engine makes. The config is not
    /// checked: the native game looks the draw up among the positions it made from
    /// checked configs (`tabletop.native`), and an unchecked config finds none.
    #[staticmethod]
    fn initial_draw<'py>(config: &Bound<'py, PyAny>) -> PyResult<Option<(Bound<'py, PyAny>, i64)>> {
        let py = config.py();
        let exact_int = |value: &Bound<'py, PyAny>| -> Option<i64> {
            // `True` is an int to Python, but not a seat or a seed this draw knows.
            (value.is_exact_instance_of::<PyInt>())
                .then(|| value.extract::<i64>().ok())
                .flatten()
        };
        let start = config.getattr(intern!(py, "start_player"))?;
        if !start.is_none() {
            return Ok(exact_int(&start).map(|start| (config.clone(), start)));
        }
        let seed = config.getattr(intern!(py, "seed"))?;
        let players = config.getattr(intern!(py, "num_players"))?;
        let (Some(seed), Some(players)) = (exact_int(&seed), exact_int(&players)) else {
            return Ok(None);
        };
        if !(1..=MAX_SEATS as i64).contains(&players) {
            return Ok(None);
        }
        let start = PyRandom::new(seed).randrange(players as u32);
        Ok(Some((config.clone(), i64::from(start))))
    }
});

/// Plays `action` on `s` in place if it is legal there; whether it was.
fn play_in_place<const W: usize>(g: &Game<W>, s: &mut State<W>, action: i64) -> bool {
    let legal = usize::try_from(action)
        .ok()
        .and_then(|a| g.decode(a))
        .filter(|&mv| s.is_legal(g, mv));
    if let Some(mv) = legal {
        s.play(g, mv);
    }
    legal.is_some()
}

/// Plays `action`, one of the position's own legal actions (`Position::play_listed`).
fn play_listed<const W: usize>(g: &Game<W>, s: &mut State<W>, action: i64) {
    let mv = usize::try_from(action).ok().and_then(|a| g.decode_listed(a));
    debug_assert!(
        mv.is_some_and(|mv| s.is_legal(g, mv)),
        "action {action} was listed as legal"
    );
    if let Some(mv) = mv {
        s.play(g, mv);
    }
}

/// Adds Terra Nova's classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::protocol::add_game::<TerraNovaState>(m)?;
    m.add_class::<TerraNovaMutableState>()
}

impl Position for TerraNovaState {
    fn with_held<R>(&self, f: impl FnOnce(&dyn HeldPosition) -> R) -> R {
        with!(&self.inner, |g, s| f(&Held {
            game: g.as_ref(),
            state: s
        }))
    }
    fn ply(&self) -> u32 {
        with!(&self.inner, |_g, s| s.ply)
    }
    fn turn(&self) -> u32 {
        with!(&self.inner, |_g, s| s.turn)
    }
    fn kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let names = KIND_STRS.get_or_init(py, || interned(py, &["place", "move", "stone", "pass"]));
        let kinds = with!(&self.inner, |g, s| s.legal_kinds(g));
        PyTuple::new(py, kinds.as_slice().iter().map(|&k| names[k as usize].bind(py)))
    }
    fn actions(&self, kind: Option<&str>, table: Py<MoveTable>) -> ActionSeq {
        ActionSeq::of_moves(self.action_source(kind), table)
    }
    fn termination_name(&self) -> Option<&'static str> {
        with!(&self.inner, |_g, s| s.termination.map(|t| t.name()))
    }
    fn action_seq(&self, py: Python<'_>, kind: Option<&str>, table: Option<Py<PyAny>>) -> PyResult<ActionSeq> {
        Ok(ActionSeq::new(py, self.action_source(kind), &self.ints, table))
    }
    fn play(&mut self, action: i64) -> bool {
        match &mut self.inner {
            Inner::Small(g, s) => play_in_place(g, s, action),
            Inner::Large(g, s) => play_in_place(g, s, action),
        }
    }
    fn play_listed(&mut self, action: i64) {
        match &mut self.inner {
            Inner::Small(g, s) => play_listed(g, s, action),
            Inner::Large(g, s) => play_listed(g, s, action),
        }
    }
    fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        with!(&self.inner, |g, s| export(py, g, s))
    }
    fn load(&self, fields: Bound<'_, PyAny>) -> PyResult<Self> {
        let fields = Fields::new(fields, "Terra Nova");
        let inner = match &self.inner {
            Inner::Small(g, _) => Inner::Small(g.clone(), load::read_state(g, &fields)?),
            Inner::Large(g, _) => Inner::Large(g.clone(), Box::new(load::read_state(g, &fields)?)),
        };
        Ok(self.with_inner(inner))
    }
    fn describe(&self) -> String {
        with!(&self.inner, |_g, s| format!(
            "<TerraNovaState turn={} ply={} player={} phase={}>",
            s.turn,
            s.ply,
            s.current_player,
            s.phase.name()
        ))
    }
}

impl Clone for TerraNovaState {
    fn clone(&self) -> Self {
        self.with_inner(self.inner.clone())
    }

    /// In place, as a protocol step copies a position into a reused box
    /// (`protocol::Spare`): the default (`*self = source.clone()`) built the copy on the
    /// stack, moved it into the box and counted both `Arc`s up and the old ones down.
    fn clone_from(&mut self, source: &Self) {
        fn same<T>(mine: &mut Arc<T>, theirs: &Arc<T>) {
            if !Arc::ptr_eq(mine, theirs) {
                *mine = theirs.clone();
            }
        }
        match (&mut self.inner, &source.inner) {
            (Inner::Small(g, s), Inner::Small(their_g, their_s)) => {
                same(g, their_g);
                *s = *their_s;
            }
            (Inner::Large(g, s), Inner::Large(their_g, their_s)) => {
                same(g, their_g);
                **s = **their_s;
            }
            (inner, theirs) => *inner = theirs.clone(),
        }
        same(&mut self.ints, &source.ints);
    }
}
