//! Research at engine speed (`docs/research.md`, "The native encoder and the vector
//! env"): `NativeEncoder` writes a position's observation planes, vector and legal-action
//! mask into buffers the caller owns, and `VectorGames` steps `N` games in one call,
//! writing every game's observation, mask, rewards and flags into NumPy arrays the
//! Python wrapper (`tabletop.envs.vector`) made once, with worker threads and the GIL
//! released.
//!
//! The observations are `terranova::encode` and `medina::encode`, the Python encodings
//! value for value. What this file needs of the games is in the [`Engine`] impls (and
//! the accessors `TerraNovaState::parts`, `MedinaState::position`, `NativeState::core`).

use crate::common::kept::Kept;
use crate::common::outcome;
use crate::common::pool::{Claims, Pool};
use crate::common::pyrandom::PyRandom;
use crate::common::rng::Rng;
use crate::medina::encode as me;
use crate::medina::py::MedinaState;
use crate::medina::state::State as MedinaPosition;
use crate::protocol::NativeState;
use crate::terranova::encode::{self as te, Layout};
use crate::terranova::py::TerraNovaState;
use crate::terranova::state::{Game, State as TerraNovaPosition};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyList};
use std::sync::Arc;

/// A Terra Nova game and position of either bitset size (`TerraNovaState::parts`).
pub enum TerraNovaParts<'a> {
    Small(&'a Arc<Game<4>>, &'a TerraNovaPosition<4>),
    Large(&'a Arc<Game<16>>, &'a TerraNovaPosition<16>),
}

/// The position inside any Python object that holds one.
enum Held<'a> {
    TerraNova(TerraNovaParts<'a>),
    Medina(&'a MedinaPosition),
}

/// Runs `f` on the position held by `obj` (a `NativeState`, `TerraNovaState` or
/// `MedinaState`).
fn with_position<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(Held<'_>) -> R) -> PyResult<R> {
    if let Ok(state) = obj.cast::<NativeState>() {
        let any = state.get().core().as_any();
        if let Some(p) = any.downcast_ref::<TerraNovaState>() {
            return Ok(f(Held::TerraNova(p.parts())));
        }
        if let Some(p) = any.downcast_ref::<MedinaState>() {
            return Ok(f(Held::Medina(p.position())));
        }
    }
    if let Ok(p) = obj.cast::<TerraNovaState>() {
        return Ok(f(Held::TerraNova(p.get().parts())));
    }
    if let Ok(p) = obj.cast::<MedinaState>() {
        return Ok(f(Held::Medina(p.get().position())));
    }
    Err(PyTypeError::new_err(format!(
        "not a native engine's position: {}",
        obj.get_type().name()?
    )))
}

/// A writable, C-contiguous buffer of `len` items of `T`, held (the exporter keeps its
/// memory where it is while it is held).
struct Out<T: Element> {
    buffer: PyBuffer<T>,
}

impl<T: Element> Out<T> {
    fn get(obj: &Bound<'_, PyAny>, len: usize, what: &str) -> PyResult<Out<T>> {
        let buffer = PyBuffer::<T>::get(obj)
            .map_err(|e| PyValueError::new_err(format!("{what}: not a buffer of the right item type ({e})")))?;
        if buffer.readonly() {
            return Err(PyValueError::new_err(format!("{what}: the buffer is read-only")));
        }
        if !buffer.is_c_contiguous() {
            return Err(PyValueError::new_err(format!("{what}: the buffer is not C-contiguous")));
        }
        if buffer.item_count() != len {
            return Err(PyValueError::new_err(format!(
                "{what}: {} items, {len} expected",
                buffer.item_count()
            )));
        }
        Ok(Out { buffer })
    }

    fn ptr(&self) -> Ptr<T> {
        Ptr(self.buffer.buf_ptr() as *mut T)
    }

    /// The items, for writing (the caller holds the GIL, or holds `self` across a
    /// detached section in which no Python code touches the exporter).
    fn slice(&mut self) -> &mut [T] {
        // SAFETY: checked writable, C-contiguous, `item_count` items of `T`; `&mut self`
        // makes this the only slice made from it.
        unsafe { std::slice::from_raw_parts_mut(self.buffer.buf_ptr() as *mut T, self.buffer.item_count()) }
    }
}

/// A raw pointer into a held buffer (or the batch's slots), sent to worker threads that
/// write disjoint parts.
struct Ptr<T>(*mut T);

impl<T> Clone for Ptr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ptr<T> {}
// SAFETY: every thread writes the items of its own games only (`Outputs::of`, `par_for`).
unsafe impl<T> Send for Ptr<T> {}
unsafe impl<T> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    /// Items `i * len .. (i + 1) * len`.
    ///
    /// # Safety
    /// The buffer has at least `(i + 1) * len` items and no one else uses these ones.
    #[allow(clippy::mut_from_ref)]
    unsafe fn part<'a>(self, i: usize, len: usize) -> &'a mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(i * len), len)
    }
}

// ---------------------------------------------------------------------------------------
// The games, as the vector env sees them.

