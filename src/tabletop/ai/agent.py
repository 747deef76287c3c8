"""The Agent protocol and the kind-first random agent.

An agent chooses a move for the current player of a state.  Agents see only the game
protocol, never a game's internals.  ``make_agent("random", seed=1)`` builds one from
the spec strings used on the command line and in records.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Protocol

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State


class Agent(Protocol):
    """Something that picks moves."""

    @property
    def name(self) -> str:
        """The agent spec, e.g. ``"random"`` or ``"mcts:3"``."""
        ...

    def choose_move(self, state: State) -> Move:
        """Returns a legal move for ``state.current_player``."""
        ...


class RandomAgent:
    """Kind-first random play: a legal kind uniformly, then a move of that kind uniformly.

    Plain uniform choice over all moves is dominated by whichever kind has the most
    moves (in Terra Nova, slides: such games almost never place a stone), so every
    kind of action gets the same chance instead.
    """

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose_move(self, state: State) -> Move:
        """Returns a kind-first random legal move."""
        return random_move(state, self._rng)


def random_move(state: State, rng: random.Random) -> Move:
    """A kind-first random legal move of ``state`` drawn with ``rng``."""
    kinds = state.legal_kinds()
    kind = kinds[0] if len(kinds) == 1 else rng.choice(kinds)
    moves = state.legal_moves_of_kind(kind)
    return moves[0] if len(moves) == 1 else rng.choice(moves)


AgentFactory = Callable[[str | None, int | None], Agent]
"""Builds an agent from the part of the spec after ``:`` (or ``None``) and a seed."""

_AGENTS: dict[str, AgentFactory] = {"random": lambda _arg, seed: RandomAgent(seed)}


def register_agent(kind: str, factory: AgentFactory) -> None:
    """Makes ``make_agent(f"{kind}[:arg]")`` available."""
    _AGENTS[kind] = factory


def agent_kinds() -> tuple[str, ...]:
    """The registered agent kinds (``human`` is handled by the interactive front ends)."""
    return tuple(sorted(_AGENTS))


def make_agent(spec: str, *, seed: int | None = None) -> Agent:
    """Builds an agent from its spec, e.g. ``"random"`` or ``"mcts:3"``.

    Raises:
        ConfigError: for an unknown agent kind or a bad argument.
    """
    kind, _, arg = spec.partition(":")
    try:
        factory = _AGENTS[kind]
    except KeyError:
        raise ConfigError(f"unknown agent {spec!r} (known: {', '.join(agent_kinds())})") from None
    return factory(arg or None, seed)
