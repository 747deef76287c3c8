"""Random-playout benchmark: complete kind-first random games through the protocol.

``tabletop bench engine GAME`` calls :func:`bench_playouts` for each of the game's bench
player counts; with ``--engine native`` it times the native engine three ways (whole games
in Rust, a Python loop over action ids, the protocol loop uniform as OpenSpiel's and
kind-first), each timed in turn with OpenSpiel's C++ Amazons (:func:`alternated`;
``docs/benchmarks.md``, "Native engines").  :func:`bench_playouts`
measures the engine as every game-agnostic layer sees it: each step asks the state for
its legal kinds, then for the moves of one kind, then applies one.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tabletop.ai.agent import make_agent, random_move
from tabletop.core.protocol import Game, GameConfig, State


@dataclass(frozen=True, slots=True)
class PlayoutBench:
    """What one benchmark run measured."""

    game: str
    num_players: int
    games: int
    actions: int
    seconds: float
    terminations: Counter[str] = field(default_factory=Counter)

    @property
    def games_per_second(self) -> float:
        """Complete games per second."""
        return self.games / self.seconds

    @property
    def actions_per_second(self) -> float:
        """Actions (moves applied) per second."""
        return self.actions / self.seconds

    @property
    def mean_actions(self) -> float:
        """Mean number of actions per game."""
        return self.actions / self.games


def bench_playouts(
    game: Game,
    num_players: int,
    *,
    seconds: float = 5.0,
    min_games: int = 3,
    seed: int = 0,
    ruleset: str = "default",
    clock: Callable[[], float] = time.perf_counter,
) -> PlayoutBench:
    """Plays complete kind-first random games for about ``seconds`` (at least ``min_games``).

    Each game gets its own config seed (``seed + i``), so runs are reproducible in
    everything but time.

    Args:
        game: the game to measure.
        num_players: seats per game.
        seconds: how long to keep starting new games.
        min_games: games to play even if that takes longer.
        seed: first config and move-choice seed.
        ruleset: the preset to play.
        clock: what measures the time (``time.process_time`` for CPU seconds).

    Returns:
        The totals of the run.
    """
    rng = random.Random(seed)
    games = actions = 0
    terminations: Counter[str] = Counter()
    start = clock()
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        state = game.new_initial_state(GameConfig(num_players=num_players, ruleset=ruleset, seed=seed + games))
        while not state.is_terminal():
            state = state.apply(random_move(state, rng))
            actions += 1
        outcome = state.outcome()
        terminations[outcome.termination if outcome is not None else "unknown"] += 1
        games += 1
        elapsed = clock() - start
    return PlayoutBench(game.id, num_players, games, actions, elapsed, terminations)


# ---------------------------------------------------------------------------------
# The native engines (docs/native.md) and the OpenSpiel yardstick, timed in CPU seconds:
# the machines are shared, and CPU time swings far less than wall time there.


def native_core(state: object) -> Any:
    """The Rust state behind a native engine's state (``state.native``).

    Raises:
        ValueError: if ``state`` is not from a native engine (``make(..., engine="native")``).
    """
    core = getattr(state, "native", None)
    if core is None or not hasattr(core, "random_playouts"):
        raise ValueError("not a native engine's state: make the game with engine='native'")
    return core


def bench_native_playouts(
    game: Game,
    num_players: int,
    *,
    seconds: float = 5.0,
    min_games: int = 3,
    seed: int = 0,
    ruleset: str = "default",
    chunk: int = 200,
) -> PlayoutBench:
    """Whole kind-first random games in Rust (the native state's ``random_playouts``).

    Games start from fresh configs (seed ``seed + i`` for the ``i``-th chunk of ``chunk``
    games), as :func:`bench_playouts`; the time is the CPU time of the playouts (making
    the initial states, in Python, is not counted).
    """
    games = actions = 0
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        state = game.new_initial_state(GameConfig(num_players=num_players, ruleset=ruleset, seed=seed + games))
        core = native_core(state)
        start = time.process_time()
        played, moved = core.random_playouts(chunk, seed + games)
        elapsed += time.process_time() - start
        games += played
        actions += moved
    return PlayoutBench(game.id, num_players, games, actions, elapsed)


def bench_action_loop(
    game: Game, num_players: int, *, seconds: float = 5.0, min_games: int = 3, seed: int = 0, ruleset: str = "default"
) -> PlayoutBench:
    """Random games driven from a Python loop over the Rust state with action ids.

    The loop OpenSpiel's Python API runs (``legal_actions``, a choice, ``apply_action``
    changing the state in place), on the native engine's mutable state
    (``state.native.mutable_copy()``, ``docs/native.md``): uniform over all legal
    actions, CPU time.  Each game starts from ``game.new_initial_state`` of its own
    config, as OpenSpiel's loop starts each from ``new_initial_state()``.
    """

    def play(state: State, rng: random.Random) -> int:
        core = native_core(state).mutable_copy()
        actions = 0
        while not core.is_terminal():
            core.apply_action(rng.choice(core.legal_actions()))
            actions += 1
        return actions

    return _cpu_timed_games(game, num_players, play, seconds, min_games, seed, ruleset)


def bench_protocol_loop(
    game: Game, num_players: int, *, seconds: float = 5.0, min_games: int = 3, seed: int = 0, ruleset: str = "default"
) -> PlayoutBench:
    """OpenSpiel's Python loop, written through the protocol: random games of
    ``state = state.apply(rng.choice(state.legal_moves()))`` until ``is_terminal()``.

    The same four calls a step as OpenSpiel's loop (``is_terminal``, ``legal_actions``,
    ``random.choice``, ``apply_action``), uniform over all legal moves, CPU time, each game
    from ``game.new_initial_state`` of its own config; the moves are the game's ``Move``
    objects and every ``apply`` makes a new immutable state.  On the native engine every
    call is a Rust method of the state (``tabletop._native.NativeState``).
    """

    def play(state: State, rng: random.Random) -> int:
        actions = 0
        while not state.is_terminal():
            state = state.apply(rng.choice(state.legal_moves()))
            actions += 1
        return actions

    return _cpu_timed_games(game, num_players, play, seconds, min_games, seed, ruleset)


def _cpu_timed_games(
    game: Game,
    num_players: int,
    play: Callable[[State, random.Random], int],
    seconds: float,
    min_games: int,
    seed: int,
    ruleset: str,
) -> PlayoutBench:
    """Games played by ``play(initial state, rng) -> actions`` for about ``seconds`` of CPU
    time (at least ``min_games``), each from the config of seed ``seed + i``.  The steps
    stay in ``play``'s own loop: only a call per game is added to what is timed."""
    rng = random.Random(seed)
    games = actions = 0
    start = time.process_time()
    elapsed = 0.0
    while games < min_games or elapsed < seconds:
        state = game.new_initial_state(GameConfig(num_players=num_players, ruleset=ruleset, seed=seed + games))
        actions += play(state, rng)
        games += 1
        elapsed = time.process_time() - start
    return PlayoutBench(game.id, num_players, games, actions, elapsed)