/// What the vector env needs of a game.
trait Engine: Send + Sync + 'static {
    type S: Clone + Send + Sync;
    fn num_players(&self) -> usize;
    fn num_actions(&self) -> usize;
    fn planes_len(&self) -> usize;
    fn vector_len(&self) -> usize;
    /// The initial position of the game of this seed, as the Python engine draws it.
    fn start(&self, game_seed: i64) -> Self::S;
    /// The seat to act, -1 once over.
    fn to_play(&self, s: &Self::S) -> i32;
    fn legal(&self, s: &Self::S, out: &mut Vec<u32>);
    fn is_legal(&self, s: &Self::S, action: u32) -> bool;
    /// Plays a legal action.
    fn play(&self, s: &mut Self::S, action: u32);
    /// The `random` bot's action (kind first, then a move of it), `None` once over.
    fn bot_action(&self, s: &Self::S, rng: &mut Rng, scratch: &mut Vec<(u16, u16)>) -> Option<u32>;
    fn scores(&self, s: &Self::S) -> [f64; 4];
    /// Win shares once over.
    fn returns(&self, s: &Self::S) -> [f64; 4];
    /// The observation; the planes written as `kept` says (`common::kept`).
    fn observe(&self, s: &Self::S, seat: usize, planes: &mut [f32], vector: &mut [f32], kept: &mut Kept<'_>);
}

/// The start among `starts` that a game seed draws: the start player, as the Python
/// engine draws it (`random.Random(seed).randrange(n)`), where there are several.
fn drawn<S: Clone>(starts: &[S], game_seed: i64) -> S {
    if starts.len() == 1 {
        return starts[0].clone();
    }
    starts[PyRandom::new(game_seed).randrange(starts.len() as u32) as usize].clone()
}

struct TerraNovaEngine<const W: usize> {
    game: Arc<Game<W>>,
    layout: Layout,
    starts: Vec<TerraNovaPosition<W>>,
}

impl<const W: usize> Engine for TerraNovaEngine<W> {
    type S = TerraNovaPosition<W>;
    fn num_players(&self) -> usize {
        self.game.num_players
    }
    fn num_actions(&self) -> usize {
        self.game.board.num_actions()
    }
    fn planes_len(&self) -> usize {
        self.layout.planes_len()
    }
    fn vector_len(&self) -> usize {
        te::VECTOR_LEN
    }
    fn start(&self, game_seed: i64) -> Self::S {
        drawn(&self.starts, game_seed)
    }
    fn to_play(&self, s: &Self::S) -> i32 {
        if s.is_terminal() {
            -1
        } else {
            s.current_player
        }
    }
    fn legal(&self, s: &Self::S, out: &mut Vec<u32>) {
        te::legal_actions_into(&self.game, s, out);
    }
    fn is_legal(&self, s: &Self::S, action: u32) -> bool {
        te::is_legal(&self.game, s, action)
    }
    fn play(&self, s: &mut Self::S, action: u32) {
        te::play_legal(&self.game, s, action);
    }
    fn bot_action(&self, s: &Self::S, rng: &mut Rng, scratch: &mut Vec<(u16, u16)>) -> Option<u32> {
        s.random_move(&self.game, rng, scratch)
            .map(|mv| self.game.encode(mv) as u32)
    }
    fn scores(&self, s: &Self::S) -> [f64; 4] {
        s.points.map(f64::from)
    }
    fn returns(&self, s: &Self::S) -> [f64; 4] {
        let mut out = [0.0; 4];
        for (o, r) in out
            .iter_mut()
            .zip(outcome::returns(self.game.num_players, &s.winners(&self.game)))
        {
            *o = r;
        }
        out
    }
    fn observe(&self, s: &Self::S, seat: usize, planes: &mut [f32], vector: &mut [f32], kept: &mut Kept<'_>) {
        self.layout.write_planes_kept(&self.game, s, seat, planes, kept);
        te::write_vector(&self.game, s, seat, vector);
    }
}

/// The vector env plays Medina's first edition only (its starts are the drawn start
/// players', not a second-edition seed's well and starting merchant).
fn second_edition_refused() -> PyErr {
    PyValueError::new_err("the vector env plays Medina's first edition only")
}

struct MedinaEngine {
    num_players: usize,
    starts: Vec<MedinaPosition>,
}

impl Engine for MedinaEngine {
    type S = MedinaPosition;
    fn num_players(&self) -> usize {
        self.num_players
    }
    fn num_actions(&self) -> usize {
        crate::medina::moves::NUM_ACTIONS
    }
    fn planes_len(&self) -> usize {
        me::PLANES_LEN
    }
    fn vector_len(&self) -> usize {
        me::VECTOR_LEN
    }
    fn start(&self, game_seed: i64) -> Self::S {
        drawn(&self.starts, game_seed)
    }
    fn to_play(&self, s: &Self::S) -> i32 {
        if s.is_terminal() {
            -1
        } else {
            i32::from(s.current_player)
        }
    }
    fn legal(&self, s: &Self::S, out: &mut Vec<u32>) {
        me::legal_actions_into(s, out);
    }
    fn is_legal(&self, s: &Self::S, action: u32) -> bool {
        !s.is_terminal() && s.is_legal(action as usize)
    }
    fn play(&self, s: &mut Self::S, action: u32) {
        s.apply_legal(action as usize);
    }
    fn bot_action(&self, s: &Self::S, rng: &mut Rng, _scratch: &mut Vec<(u16, u16)>) -> Option<u32> {
        s.random_action(&mut |n| rng.below(n)).map(|a| a as u32)
    }
    fn scores(&self, s: &Self::S) -> [f64; 4] {
        s.scores().map(|v| v as f64)
    }
    fn returns(&self, s: &Self::S) -> [f64; 4] {
        s.returns()
    }
    fn observe(&self, s: &Self::S, seat: usize, planes: &mut [f32], vector: &mut [f32], kept: &mut Kept<'_>) {
        me::observe(s, seat, planes, vector, kept);
    }
}

