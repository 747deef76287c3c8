//! `NativeState`: a position of a native engine carrying the game protocol itself
//! (`tabletop.core.protocol.State`), so that a Python loop through the protocol calls Rust
//! directly (`docs/native.md`, "The protocol state").
//!
//! A Python wrapper around the Rust position made every protocol call two calls, and
//! every `apply` a Python object with five slots on top of the Rust one: about two
//! thirds of a Terra Nova step in a Python loop. Here `legal_moves`, `legal_kinds`,
//! `legal_moves_of_kind`, `apply`, `is_terminal` and the rest are the Rust methods, and
//! an `apply` makes one object.
//!
//! What the protocol asks beyond the position (the `Game`, the config, the Python
//! engine's `Move` objects, `to_json`, rendering, a game's own fields) comes from the
//! Python side: a [`NativeContext`] shared by every state of one game holds the game,
//! the config and the move table (action id -> `Move`, made by `tabletop.native`), and
//! each state builds its equal Python engine state on first use from the fields its
//! Rust position exports (`NativeGame.python_state_of`, in the context of the nearest
//! earlier state that has a Python state), never by replaying moves: a position
//! stands alone.

use crate::common::kept::Kept;
use crate::common::movetable::MoveTable;
use crate::common::network::Network;
use crate::common::puct;
use crate::common::pyseq::{batch_size, ActionSeq};
use crate::common::rng::Rng;
use crate::common::search_py::{self, AlphaBetaOptions, Options};
use crate::game::{Game, MAX_SEATS};
use crate::network_py::PuctRequest;
use crate::vector::AnyVector;
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyAttributeError, PyKeyError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::pyclass_init::PyClassInitializer;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyTuple, PyType};
use pyo3::PyClass;
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What the protocol state reads of a game's Rust position, whatever the game (object
/// safe: a `NativeState` holds any game's, as an [`AnyPosition`]). Written once for
/// every [`Position`] (the impl below), over its game (`crate::game::Game`) where the
/// answer is game-independent.
pub trait Protocol: Send + Sync {
    fn num_players(&self) -> usize;
    /// The seat to act, -1 once the game is over.
    fn current_player(&self) -> i64;
    fn ply(&self) -> u32;
    fn turn(&self) -> u32;
    fn is_terminal(&self) -> bool;
    /// The legal kinds, as a tuple of interned names.
    fn kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>>;
    /// The legal actions (of one kind, or all), items the moves of `table`.
    fn actions(&self, kind: Option<&str>, table: Py<MoveTable>) -> ActionSeq;
    fn action_is_legal(&self, action: i64) -> bool;
    /// How many action ids the game's encoding has (the length of a legal-action mask).
    fn num_actions(&self) -> usize;
    /// Sets `mask[a] = 1` for every legal action `a` (`mask` is `num_actions()` long).
    fn mark_legal(&self, mask: &mut [u8]);
    fn score_list(&self) -> Vec<i64>;
    fn return_list(&self) -> Vec<f64>;
    /// The winning seats (none before the end).
    fn winner_list(&self) -> Vec<usize>;
    fn termination_name(&self) -> Option<&'static str>;
    /// Plays `n` kind-first random games to the end from here: `(games, actions)`.
    fn random_playouts(&self, n: u64, seed: u64) -> (u64, u64);
    /// The tree search from here (`common::search_py`): its result as a dict.
    fn search(&self, py: Python<'_>, options: &Options) -> PyResult<Py<PyAny>>;
    /// The alpha-beta search from here over the game's evaluation
    /// (`common::search_py::run_alphabeta`): its result as a dict.
    fn alphabeta(&self, py: Python<'_>, options: &AlphaBetaOptions) -> PyResult<Py<PyAny>>;
    /// Each seat's estimated final score by the game's evaluation (`None`: it has none).
    fn evaluation(&self) -> Option<Vec<f64>>;
    /// The names of the learned evaluation's features and each seat's values of them
    /// (`None`: the game has no learned evaluation).
    fn evaluation_features(&self) -> Option<(Vec<&'static str>, Vec<Vec<f64>>)>;
}

/// A game's Rust position as Python sees it: its game and position ([`HeldPosition`]),
/// what is the game's own (move kinds, turns, how it ended, playing a move checked or
/// not, export and load, its line), and what its Python classes offer (made once for
/// every game by `game_classes!`, `binding.rs`). Each game's `py.rs` implements it; the
/// [`Protocol`] follows.
pub trait Position: Sized + Clone + Send + Sync {
    /// Runs `f` on the game and the position.
    fn with_held<R>(&self, f: impl FnOnce(&dyn HeldPosition) -> R) -> R;
    fn ply(&self) -> u32;
    fn turn(&self) -> u32;
    /// The legal kinds, as a tuple of interned names.
    fn kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>>;
    /// The legal actions (of one kind, or all), items the moves of `table`.
    fn actions(&self, kind: Option<&str>, table: Py<MoveTable>) -> ActionSeq;
    fn termination_name(&self) -> Option<&'static str>;
    /// Plays `action` here if it is legal; whether it was (no change if not).
    fn play(&mut self, action: i64) -> bool;
    /// Plays `action`, one of this position's own legal actions (listed by
    /// [`Protocol::actions`]), without checking it again.
    fn play_listed(&mut self, action: i64);
    /// Plays `action` here if it is legal, else says why (and changes nothing).
    fn play_or_why(&mut self, action: i64) -> Result<(), String> {
        if self.play(action) {
            Ok(())
        } else {
            Err(format!("action {action} is not legal here"))
        }
    }
    /// The legal actions (of one kind, or all) as a sequence whose items are the action
    /// ids as Python ints, or `table[action]` with a table.
    fn action_seq(&self, py: Python<'_>, kind: Option<&str>, table: Option<Py<PyAny>>) -> PyResult<ActionSeq>;
    /// The Python engine state's fields of the same names (bitsets as ints).
    fn export<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>>;
    /// This game at the position `fields` (`export()`'s dict, or a Python engine state):
    /// `ValueError("invalid <game> position: ...")` for one that is not a position of it.
    fn load(&self, fields: Bound<'_, PyAny>) -> PyResult<Self>;
    /// The position in a line (the classes' `repr`), `<` ... `>`.
    fn describe(&self) -> String;
}

impl<P: Position> Protocol for P {
    fn num_players(&self) -> usize {
        self.with_held(|held| held.num_players())
    }
    fn current_player(&self) -> i64 {
        self.with_held(|held| i64::from(held.to_act()))
    }
    fn ply(&self) -> u32 {
        Position::ply(self)
    }
    fn turn(&self) -> u32 {
        Position::turn(self)
    }
    fn is_terminal(&self) -> bool {
        self.with_held(|held| held.to_act() < 0)
    }
    fn kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        Position::kinds(self, py)
    }
    fn actions(&self, kind: Option<&str>, table: Py<MoveTable>) -> ActionSeq {
        Position::actions(self, kind, table)
    }
    fn action_is_legal(&self, action: i64) -> bool {
        self.with_held(|held| held.is_legal(action))
    }
    fn num_actions(&self) -> usize {
        self.with_held(|held| held.num_actions())
    }
    fn mark_legal(&self, mask: &mut [u8]) {
        self.with_held(|held| held.mark_legal(mask))
    }
    fn score_list(&self) -> Vec<i64> {
        self.with_held(|held| held.score_list())
    }
    fn return_list(&self) -> Vec<f64> {
        self.with_held(|held| held.return_list())
    }
    fn winner_list(&self) -> Vec<usize> {
        self.with_held(|held| held.winner_list())
    }
    fn termination_name(&self) -> Option<&'static str> {
        Position::termination_name(self)
    }
    fn random_playouts(&self, n: u64, seed: u64) -> (u64, u64) {
        self.with_held(|held| held.random_playouts(n, seed))
    }
    fn search(&self, py: Python<'_>, options: &Options) -> PyResult<Py<PyAny>> {
        self.with_held(|held| held.search(py, options))
    }
    fn alphabeta(&self, py: Python<'_>, options: &AlphaBetaOptions) -> PyResult<Py<PyAny>> {
        self.with_held(|held| held.alphabeta(py, options))
    }
    fn evaluation(&self) -> Option<Vec<f64>> {
        self.with_held(|held| held.evaluation())
    }
    fn evaluation_features(&self) -> Option<(Vec<&'static str>, Vec<Vec<f64>>)> {
        self.with_held(|held| held.evaluation_features())
    }
}

/// A game and one of its positions as the binding reads them, whatever the game (object
/// safe): the protocol's game-independent answers, the encoder's and the vector env's
/// (`crate::vector`). [`Held`] is it for every [`Game`].
pub trait HeldPosition {
    /// The game's name in messages.
    fn name(&self) -> &'static str;
    /// Which game type (two positions of one game type have the same).
    fn game_type(&self) -> TypeId;
    fn num_players(&self) -> usize;
    fn num_actions(&self) -> usize;
    /// The seat to act, -1 once the game is over.
    fn to_act(&self) -> i32;
    /// Whether `action` is a legal action id here.
    fn is_legal(&self, action: i64) -> bool;
    /// Sets `mask[a] = 1` for every legal action `a`.
    fn mark_legal(&self, mask: &mut [u8]);
    fn score_list(&self) -> Vec<i64>;
    fn return_list(&self) -> Vec<f64>;
    /// The seats with a win share once over (none before).
    fn winner_list(&self) -> Vec<usize>;
    /// `n` kind-first random games to the end from here: `(games, actions)`.
    fn random_playouts(&self, n: u64, seed: u64) -> (u64, u64);
    fn search(&self, py: Python<'_>, options: &Options) -> PyResult<Py<PyAny>>;
    fn alphabeta(&self, py: Python<'_>, options: &AlphaBetaOptions) -> PyResult<Py<PyAny>>;
    /// Each seat's estimated final score (`None` for a game without an evaluation).
    fn evaluation(&self) -> Option<Vec<f64>>;
    /// The learned evaluation's feature names and each seat's features (`None`: none).
    fn evaluation_features(&self) -> Option<(Vec<&'static str>, Vec<Vec<f64>>)>;
    /// The lengths of the planes and the vector of an observation.
    fn observation_lens(&self) -> (usize, usize);
    /// Writes the position seen by `seat` (every float of `planes` and `vector`).
    fn observe(&self, seat: usize, planes: &mut [f32], vector: &mut [f32]);
    /// The legal actions into `out` (cleared first), in the engine's order; none once over.
    fn legal_into(&self, out: &mut Vec<u32>);
    /// The legal actions into `out` (cleared first), ascending; none once over.
    fn legal_ascending_into(&self, out: &mut Vec<u32>);
    /// The game and the position, for reading another position of the same game.
    fn game_any(&self) -> &dyn Any;
    fn state_any(&self) -> &dyn Any;
    /// The vector env of `num_envs` games of this game from `starts` (positions of it).
    fn vector(
        &self,
        starts: &[Bound<'_, PyAny>],
        num_envs: usize,
        learners: u32,
        score: bool,
    ) -> PyResult<Box<dyn AnyVector>>;
    /// The network's priors of the legal actions and each seat's value here
    /// (`common::puct::evaluate_position`); why not where the network is not this game's.
    fn network_evaluation(&self, network: &Network) -> Result<puct::PositionEvaluation, String>;
    /// PUCT from here with `network` (`crate::network_py`), the GIL released.
    fn puct(&self, py: Python<'_>, network: &Network, request: &PuctRequest) -> PyResult<puct::SearchResult>;
}

/// A [`Game`] and one of its positions: the [`HeldPosition`] of every game.
pub struct Held<'a, G: Game> {
    pub game: &'a G,
    pub state: &'a G::State,
}

impl<G: Game> Held<'_, G> {
    fn seat_values(&self, write: impl FnOnce(&mut [f64])) -> [f64; MAX_SEATS] {
        let mut values = [0.0; MAX_SEATS];
        write(&mut values[..self.game.num_players()]);
        values
    }
}

impl<G: Game> HeldPosition for Held<'_, G> {
    fn name(&self) -> &'static str {
        G::NAME
    }
    fn game_type(&self) -> TypeId {
        TypeId::of::<G>()
    }
    fn num_players(&self) -> usize {
        self.game.num_players()
    }
    fn num_actions(&self) -> usize {
        self.game.num_actions()
    }
    fn to_act(&self) -> i32 {
        self.game.to_act(self.state)
    }
    fn is_legal(&self, action: i64) -> bool {
        u32::try_from(action).is_ok_and(|a| (a as usize) < self.game.num_actions() && self.game.is_legal(self.state, a))
    }
    fn mark_legal(&self, mask: &mut [u8]) {
        LEGAL.with_borrow_mut(|legal| {
            legal.clear();
            self.game.legal_actions(self.state, legal);
            for &a in legal.iter() {
                mask[a as usize] = 1;
            }
        })
    }
    fn score_list(&self) -> Vec<i64> {
        let scores = self.seat_values(|out| self.game.scores(self.state, out));
        scores[..self.game.num_players()].iter().map(|&s| s as i64).collect()
    }
    fn return_list(&self) -> Vec<f64> {
        self.seat_values(|out| self.game.returns(self.state, out))[..self.game.num_players()].to_vec()
    }
    fn winner_list(&self) -> Vec<usize> {
        if !self.game.is_over(self.state) {
            return Vec::new();
        }
        let shares = self.seat_values(|out| self.game.returns(self.state, out));
        (0..self.game.num_players()).filter(|&p| shares[p] > 0.0).collect()
    }
    fn random_playouts(&self, n: u64, seed: u64) -> (u64, u64) {
        let mut rng = Rng::new(seed);
        let mut actions = 0;
        for _ in 0..n {
            let mut end = *self.state;
            actions += self.game.playout(&mut end, &mut rng, u32::MAX);
        }
        (n, actions)
    }
    fn search(&self, py: Python<'_>, options: &Options) -> PyResult<Py<PyAny>> {
        search_py::run(py, self.game, self.state, options)
    }
    fn alphabeta(&self, py: Python<'_>, options: &AlphaBetaOptions) -> PyResult<Py<PyAny>> {
        search_py::run_alphabeta(py, self.game, self.state, options)
    }
    fn evaluation(&self) -> Option<Vec<f64>> {
        let n = self.game.num_players();
        let mut estimate = [0.0; MAX_SEATS];
        self.game
            .evaluate(self.state, &mut estimate[..n])
            .then(|| estimate[..n].to_vec())
    }
    fn evaluation_features(&self) -> Option<(Vec<&'static str>, Vec<Vec<f64>>)> {
        let names = self.game.feature_names();
        let mut flat = Vec::new();
        if names.is_empty() || !self.game.evaluation_features(self.state, &mut flat) {
            return None;
        }
        Some((names.to_vec(), flat.chunks(names.len()).map(<[f64]>::to_vec).collect()))
    }
    fn observation_lens(&self) -> (usize, usize) {
        self.game.observation_lens()
    }
    fn observe(&self, seat: usize, planes: &mut [f32], vector: &mut [f32]) {
        self.game.observe(self.state, seat, planes, vector, &mut Kept::Full);
    }
    fn legal_into(&self, out: &mut Vec<u32>) {
        out.clear();
        self.game.legal_actions(self.state, out);
    }
    fn legal_ascending_into(&self, out: &mut Vec<u32>) {
        out.clear();
        self.game.legal_actions_ascending(self.state, out);
    }
    fn game_any(&self) -> &dyn Any {
        self.game
    }
    fn state_any(&self) -> &dyn Any {
        self.state
    }
    fn vector(
        &self,
        starts: &[Bound<'_, PyAny>],
        num_envs: usize,
        learners: u32,
        score: bool,
    ) -> PyResult<Box<dyn AnyVector>> {
        crate::vector::vector_of_game(self.game, starts, num_envs, learners, score)
    }
    fn network_evaluation(&self, network: &Network) -> Result<puct::PositionEvaluation, String> {
        puct::check_fits(self.game, network)?;
        Ok(puct::evaluate_position(self.game, self.state, network))
    }
    fn puct(&self, py: Python<'_>, network: &Network, request: &PuctRequest) -> PyResult<puct::SearchResult> {
        crate::network_py::run(py, self.game, self.state, network, request)
    }
}

thread_local! {
    /// The legal actions of `mark_legal`, listed here (a buffer per thread).
    static LEGAL: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// A position of any game, boxed (one Python class for every game: `isinstance` stays
/// cheap): a state object then stays small whatever the game (Medina's position is
/// 1.7 kB, Terra Nova's 0.7 kB), and a move copies the position once, into its box. The
/// box goes back to its game's spares when dropped ([`Reused`]).
pub struct Core(Option<Box<dyn AnyPosition>>);

impl std::ops::Deref for Core {
    type Target = dyn AnyPosition;
    fn deref(&self) -> &(dyn AnyPosition + 'static) {
        self.0.as_deref().expect("a Core holds its box until dropped")
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        if let Some(boxed) = self.0.take() {
            boxed.recycle();
        }
    }
}

/// A [`Position`] of whichever game, as the protocol state holds it (object safe; every
/// `Position` that is a Python class is one).
pub trait AnyPosition: Protocol {
    /// The position after `action`, or `None` if it is not legal here; `listed`: one of
    /// this position's own legal actions (listed by [`Protocol::actions`]), played
    /// without checking it again.
    fn after(&self, action: i64, listed: bool) -> Option<Core>;
    /// The position as its game's Python class (`TerraNovaState`, `MedinaState`).
    fn to_python(&self, py: Python<'_>) -> PyResult<Py<PyAny>>;
    /// Which game's position this is (two positions of one game have the same).
    fn game_type(&self) -> std::any::TypeId;
    /// Hands the box back to this thread's spares of its game.
    fn recycle(self: Box<Self>);
    /// [`Position::with_held`], for code that holds any game's position (the native
    /// encoder and vector env, `crate::vector`).
    fn with_held_dyn(&self, f: &mut dyn FnMut(&dyn HeldPosition));
}

/// A position type whose boxes are reused: a Python loop drops a state a move, and
/// allocating a box of a kilobyte or two (past the allocator's per-thread cache of about
/// 1 kB, for Medina's) cost about 5 % of a step. `game_classes!` implements it.
pub trait Reused: Clone + 'static {
    /// Runs `f` on this thread's spare boxes (`None` while the thread is ending).
    fn with_spares<R>(f: impl FnOnce(&mut Vec<Box<Self>>) -> R) -> Option<R>;
}

/// The most spare boxes a thread keeps per game.
pub const MAX_SPARES: usize = 64;

/// A box holding a copy of `position` (a spare box if there is one).
fn boxed_copy<P: Reused>(position: &P) -> Box<P> {
    match P::with_spares(|spares| spares.pop()).flatten() {
        Some(mut boxed) => {
            boxed.as_mut().clone_from(position);
            boxed
        }
        None => Box::new(position.clone()),
    }
}

impl<P> AnyPosition for P
where
    P: Position + Reused + PyClass + Into<PyClassInitializer<P>>,
{
    fn after(&self, action: i64, listed: bool) -> Option<Core> {
        let mut next = boxed_copy(self);
        if listed {
            next.play_listed(action);
        } else if !next.play(action) {
            next.recycle();
            return None;
        }
        Some(Core(Some(next)))
    }
    fn to_python(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(Py::new(py, self.clone())?.into_any())
    }
    fn game_type(&self) -> std::any::TypeId {
        std::any::TypeId::of::<P>()
    }
    fn with_held_dyn(&self, f: &mut dyn FnMut(&dyn HeldPosition)) {
        self.with_held(f)
    }
    fn recycle(self: Box<Self>) {
        // A thread that is ending has no spares any more: the box is then just freed.
        let _ = P::with_spares(move |spares| {
            if spares.len() < MAX_SPARES {
                spares.push(self);
            }
        });
    }
}

/// Reads a game's position out of its Python object, if it is of that game.
type CoreReader = fn(&Bound<'_, PyAny>) -> Option<Core>;

/// The position readers of the games the module registered ([`add_game`]).
static GAMES: Mutex<Vec<CoreReader>> = Mutex::new(Vec::new());

fn core_of<P>(object: &Bound<'_, PyAny>) -> Option<Core>
where
    P: Position + Reused + PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Into<PyClassInitializer<P>> + Sync,
{
    let position = object.cast::<P>().ok()?;
    let copy: Box<P> = boxed_copy(position.get());
    Some(Core(Some(copy)))
}

/// Adds a game's state class `P` to the module, and makes its positions ones a
/// `NativeState` can hold.
pub fn add_game<P>(m: &Bound<'_, PyModule>) -> PyResult<()>
where
    P: Position + Reused + PyClass<Frozen = pyo3::pyclass::boolean_struct::True> + Into<PyClassInitializer<P>> + Sync,
{
    m.add_class::<P>()?;
    GAMES.lock().map_err(|_| poisoned())?.push(core_of::<P>);
    Ok(())
}

impl Core {
    /// A copy of the position of any registered game's state class.
    pub(crate) fn from_python(core: &Bound<'_, PyAny>) -> PyResult<Core> {
        let readers = GAMES.lock().map_err(|_| poisoned())?;
        for read in readers.iter() {
            if let Some(found) = read(core) {
                return Ok(found);
            }
        }
        Err(PyTypeError::new_err(format!(
            "not a native engine's position: {}",
            core.get_type().name()?
        )))
    }
}

/// What a batch step returns: the next positions (`None` where the action is not legal),
/// one byte per game (1: over), each game's returns (empty where not legal), and the next
/// positions' legal-action masks end to end (zeros where not legal).
pub type Batch<P> = (Vec<Option<P>>, Vec<u8>, Vec<Vec<f64>>, Vec<u8>);

/// A [`Batch`] as the `step_batch` methods return it to Python (the bytes as `bytes`).
pub type PyBatch<'py, S> = (Vec<Option<S>>, Bound<'py, PyBytes>, Vec<Vec<f64>>, Bound<'py, PyBytes>);

/// `batch` with its byte vectors made Python `bytes`.
pub fn to_python<S>(py: Python<'_>, (next, over, returns, masks): Batch<S>) -> PyBatch<'_, S> {
    (next, PyBytes::new(py, &over), returns, PyBytes::new(py, &masks))
}

/// What every state of one game shares: the `Game`, its config, and the move table.
#[pyclass(module = "tabletop._native", name = "NativeContext", frozen)]
pub struct NativeContext {
    game: Py<PyAny>,
    config: Py<PyAny>,
    /// Action id <-> the Python engine's `Move`.
    moves: Py<MoveTable>,
}

#[pymethods]
impl NativeContext {
    #[new]
    fn new(game: Py<PyAny>, config: Py<PyAny>, moves: Py<MoveTable>) -> Self {
        NativeContext { game, config, moves }
    }

    #[getter]
    fn game(&self, py: Python<'_>) -> Py<PyAny> {
        self.game.clone_ref(py)
    }

    #[getter]
    fn config(&self, py: Python<'_>) -> Py<PyAny> {
        self.config.clone_ref(py)
    }

    #[getter]
    fn moves(&self, py: Python<'_>) -> Py<MoveTable> {
        self.moves.clone_ref(py)
    }
}

/// A position of a native engine behaving as the Python engine's state (the module
/// comment). Immutable. A Python loop makes one a move and drops the one before: Python's
/// own allocator serves that from its warm pools, faster than PyO3's free list (which
/// takes a lock each time; about 3 % of a Terra Nova step, with `ActionSeq`'s).
#[pyclass(module = "tabletop._native", name = "NativeState", frozen, weakref)]
pub struct NativeState {
    core: Core,
    context: Py<NativeContext>,
    /// How this position was reached, for its Python state.
    history: Arc<Step>,
    /// A number no other state of this process has (`next_serial`): the moves of this
    /// position's legal-move sequences are handed out marked with it, so that `apply`
    /// plays such a move without checking its legality again.
    serial: u64,
}

impl NativeState {
    /// The Rust position (for `crate::vector`: the native encoder and vector env).
    pub(crate) fn core(&self) -> &Core {
        &self.core
    }
}

/// The serial number of a new `NativeState` (from 1: 0 marks a move no position listed).
fn next_serial() -> u64 {
    static SERIALS: AtomicU64 = AtomicU64::new(1);
    SERIALS.fetch_add(1, Ordering::Relaxed)
}

/// A link of a game's history: once built, the Python state at a position (the context
/// a later position's Python state is built in, `NativeState::python_of`). The states keep these small links, not each other: a Python
/// loop drops each state as it applies the next one, so the objects (0.7 kB for Terra
/// Nova) come back from the free list, warm, instead of a game's worth staying alive.
struct Step {
    /// The equal Python engine state, once built (or given).
    python: OnceLock<Py<PyAny>>,
    /// The step before, until `python` is built.
    before: Mutex<Option<Arc<Step>>>,
}

impl Step {
    /// The step of a move played after `before`: a spare step's allocation where this
    /// thread has one. A Python loop makes a step a move and frees a game's worth when the
    /// game is dropped; allocating and freeing them one by one was about 6 % of a Terra
    /// Nova step.
    fn after(before: &Arc<Step>) -> Arc<Step> {
        let before = Some(before.clone());
        if let Ok(Some(mut step)) = SPARE_STEPS.try_with(|spares| spares.borrow_mut().pop()) {
            if let Some(fresh) = Arc::get_mut(&mut step) {
                *fresh.before.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner()) = before;
                return step;
            }
        }
        Arc::new(Step {
            python: OnceLock::new(),
            before: Mutex::new(before),
        })
    }
}

thread_local! {
    /// Emptied steps that nothing holds any more (no Python state, nothing before),
    /// whose allocations `Step::after` reuses.
    static SPARE_STEPS: RefCell<Vec<Arc<Step>>> = const { RefCell::new(Vec::new()) };
}

/// The most spare steps a thread keeps (a long Terra Nova game has about 1,300 moves).
const MAX_SPARE_STEPS: usize = 4096;

impl Drop for Step {
    /// Drops a long history link by link, not by recursion, keeping the links nothing
    /// else holds as spares.
    fn drop(&mut self) {
        let mut next = self.before.get_mut().ok().and_then(Option::take);
        if next.is_none() {
            return;
        }
        // Python states are let go once the spares are: dropping one may run Python code.
        let mut pythons = Vec::new();
        let _ = SPARE_STEPS.try_with(|spares| {
            let mut spares = spares.borrow_mut();
            while let Some(mut step) = next.take() {
                let Some(last_holder) = Arc::get_mut(&mut step) else {
                    break; // still shared: its other holder drops it
                };
                next = last_holder.before.get_mut().ok().and_then(Option::take);
                pythons.extend(last_holder.python.take());
                if spares.len() < MAX_SPARE_STEPS {
                    spares.push(step);
                } // else freed here, with nothing before it to drop
            }
        });
        // A thread that is ending has no spares any more.
        while let Some(mut step) = next {
            let Some(last_holder) = Arc::get_mut(&mut step) else {
                break;
            };
            next = last_holder.before.get_mut().ok().and_then(Option::take);
        }
        drop(pythons);
    }
}

static ILLEGAL_MOVE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static OUTCOME: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn imported<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    module: &str,
    name: &str,
) -> PyResult<&'py Bound<'py, PyType>> {
    cell.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import(module)?.getattr(name)?.cast_into::<PyType>()?.unbind())
    })
    .map(|t| t.bind(py))
}

fn illegal_move(py: Python<'_>, message: String) -> PyResult<PyErr> {
    let class = imported(py, &ILLEGAL_MOVE, "tabletop.core.errors", "IllegalMoveError")?;
    Ok(PyErr::from_value(class.call1((message,))?))
}

impl NativeState {
    fn child(&self, py: Python<'_>, core: Core) -> Self {
        NativeState {
            core,
            context: self.context.clone_ref(py),
            history: Step::after(&self.history),
            serial: next_serial(),
        }
    }

    /// The action id of `mv` (`None` if it is not a move of this game).
    fn action_of(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
        match self.context.get().moves.get().action_of(py, mv) {
            Ok(action) => Ok(Some(action)),
            Err(e)
                if e.is_instance_of::<PyValueError>(py)
                    || e.is_instance_of::<PyTypeError>(py)
                    || e.is_instance_of::<PyAttributeError>(py) =>
            {
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    fn python_of<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let state = slf.get();
        if let Some(python) = state.history.python.get() {
            return Ok(python.bind(py).clone());
        }
        // The nearest earlier step with a Python state: the context the fields are built in.
        let context = state.context.get();
        let mut step = state.history.clone();
        let python = loop {
            if let Some(python) = step.python.get() {
                break python.bind(py).clone();
            }
            let before = step.before.lock().map_err(|_| poisoned())?.clone();
            match before {
                Some(before) => step = before,
                None => {
                    // A game started without its Python state (`NativeState.__new__`).
                    let initial = context
                        .game
                        .bind(py)
                        .getattr(intern!(py, "python"))?
                        .call_method1(intern!(py, "new_initial_state"), (context.config.bind(py),))?;
                    let _ = step.python.set(initial.clone().unbind());
                    break initial;
                }
            }
        };
        // Built from the fields the Rust position exports (`NativeGame.python_state_of`),
        // never by replaying the moves since: it raises where it cannot be built.
        let direct = context
            .game
            .bind(py)
            .call_method1(intern!(py, "python_state_of"), (slf, &python))?;
        let _ = state.history.python.set(direct.clone().unbind());
        *state.history.before.lock().map_err(|_| poisoned())? = None;
        Ok(direct)
    }
}

fn poisoned() -> PyErr {
    PyValueError::new_err("a native state's history was poisoned")
}

#[pymethods]
impl NativeState {
    /// The state at `core` (a `TerraNovaState` or `MedinaState`), equal to `python` (the
    /// Python engine's state of the same position), in the game of `context`. Without
    /// `python`, `core` is the initial position of the context's config, and the Python
    /// state is the Python engine's `new_initial_state(config)` (the context's game is a
    /// `NativeGame`, whose `python` is that engine's game), made when first asked for.
    #[new]
    #[pyo3(signature = (context, core, python))]
    fn new(context: Py<NativeContext>, core: &Bound<'_, PyAny>, python: Option<Py<PyAny>>) -> PyResult<Self> {
        Ok(NativeState {
            core: Core::from_python(core)?,
            context,
            history: Arc::new(Step {
                python: python.map_or_else(OnceLock::new, OnceLock::from),
                before: Mutex::new(None),
            }),
            serial: next_serial(),
        })
    }

    // -- the protocol ---------------------------------------------------------------

    #[getter]
    fn game(&self, py: Python<'_>) -> Py<PyAny> {
        self.context.get().game.clone_ref(py)
    }

    #[getter]
    fn config(&self, py: Python<'_>) -> Py<PyAny> {
        self.context.get().config.clone_ref(py)
    }

    #[getter]
    fn context(&self, py: Python<'_>) -> Py<NativeContext> {
        self.context.clone_ref(py)
    }

    /// The Rust position as the game's own class (`TerraNovaState`, `MedinaState`), for
    /// whole loops in Rust: playouts, search, mutable copies.
    #[getter]
    fn native(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.core.to_python(py)
    }

    #[getter]
    fn num_players(&self) -> usize {
        self.core.num_players()
    }

    #[getter]
    fn current_player(&self) -> i64 {
        self.core.current_player()
    }

    #[getter]
    fn ply(&self) -> u32 {
        self.core.ply()
    }

    #[getter]
    fn turn(&self) -> u32 {
        self.core.turn()
    }

    /// Every legal move (the Python engine's `Move` objects, in its order), as a lazy
    /// sequence: `random.choice` reads its length and one item.
    fn legal_moves(&self, py: Python<'_>) -> PyResult<ActionSeq> {
        let table = self.context.get().moves.clone_ref(py);
        Ok(self.core.actions(None, table).listed_by(self.serial))
    }

    fn legal_kinds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.core.kinds(py)
    }

    fn legal_moves_of_kind(&self, py: Python<'_>, kind: &str) -> PyResult<ActionSeq> {
        let table = self.context.get().moves.clone_ref(py);
        Ok(self.core.actions(Some(kind), table).listed_by(self.serial))
    }

    fn is_legal(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mv = r#move; // the protocol's name for it, `move`, is Rust's keyword
        Ok(match self.action_of(py, mv)? {
            Some(action) => self.core.action_is_legal(action),
            None => false,
        })
    }

    /// The state after `move`; `IllegalMoveError` (with the Python engine's reason where
    /// it gives one) if it is not legal here.
    fn apply(slf: &Bound<'_, Self>, r#move: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mv = r#move; // the protocol's name for it, `move`, is Rust's keyword
        let py = slf.py();
        let state = slf.get();
        let listed = state.context.get().moves.get().listed_action(mv);
        let action = match listed {
            Some((action, _)) => Some(action),
            None => state.action_of(py, mv)?,
        };
        if let Some(action) = action {
            // Handed out by one of this position's own legal-move sequences: not checked again.
            let own = listed.is_some_and(|(_, lister)| lister == state.serial);
            if let Some(core) = state.core.after(action, own) {
                return Ok(state.child(py, core));
            }
        }
        // The Python engine says why (its `IllegalMoveError`); this engine's own words
        // if it, unexpectedly, would play the move.
        Self::python_of(slf)?.call_method1("apply", (mv,))?;
        Err(illegal_move(
            py,
            format!("{}: not legal in the native engine", mv.repr()?),
        )?)
    }

    /// The state after the move with this action id (`Game.encoding`); `IllegalMoveError`
    /// if it is not legal here.
    fn apply_action(slf: &Bound<'_, Self>, action: &Bound<'_, PyAny>) -> PyResult<Self> {
        let py = slf.py();
        let state = slf.get();
        // `True` is an int to Python, not an action id to anyone.
        let id = if action.is_instance_of::<PyBool>() {
            None
        } else {
            action.extract::<i64>().ok()
        };
        if let Some(id) = id {
            if let Some(core) = state.core.after(id, false) {
                return Ok(state.child(py, core));
            }
        }
        Err(illegal_move(
            py,
            format!("action {} is not legal here", action.repr()?),
        )?)
    }

    /// The Python engine's `Move` of an action id (`Game.encoding`).
    fn move_of_action<'py>(&self, py: Python<'py>, action: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        if action.is_instance_of::<PyBool>() {
            return Err(PyKeyError::new_err(action.clone().unbind()));
        }
        self.context.get().moves.bind(py).as_any().get_item(action)
    }

    fn is_terminal(&self) -> bool {
        self.core.is_terminal()
    }

    fn outcome<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(termination) = self.core.termination_name() else {
            return Ok(None);
        };
        let class = imported(py, &OUTCOME, "tabletop.core.outcome", "Outcome")?;
        let scores = PyTuple::new(py, self.core.score_list())?;
        let winners = PyTuple::new(py, self.core.winner_list())?;
        class.call1((scores, winners, termination)).map(Some)
    }

    fn scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.core.score_list())
    }

    fn returns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.core.return_list())
    }

