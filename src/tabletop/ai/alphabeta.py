"""A Boardspace-style search bot: iterative-deepening alpha-beta with a time limit.

``alphabeta`` searches one action (ply) deeper per iteration until its time is up and
plays the best move of the deepest finished iteration (or of the unfinished one, once
that has searched its first move: the previous best is searched first, so anything
the unfinished iteration prefers has been proved better at the new depth).

* **Plies, not turns.**  The seat to move is read from every state, so a turn of three
  actions (Terra Nova) or two (Medina) is simply three or two plies by the same seat.
* **Paranoid for 3-4 seats.**  The bot's own seat maximizes, every other seat is
  assumed to minimize the bot's value (as if the rivals played together).  Max-n, the
  exact generalization, keeps a value per seat and can prune only in special cases
  (shallow pruning needs a bound on the sum of the values), so at the same time it
  searches much less deep; paranoid search prunes as two-player alpha-beta does
  (Sturtevant, "Multi-player games: algorithms and approaches", 2003).
* **Leaf value.**  ``heuristic_margin``: the bot's estimated final score
  (``Game.evaluate``) minus the best rival's; a finished game adds 1,000 per win share.
* **Move ordering and beam.**  At every node each legal move is applied once and the
  position after it valued statically; moves are searched best first (for the seat to
  move: highest value at the bot's own nodes, lowest at the rivals'), after the
  transposition table's best move.  Terra Nova has 100-250 slides and stones per
  action and Medina up to 250 placements, so only the ``beam`` best moves by static
  value are searched below a node (``root_beam`` at the root).  The static pass over
  all moves is also the exact value of a node one ply above the horizon, so the last
  ply costs no extra search.  The children of each node are kept for the next
  iteration, which is why deepening costs little more than the deepest iteration.
* **Transposition table.**  Keyed by the state itself (states are hashable values, equal
  when they are the same position at the same ply): depth, value, bound kind and best
  move.  It lives across moves and is cleared when it grows past ``tt_size`` entries.

Specs: ``alphabeta`` (0.5 s per move), ``alphabeta@0.2s`` (another time),
``alphabeta:3`` (a fixed depth of 3 plies, no clock: reproducible), ``alphabeta:3@1s``.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Final

from tabletop.ai.agent import register_agent
from tabletop.ai.clock import MoveBudget, parse_seconds
from tabletop.ai.evaluators import heuristic_margin, readable_state
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2
"""Kinds of transposition-table value: exact, a lower bound (failed high), an upper bound."""


@dataclass(frozen=True)
class AlphaBetaConfig:
    """Settings of the search.

    Attributes:
        time_limit: seconds per move (``None``: no clock, search to ``max_depth``).
        max_depth: the deepest iteration, in plies.
        beam: moves searched below an interior node (the best by static value).
        root_beam: moves searched at the root.
        tt_size: the transposition table is cleared when it holds more entries.
    """

    time_limit: float | None = 0.5
    max_depth: int = 64
    beam: int = 6
    root_beam: int = 16
    tt_size: int = 200_000

    def __post_init__(self) -> None:
        if self.time_limit is None and self.max_depth > 16:
            raise ValueError("an alpha-beta search without a time limit needs a max_depth of at most 16")
        if self.beam < 1 or self.root_beam < 1 or self.max_depth < 1:
            raise ValueError("beam, root_beam and max_depth must be at least 1")


class _OutOfTime(Exception):
    """Raised inside the search when the deadline passes or stop() is called."""


Child = tuple[float, Move, State]
"""A move, the position after it and that position's static value for the bot."""


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """What the last search did: the deepest finished iteration, nodes expanded, seconds."""

    depth: int
    nodes: int
    seconds: float
    value: float