// ---------------------------------------------------------------------------------------
// The batched environment.

/// One game of the batch.
#[derive(Clone)]
struct Slot<S> {
    state: S,
    /// The bots' and `sample_actions`' draws.
    rng: Rng,
    /// The seeds of this slot's next games.
    seeds: Rng,
    game_seed: i64,
    /// The steps of the game so far (the caller's actions: what `max_steps` counts).
    steps: u64,
    /// The legal actions of `state` (what the mask shows).
    legal: Vec<u32>,
    /// The cells that are 1 in the planes of the last observation, and a scratch bitset
    /// (`common::kept`).
    shadow: Vec<u64>,
    fresh: Vec<u64>,
    scratch: Vec<(u16, u16)>,
}

/// Where every game's results go: the held buffers' items, game after game.
#[derive(Clone, Copy)]
struct Outputs {
    planes: Ptr<f32>,
    vector: Ptr<f32>,
    mask: Ptr<i8>,
    rewards: Ptr<f64>,
    terminated: Ptr<u8>,
    truncated: Ptr<u8>,
    to_play: Ptr<i64>,
    game_seeds: Ptr<i64>,
    final_scores: Ptr<f64>,
    final_planes: Ptr<f32>,
    final_vector: Ptr<f32>,
}

/// One game's part of [`Outputs`].
struct SlotOut<'a> {
    planes: &'a mut [f32],
    vector: &'a mut [f32],
    mask: &'a mut [i8],
    rewards: &'a mut [f64],
    terminated: &'a mut u8,
    truncated: &'a mut u8,
    to_play: &'a mut i64,
    game_seed: &'a mut i64,
    final_scores: &'a mut [f64],
    final_planes: &'a mut [f32],
    final_vector: &'a mut [f32],
}

struct Sizes {
    planes: usize,
    vector: usize,
    actions: usize,
    players: usize,
}

impl Outputs {
    /// Game `i`'s part.
    ///
    /// # Safety
    /// The buffers hold every game's items (checked when they were taken), and no one
    /// else uses game `i`'s.
    unsafe fn of(&self, i: usize, z: &Sizes) -> SlotOut<'_> {
        SlotOut {
            planes: self.planes.part(i, z.planes),
            vector: self.vector.part(i, z.vector),
            mask: self.mask.part(i, z.actions),
            rewards: self.rewards.part(i, z.players),
            terminated: &mut self.terminated.part(i, 1)[0],
            truncated: &mut self.truncated.part(i, 1)[0],
            to_play: &mut self.to_play.part(i, 1)[0],
            game_seed: &mut self.game_seeds.part(i, 1)[0],
            final_scores: self.final_scores.part(i, z.players),
            final_planes: self.final_planes.part(i, z.planes),
            final_vector: self.final_vector.part(i, z.vector),
        }
    }
}

/// A seed for Python's `random.Random` and `GameConfig.seed`: `0 .. 2^31`.
fn next_game_seed(seeds: &mut Rng) -> i64 {
    (seeds.next_u64() >> 33) as i64
}

