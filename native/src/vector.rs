//! Research at engine speed (`docs/research.md`, "The native encoder and the vector
//! env"): `NativeEncoder` writes a position's observation planes, vector and legal-action
//! mask into buffers the caller owns, and `VectorGames` steps `N` games in one call,
//! writing every game's observation, mask, rewards and flags into NumPy arrays the
//! Python wrapper (`tabletop.envs.vector`) made once, with worker threads and the GIL
//! released.
//!
//! Both are written once over [`Game`] (the observations are each game's
//! `Game::observe`: `terranova::encode` and `medina::encode`, the Python encodings value
//! for value). A Python position of any game is read as a `protocol::HeldPosition`,
//! which its class hands out (`protocol::Position::with_held`): this file names no game.

use crate::common::kept::Kept;
use crate::common::pool::{Claims, Pool};
use crate::common::pyrandom::PyRandom;
use crate::common::rng::Rng;
use crate::game::{Game, MAX_SEATS};
use crate::protocol::{Core, HeldPosition, NativeState};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyList};
use std::any::TypeId;

/// The vector env of `num_envs` games of `game` from `starts` (positions of it).
pub(crate) fn vector_of_game<G: Game>(
    game: &G,
    starts: &[Bound<'_, PyAny>],
    num_envs: usize,
    learners: u32,
    score: bool,
) -> PyResult<Box<dyn AnyVector>> {
    if !game.starts_differ_by_seat_only() {
        return Err(PyValueError::new_err(format!(
            "the vector env cannot play this {} game: its seeds draw more than the start player \
             (it plays Medina's first edition only)",
            G::NAME
        )));
    }
    let mut all = Vec::with_capacity(starts.len());
    for obj in starts {
        let state = with_position(obj, |held| {
            let other = held.game_any().downcast_ref::<G>()?;
            (other == game).then(|| held.state_any().downcast_ref::<G::State>().copied())?
        })?;
        all.push(state.ok_or_else(|| PyValueError::new_err("the starts must be positions of one game and board"))?);
    }
    let first = *all.first().ok_or_else(|| PyValueError::new_err("no start position"))?;
    Ok(Box::new(Vector {
        game: game.clone(),
        starts: all,
        slots: vec![Slot::new(first); num_envs],
        learners,
        score_reward: score,
        max_steps: 0,
    }))
}

/// Runs `f` on the position held by `obj` (a `NativeState`, or any game's state class).
pub(crate) fn with_position<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&dyn HeldPosition) -> R) -> PyResult<R> {
    let mut f = Some(f);
    let mut out = None;
    let mut visit = |held: &dyn HeldPosition| {
        if let Some(f) = f.take() {
            out = Some(f(held));
        }
    };
    match obj.cast::<NativeState>() {
        Ok(state) => state.get().core().with_held_dyn(&mut visit),
        Err(_) => Core::from_python(obj)?.with_held_dyn(&mut visit),
    }
    out.ok_or_else(|| PyTypeError::new_err("a native position that holds no game"))
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
    fn raw(self) -> *mut T {
        self.0
    }

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
// The batched environment.

/// The start among `starts` that a game seed draws: the start player, as the Python
/// engine draws it (`random.Random(seed).randrange(n)`), where there are several.
fn drawn<S: Copy>(starts: &[S], game_seed: i64) -> S {
    if starts.len() == 1 {
        return starts[0];
    }
    starts[PyRandom::new(game_seed).randrange(starts.len() as u32) as usize]
}

thread_local! {
    /// The scratch bitset of an update (`Kept::Update`), one per thread rather than one
    /// per game: it stays in the cache, where a thousand games' own were as many more
    /// cache lines to read and clear every step.
    static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

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
    /// The cells that are 1 in the planes of the last observation (`common::kept`; its
    /// scratch bitset is the thread's, [`SCRATCH`]).
    shadow: Vec<u64>,
}

impl<S> Slot<S> {
    fn new(state: S) -> Self {
        Slot {
            state,
            rng: Rng::new(0),
            seeds: Rng::new(0),
            game_seed: 0,
            steps: 0,
            legal: Vec::new(),
            shadow: Vec::new(),
        }
    }
}

/// Where every game's results go: the held buffers' items, game after game.
#[derive(Clone, Copy)]
pub struct Outputs {
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

pub struct Sizes {
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

/// `N` games of one [`Game`] stepped together.
struct Vector<G: Game> {
    game: G,
    /// The initial positions, one per start player (or one).
    starts: Vec<G::State>,
    slots: Vec<Slot<G::State>>,
    /// The seats the caller plays (bit per seat); the others are `random` bots.
    learners: u32,
    score_reward: bool,
    /// A game is truncated after this many steps (0: never).
    max_steps: u64,
}

impl<G: Game> Vector<G> {
    fn sizes(&self) -> Sizes {
        let (planes, vector) = self.game.observation_lens();
        Sizes {
            planes,
            vector,
            actions: self.game.num_actions(),
            players: self.game.num_players(),
        }
    }

    /// The bots play until a learner is to act or the game is over.
    fn settle(game: &G, learners: u32, slot: &mut Slot<G::State>) {
        loop {
            let seat = game.to_act(&slot.state);
            if seat < 0 || learners & (1 << seat) != 0 {
                return;
            }
            match game.random_action(&slot.state, &mut slot.rng) {
                Some(action) => game.play(&mut slot.state, action),
                None => return,
            }
        }
    }

    /// A new game from the slot's next seed, played by the bots to a learner's turn.
    fn new_game(game: &G, starts: &[G::State], learners: u32, slot: &mut Slot<G::State>) {
        for _ in 0..1000 {
            slot.game_seed = next_game_seed(&mut slot.seeds);
            slot.state = drawn(starts, slot.game_seed);
            slot.steps = 0;
            Self::settle(game, learners, slot);
            if game.to_act(&slot.state) >= 0 {
                return;
            }
        }
    }

    /// Writes the slot's observation (seen by the seat to act), mask and seat: all of
    /// it if `whole`, else over the slot's last write, changing what differs.
    fn write(game: &G, slot: &mut Slot<G::State>, out: &mut SlotOut<'_>, whole: bool) {
        let seat = game.to_act(&slot.state);
        *out.to_play = i64::from(seat);
        *out.game_seed = slot.game_seed;
        if whole {
            out.mask.fill(0);
        } else {
            for &a in &slot.legal {
                out.mask[a as usize] = 0;
            }
        }
        slot.legal.clear();
        game.legal_actions(&slot.state, &mut slot.legal);
        for &a in &slot.legal {
            out.mask[a as usize] = 1;
        }
        let seat = seat.max(0) as usize;
        if whole {
            game.observe(
                &slot.state,
                seat,
                out.planes,
                out.vector,
                &mut Kept::Track(&mut slot.shadow),
            );
        } else {
            SCRATCH.with_borrow_mut(|fresh| {
                let mut kept = Kept::Update(&mut slot.shadow, fresh);
                game.observe(&slot.state, seat, out.planes, out.vector, &mut kept);
            });
        }
    }

    /// Plays `action` for the seat to act, then the bots; a game that ends (over, or
    /// truncated at `max_steps`) leaves its last position, seen by the seat that acted,
    /// in the final observation, and the next game starts.
    fn step_slot(&self, slot: &mut Slot<G::State>, action: u32, out: &mut SlotOut<'_>) {
        let (game, learners, score) = (&self.game, self.learners, self.score_reward);
        let n = game.num_players();
        let mut before = [0.0; MAX_SEATS];
        if score {
            game.scores(&slot.state, &mut before[..n]);
        }
        let acted = game.to_act(&slot.state).max(0) as usize;
        game.play(&mut slot.state, action);
        Self::settle(game, learners, slot);
        slot.steps += 1;
        let over = game.to_act(&slot.state) < 0;
        let truncated = !over && self.max_steps > 0 && slot.steps >= self.max_steps;
        if score {
            game.scores(&slot.state, out.rewards);
            for (reward, was) in out.rewards.iter_mut().zip(before) {
                *reward -= was;
            }
        } else if over {
            game.returns(&slot.state, out.rewards);
        } else {
            out.rewards.fill(0.0);
        }
        *out.terminated = u8::from(over);
        *out.truncated = u8::from(truncated);
        if over || truncated {
            game.scores(&slot.state, out.final_scores);
            game.observe(&slot.state, acted, out.final_planes, out.final_vector, &mut Kept::Full);
            Self::new_game(game, &self.starts, learners, slot);
        }
        Self::write(game, slot, out, false);
    }
}

/// Runs `f(i, slot, next)` for every slot on the pool's threads, each its own share of
/// the slots, then what is left of the other's (`common::pool::Claims`): a step's cost
/// varies from game to game (a game that ends writes a whole observation and starts the
/// next; bots play a varying number of actions), so fixed shares left one thread
/// waiting for the other. `next` is the slot the same thread runs next, if it is known
/// (for [`prefetch_slot`]).
fn par_for<S: Send + Sync>(slots: &mut [S], pool: &Pool, f: impl Fn(usize, &mut S, Option<&S>) + Sync) {
    let claims = Claims::new(slots.len(), pool.threads());
    if pool.threads() == 1 || slots.len() <= claims.chunk() {
        for i in 0..slots.len() {
            let (done, rest) = slots.split_at_mut(i + 1);
            f(i, &mut done[i], rest.first());
        }
        return;
    }
    let base = Ptr(slots.as_mut_ptr());
    pool.run(&|t| {
        while let Some(range) = claims.next(t) {
            let end = range.end;
            for i in range {
                // SAFETY: `claims` hands out each index once (slot `i + 1` of the same
                // range is this thread's, run after this one), and `slots` outlives the run.
                let next = (i + 1 < end).then(|| unsafe { &base.part(i + 1, 1)[0] });
                f(i, unsafe { &mut base.part(i, 1)[0] }, next);
            }
        }
    });
}

/// Asks the cache for what the step of `slot` (game `i`) reads first: the slot (its
/// position), its kept bitset and legal actions, and the game's mask and vector. A
/// thousand games' states and buffers are many times the cache: each step waited for
/// its game's lines from memory, while one game's step is long enough for the next
/// one's to arrive (`docs/benchmarks.md`, "Medina's 1,024-game step").
fn prefetch_slot<S>(slot: &Slot<S>, out: &Outputs, i: usize, z: &Sizes) {
    prefetch(slot as *const Slot<S> as *const u8, std::mem::size_of::<Slot<S>>());
    prefetch(
        slot.shadow.as_ptr() as *const u8,
        std::mem::size_of_val(slot.shadow.as_slice()),
    );
    prefetch(
        slot.legal.as_ptr() as *const u8,
        std::mem::size_of_val(slot.legal.as_slice()),
    );
    prefetch(out.mask.raw().wrapping_add(i * z.actions) as *const u8, z.actions);
    prefetch(
        out.vector.raw().wrapping_add(i * z.vector) as *const u8,
        z.vector * std::mem::size_of::<f32>(),
    );
}

/// Prefetches the cache lines of `len` bytes from `start` (a hint: no memory is read).
#[inline]
fn prefetch(start: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    for offset in (0..len).step_by(64) {
        // SAFETY: a prefetch reads nothing and faults on no address.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset) as *const i8);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, len);
}

/// The batch of any game, for the Python class.
pub trait AnyVector: Send + Sync {
    fn sizes(&self) -> Sizes;
    fn num_envs(&self) -> usize;
    fn reset(&mut self, seed: u64, out: Outputs, pool: &Pool);
    /// Checks every action, then (if all are legal) plays them; else plays none.
    fn step(&mut self, actions: &[i64], out: Outputs, pool: &Pool) -> Result<(), String>;
    fn sample(&mut self, out: &mut [i64]);
    /// Games are truncated after `max_steps` steps (0: never).
    fn set_max_steps(&mut self, max_steps: u64);
}

impl<G: Game> AnyVector for Vector<G> {
    fn sizes(&self) -> Sizes {
        Vector::sizes(self)
    }

    fn num_envs(&self) -> usize {
        self.slots.len()
    }

    fn reset(&mut self, seed: u64, out: Outputs, pool: &Pool) {
        let z = self.sizes();
        let (game, starts, learners) = (&self.game, &self.starts, self.learners);
        par_for(&mut self.slots, pool, |i, slot, _| {
            slot.seeds = Rng::new(mix(seed, i as u64, 1));
            slot.rng = Rng::new(mix(seed, i as u64, 2));
            Self::new_game(game, starts, learners, slot);
            // SAFETY: slot `i` is this call's alone.
            let mut o = unsafe { out.of(i, &z) };
            o.rewards.fill(0.0);
            o.final_scores.fill(0.0);
            *o.terminated = 0;
            *o.truncated = 0;
            Self::write(game, slot, &mut o, true);
        });
    }

    fn step(&mut self, actions: &[i64], out: Outputs, pool: &Pool) -> Result<(), String> {
        if actions.len() != self.slots.len() {
            return Err(format!("{} actions for {} games", actions.len(), self.slots.len()));
        }
        // Checked against the list the mask was made from (the position's legal actions,
        // `write`), not the position: the check reads one small list a game, where
        // `Game::is_legal` read each game's position once more before its step and, in
        // a Medina turn under the dome obligation, listed its actions again.
        for (i, (&a, slot)) in actions.iter().zip(&self.slots).enumerate() {
            let ok = u32::try_from(a).is_ok_and(|a| slot.legal.contains(&a));
            if !ok {
                return Err(format!("action {a} is not legal in game {i} (see its action mask)"));
            }
        }
        let z = self.sizes();
        let mut slots = std::mem::take(&mut self.slots);
        let this = &*self;
        par_for(&mut slots, pool, |i, slot, next| {
            if let Some(next) = next {
                prefetch_slot(next, &out, i + 1, &z);
            }
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

/// The batch over `starts` (positions of one game and board).
fn vector_of(starts: &[Bound<'_, PyAny>], num_envs: usize, learners: u32, score: bool) -> PyResult<Box<dyn AnyVector>> {
    let first = starts
        .first()
        .ok_or_else(|| PyValueError::new_err("no start position"))?;
    with_position(first, |held| held.vector(starts, num_envs, learners, score))?
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
    /// Rust); `threads` the threads that step them (at most one per game); `reward` `"win"`
    /// or `"score"`; `max_steps` the steps after which a game is
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

/// A position's observation and mask written into the caller's buffers
/// (`tabletop.native`'s encoding of native states uses it).
#[pyclass(module = "tabletop._native", name = "NativeEncoder", frozen)]
pub struct NativeEncoder {
    /// The game type it encodes, and its name for messages.
    game_type: TypeId,
    name: &'static str,
    planes_len: usize,
    vector_len: usize,
    num_actions: usize,
    /// The Python int of every action id, made once: a list of legal actions then holds
    /// references to them (a Terra Nova list has hundreds, most above Python's cached
    /// small ints).
    ints: Vec<Py<PyAny>>,
}

#[pymethods]
impl NativeEncoder {
    /// The encoder of `state`'s game and board (any native position).
    #[new]
    fn new(state: &Bound<'_, PyAny>) -> PyResult<Self> {
        let mut encoder = with_position(state, |held| {
            let (planes_len, vector_len) = held.observation_lens();
            NativeEncoder {
                game_type: held.game_type(),
                name: held.name(),
                planes_len,
                vector_len,
                num_actions: held.num_actions(),
                ints: Vec::new(),
            }
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
        with_position(state, |held| self.observe(held, seat, planes.slice(), vector.slice()))?
    }

    /// Writes `state`'s legal-action mask into `mask` (one byte per action: 1 legal, 0
    /// not; a bytearray or an int8/uint8 array).
    fn mask_into(&self, state: &Bound<'_, PyAny>, mask: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut mask = ByteOut::get(mask, self.num_actions)?;
        let mut legal = Vec::new();
        with_position(state, |held| self.mark(held, &mut legal, mask.slice()))?
    }

    /// `observe_into` into one buffer of `planes_len + vector_len` floats: the planes,
    /// then the vector (OpenSpiel's flat observation tensor).
    fn observe_flat_into(&self, state: &Bound<'_, PyAny>, seat: usize, tensor: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut tensor = Out::<f32>::get(tensor, self.planes_len + self.vector_len, "tensor")?;
        let (planes, vector) = tensor.slice().split_at_mut(self.planes_len);
        with_position(state, |held| self.observe(held, seat, planes, vector))?
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
            self.observe(held, seat, planes.slice(), vector.slice())?;
            if let Some(mask) = &mut mask {
                self.mark(held, &mut Vec::new(), mask.slice())?;
            }
            Ok(())
        })?
    }

    /// The legal action ids of `state`, ascending, as a list (OpenSpiel's
    /// `legal_actions()`; `Encoding.legal_actions`); none once the game is over.
    fn legal_actions<'py>(&self, state: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let mut legal = Vec::with_capacity(256);
        with_position(state, |held| -> PyResult<()> {
            self.check(held)?;
            held.legal_ascending_into(&mut legal);
            Ok(())
        })??;
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
    /// Checks that `held` is of this encoder's game and of its sizes (a Terra Nova
    /// board, a Medina edition: each position is encoded by its own board's layout).
    fn check(&self, held: &dyn HeldPosition) -> PyResult<()> {
        if held.game_type() != self.game_type {
            return Err(PyValueError::new_err(format!(
                "a {} position for a {} encoder",
                held.name(),
                self.name
            )));
        }
        if held.observation_lens() != (self.planes_len, self.vector_len) || held.num_actions() != self.num_actions {
            return Err(PyValueError::new_err(format!(
                "the {} position is not of this encoder's board and edition (its sizes differ)",
                held.name()
            )));
        }
        Ok(())
    }

    fn observe(&self, held: &dyn HeldPosition, seat: usize, planes: &mut [f32], vector: &mut [f32]) -> PyResult<()> {
        self.check(held)?;
        if seat >= held.num_players() {
            return Err(PyValueError::new_err(format!("seat {seat} is not a seat of this game")));
        }
        held.observe(seat, planes, vector);
        Ok(())
    }

    /// The legal actions of `held` into `legal` (in the engine's order; none once over).
    fn legal(&self, held: &dyn HeldPosition, legal: &mut Vec<u32>) -> PyResult<()> {
        self.check(held)?;
        held.legal_into(legal);
        Ok(())
    }

    fn mark(&self, held: &dyn HeldPosition, legal: &mut Vec<u32>, mask: &mut [u8]) -> PyResult<()> {
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
