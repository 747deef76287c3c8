"""One scenario style and one runner for the spec scenarios of every game.

A scenario is a dict:

* ``id``: a short name, the test id (it starts with the spec's scenario number: Terra
  Nova ``T14``, ``A18-off``; Medina ``8.20-adjacency`` for §8.20).
* ``title``: one line saying what it shows.
* the position: the keys :func:`tests.builders.position` reads (Terra Nova ``pieces``,
  ``stones``, ``supply``; Medina ``layout``, ``domes``, ``palace_tiles``, ...; both
  ``players``, ``to_move``, ``variants``, Terra Nova also ``ruleset`` and its ``board``),
  or ``setup``: the :class:`~tabletop.core.protocol.GameConfig` arguments of a new game.
* ``steps``: tuples run in order, the first word names the step.

Steps every game understands (moves in the game's own notation, ``docs/notation.md``):

* ``("play", move)``: the move is legal; apply it.
* ``("legal", move, True/False)``: whether the move is legal (``is_legal`` and membership
  in ``legal_moves()`` agree); an illegal one is also rejected by ``apply`` with an
  ``IllegalMoveError`` that quotes the move, and the state is unchanged.  Not applied.
* ``("illegal", move, reason)``: as ``("legal", move, False)``, and the error message
  contains ``reason``.
* ``("moves", prefix, [moves])``: exactly these legal moves have notation starting with
  ``prefix`` (``"d4-"``: the slides from d4; ``"#"``: the stones; ``"gray@"``).
* ``("count", prefix, n)``: ``n`` legal moves have notation starting with ``prefix``.
* ``("kinds", [kinds])``: ``legal_kinds()``, in order.
* ``("to_move", seat)``, ``("scores", [...])``, ``("ply", n)``, ``("phase", name)``.
* ``("over", termination, [winners])``: the game is over (no legal moves) with this
  outcome; ``("not_over",)``: it is not.
* ``("describe", text)``: the game's score description contains ``text``.

A game adds its own step words (its checks, and actions such as "finish the setup")
by passing a dict ``word -> function(state, *args)`` to :class:`ScenarioRunner`; a
function returns the new state, or ``None`` when it only checks.  Each game's test
module holds its words; the runner knows no game.

A failing step raises :class:`ScenarioFailure` naming the scenario, the step's index and
the step, and saying what differed.

A runner plays on one engine (``engine="python"`` or ``"native"``).  On the native engine
the position is loaded into it (``NativeGame.load_state``), the shared steps go through
the native state's protocol, and the game's own step words read :func:`fields` (the
Python engine's equal state, which the game's ``agree`` function, run after every step,
holds equal to the native position's own fields).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest

from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make
from tests.builders import position

Step = tuple[Any, ...]
StepFunction = Callable[..., State | None]
"""``function(state, *args)``: the new state for an action, ``None`` for a check."""


class ScenarioFailure(AssertionError):
    """A scenario step failed: the message names the scenario, the step and what differed."""


def expect(actual: object, expected: object, what: str) -> None:
    """Fails with ``what: expected ..., got ...`` unless ``actual == expected``."""
    assert actual == expected, f"{what}: expected {expected!r}, got {actual!r}"


def fields(state: State) -> Any:
    """The state whose game fields (``phase``, ``palaces`` ...) a step reads: a native
    state's Python state (the protocol does not define a game's fields), else ``state``."""
    python_state = getattr(state, "python_state", None)
    return python_state() if python_state is not None else state


def _parse(state: State, text: str) -> Any:
    return state.parse_move(text)


def _names(state: State, prefix: str) -> list[str]:
    return sorted(t for t in (state.move_to_str(m) for m in state.legal_moves()) if t.startswith(prefix))


def _rejected(state: State, text: str, reason: str) -> None:
    """``text`` is illegal and ``apply`` rejects it quoting it (and ``reason``), changing nothing."""
    move = _parse(state, text)
    expect(state.is_legal(move), False, f"is_legal({text})")
    expect(move in state.legal_moves(), False, f"{text} in legal_moves()")
    before = state.to_json()
    try:
        state.apply(move)
    except IllegalMoveError as exc:
        message = str(exc)
    else:
        raise AssertionError(f"apply({text}) did not raise IllegalMoveError")
    assert state.move_to_str(move) in message, f"the error {message!r} does not quote {state.move_to_str(move)!r}"
    assert reason in message, f"the error {message!r} does not mention {reason!r}"
    expect(state.to_json(), before, f"the position after the rejected {text}")


def step_play(state: State, text: str) -> State:
    move = _parse(state, text)
    if not state.is_legal(move):
        try:
            state.apply(move)
        except IllegalMoveError as exc:
            raise AssertionError(f"{text} should be legal: {exc}") from None
        raise AssertionError(f"{text} should be legal: is_legal says no, apply accepts it")
    return state.apply(move)


def step_legal(state: State, text: str, legal: bool) -> None:
    if not legal:
        _rejected(state, text, "")
        return
    move = _parse(state, text)
    expect(state.is_legal(move), True, f"is_legal({text})")
    expect(move in state.legal_moves(), True, f"{text} in legal_moves()")


def step_illegal(state: State, text: str, reason: str) -> None:
    _rejected(state, text, reason)


def step_moves(state: State, prefix: str, moves: Iterable[str]) -> None:
    found, wanted = _names(state, prefix), sorted(moves)
    missing = sorted(set(wanted) - set(found))
    extra = sorted(set(found) - set(wanted))
    assert found == wanted, f"legal moves {prefix!r}...: missing {missing}, unexpected {extra}"


def step_count(state: State, prefix: str, n: int) -> None:
    expect(len(_names(state, prefix)), n, f"number of legal moves {prefix!r}...")


def step_kinds(state: State, kinds: Sequence[str]) -> None:
    expect(list(state.legal_kinds()), list(kinds), "legal_kinds()")


def step_to_move(state: State, seat: int) -> None:
    expect(state.current_player, seat, "current player")


def step_scores(state: State, scores: Sequence[int]) -> None:
    expect(list(state.scores()), list(scores), "scores")


def step_ply(state: State, ply: int) -> None:
    expect(state.ply, ply, "ply")


def step_phase(state: State, phase: str) -> None:
    expect(getattr(fields(state), "phase", None), phase, "phase")


def step_over(state: State, termination: str, winners: Sequence[int]) -> None:
    outcome = state.outcome()
    assert outcome is not None, "the game should be over"
    expect(state.is_terminal(), True, "is_terminal()")
    expect((outcome.termination, list(outcome.winners)), (termination, list(winners)), "(termination, winners)")
    expect(len(state.legal_moves()), 0, "number of legal moves once over")


def step_not_over(state: State) -> None:
    expect(state.is_terminal(), False, "is_terminal()")
    expect(state.outcome(), None, "outcome()")


def step_describe(state: State, text: str) -> None:
    description = state.game.describe_score(state)
    assert text in description, f"the score description {description!r} does not mention {text!r}"


SHARED_STEPS: Mapping[str, StepFunction] = {
    "play": step_play,
    "legal": step_legal,
    "illegal": step_illegal,
    "moves": step_moves,
    "count": step_count,
    "kinds": step_kinds,
    "to_move": step_to_move,
    "scores": step_scores,
    "ply": step_ply,
    "phase": step_phase,
    "over": step_over,
    "not_over": step_not_over,
    "describe": step_describe,
}
"""The step words every game understands."""


class ScenarioRunner:
    """Runs the scenarios of one game: the shared steps plus the game's own.

    Args:
        game_id: the registered game.
        steps: the game's extra step words (none may shadow a shared word).
        start: builds a scenario's first state; default: ``setup`` starts a new game,
            otherwise :func:`tests.builders.position` reads the position keys.
        engine: ``"python"`` or ``"native"``: the engine the scenarios play on.
        agree: on the native engine, run after every step: fails unless the native
            position's own fields equal its Python state's (the game's check).
        load: on the native engine, the native state of a Python position (default:
            ``NativeGame.load_state``, which takes positions reached by play only).
    """

    def __init__(
        self,
        game_id: str,
        steps: Mapping[str, StepFunction] | None = None,
        start: Callable[[Mapping[str, Any]], State] | None = None,
        *,
        engine: str = "python",
        agree: Callable[[State], None] | None = None,
        load: Callable[[State], State] | None = None,
    ) -> None:
        extra = dict(steps or {})
        clash = sorted(set(extra) & set(SHARED_STEPS))
        if clash:
            raise ValueError(f"game steps shadow shared steps: {clash}")
        self.game_id = game_id
        self.engine = engine
        self.agree = agree if engine == "native" else None
        self.load = load
        self.steps: dict[str, StepFunction] = {**SHARED_STEPS, **extra}
        self.start = start or self.default_start

    def on_engine(self, state: State) -> State:
        """``state`` on this runner's engine (a Python position loaded into the native one)."""
        if self.engine == "python" or hasattr(state, "python_state"):
            return state
        if self.load is not None:
            return self.load(state)
        return make(self.game_id, engine=self.engine).load_state(state)  # type: ignore[attr-defined,no-any-return]

    def default_start(self, scenario: Mapping[str, Any]) -> State:
        """A new game for ``setup``, else the position of the scenario dict."""
        if "setup" in scenario:
            return make(self.game_id, engine=self.engine).new_initial_state(GameConfig(**scenario["setup"]))
        return position(self.game_id, scenario)

    def params(self, scenarios: Sequence[Mapping[str, Any]]) -> list[Any]:
        """``pytest.param``s of ``scenarios``, with their ids (which must be unique)."""
        ids = [s["id"] for s in scenarios]
        doubled = sorted({i for i in ids if ids.count(i) > 1})
        if doubled:
            raise ValueError(f"scenario ids used twice: {doubled}")
        return [pytest.param(s, id=s["id"]) for s in scenarios]

    def run(self, scenario: Mapping[str, Any]) -> State:
        """Runs every step of ``scenario``; returns the last state.

        Raises:
            ScenarioFailure: naming the scenario, the step's index and the step.
        """
        name = scenario.get("id", "?")
        missing = [k for k in ("id", "title", "steps") if k not in scenario]
        if missing:
            raise ScenarioFailure(f"scenario {name}: no {', '.join(missing)}")
        try:
            state = self.on_engine(self.start(scenario))
        except Exception as exc:
            raise ScenarioFailure(f"scenario {name}: the position: {type(exc).__name__}: {exc}") from exc
        for index, step in enumerate(scenario["steps"]):
            state = self.run_step(name, index, state, step)
        return state

    def run_step(self, name: str, index: int, state: State, step: Step) -> State:
        """One step of scenario ``name``; returns the state after it."""
        where = f"scenario {name}, step {index} {step!r}"
        if not isinstance(step, tuple) or not step:
            raise ScenarioFailure(f"{where}: a step is a non-empty tuple")
        kind, *args = step
        function = self.steps.get(kind)
        if function is None:
            raise ScenarioFailure(f"{where}: unknown step word {kind!r} (known: {', '.join(sorted(self.steps))})")
        try:
            after = function(state, *args)
            if after is not None:
                after = self.on_engine(after)
            if self.agree is not None:
                self.agree(state if after is None else after)
        except AssertionError as exc:
            raise ScenarioFailure(f"{where}: {exc}") from exc
        except Exception as exc:
            raise ScenarioFailure(f"{where}: {type(exc).__name__}: {exc}") from exc
        return state if after is None else after