/// SplitMix64's finaliser: independent streams from (seed, game index, purpose).
fn mix(seed: u64, i: u64, purpose: u64) -> u64 {
    let mut z = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ purpose.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Vector<E: Engine> {
    engine: E,
    slots: Vec<Slot<E::S>>,
    /// The seats the caller plays (bit per seat); the others are `random` bots.
    learners: u32,
    score_reward: bool,
    /// A game is truncated after this many steps (0: never).
    max_steps: u64,
}

impl<E: Engine> Vector<E> {
    fn sizes(&self) -> Sizes {
        Sizes {
            planes: self.engine.planes_len(),
            vector: self.engine.vector_len(),
            actions: self.engine.num_actions(),
            players: self.engine.num_players(),
        }
    }

    /// The bots play until a learner is to act or the game is over.
    fn settle(engine: &E, learners: u32, slot: &mut Slot<E::S>) {
        loop {
            let seat = engine.to_play(&slot.state);
            if seat < 0 || learners & (1 << seat) != 0 {
                return;
            }
            match engine.bot_action(&slot.state, &mut slot.rng, &mut slot.scratch) {
                Some(action) => engine.play(&mut slot.state, action),
                None => return,
            }
        }
    }

    /// A new game from the slot's next seed, played by the bots to a learner's turn.
    fn new_game(engine: &E, learners: u32, slot: &mut Slot<E::S>) {
        for _ in 0..1000 {
            slot.game_seed = next_game_seed(&mut slot.seeds);
            slot.state = engine.start(slot.game_seed);
            slot.steps = 0;
            Self::settle(engine, learners, slot);
            if engine.to_play(&slot.state) >= 0 {
                return;
            }
        }
    }

    /// Writes the slot's observation (seen by the seat to act), mask and seat: all of
    /// it if `whole`, else over the slot's last write, changing what differs.
    fn write(engine: &E, slot: &mut Slot<E::S>, out: &mut SlotOut<'_>, whole: bool) {
        let seat = engine.to_play(&slot.state);
        *out.to_play = i64::from(seat);
        *out.game_seed = slot.game_seed;
        if whole {
            out.mask.fill(0);
        } else {
            for &a in &slot.legal {
                out.mask[a as usize] = 0;
            }
        }
        engine.legal(&slot.state, &mut slot.legal);
        for &a in &slot.legal {
            out.mask[a as usize] = 1;
        }
        let mut kept = if whole {
            Kept::Track(&mut slot.shadow)
        } else {
            Kept::Update(&mut slot.shadow, &mut slot.fresh)
        };
        engine.observe(&slot.state, seat.max(0) as usize, out.planes, out.vector, &mut kept);
    }

    /// Plays `action` for the seat to act, then the bots; a game that ends (over, or
    /// truncated at `max_steps`) leaves its last position, seen by the seat that acted,
    /// in the final observation, and the next game starts.
    fn step_slot(&self, slot: &mut Slot<E::S>, action: u32, out: &mut SlotOut<'_>) {
        let (engine, learners, score) = (&self.engine, self.learners, self.score_reward);
        let n = engine.num_players();
        let before = if score { engine.scores(&slot.state) } else { [0.0; 4] };
        let acted = engine.to_play(&slot.state).max(0) as usize;
        engine.play(&mut slot.state, action);
        Self::settle(engine, learners, slot);
        slot.steps += 1;
        let over = engine.to_play(&slot.state) < 0;
        let truncated = !over && self.max_steps > 0 && slot.steps >= self.max_steps;
        if score {
            let after = engine.scores(&slot.state);
            for p in 0..n {
                out.rewards[p] = after[p] - before[p];
            }
        } else if over {
            out.rewards.copy_from_slice(&engine.returns(&slot.state)[..n]);
        } else {
            out.rewards.fill(0.0);
        }
        *out.terminated = u8::from(over);
        *out.truncated = u8::from(truncated);
        if over || truncated {
            out.final_scores.copy_from_slice(&engine.scores(&slot.state)[..n]);
            engine.observe(&slot.state, acted, out.final_planes, out.final_vector, &mut Kept::Full);
            Self::new_game(engine, learners, slot);
        }
        Self::write(engine, slot, out, false);
    }
}

/// Runs `f(i, slot)` for every slot on the pool's threads, each its own share of the
/// slots, then what is left of the other's (`common::pool::Claims`): a step's cost
/// varies from game to game (a game that ends writes a whole observation and starts the
/// next; bots play a varying number of actions), so fixed shares left one thread
/// waiting for the other.
fn par_for<S: Send>(slots: &mut [S], pool: &Pool, f: impl Fn(usize, &mut S) + Sync) {
    let claims = Claims::new(slots.len(), pool.threads());
    if pool.threads() == 1 || slots.len() <= claims.chunk() {
        for (i, slot) in slots.iter_mut().enumerate() {
            f(i, slot);
        }
        return;
    }
    let base = Ptr(slots.as_mut_ptr());
    pool.run(&|t| {
        while let Some(range) = claims.next(t) {
            for i in range {
                // SAFETY: `claims` hands out each index once, and `slots` outlives the run.
                f(i, unsafe { &mut base.part(i, 1)[0] });
            }
        }
    });
}

/// The batch of either game, for the Python class.
trait AnyVector: Send + Sync {
    fn sizes(&self) -> Sizes;
    fn num_envs(&self) -> usize;
    fn reset(&mut self, seed: u64, out: Outputs, pool: &Pool);
    /// Checks every action, then (if all are legal) plays them; else plays none.
    fn step(&mut self, actions: &[i64], out: Outputs, pool: &Pool) -> Result<(), String>;
    fn sample(&mut self, out: &mut [i64]);
    /// Games are truncated after `max_steps` steps (0: never).
    fn set_max_steps(&mut self, max_steps: u64);
}

impl<E: Engine> AnyVector for Vector<E> {
    fn sizes(&self) -> Sizes {
        Vector::sizes(self)
    }

    fn num_envs(&self) -> usize {
        self.slots.len()
    }

    fn reset(&mut self, seed: u64, out: Outputs, pool: &Pool) {
        let z = self.sizes();
        let (engine, learners) = (&self.engine, self.learners);
        par_for(&mut self.slots, pool, |i, slot| {
            slot.seeds = Rng::new(mix(seed, i as u64, 1));
            slot.rng = Rng::new(mix(seed, i as u64, 2));
            Self::new_game(engine, learners, slot);
            // SAFETY: slot `i` is this call's alone.
            let mut o = unsafe { out.of(i, &z) };
            o.rewards.fill(0.0);
            o.final_scores.fill(0.0);
            *o.terminated = 0;
            *o.truncated = 0;
            Self::write(engine, slot, &mut o, true);
        });
    }

    fn step(&mut self, actions: &[i64], out: Outputs, pool: &Pool) -> Result<(), String> {
        if actions.len() != self.slots.len() {
            return Err(format!("{} actions for {} games", actions.len(), self.slots.len()));
        }
        for (i, (&a, slot)) in actions.iter().zip(&self.slots).enumerate() {
            let ok = u32::try_from(a).is_ok_and(|a| self.engine.is_legal(&slot.state, a));
            if !ok {
                return Err(format!("action {a} is not legal in game {i} (see its action mask)"));
            }
        }
        let z = self.sizes();
        let mut slots = std::mem::take(&mut self.slots);
        let this = &*self;
        par_for(&mut slots, pool, |i, slot| {
            // SAFETY: slot `i` is this call's alone.
            let mut o = unsafe { out.of(i, &z) };
            this.step_slot(slot, actions[i] as u32, &mut o);
        });
        self.slots = slots;
        Ok(())
    }

    fn set_max_steps(&mut self, max_steps: u64) {
        self.max_steps = max_steps;
    }

    fn sample(&mut self, out: &mut [i64]) {
        for (slot, o) in self.slots.iter_mut().zip(out.iter_mut()) {
            *o = if slot.legal.is_empty() {
                -1
            } else {
                i64::from(slot.legal[slot.rng.below(slot.legal.len() as u32) as usize])
            };
        }
    }
}

fn slots<S: Clone>(start: &S, num_envs: usize) -> Vec<Slot<S>> {
    let slot = Slot {
        state: start.clone(),
        rng: Rng::new(0),
        seeds: Rng::new(0),
        game_seed: 0,
        steps: 0,
        legal: Vec::new(),
        shadow: Vec::new(),
        fresh: Vec::new(),
        scratch: Vec::new(),
    };
    vec![slot; num_envs]
}

fn terra_nova<const W: usize>(
    game: &Arc<Game<W>>,
    starts: Vec<TerraNovaPosition<W>>,
    num_envs: usize,
    learners: u32,
    score_reward: bool,
) -> Box<dyn AnyVector> {
    let slots = slots(&starts[0], num_envs);
    Box::new(Vector {
        engine: TerraNovaEngine {
            game: game.clone(),
            layout: Layout::new(&game.board),
            starts,
        },
        slots,
        learners,
        score_reward,
        max_steps: 0,
    })
}

/// Whether two Terra Nova games are one: board, rules and player count.
fn same_game<const W: usize>(a: &Game<W>, b: &Game<W>) -> bool {
    a.num_players == b.num_players
        && a.rules == b.rules
        && a.board.coords == b.board.coords
        && a.board.land == b.board.land
}

/// The batch over `starts` (positions of one game and board).
fn vector_of(starts: &[Bound<'_, PyAny>], num_envs: usize, learners: u32, score: bool) -> PyResult<Box<dyn AnyVector>> {
    let mismatch = || PyValueError::new_err("the starts must be positions of one game and board");
    let first = starts
        .first()
        .ok_or_else(|| PyValueError::new_err("no start position"))?;
    with_position(first, |held| -> PyResult<Box<dyn AnyVector>> {
        match held {
            Held::TerraNova(TerraNovaParts::Small(g, _)) => {
                let mut all = Vec::new();
                for obj in starts {
                    all.push(
                        with_position(obj, |h| match h {
                            Held::TerraNova(TerraNovaParts::Small(g2, s)) if same_game(g, g2) => Some(*s),
                            _ => None,
                        })?
                        .ok_or_else(mismatch)?,
                    );
                }
                Ok(terra_nova(g, all, num_envs, learners, score))
            }
            Held::TerraNova(TerraNovaParts::Large(g, _)) => {
                let mut all = Vec::new();
                for obj in starts {
                    all.push(
                        with_position(obj, |h| match h {
                            Held::TerraNova(TerraNovaParts::Large(g2, s)) if same_game(g, g2) => Some(*s),
                            _ => None,
                        })?
                        .ok_or_else(mismatch)?,
                    );
                }
                Ok(terra_nova(g, all, num_envs, learners, score))
            }
            Held::Medina(s0) if s0.rules.second() => Err(second_edition_refused()),
            Held::Medina(s0) => {
                let mut all = Vec::new();
                for obj in starts {
                    all.push(
                        with_position(obj, |h| match h {
                            Held::Medina(s) if s.num_players == s0.num_players && s.rules == s0.rules => Some(*s),
                            _ => None,
                        })?
                        .ok_or_else(mismatch)?,
                    );
                }
                let slots = slots(&all[0], num_envs);
                Ok(Box::new(Vector {
                    engine: MedinaEngine {
                        num_players: s0.num_players as usize,
                        starts: all,
                    },
                    slots,
                    learners,
                    score_reward: score,
                    max_steps: 0,
                }))
            }
        }
    })?
}

/// `N` games stepped together (`tabletop.envs.vector.VectorGames` wraps it): the results
/// of every call are written into the arrays given to the constructor.
#[pyclass(module = "tabletop._native", name = "VectorGames")]
pub struct VectorGames {
    inner: Box<dyn AnyVector>,
    /// The worker threads, kept for the batch's life.
    pool: Pool,
    planes: Out<f32>,
    vector: Out<f32>,
    mask: Out<i8>,
    rewards: Out<f64>,
    terminated: Out<u8>,
    truncated: Out<u8>,
    to_play: Out<i64>,
    game_seeds: Out<i64>,
    final_scores: Out<f64>,
    final_planes: Out<f32>,
    final_vector: Out<f32>,
}

impl VectorGames {
    fn outputs(&self) -> Outputs {
        Outputs {
            planes: self.planes.ptr(),
            vector: self.vector.ptr(),
            mask: self.mask.ptr(),
            rewards: self.rewards.ptr(),
            terminated: self.terminated.ptr(),
            truncated: self.truncated.ptr(),
            to_play: self.to_play.ptr(),
            game_seeds: self.game_seeds.ptr(),
            final_scores: self.final_scores.ptr(),
            final_planes: self.final_planes.ptr(),
            final_vector: self.final_vector.ptr(),
        }
    }
}

#[pymethods]
impl VectorGames {
    /// `num_envs` games from `starts` (initial positions of one game and board: one, or
    /// one per start player, which each game's seed then draws as the Python engine
    /// does); `learners` the seats the caller plays (the others: the `random` bot in
    /// Rust); `threads` the threads that step them (at most one per game); `reward` `"win"` or `"score"`; `max_steps` the steps after which a game is
    /// truncated (0: never); the output arrays (C-contiguous, float32 planes and vector,
    /// int8 mask, float64 rewards and final scores (`N × players`), uint8 terminated and
    /// truncated, int64 seat to play and game seed, float32 final planes and vector: the
    /// ended game's last position seen by the seat that acted, where a game ended).
    #[new]
    #[pyo3(signature = (starts, num_envs, learners, reward, threads, max_steps, planes, vector, mask, rewards, terminated, truncated, to_play, game_seeds, final_scores, final_planes, final_vector))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        starts: Vec<Bound<'_, PyAny>>,
        num_envs: usize,
        learners: Vec<usize>,
        reward: &str,
        threads: usize,
        max_steps: u64,
        planes: &Bound<'_, PyAny>,
        vector: &Bound<'_, PyAny>,
        mask: &Bound<'_, PyAny>,
        rewards: &Bound<'_, PyAny>,
        terminated: &Bound<'_, PyAny>,
        truncated: &Bound<'_, PyAny>,
        to_play: &Bound<'_, PyAny>,
        game_seeds: &Bound<'_, PyAny>,
        final_scores: &Bound<'_, PyAny>,
        final_planes: &Bound<'_, PyAny>,
        final_vector: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        if num_envs == 0 {
            return Err(PyValueError::new_err("num_envs must be at least 1"));
        }
        let score = match reward {
            "win" => false,
            "score" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "reward must be win or score, not {other:?}"
                )))
            }
        };
        let mut seats = 0u32;
        for &s in &learners {
            if s >= 4 {
                return Err(PyValueError::new_err(format!("learner seat {s} is not a seat")));
            }
            seats |= 1 << s;
        }
        let mut inner = vector_of(&starts, num_envs, seats, score)?;
        inner.set_max_steps(max_steps);
        let z = inner.sizes();
        if learners.iter().any(|&s| s >= z.players) || seats == 0 {
            return Err(PyValueError::new_err(
                "learners must be seats of the game, at least one",
            ));
        }
        Ok(VectorGames {
            pool: Pool::new(threads.min(num_envs)),
            planes: Out::get(planes, num_envs * z.planes, "planes")?,
            vector: Out::get(vector, num_envs * z.vector, "vector")?,
            mask: Out::get(mask, num_envs * z.actions, "mask")?,
            rewards: Out::get(rewards, num_envs * z.players, "rewards")?,
            terminated: Out::get(terminated, num_envs, "terminated")?,
            truncated: Out::get(truncated, num_envs, "truncated")?,
            to_play: Out::get(to_play, num_envs, "to_play")?,
            game_seeds: Out::get(game_seeds, num_envs, "game_seeds")?,
            final_scores: Out::get(final_scores, num_envs * z.players, "final_scores")?,
            final_planes: Out::get(final_planes, num_envs * z.planes, "final_planes")?,
            final_vector: Out::get(final_vector, num_envs * z.vector, "final_vector")?,
            inner,
        })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.inner.num_envs()
    }

    #[getter]
    fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// New games everywhere: game `i`'s seeds from `(seed, i)`.
    fn reset(&mut self, py: Python<'_>, seed: u64) {
        let out = self.outputs();
        let (inner, pool) = (&mut self.inner, &self.pool);
        py.detach(|| inner.reset(seed, out, pool));
    }

    /// Plays `actions[i]` (int64, one per game) in every game; a finished game starts
    /// the next at once. `ValueError` (and nothing played) if an action is not legal.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = self.inner.num_envs();
        let buffer = PyBuffer::<i64>::get(actions)
            .map_err(|e| PyValueError::new_err(format!("actions: an int64 array is needed ({e})")))?;
        if !buffer.is_c_contiguous() || buffer.item_count() != n {
            return Err(PyValueError::new_err(format!(
                "actions: {n} contiguous int64 values are needed"
            )));
        }
        // SAFETY: checked C-contiguous with `n` items of i64; only read while held.
        let actions = unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const i64, n) };
        let out = self.outputs();
        let (inner, pool) = (&mut self.inner, &self.pool);
        // The whole step without the GIL, the legality check included.
        py.detach(|| inner.step(actions, out, pool))
            .map_err(PyValueError::new_err)
    }

    /// A uniformly random legal action of every game into `out` (int64, one per game).
    fn sample_actions(&mut self, out: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut out = Out::<i64>::get(out, self.inner.num_envs(), "out")?;
        self.inner.sample(out.slice());
        Ok(())
    }
}