def bench_protocol_cpu(
    game: Game, num_players: int, *, seconds: float = 5.0, min_games: int = 3, seed: int = 0, ruleset: str = "default"
) -> PlayoutBench:
    """:func:`bench_playouts` (kind-first through the protocol, ``Move`` objects) in CPU time."""
    return bench_playouts(
        game, num_players, seconds=seconds, min_games=min_games, seed=seed, ruleset=ruleset, clock=time.process_time
    )


@dataclass(frozen=True, slots=True)
class Rate:
    """Actions over CPU seconds: a yardstick's share of an alternated measurement."""

    actions: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.actions / self.seconds


def openspiel() -> Any | None:
    """The ``pyspiel`` module, or ``None`` without OpenSpiel (the ``rl`` extra): every
    yardstick below is then ``None``."""
    try:
        import pyspiel  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError:
        return None
    return pyspiel


def openspiel_cpp_loop(seconds: float, seed: int = 0) -> Rate | None:
    """OpenSpiel's C++ Amazons, whole games in C++ (``pyspiel.evaluate_bots`` with uniform
    random bots), timed as ``../shared/notes/performance-anchors.md`` does it; ``None``
    without OpenSpiel (the ``rl`` extra)."""
    pyspiel = openspiel()
    if pyspiel is None:
        return None
    game = pyspiel.load_game("amazons")
    bots = [pyspiel.make_uniform_random_bot(0, seed + 1), pyspiel.make_uniform_random_bot(1, seed + 2)]
    rng = random.Random(seed)
    actions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        pyspiel.evaluate_bots(state, bots, rng.randrange(1 << 30))
        actions += len(state.history())
    return Rate(actions, time.process_time() - start)


def openspiel_python_loop(seconds: float, seed: int = 0) -> Rate | None:
    """OpenSpiel's C++ Amazons driven from a Python loop (``legal_actions``,
    ``random.choice``, ``apply_action``); ``None`` without OpenSpiel."""
    pyspiel = openspiel()
    if pyspiel is None:
        return None
    game = pyspiel.load_game("amazons")
    rng = random.Random(seed)

    # The same shape as this package's own Python loops (`_cpu_timed_games`): the steps
    # counted per game, in a function of their own. (Counted across games, the count
    # passes Python's cached small ints and costs an int object a step.)
    def play(state: Any) -> int:
        played = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            played += 1
        return played

    actions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        actions += play(game.new_initial_state())
    return Rate(actions, time.process_time() - start)


