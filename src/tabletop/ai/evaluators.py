"""Leaf evaluators for the tree search: one value per seat, each in [0, 1].

An :class:`Evaluator` turns a position into one value per seat, comparable with the
win share of a finished game (1/k to each of k winners, 0 to the others).  Values for
unfinished positions come from a rollout (random or any policy) and, where the rollout
is cut short, from the game's heuristic ``Game.evaluate`` (estimated final scores),
turned into values by :class:`ScoreValue`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tabletop.ai.agent import random_move
from tabletop.core.protocol import Move, State

RolloutPolicy = Callable[[State, random.Random], Move]
"""Picks the next move of a rollout; :func:`~tabletop.ai.agent.random_move` by default."""


class Evaluator(Protocol):
    """Estimates the value of a position for every seat."""

    def evaluate(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """One value per seat in [0, 1]; the win shares for a finished game."""
        ...


@runtime_checkable
class SearchEvaluator(Protocol):
    """An evaluator that picks how to evaluate once per search, from the root position."""

    def for_search(self, root: State, rng: random.Random) -> Evaluator:
        """The evaluator to use for every leaf of a search from ``root``."""
        ...


@dataclass(frozen=True, slots=True)
class ScoreValue:
    """Maps scores (or estimated final scores) to per-seat values in [0, 1].

    A seat's value is the logistic of its lead over the best other seat, measured in
    units of the scale: 0.5 when level, about 0.73 one unit ahead.  Only the lead over
    the best rival counts, because only the winner wins.  The unit grows with the
    scores (``relative`` times the largest), so one setting suits a game scored in the
    twenties (Medina) and one scored near a hundred (Terra Nova), and a lead counts for
    less when much is still to be scored.

    Attributes:
        scale: the smallest unit, in points.
        relative: the unit as a fraction of the largest score, when that is bigger.
    """

    scale: float = 5.0
    relative: float = 0.0

    def __call__(self, scores: Sequence[float]) -> tuple[float, ...]:
        """The value of each seat given everyone's (estimated) scores."""
        if len(scores) == 1:
            return (1.0,)
        unit = max(self.scale, self.relative * max(abs(s) for s in scores))
        values = []
        for i, own in enumerate(scores):
            rival = max(s for j, s in enumerate(scores) if j != i)
            z = (own - rival) / unit
            values.append(1.0 / (1.0 + math.exp(-z)) if z > -60.0 else 0.0)
        return tuple(values)


def playout(state: State, policy: RolloutPolicy, rng: random.Random, limit: int) -> State:
    """Plays ``policy`` from ``state`` until the game ends or ``limit`` moves are made."""
    for _ in range(limit):
        if state.is_terminal():
            break
        state = state.apply(policy(state, rng))
    return state


def terminal_values(state: State, margin: ScoreValue | None, margin_weight: float) -> tuple[float, ...]:
    """The value of a finished game: win shares, blended with a little of the margin.

    The small margin term lets a bot that has the game won (or lost) still prefer
    bigger wins (smaller defeats) instead of playing at random.
    """
    shares = state.returns()
    if margin is None or margin_weight <= 0.0:
        return tuple(shares)
    by_margin = margin(state.scores())
    w = margin_weight
    return tuple((1.0 - w) * s + w * m for s, m in zip(shares, by_margin, strict=True))