/// Terra Nova's plane layout, the address of the game it was made for, and its board's
/// cells (another game of the same board may use it).
type BoardLayout = (Layout, usize, Vec<(i32, i32)>);

/// A position's observation and mask written into the caller's buffers
/// (`tabletop.native`'s encoding of native states uses it).
#[pyclass(module = "tabletop._native", name = "NativeEncoder", frozen)]
pub struct NativeEncoder {
    /// Terra Nova's plane layout of one board (`None` for Medina), with the game it was
    /// made for.
    layout: Option<BoardLayout>,
    planes_len: usize,
    vector_len: usize,
    num_actions: usize,
    /// The Python int of every action id, made once: a list of legal actions then holds
    /// references to them (a Terra Nova list has hundreds, most above Python's cached
    /// small ints).
    ints: Vec<Py<PyAny>>,
}

fn game_key<const W: usize>(g: &Arc<Game<W>>) -> usize {
    Arc::as_ptr(g) as usize
}

impl NativeEncoder {
    /// The layout for `g`'s board, checked to be the one this encoder was made for.
    fn layout_for<const W: usize>(&self, g: &Arc<Game<W>>) -> PyResult<&Layout> {
        match &self.layout {
            Some((layout, key, coords)) if *key == game_key(g) || *coords == g.board.coords => Ok(layout),
            _ => Err(PyValueError::new_err(
                "the position is not of this encoder's game and board",
            )),
        }
    }
}

