"""The native alpha-beta yardstick as a bot: ``native-ab``, ``native-ab:D``, ``native-ab:D@Tcpu``.

The search runs wholly in Rust (``native/src/common/alphabeta.rs``): iterative-deepening
alpha-beta over each game's hand-written evaluation in Rust (``medina/eval.rs``,
``terranova/eval.rs``), paranoid for 3-4 seats (the bot's seat maximises its estimated
lead over the best rival, every rival minimises it), depth counted in actions (Medina's
placements, Terra Nova's steps), moves ordered by their one-ply evaluation and, two or
more actions from the horizon, only the ``width`` best of them searched.  It is the
yardstick of issue #40: a search of the kind the game sites' robots play, to measure
the ladder against (``docs/bots.md``, "The alpha-beta yardstick").

Specs:

* ``native-ab:D`` — depth ``D`` actions, no clock: a position always gets the same move;
  ``native-ab`` alone is :data:`DEFAULT_DEPTH`.
* ``native-ab:D@Tcpu`` — at most depth ``D``, and at most ``T`` CPU seconds of the
  searching thread (the deepest iteration finished by then); ``native-ab@Tcpu`` — as
  deep as ``T`` CPU seconds allow (up to :data:`MAX_DEPTH`).  The budget is CPU time
  only, which a loaded machine does not shorten: write ``cpu``, not ``s``.
* ``native-ab:D,width=W@Tcpu`` — another width (``0``: every action; the default per
  game is :data:`WIDTHS`).

The ``native-ab`` kind is registered only where the extension is built (as ``native``),
so the bot lists never offer a bot that cannot play; building the agent directly without
it says what is missing (``make native``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Move, State
from tabletop.native import native_module
from tabletop.native.mcts import to_native

DEFAULT_DEPTH: Final = 5
"""The depth of ``native-ab`` without a depth: the issue's 5 placements."""

MAX_DEPTH: Final = 64
"""The deepest search the extension accepts (``max_depth``)."""

WIDTHS: Final = {"medina": 16, "terranova": 16}
"""Actions searched per node two or more actions from the horizon, by game (measured in
``docs/bots.md``, "The alpha-beta yardstick"); other games: every action."""

KIND: Final = "native-ab"


@dataclass(frozen=True, slots=True)
class AlphaBetaSearchConfig:
    """How the native alpha-beta plays a move.

    Attributes:
        max_depth: the deepest iteration, in actions.
        cpu_seconds: CPU seconds of the searching thread a move (``None``: no clock).
        width: actions searched per node two or more actions from the horizon, best
            first by their one-ply evaluation (``None``: the game's :data:`WIDTHS`;
            ``0``: every action).
    """

    max_depth: int = DEFAULT_DEPTH
    cpu_seconds: float | None = None
    width: int | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= MAX_DEPTH:
            raise ConfigError(f"the alpha-beta depth must be between 1 and {MAX_DEPTH}, got {self.max_depth}")
        if self.cpu_seconds is not None and not 0 < self.cpu_seconds < math.inf:
            raise ConfigError(f"the CPU seconds a move must be positive and finite, got {self.cpu_seconds}")
        if self.width is not None and self.width < 0:
            raise ConfigError(f"the alpha-beta width must not be negative, got {self.width}")

    def width_for(self, game_id: str) -> int:
        """The width this search uses in ``game_id``."""
        return self.width if self.width is not None else WIDTHS.get(game_id, 0)


@dataclass(frozen=True, slots=True)
class AlphaBetaStats:
    """What the last search did: the deepest iteration finished, nodes, the value."""

    depth: int
    nodes: int
    value: float