class AlphaBetaAgent:
    """Iterative-deepening paranoid alpha-beta (see the module docstring).

    Args:
        config: the search settings.
        seed: breaks ties between equally valued moves.
        name: the spec shown in records.
    """

    def __init__(self, config: AlphaBetaConfig | None = None, *, seed: int | None = None, name: str = "alphabeta"):
        self.name = name
        self.config = config or AlphaBetaConfig()
        self.last_info: SearchInfo | None = None
        self._rng = random.Random(seed)
        self._stopped = False
        self._budget = MoveBudget(None, None)
        self._seat = 0
        self._nodes = 0
        self._tt: dict[State, tuple[int, float, int, Move | None]] = {}
        self._children: dict[State, list[Child]] = {}

    def stop(self) -> None:
        """Makes a running :meth:`choose_move` return its best move now."""
        self._stopped = True

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """Returns the best move found by iterative deepening before the deadline."""
        state = readable_state(state)
        moves = state.legal_moves()
        if len(moves) == 1:
            self._stopped = False
            return moves[0]
        ranked = self._search(state, deadline, exact_root=False)
        return ranked[0][0]

    def analyse_position(self, state: State, deadline: float | None = None) -> list[tuple[Move, float]]:
        """Every searched root move with its value for the seat to move, best first.

        Unlike :meth:`choose_move`, every root move (up to ``root_beam``, then the rest
        by static value) is searched with a full window, so each value is exact at the
        depth reached, not only a bound.  Values are in points: the seat's estimated
        final score minus the best rival's (plus 1,000 per win share once the game is
        decided).

        Args:
            state: a position that is not over.
            deadline: a :func:`time.monotonic` instant (``None``: the configured budget).
        """
        return self._search(readable_state(state), deadline, exact_root=True)

    # The search -------------------------------------------------------------------

    def _search(self, state: State, deadline: float | None, *, exact_root: bool) -> list[tuple[Move, float]]:
        start = time.monotonic()
        config = self.config
        budget = self._budget = MoveBudget(config.time_limit, deadline)
        self._seat = state.current_player
        self._nodes = 0
        self._children = {}
        if len(self._tt) > config.tt_size:
            self._tt.clear()
        # Depth 1 (the static value of every move) always finishes, so there is a move.
        root = self._expand(state)
        ranked: list[tuple[Move, float]] = [(move, value) for value, move, _ in root]
        reached = 1
        try:
            for depth in range(2, config.max_depth + 1):
                if self._stopped or budget.expired():
                    break
                partial: list[tuple[Move, float]] = []
                try:
                    self._search_root(state, root, depth, exact_root, partial)
                except _OutOfTime:
                    # The previous best is searched first: a partial result that has it
                    # (and maybe something proved better) is at least as good.
                    if partial and not exact_root:
                        best = max(partial, key=lambda mv: mv[1])
                        ranked = [best, *[mv for mv in ranked if mv[0] != best[0]]]
                    break
                searched = {move for move, _ in partial}
                ranked = sorted(partial, key=lambda mv: -mv[1]) + [mv for mv in ranked if mv[0] not in searched]
                reached = depth
                # Order the root by this iteration's values for the next one.
                order = {move: i for i, (move, _) in enumerate(ranked)}
                root.sort(key=lambda child: order.get(child[1], len(order)))
                if abs(ranked[0][1]) >= 500.0:  # the game is decided within the horizon
                    break
        finally:
            self._stopped = False
        self.last_info = SearchInfo(reached, self._nodes, time.monotonic() - start, ranked[0][1])
        return ranked

    def _search_root(
        self, state: State, root: list[Child], depth: int, exact_root: bool, out: list[tuple[Move, float]]
    ) -> None:
        alpha = -math.inf
        for _, move, after in root[: self.config.root_beam]:
            value = self._alphabeta(after, depth - 1, -math.inf if exact_root else alpha, math.inf)
            out.append((move, value))
            alpha = max(alpha, value)
        best = max(out, key=lambda mv: mv[1])
        self._tt[state] = (depth, best[1], EXACT, best[0])

    def _alphabeta(self, state: State, depth: int, alpha: float, beta: float) -> float:
        """The paranoid value of ``state`` for the bot, searched ``depth`` plies (fail-soft)."""
        if depth <= 0 or state.is_terminal():
            return heuristic_margin(state, self._seat)
        if self._stopped or self._budget.expired():
            raise _OutOfTime
        entry = self._tt.get(state)
        tt_move: Move | None = None
        if entry is not None:
            stored_depth, stored, kind, tt_move = entry
            if stored_depth >= depth and (
                kind == EXACT or (kind == LOWER and stored >= beta) or (kind == UPPER and stored <= alpha)
            ):
                return stored
        children = self._expand(state)
        maximizing = state.current_player == self._seat
        if depth == 1:
            # The static pass already holds every child's leaf value; the first is the best.
            value, best_move = children[0][0], children[0][1]
            self._tt[state] = (1, value, EXACT, best_move)
            return value
        order = children[: self.config.beam]
        if tt_move is not None and order[0][1] != tt_move:
            # The table's best move first (the cached list keeps its static order).
            order = [child for child in children if child[1] == tt_move] + [c for c in order if c[1] != tt_move]
        alpha0, beta0 = alpha, beta
        best_move = order[0][1]
        best = -math.inf if maximizing else math.inf
        for _, move, after in order:
            value = self._alphabeta(after, depth - 1, alpha, beta)
            if maximizing:
                if value > best:
                    best, best_move = value, move
                alpha = max(alpha, value)
            else:
                if value < best:
                    best, best_move = value, move
                beta = min(beta, value)
            if alpha >= beta:
                break
        kind = UPPER if best <= alpha0 else LOWER if best >= beta0 else EXACT
        self._tt[state] = (depth, best, kind, best_move)
        return best

    def _expand(self, state: State) -> list[Child]:
        """Every move of ``state`` with its static value, best first for the seat to move."""
        cached = self._children.get(state)
        if cached is not None:
            return cached
        self._nodes += 1
        seat = self._seat
        children = [(heuristic_margin(after, seat), move, after) for move, after in _successors(state)]
        # Random tie-breaking, then a stable sort: equal values stay in shuffled order.
        self._rng.shuffle(children)
        children.sort(key=lambda child: child[0], reverse=state.current_player == seat)
        self._children[state] = children
        return children