#[pymethods]
impl NativeEncoder {
    /// The encoder of `state`'s game and board (any native position).
    #[new]
    fn new(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut encoder = with_position(state, |held| match held {
            Held::TerraNova(TerraNovaParts::Small(g, _)) => Self::terra_nova(g),
            Held::TerraNova(TerraNovaParts::Large(g, _)) => Self::terra_nova(g),
            Held::Medina(s) => NativeEncoder {
                layout: None,
                planes_len: me::planes_len(s),
                vector_len: me::vector_len(s),
                num_actions: s.num_actions(),
                ints: Vec::new(),
            },
        })?;
        let py = state.py();
        encoder.ints = (0..encoder.num_actions)
            .map(|a| Ok(a.into_pyobject(py)?.into_any().unbind()))
            .collect::<PyResult<_>>()?;
        Ok(encoder)
    }

    #[getter]
    fn planes_len(&self) -> usize {
        self.planes_len
    }

    #[getter]
    fn vector_len(&self) -> usize {
        self.vector_len
    }

    #[getter]
    fn num_actions(&self) -> usize {
        self.num_actions
    }

    /// Writes `state` seen by `seat` into `planes` (float32, the planes in C order) and
    /// `vector` (float32), every item of both.
    fn observe_into(
        &self,
        state: &Bound<'_, PyAny>,
        seat: usize,
        planes: &Bound<'_, PyAny>,
        vector: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let mut planes = Out::<f32>::get(planes, self.planes_len, "planes")?;
        let mut vector = Out::<f32>::get(vector, self.vector_len, "vector")?;
        with_position(state, |held| self.observe(&held, seat, planes.slice(), vector.slice()))?
    }