@dataclass(frozen=True, slots=True)
class RandomRollout:
    """Plays the game to its end with ``policy`` and returns the win shares.

    Attributes:
        policy: the rollout policy (kind-first random by default).
        margin: how final scores become values for the margin term (``None``: none).
        margin_weight: weight of the margin term next to the win share.
        max_moves: a cap; a rollout cut there is valued by the game's heuristic.
    """

    policy: RolloutPolicy = random_move
    margin: ScoreValue | None = None
    margin_weight: float = 0.0
    max_moves: int = 100_000

    def evaluate(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Plays to the end (or ``max_moves``) and values the result."""
        end = playout(state, self.policy, rng, self.max_moves)
        if end.is_terminal():
            return terminal_values(end, self.margin, self.margin_weight)
        return (self.margin or ScoreValue())(end.game.evaluate(end))


@dataclass(frozen=True, slots=True)
class TruncatedRollout:
    """Plays at most ``depth`` moves with ``policy``, then asks the game's heuristic.

    ``depth=0`` values the position itself by the heuristic (no rollout at all).

    Attributes:
        depth: moves played before the heuristic is asked.
        value: maps the heuristic's estimated final scores to values.
        policy: the rollout policy (kind-first random by default).
        margin_weight: weight of the margin term for positions that end the game.
        heuristic: estimated final scores per seat; ``state.game.evaluate`` by default.
    """

    depth: int = 0
    value: ScoreValue = ScoreValue()
    policy: RolloutPolicy = random_move
    margin_weight: float = 0.1
    heuristic: Callable[[State], Sequence[float]] | None = None

    def evaluate(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Rolls out up to ``depth`` moves and values where it stopped."""
        state = playout(state, self.policy, rng, self.depth)
        if state.is_terminal():
            return terminal_values(state, self.value, self.margin_weight)
        estimate = self.heuristic(state) if self.heuristic is not None else state.game.evaluate(state)
        return self.value(estimate)


DEFAULT_ROLLOUT_HORIZON = 200
"""For a game without a ``rollout_horizon`` of its own: rollouts up to 200 moves."""


@dataclass(frozen=True, slots=True)
class AdaptiveRollout:
    """Random rollouts where the rest of the game is short, the heuristic where it is long.

    Once per search, one random game is played from the root.  If it ends within
    ``max_length`` moves, every leaf is valued by a random rollout of up to ``max_length``
    moves (cut ones are valued by the heuristic); otherwise leaves are valued by the
    heuristic alone (``TruncatedRollout(depth=0)``).  So a game whose remainder is short
    (all of Medina, the end of Terra Nova) gets the real outcomes of play, and a long
    remainder, where a random playout costs much and says little, gets the heuristic.

    Attributes:
        max_length: the longest remainder for which rollouts are used; ``None`` takes
            the game's own ``rollout_horizon`` (an optional ``Game`` hook: what is
            "short" depends on the game), else :data:`DEFAULT_ROLLOUT_HORIZON`.
        value: maps (estimated) scores to values.
        margin_weight: weight of the margin term for finished games.
        policy: the rollout policy (kind-first random by default).
    """

    max_length: int | None = None
    value: ScoreValue = ScoreValue()
    margin_weight: float = 0.1
    policy: RolloutPolicy = random_move

    def for_search(self, root: State, rng: random.Random) -> Evaluator:
        """Probes the remaining length from ``root`` and picks the evaluator."""
        horizon = self.max_length
        if horizon is None:
            horizon = int(getattr(root.game, "rollout_horizon", DEFAULT_ROLLOUT_HORIZON))
        if playout(root, self.policy, rng, horizon).is_terminal():
            return RandomRollout(self.policy, self.value, self.margin_weight, horizon)
        return TruncatedRollout(0, self.value, self.policy, self.margin_weight)

    def evaluate(self, state: State, rng: random.Random) -> tuple[float, ...]:
        """Values ``state`` by the heuristic (used only outside a search)."""
        return TruncatedRollout(0, self.value, self.policy, self.margin_weight).evaluate(state, rng)


def readable_state(state: State) -> State:
    """``state`` on the readable (Python) engine, where it is a native state that wraps one.

    The games' evaluations read Python states, which a native state builds by replaying
    its move: a bot that evaluates every child would pay both engines' moves (greedy ran
    1.3 times slower on native states, ``docs/native.md``).  So the evaluating bots search
    from this state; their moves are the same objects on both engines.
    """
    convert = getattr(state, "python_state", None)
    return convert() if callable(convert) else state


def heuristic_margin(state: State, seat: int) -> float:
    """``seat``'s estimated final score minus the best rival's (a move-ordering prior).

    A finished game counts its win share heavily, so a winning move ranks first.
    """
    if state.is_terminal():
        scores: Sequence[float] = state.scores()
        bonus = 1000.0 * state.returns()[seat]
    else:
        scores = state.game.evaluate(state)
        bonus = 0.0
    rival = max((s for i, s in enumerate(scores) if i != seat), default=0.0)
    return scores[seat] - rival + bonus