    // -- what the Python state answers ----------------------------------------------

    /// The Python engine's equal state (built on first use from the exported fields,
    /// then kept).
    fn python_state<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::python_of(slf)
    }

    fn parse_move<'py>(slf: &Bound<'py, Self>, text: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        // The Python state's: a game's notation may depend on the phase (Medina's setup).
        Self::python_of(slf)?.call_method1("parse_move", (text,))
    }

    fn move_to_str<'py>(slf: &Bound<'py, Self>, r#move: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let mv = r#move; // the protocol's name for it, `move`, is Rust's keyword
        Self::python_of(slf)?.call_method1("move_to_str", (mv,))
    }

    fn to_json<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::python_of(slf)?.call_method0("to_json")
    }

    fn __richcmp__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>, op: CompareOp) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let Ok(other) = other.cast::<NativeState>() else {
            return Ok(py.NotImplemented());
        };
        if !matches!(op, CompareOp::Eq | CompareOp::Ne) {
            return Ok(py.NotImplemented());
        }
        let equal = slf.is(other) || Self::python_of(slf)?.eq(Self::python_of(other)?)?;
        Ok((equal == matches!(op, CompareOp::Eq))
            .into_pyobject(py)?
            .to_owned()
            .into_any()
            .unbind())
    }

    fn __hash__(slf: &Bound<'_, Self>) -> PyResult<isize> {
        Self::python_of(slf)?.hash()
    }

    fn __str__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(Self::python_of(slf)?.str()?.to_string())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(format!("<native {}>", Self::python_of(slf)?.repr()?))
    }

    fn _repr_svg_<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let game = slf.get().context.get().game.bind(slf.py()).clone();
        game.call_method1("render_svg", (slf,))?.str().map(Bound::into_any)
    }

    fn __copy__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: PyRef<'py, Self>, _memo: Bound<'py, PyAny>) -> PyRef<'py, Self> {
        slf
    }

    // -- batches ----------------------------------------------------------------------

    /// Steps many games at once: `states[i].apply_action(actions[i])` for every `i`, in
    /// one call. Returns `(next, terminal, returns, masks)`: the next states (`None`
    /// where the action is not legal), one byte per game (1: over), each game's
    /// `returns()` (empty where not legal), and each next state's legal-action mask
    /// (`num_distinct_actions` bytes a game, zeros where not legal), end to end.
    #[staticmethod]
    fn step_batch<'py>(
        py: Python<'py>,
        states: Vec<Bound<'py, NativeState>>,
        actions: Vec<i64>,
    ) -> PyResult<PyBatch<'py, NativeState>> {
        let cores: Vec<&Core> = states.iter().map(|s| &s.get().core).collect();
        if let Some(first) = cores.first() {
            if cores.iter().any(|core| core.game_type() != first.game_type()) {
                return Err(PyValueError::new_err("step_batch: the states are of different games"));
            }
        }
        let size = batch_size(cores.iter().map(|core| core.num_actions()), &actions)?;
        let mut next = Vec::with_capacity(states.len());
        let mut over = vec![0u8; states.len()];
        let mut returns = Vec::with_capacity(states.len());
        let mut masks = vec![0u8; states.len() * size];
        for (i, ((state, core), &action)) in states.iter().zip(&cores).zip(&actions).enumerate() {
            let Some(after) = core.after(action, false) else {
                next.push(None);
                returns.push(Vec::new());
                continue;
            };
            over[i] = after.is_terminal() as u8;
            returns.push(after.return_list());
            after.mark_legal(&mut masks[i * size..(i + 1) * size]);
            next.push(Some(state.get().child(py, after)));
        }
        Ok(to_python(py, (next, over, returns, masks)))
    }
}

/// Adds the protocol classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MoveTable>()?;
    m.add_class::<NativeContext>()?;
    m.add_class::<NativeState>()
}
