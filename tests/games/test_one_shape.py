"""Both games' Python engines in one shape (#38: "Python idioms made one").

Each idiom the two games once spelled differently is pinned here for both: the state
holds a ``Context``; ``State.from_fields`` and ``rules.initial_state(context)`` build
states; ``ruleset.resolve_ruleset``; a move's ``kind`` is a class variable;
``scoring.score_sheet`` is the tables of ``Game.score_sheet``; ``StateDefaults`` is a base
of both states; and a move is one value with one notation (equal moves print the same).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import random
from types import ModuleType
from typing import Any

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.core.state_base import FrozenState, StateDefaults

GAMES = ("terranova", "medina")
CONFIGS = {"terranova": GameConfig(2, seed=4), "medina": GameConfig(3, seed=4)}
CONTEXT_FIELDS = {"game", "config", "rules", "num_players", "seat_colors"}
"""What both contexts hold (besides the board: Terra Nova's ``board``, Medina's ``geo``)."""


def _module(game_id: str, name: str) -> ModuleType:
    return importlib.import_module(f"tabletop.games.{game_id}.{name}")


def _random_states(game_id: str, count: int = 60) -> list[Any]:
    game = make(game_id, engine="python")
    rng = random.Random(7)
    state = game.new_initial_state(CONFIGS[game_id])
    states = [state]
    while not state.is_terminal() and len(states) < count:
        kind = rng.choice(list(state.legal_kinds()))
        state = state.apply(rng.choice(list(state.legal_moves_of_kind(kind))))
        states.append(state)
    return states


@pytest.mark.parametrize("game_id", GAMES)
def test_the_state_holds_a_context(game_id: str) -> None:
    state_module = _module(game_id, "state")
    context_class = state_module.Context
    fields = {f.name for f in dataclasses.fields(context_class)}
    assert fields >= CONTEXT_FIELDS
    state: Any = make(game_id, engine="python").new_initial_state(CONFIGS[game_id])
    assert isinstance(state.context, context_class)
    assert "context" in state_module.State.FIELDS
    for name in CONTEXT_FIELDS - {"seat_colors"}:
        # Read through the state as through its context, not kept a second time.
        assert getattr(state, name) is getattr(state.context, name)
        assert name not in state_module.State.FIELDS


@pytest.mark.parametrize("game_id", GAMES)
def test_states_are_built_by_from_fields_and_rules_initial_state(game_id: str) -> None:
    state_class = _module(game_id, "state").State
    rules = _module(game_id, "rules")
    assert isinstance(inspect.getattr_static(state_class, "from_fields"), classmethod)
    assert list(inspect.signature(state_class.from_fields).parameters) == ["context", "fields"]
    assert list(inspect.signature(rules.initial_state).parameters) == ["context"]
    assert not hasattr(_module(game_id, "state"), "initial")
    initial: Any = make(game_id, engine="python").new_initial_state(CONFIGS[game_id])
    assert rules.initial_state(initial.context) == initial
    for state in _random_states(game_id):
        fields = {name: getattr(state, name) for name in state.FIELDS if name != "context"}
        rebuilt = state_class.from_fields(state.context, fields)
        assert rebuilt == state and rebuilt.to_json() == state.to_json()
        assert list(rebuilt.legal_moves()) == list(state.legal_moves())


@pytest.mark.parametrize("game_id", GAMES)
def test_one_ruleset_resolver(game_id: str) -> None:
    ruleset = _module(game_id, "ruleset")
    assert not hasattr(ruleset, "make_ruleset")
    assert list(inspect.signature(ruleset.resolve_ruleset).parameters) == ["ruleset", "variants"]
    state = make(game_id, engine="python").new_initial_state(CONFIGS[game_id])
    assert ruleset.resolve_ruleset("default", {}) == ruleset.resolve_ruleset(state.config.ruleset, {})


@pytest.mark.parametrize("game_id", GAMES)
def test_a_move_kind_is_a_class_variable(game_id: str) -> None:
    seen = set()
    for state in _random_states(game_id):
        for move in state.legal_moves():
            cls = type(move)
            assert isinstance(cls.__dict__.get("kind"), str), cls  # not a property
            assert move.kind == cls.kind
            seen.add(cls)
    assert len(seen) >= 3


@pytest.mark.parametrize("game_id", GAMES)
def test_score_sheet_is_the_tables(game_id: str) -> None:
    scoring = _module(game_id, "scoring")
    game = make(game_id, engine="python")
    state = _random_states(game_id)[-1]
    sheet = scoring.score_sheet(state)
    assert isinstance(sheet, dict) and isinstance(sheet["tables"], list)
    assert sheet == game.score_sheet(state)


@pytest.mark.parametrize("game_id", GAMES)
def test_both_states_inherit_the_protocol_defaults(game_id: str) -> None:
    state_class = _module(game_id, "state").State
    assert issubclass(state_class, FrozenState) and issubclass(state_class, StateDefaults)
    assert "returns" not in vars(state_class)  # StateDefaults' one
    state = _random_states(game_id)[-1]
    assert state.returns() == (state.outcome().returns() if state.outcome() else (0.0,) * state.num_players)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_move_is_one_value_with_one_notation(game_id: str) -> None:
    by_text: dict[str, object] = {}
    for state in _random_states(game_id):
        for move in state.legal_moves():
            text = str(move)
            assert text == state.move_to_str(move)
            assert state.parse_move(text) == move
            assert by_text.setdefault(text, move) == move
    assert len(set(by_text.values())) == len(by_text)  # moves that print apart are unequal


def test_a_terra_nova_move_prints_what_it_equals() -> None:
    from tabletop.games.terranova.moves import Place

    state = make("terranova", engine="python").new_initial_state(CONFIGS["terranova"])
    board_move = state.legal_moves()[5]
    assert isinstance(board_move, Place)
    other = Place(board_move.cell, "@5")
    assert other != board_move and str(other) != str(board_move)
    assert Place(board_move.cell, str(board_move)) == board_move
    with pytest.raises(TypeError):
        Place(board_move.cell)  # type: ignore[call-arg]  # a move is made with its notation