def parse_spec(arg: str | None) -> tuple[AlphaBetaSearchConfig, str]:
    """The settings and display name for the part of a ``native-ab`` spec after ``:``.

    Args:
        arg: ``None``, ``"D"``, ``"D@Tcpu"``, ``"@Tcpu"``, each optionally with
            ``,width=W`` after the depth.

    Raises:
        ConfigError: for a bad depth, width or time.
    """
    head, at, time_text = (arg or "").partition("@")
    depth_text, *settings = head.split(",")
    config = AlphaBetaSearchConfig(max_depth=MAX_DEPTH if at and not depth_text else DEFAULT_DEPTH)
    if depth_text:
        try:
            config = replace(config, max_depth=int(depth_text))
        except ValueError:
            raise ConfigError(f"bad alpha-beta depth {depth_text!r} (e.g. '{KIND}:5' or '{KIND}:5@1cpu')") from None
    for item in settings:
        key, eq, value = item.partition("=")
        if key != "width" or not eq or not value.isdigit():
            raise ConfigError(f"bad alpha-beta setting {item!r} (known: width=N, a whole number)")
        config = replace(config, width=int(value))
    name = KIND + (f":{head}" if head else "")
    if not at:
        return config, name
    if not time_text.endswith("cpu"):
        raise ConfigError(
            f"the alpha-beta's time is CPU seconds of its thread: write '@{time_text.removesuffix('s')}cpu', "
            f"not {'@' + time_text!r}"
        )
    try:
        seconds = float(time_text.removesuffix("cpu"))
    except ValueError:
        raise ConfigError(f"bad time per move {time_text!r} (e.g. '{KIND}:5@1cpu')") from None
    return replace(config, cpu_seconds=seconds), f"{name}@{time_text}"


class NativeAlphaBetaAgent:
    """The native alpha-beta as an agent: the best move of the deepest iteration.

    Attributes:
        config: the search settings.
        last_stats: what the last search did (``None`` before the first).
    """

    def __init__(self, config: AlphaBetaSearchConfig = AlphaBetaSearchConfig(), *, name: str | None = None) -> None:
        module = native_module()
        if module is None or not _has_alphabeta():
            raise ConfigError(f"the native alpha-beta ({KIND}) needs the extension tabletop._native (`make native`)")
        self.config = config
        self._name = name or f"{KIND}:{config.max_depth}"
        self._stop = module.SearchStop()
        self.last_stats: AlphaBetaStats | None = None

    @property
    def name(self) -> str:
        return self._name

    def choose_move(self, state: State, deadline: float | None = None) -> Move:
        """The best move of the search from ``state``, by ``deadline`` (a
        :func:`time.monotonic` instant; the first iteration, depth 1, always finishes).

        Raises:
            ValueError: if the game is over, or ``state`` is not a valid position.
            ConfigError: if the game has no native engine.
        """
        native = to_native(state)
        options: dict[str, Any] = {
            "max_depth": self.config.max_depth,
            "width": self.config.width_for(state.game.id),
        }
        if self.config.cpu_seconds is not None:
            options["cpu_seconds"] = self.config.cpu_seconds
        # The Rust search has a CPU budget and a stop flag; a wall-clock deadline sets the
        # flag from a timer thread (the search runs with the GIL released).
        timer = None
        if deadline is not None:
            timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._stop.set)
            timer.start()
        try:
            found = native.native.alphabeta(stop=self._stop, **options)
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()
            # Cleared after the search (and the timer), not before: a stop() that came
            # in while the search was starting must still stop it.
            self._stop.clear()
        self.last_stats = AlphaBetaStats(found["depth"], found["nodes"], found["value"])
        action = found["action"]
        if action is None:
            raise ValueError("the game is over")
        move: Move = native.move_of_action(action)
        return move

    def stop(self) -> None:
        """Makes a running :meth:`choose_move` return the best move found so far (the
        first iteration, depth 1, always finishes)."""
        self._stop.set()


def make_native_alphabeta(arg: str | None, seed: int | None) -> NativeAlphaBetaAgent:
    """The ``native-ab`` agent of a spec (the search is deterministic: ``seed`` is unused)."""
    del seed
    config, name = parse_spec(arg)
    return NativeAlphaBetaAgent(config, name=name)


def _has_alphabeta() -> bool:
    module = native_module()
    return module is not None and hasattr(module.MedinaState, "alphabeta")


def agent_factories() -> Mapping[str, Callable[[str | None, int | None], Any]]:
    """The agent kinds this module adds (``ai.agent``'s registry): ``native-ab`` where the
    extension with the alpha-beta is built, nothing otherwise."""
    return {KIND: make_native_alphabeta} if _has_alphabeta() else {}
