"""A native state's Python state built from its exported fields, not by replay
(``NativeGame.python_state_of``: the Rust position's ``export()``, then the game's
``State.from_fields``; ``docs/native.md``, "The protocol state").

Random games of every preset and player count the native engine plays (and random flag
mixes) run on both
engines with the same moves; at positions along the way the state built directly from the
native fields must equal the Python engine's state that the moves reached (the replayed
one): equal, the same ``to_json`` and the same legal moves.  Where the export lacks a
field (Terra Nova's scored ``areas``: the Rust engine keeps only their count) the direct
build declines where that field has changed since the state built against (then the state
replays); that must happen only then.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tabletop.core.protocol import Game, GameConfig
from tabletop.core.registry import make
from tabletop.native import NativeGame, NativeState, native_game
from tabletop.native.check import configs, native_plays
from tests.native import needs_native

pytestmark = needs_native("terranova", "medina")

CONFIGS = {"terranova": GameConfig(2, seed=3), "medina": GameConfig(3, seed=5)}


def _preset_configs(game: Game) -> list[GameConfig]:
    """Every preset at every player count that the native engine plays."""
    return [
        GameConfig(num_players=n, ruleset=ruleset, seed=17 * n + i)
        for i, ruleset in enumerate(game.rulesets)
        for n in range(game.min_players, game.max_players + 1)
        if native_plays(game, GameConfig(num_players=n, ruleset=ruleset))
    ]


CASES = [
    (game_id, config)
    for game_id in ("terranova", "medina")
    for config in [
        *_preset_configs(make(game_id, engine="python")),
        # Flag values and random mixes of them (`tabletop.native.check.configs`).
        *configs(make(game_id, engine="python"), 4, seed=900),
    ]
]


def _play_both(game_id: str, config: GameConfig, seed: int) -> list[tuple[NativeState, Any]]:
    """A kind-first random game on both engines, move for move (uniform moves seldom
    close a Terra Nova area): the positions as (native, Python)."""
    native = native_game(make(game_id, engine="python"))
    python_game = make(game_id, engine="python")
    rng = random.Random(seed)
    state: NativeState = native.new_initial_state(config)
    python: Any = python_game.new_initial_state(config)
    positions = [(state, python)]
    while not state.is_terminal():
        move = rng.choice(list(state.legal_moves_of_kind(rng.choice(list(state.legal_kinds())))))
        state = state.apply(move)
        python = python.apply(python.parse_move(python.move_to_str(move)))
        positions.append((state, python))
    return positions


def _scored_areas(state: NativeState) -> int:
    return int(state.native.export().get("num_areas", 0))


CASE_IDS = [f"{g}-{c.ruleset}-{c.num_players}p-{i}" for i, (g, c) in enumerate(CASES)]


@pytest.mark.parametrize(("game_id", "config"), CASES, ids=CASE_IDS)
def test_the_state_built_from_native_fields_is_the_replayed_one(game_id: str, config: GameConfig) -> None:
    assert any(c.ruleset == "default" for g, c in CASES if g == game_id)  # every game has cases
    for seed in range(2):
        positions = _play_both(game_id, config, seed)
        native: NativeGame = native_game(make(game_id, engine="python"))
        step = max(1, len(positions) // 15)
        built = 0
        for state, replayed in [*positions[::step], positions[-1]]:
            direct = native.python_state_of(state)  # against the initial state
            if direct is None:
                # Only where a field the export lacks has changed since: Terra Nova's areas.
                assert game_id == "terranova" and _scored_areas(state) > 0, state
                direct = native.python_state_of(state, replayed)  # against itself: nothing changed
                assert direct is not None
            built += 1
            assert direct == replayed
            assert direct.to_json() == replayed.to_json()
            assert list(direct.legal_moves()) == list(replayed.legal_moves())
            assert direct.outcome() == replayed.outcome()
        assert built >= 2
        # The native state's own Python state (the protocol's `python_state`) is the same.
        last, replayed = positions[-1]
        assert last.python_state() == replayed and last.to_json() == replayed.to_json()


def test_a_medina_state_never_replays() -> None:
    # Medina's export names every field that the native engine's rules change: each of its
    # positions is built directly (a dropped field would fail the equality above instead).
    native = native_game(make("medina", engine="python"))
    for state, _ in _play_both("medina", GameConfig(3, seed=5), 5):
        assert native.python_state_of(state) is not None


def test_a_terra_nova_state_replays_only_the_move_that_scores_an_area() -> None:
    # The export counts the scored areas (`num_areas`) but lacks them: they are taken from
    # the Python state it is built against, which must have as many.
    native = native_game(make("terranova", engine="python"))
    seen = set()
    previous = None
    for state, replayed in _play_both("terranova", GameConfig(2, seed=3), 3):
        from_start = native.python_state_of(state)
        assert (from_start is None) == (_scored_areas(state) > 0)
        if previous is not None:
            from_previous = native.python_state_of(state, previous)
            scored_now = len(replayed.areas) > len(previous.areas)
            seen.add(scored_now)
            assert (from_previous is None) == scored_now
            if from_previous is not None:
                assert from_previous == replayed and from_previous.to_json() == replayed.to_json()
        previous = replayed
    assert seen == {True, False}  # the game scored an area: both cases were seen


@pytest.mark.parametrize("game_id", ["terranova", "medina"])
def test_python_state_replays_no_move_but_those_that_score_an_area(
    game_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The protocol's `python_state()` (native/src/protocol.rs) after every move: the
    # Python engine applies a move only to rebuild a Terra Nova state whose move scored
    # an area since the previous Python state; Medina's never.
    state_class = type(make(game_id, engine="python").new_initial_state(CONFIGS[game_id]))
    replays = []
    python_apply = state_class.apply

    def counted_apply(self: Any, move: Any) -> Any:
        replays.append(move)
        return python_apply(self, move)

    native = native_game(make(game_id, engine="python"))
    rng = random.Random(11)
    state = native.new_initial_state(CONFIGS[game_id])
    areas = 0
    scoring_moves = 0
    monkeypatch.setattr(state_class, "apply", counted_apply)
    while not state.is_terminal():
        state = state.apply(rng.choice(list(state.legal_moves_of_kind(rng.choice(list(state.legal_kinds()))))))
        python = state.python_state()
        scored = len(getattr(python, "areas", ()))
        scoring_moves += scored > areas
        areas = scored
        assert python.to_json() == state.to_json()
    assert len(replays) == scoring_moves
    assert (scoring_moves > 0) == (game_id == "terranova")