def alternated(
    ours: Callable[[float, int], PlayoutBench],
    yardstick: Callable[[float, int], Rate | None],
    seconds: float,
    seed: int = 0,
    rounds: int = 4,
) -> tuple[PlayoutBench, Rate | None]:
    """``ours(seconds, seed)`` and ``yardstick(seconds, seed)`` in turn, ``rounds`` slices of
    ``seconds / rounds`` each, summed: the yardstick runs beside each measurement, not
    once before them all, so a shared machine that slows down or speeds up during a run
    moves both alike and their ratio holds.  Each slice plays games of its own seeds.
    The yardstick is ``None`` where it returns ``None`` (no OpenSpiel).
    """
    if rounds < 1 or not seconds > 0:
        raise ValueError(f"alternated needs rounds >= 1 and seconds > 0, not {rounds} and {seconds}")
    slice_seconds = seconds / rounds
    slices: list[PlayoutBench] = []
    stick: Rate | None = Rate(0, 0.0)
    for k in range(rounds):
        slices.append(ours(slice_seconds, seed + k * 1_000_003))
        if stick is not None:
            more = yardstick(slice_seconds, seed + k)
            stick = None if more is None else Rate(stick.actions + more.actions, stick.seconds + more.seconds)
    ended: Counter[str] = Counter()
    for part in slices:
        ended.update(part.terminations)
    first = slices[0]
    return (
        PlayoutBench(
            first.game,
            first.num_players,
            sum(p.games for p in slices),
            sum(p.actions for p in slices),
            sum(p.seconds for p in slices),
            ended,
        ),
        stick,
    )


@dataclass(frozen=True, slots=True)
class SearchRate:
    """Simulations per CPU second of one search, and its tree."""

    label: str
    simulations: int
    per_second: float
    nodes: int
    bytes_per_node: int

    @property
    def bytes_per_simulation(self) -> float:
        """Tree bytes the search added per simulation (0 where the tree is not known)."""
        return self.nodes * self.bytes_per_node / self.simulations if self.simulations else 0.0


def bench_native_mcts(
    game: Game,
    num_players: int,
    simulations: int,
    *,
    ply: int = 0,
    seed: int = 0,
    widening: float = 0.0,
    rollout_limit: int | None = None,
) -> SearchRate:
    """The native MCTS (``state.native.search``, the ``native`` bot's search) from the
    position after ``ply`` random moves: CPU seconds of the searching thread.  With
    ``rollout_limit``, rollouts stop after that many actions and take the game's
    evaluation in Rust (Terra Nova)."""
    rng = random.Random(seed)
    state = game.new_initial_state(GameConfig(num_players=num_players, seed=seed))
    for _ in range(ply):
        if state.is_terminal():
            break
        state = state.apply(random_move(state, rng))
    core = native_core(state)
    start = time.thread_time()
    limit = {} if rollout_limit is None else {"rollout_limit": rollout_limit}
    found = core.search(simulations=simulations, seed=seed, widening=widening, **limit)
    seconds = time.thread_time() - start
    label = f"native MCTS, ply {state.ply}" + (f", widening {widening:g}" if widening else "")
    label += f", rollouts of {rollout_limit} then evaluation" if rollout_limit is not None else ""
    return SearchRate(label, simulations, simulations / seconds, found["nodes"], found["node_bytes"])


@dataclass(frozen=True, slots=True)
class AlphaBetaDepth:
    """How deep the native alpha-beta got from one position in its CPU budget."""

    ply: int
    actions: int
    width: int
    depth: int
    nodes: int
    cpu_seconds: float


def bench_native_alphabeta(
    game: Game, num_players: int, cpu_seconds: float, *, ply: int = 0, seed: int = 0, width: int | None = None
) -> AlphaBetaDepth:
    """The ``native-ab`` bot's search from the position after ``ply`` random moves of seed
    ``seed``, as deep as ``cpu_seconds`` CPU seconds of the searching thread allow, with
    the bot's width for the game or ``width``.

    Raises:
        ConfigError: where the native alpha-beta is not built.
    """
    rng = random.Random(seed)
    state = game.new_initial_state(GameConfig(num_players=num_players, seed=seed))
    for _ in range(ply):
        if state.is_terminal():
            break
        state = state.apply(random_move(state, rng))
    settings = "" if width is None else f",width={width}"
    # The bot itself (the ai registry), so the bench times what plays: its width per game.
    agent: Any = make_agent(f"native-ab:64{settings}@{cpu_seconds:g}cpu")
    start = time.thread_time()
    agent.choose_move(state)
    seconds = time.thread_time() - start
    stats = agent.last_stats
    actions = len(native_core(state).legal_actions())
    return AlphaBetaDepth(state.ply, actions, agent.config.width_for(game.id), stats.depth, stats.nodes, seconds)


def openspiel_mcts_yardstick(simulations: int, seed: int = 0) -> SearchRate | None:
    """OpenSpiel's C++ ``MCTSBot`` (one random rollout per simulation) on Amazons from
    the initial position, or ``None`` without OpenSpiel."""
    pyspiel = openspiel()
    if pyspiel is None:
        return None
    game = pyspiel.load_game("amazons")
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 100_000, False, seed, False)
    state = game.new_initial_state()
    start = time.process_time()
    bot.step(state)
    seconds = time.process_time() - start
    return SearchRate("OpenSpiel C++ MCTSBot, Amazons", simulations, simulations / seconds, 0, 0)