    /// Writes `state`'s legal-action mask into `mask` (one byte per action: 1 legal, 0
    /// not; a bytearray or an int8/uint8 array).
    fn mask_into(&self, state: &Bound<'_, PyAny>, mask: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut mask = ByteOut::get(mask, self.num_actions)?;
        let mut legal = Vec::new();
        with_position(state, |held| self.mark(&held, &mut legal, mask.slice()))?
    }

    /// `observe_into` into one buffer of `planes_len + vector_len` floats: the planes,
    /// then the vector (OpenSpiel's flat observation tensor).
    fn observe_flat_into(&self, state: &Bound<'_, PyAny>, seat: usize, tensor: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut tensor = Out::<f32>::get(tensor, self.planes_len + self.vector_len, "tensor")?;
        let (planes, vector) = tensor.slice().split_at_mut(self.planes_len);
        with_position(state, |held| self.observe(&held, seat, planes, vector))?
    }

    /// `observe_into` and, unless `mask` is `None`, `mask_into` in one call (what an
    /// environment's step asks for: one crossing into Rust, one reading of the position).
    #[pyo3(signature = (state, seat, planes, vector, mask = None))]
    fn encode_into(
        &self,
        state: &Bound<'_, PyAny>,
        seat: usize,
        planes: &Bound<'_, PyAny>,
        vector: &Bound<'_, PyAny>,
        mask: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let mut planes = Out::<f32>::get(planes, self.planes_len, "planes")?;
        let mut vector = Out::<f32>::get(vector, self.vector_len, "vector")?;
        let mut mask = mask.map(|m| ByteOut::get(m, self.num_actions)).transpose()?;
        with_position(state, |held| -> PyResult<()> {
            self.observe(&held, seat, planes.slice(), vector.slice())?;
            if let Some(mask) = &mut mask {
                self.mark(&held, &mut Vec::new(), mask.slice())?;
            }
            Ok(())
        })?
    }

    /// The legal action ids of `state`, ascending, as a list (OpenSpiel's
    /// `legal_actions()`; `Encoding.legal_actions`); none once the game is over.
    fn legal_actions<'py>(&self, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let mut legal = Vec::with_capacity(256);
        with_position(state, |held| self.legal(&held, &mut legal))??;
        let py = state.py();
        let ints = &self.ints;
        PyList::new(py, legal.iter().map(|&a| ints[a as usize].clone_ref(py)))
    }
}

