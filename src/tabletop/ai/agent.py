"""The Agent protocol, the kind-first random agent and the agent registry.

An agent chooses a move for the current player of a state.  Agents see only the game
protocol, never a game's internals.  ``make_agent("random", seed=1)`` builds one from
the spec strings used on the command line and in records (``random``, ``greedy``,
``mcts:3``, ``mcts:3@1s``).

Interactive programs must never wait on a bot for longer than they choose: agents that
search accept a ``deadline`` (a :func:`time.monotonic` instant) and return their best
move so far when it comes, and :func:`think` runs any agent in a background thread
whose search can be stopped at any moment.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State
from tabletop.core.registry import engine_providers


class Agent(Protocol):
    """Something that picks moves."""

    @property
    def name(self) -> str:
        """The agent spec, e.g. ``"random"`` or ``"mcts:3"``."""
        ...

    def choose_move(self, state: State) -> Move:
        """Returns a legal move for ``state.current_player``."""
        ...


@runtime_checkable
class AnytimeAgent(Protocol):
    """An agent that can be told when to answer and can be interrupted.

    ``choose_move(state, deadline)`` returns the best move found by ``deadline`` (a
    :func:`time.monotonic` instant) at the latest; ``stop()``, called from another
    thread, makes a running ``choose_move`` return its best move now.
    """

    @property
    def name(self) -> str:
        """The agent spec."""
        ...

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """Returns a legal move for ``state.current_player`` by ``deadline``."""
        ...

    def stop(self) -> None:
        """Asks a running :meth:`choose_move` to return its best move at once."""
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

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """Returns a kind-first random legal move (instantly: ``deadline`` is never near)."""
        return random_move(state, self._rng)

    def stop(self) -> None:
        """Nothing to stop: a random move takes no time."""


def random_move(state: State, rng: random.Random) -> Move:
    """A kind-first random legal move of ``state`` drawn with ``rng``."""
    kinds = state.legal_kinds()
    kind = kinds[0] if len(kinds) == 1 else rng.choice(kinds)
    moves = state.legal_moves_of_kind(kind)
    return moves[0] if len(moves) == 1 else rng.choice(moves)


def ask(agent: Agent, state: State, *, deadline: float | None = None) -> Move:
    """Asks ``agent`` for a move, passing ``deadline`` to agents that accept one.

    Args:
        agent: any agent.
        state: the position; ``state.current_player`` is the seat to move.
        deadline: a :func:`time.monotonic` instant, or ``None`` for the agent's own budget.

    Returns:
        The agent's move.
    """
    if deadline is not None and isinstance(agent, AnytimeAgent):
        return agent.choose_move(state, deadline)
    return agent.choose_move(state)


class PendingMove:
    """A move being chosen in a background thread (see :func:`think`)."""

    def __init__(self, agent: Agent, state: State, deadline: float | None) -> None:
        self._agent = agent
        self._move: Move | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(state, deadline), daemon=True)
        self._thread.start()

    def _run(self, state: State, deadline: float | None) -> None:
        try:
            self._move = ask(self._agent, state, deadline=deadline)
        except BaseException as exc:
            self._error = exc

    def done(self) -> bool:
        """Whether the move is ready."""
        return not self._thread.is_alive()

    def stop(self) -> Move:
        """Interrupts the search and returns the best move found so far."""
        # A finished search must not be stopped: the flag would cut the next one short.
        if not self.done() and isinstance(self._agent, AnytimeAgent):
            self._agent.stop()
        return self.result()

    def result(self, timeout: float | None = None) -> Move:
        """Waits up to ``timeout`` seconds (for ever if ``None``) and returns the move.

        Raises:
            TimeoutError: if the move is not ready in time.
        """
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise TimeoutError("the agent is still thinking")
        if self._error is not None:
            raise self._error
        assert self._move is not None
        return self._move


def think(agent: Agent, state: State, *, deadline: float | None = None) -> PendingMove:
    """Starts choosing a move in a background thread and returns at once.

    A front end polls :meth:`PendingMove.done`, or calls :meth:`PendingMove.stop` to
    take the best move found so far (for example when the player presses a key).
    Use one pending move per agent at a time: an agent is not re-entrant.

    Args:
        agent: the agent to ask.
        state: the position; the agent must not be used elsewhere meanwhile.
        deadline: a :func:`time.monotonic` instant at which the agent answers.
    """
    return PendingMove(agent, state, deadline)


AgentFactory = Callable[[str | None, int | None], Agent]
"""Builds an agent from the part of the spec after ``:`` (or ``None``) and a seed."""

_AGENTS: dict[str, AgentFactory] = {"random": lambda _arg, seed: RandomAgent(seed)}
_BUILTINS_LOADED = False


def register_agent(kind: str, factory: AgentFactory) -> None:
    """Makes ``make_agent(f"{kind}[:arg]")`` available."""
    _AGENTS[kind] = factory


def _load_builtins() -> None:
    # The search bots import this module, so they register themselves lazily here
    # rather than being imported at the top (which would be circular).
    global _BUILTINS_LOADED
    if not _BUILTINS_LOADED:
        _BUILTINS_LOADED = True
        import tabletop.ai.alphabeta
        import tabletop.ai.greedy
        import tabletop.ai.ladder
        import tabletop.ai.levels  # noqa: F401 - registers "mcts"

        # The bots that come with an engine (the native MCTS, "native", where the
        # extension is built), from the providers registered in core: the engine
        # packages are a layer beside this one (docs/architecture.md).
        for provider in engine_providers().values():
            for kind, factory in provider.agent_factories().items():
                register_agent(kind, factory)


def agent_kinds() -> tuple[str, ...]:
    """The registered agent kinds (``human`` is handled by the interactive front ends)."""
    _load_builtins()
    return tuple(sorted(_AGENTS))


def make_agent(spec: str, *, seed: int | None = None) -> Agent:
    """Builds an agent from its spec, e.g. ``"random"``, ``"greedy"`` or ``"mcts:3"``.

    Raises:
        ConfigError: for an unknown agent kind or a bad argument.
    """
    _load_builtins()
    kind, _, arg = spec.partition(":")
    if "@" in kind:  # "alphabeta@0.5s": a time without an argument before it
        kind, at, time_text = kind.partition("@")
        arg = at + time_text
    try:
        factory = _AGENTS[kind]
    except KeyError:
        raise ConfigError(f"unknown agent {spec!r} (known: {', '.join(agent_kinds())})") from None
    return factory(arg or None, seed)