def _successors(state: State) -> list[tuple[Move, State]]:
    return [(move, state.apply(move)) for move in state.legal_moves()]


DEFAULT_TIME: Final = 0.5
"""Seconds per move of plain ``alphabeta`` (Boardspace's Medina bots use about this)."""


def parse_alphabeta(arg: str | None) -> tuple[AlphaBetaConfig, str]:
    """The settings and display name for the part of an ``alphabeta`` spec after the kind.

    Args:
        arg: ``None`` (0.5 s), ``"@Ts"`` (T seconds), ``"D"`` (depth D, no clock) or
            ``"D@Ts"`` (at most depth D, T seconds).

    Raises:
        ConfigError: for a bad depth or time.
    """
    text = arg or ""
    depth_text, at, time_text = text.partition("@")
    depth: int | None = None
    if depth_text:
        try:
            depth = int(depth_text)
        except ValueError:
            raise ConfigError(f"alphabeta takes a depth in plies, e.g. 'alphabeta:3', not {depth_text!r}") from None
        if not 1 <= depth <= 16:
            raise ConfigError(f"alphabeta's depth must be 1-16 plies, got {depth}")
    seconds: float | None = None
    if at:
        seconds = parse_seconds(time_text, "alphabeta@0.5s")
    elif depth is None:
        seconds = DEFAULT_TIME
    name = "alphabeta" + (f":{depth}" if depth is not None else "") + (f"@{time_text}" if at else "")
    config = AlphaBetaConfig(time_limit=seconds, max_depth=depth if depth is not None else 64)
    return config, name


def _make_alphabeta(arg: str | None, seed: int | None) -> AlphaBetaAgent:
    config, name = parse_alphabeta(arg)
    return AlphaBetaAgent(config, seed=seed, name=name)


register_agent("alphabeta", _make_alphabeta)