/// A writable byte buffer: a bytearray or an int8/uint8 array (`u8` and `i8` have one
/// size and alignment, and 0 and 1 read the same in both).
enum ByteOut {
    Unsigned(Out<u8>),
    Signed(Out<i8>),
}

impl ByteOut {
    fn get(obj: &Bound<'_, PyAny>, len: usize) -> PyResult<ByteOut> {
        // The int8 array (the spaces' mask) is tried first where it is not a bytearray:
        // a failed try costs an exception.
        let signed = if obj.is_instance_of::<PyByteArray>() {
            None
        } else {
            match Out::<i8>::get(obj, len, "mask") {
                Ok(out) => return Ok(ByteOut::Signed(out)),
                Err(e) => Some(e),
            }
        };
        Out::<u8>::get(obj, len, "mask")
            .map(ByteOut::Unsigned)
            .map_err(|unsigned| {
                // An int8 buffer refused for another reason (read-only, its length) says so.
                match signed {
                    Some(e) if PyBuffer::<i8>::get(obj).is_ok() => e,
                    _ => unsigned,
                }
            })
    }

    fn slice(&mut self) -> &mut [u8] {
        match self {
            ByteOut::Unsigned(out) => out.slice(),
            ByteOut::Signed(out) => {
                let bytes = out.slice();
                // SAFETY: i8 and u8 have one size and alignment; the slice is `out`'s alone.
                unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr() as *mut u8, bytes.len()) }
            }
        }
    }
}

impl NativeEncoder {
    fn terra_nova<const W: usize>(g: &Arc<Game<W>>) -> NativeEncoder {
        let layout = Layout::new(&g.board);
        NativeEncoder {
            planes_len: layout.planes_len(),
            vector_len: te::VECTOR_LEN,
            num_actions: g.board.num_actions(),
            layout: Some((layout, game_key(g), g.board.coords.clone())),
            ints: Vec::new(),
        }
    }

    /// Checks that `held` is of this encoder's game and board.
    fn check(&self, held: &Held<'_>) -> PyResult<()> {
        match held {
            Held::TerraNova(TerraNovaParts::Small(g, _)) => self.layout_for(g).map(|_| ()),
            Held::TerraNova(TerraNovaParts::Large(g, _)) => self.layout_for(g).map(|_| ()),
            Held::Medina(_) if self.layout.is_some() => {
                Err(PyValueError::new_err("a Medina position for a Terra Nova encoder"))
            }
            // An edition's encoding has its own sizes (the second edition's more planes and actions).
            Held::Medina(s) if me::planes_len(s) != self.planes_len || s.num_actions() != self.num_actions => Err(
                PyValueError::new_err("the Medina position is not of this encoder's edition"),
            ),
            Held::Medina(_) => Ok(()),
        }
    }

    fn observe(&self, held: &Held<'_>, seat: usize, planes: &mut [f32], vector: &mut [f32]) -> PyResult<()> {
        self.check(held)?;
        let players = match held {
            Held::TerraNova(TerraNovaParts::Small(g, _)) => g.num_players,
            Held::TerraNova(TerraNovaParts::Large(g, _)) => g.num_players,
            Held::Medina(s) => s.num_players as usize,
        };
        if seat >= players {
            return Err(PyValueError::new_err(format!("seat {seat} is not a seat of this game")));
        }
        match held {
            Held::TerraNova(TerraNovaParts::Small(g, s)) => {
                self.layout_for(g)?.write_planes(g, s, seat, planes);
                te::write_vector(g, s, seat, vector);
            }
            Held::TerraNova(TerraNovaParts::Large(g, s)) => {
                self.layout_for(g)?.write_planes(g, s, seat, planes);
                te::write_vector(g, s, seat, vector);
            }
            Held::Medina(s) => me::observe(s, seat, planes, vector, &mut Kept::Full),
        }
        Ok(())
    }

    /// The legal actions of `held` into `legal`, ascending (none once over).
    fn legal(&self, held: &Held<'_>, legal: &mut Vec<u32>) -> PyResult<()> {
        self.check(held)?;
        legal.clear();
        match held {
            Held::TerraNova(TerraNovaParts::Small(_, s)) if s.is_terminal() => {}
            Held::TerraNova(TerraNovaParts::Large(_, s)) if s.is_terminal() => {}
            Held::Medina(s) if s.is_terminal() => {}
            Held::TerraNova(TerraNovaParts::Small(g, s)) => te::legal_actions_ascending_into(g, s, legal),
            Held::TerraNova(TerraNovaParts::Large(g, s)) => te::legal_actions_ascending_into(g, s, legal),
            Held::Medina(s) => {
                me::legal_actions_into(s, legal);
                // The second edition's actions after the first's ids come in the engine's order.
                if !legal.is_sorted() {
                    legal.sort_unstable();
                }
            }
        }
        Ok(())
    }

    fn mark(&self, held: &Held<'_>, legal: &mut Vec<u32>, mask: &mut [u8]) -> PyResult<()> {
        self.legal(held, legal)?;
        mask.fill(0);
        for &a in legal.iter() {
            mask[a as usize] = 1;
        }
        Ok(())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeEncoder>()?;
    m.add_class::<VectorGames>()?;
    Ok(())
}
