"""A native state's Python state built from its exported fields, never by replay
(``NativeGame.python_state_of``: the Rust position's ``export()``, then the game's
``State.from_fields``; ``docs/native.md``, "The protocol state").

Random games of every preset and player count the native engine plays (random flag
mixes, and Terra Nova maps of both bitset sizes) run on both engines with the same
moves; at positions along the way the state built directly from the native fields must
equal the Python engine's state that the moves reached (the replayed one): equal, the
same ``to_json`` and the same legal moves.  Terra Nova's export has the scored ``areas``
(the Rust position records each area's turn, lowest cell and counts), so a position
stands alone: the Python engine never applies a move to build one, and ``load`` of an
export (areas included) is the same position.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tabletop.core.protocol import Game, GameConfig
from tabletop.core.registry import make
from tabletop.native import NativeEngineError, NativeGame, NativeState, native_game
from tabletop.native.check import configs, native_plays
from tests.native import needs_native
from tests.native.test_terranova_native import MAPS

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
] + [
    # Other maps, both bitset sizes (up to 256 cells, and beyond).
    ("terranova", GameConfig(num_players=n, map=MAPS[name], seed=n))
    for name, n in [("d37", 2), ("holey", 3), ("three-dry-lands", 4), ("large-331", 3), ("largest-919", 2)]
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
    native: NativeGame = native_game(make(game_id, engine="python"))
    for seed in range(2):
        positions = _play_both(game_id, config, seed)
        step = max(1, len(positions) // 15)
        for state, replayed in [*positions[::step], positions[-1]]:
            direct = native.python_state_of(state)  # against the initial state
            assert direct == replayed
            assert direct.to_json() == replayed.to_json()
            assert list(direct.legal_moves()) == list(replayed.legal_moves())
            assert direct.outcome() == replayed.outcome()
            # The export loads as the same position, its areas included.
            fields = state.native.export()
            assert state.native.load(fields).export() == fields
        # The native state's own Python state (the protocol's `python_state`) is the same.
        last, replayed = positions[-1]
        assert last.python_state() == replayed and last.to_json() == replayed.to_json()
        if game_id == "terranova":
            assert _scored_areas(last) == len(replayed.areas)


def test_terra_nova_games_score_areas_that_the_export_names() -> None:
    # The cases above must reach areas (a kind-first random game closes some), and the
    # export's areas are the Python state's, field for field.
    native = native_game(make("terranova", engine="python"))
    last, replayed = _play_both("terranova", GameConfig(2, seed=3), 3)[-1]
    assert len(replayed.areas) > 0
    exported = last.native.export()["areas"]
    assert [tuple(map(tuple_of, area)) for area in exported] == [
        (a.cells, a.landscapes, a.t, a.value, a.counts, a.awards, a.turn) for a in replayed.areas
    ]
    direct: Any = native.python_state_of(last)
    assert direct.areas == replayed.areas


def tuple_of(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _terra_nova_end() -> tuple[NativeState, Any]:
    return _play_both("terranova", GameConfig(2, seed=3), 3)[-1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda areas: areas[1:], "not the closed cells"),
        (lambda areas: [areas[1], areas[0], *areas[2:]], "an area's turn is"),
        (lambda areas: [(a[0][1:] or [999], *a[1:]) for a in areas], "area 0's"),
        (lambda areas: [(a[0], ["nowhere"], *a[2:]) for a in areas], "area 0's landscapes, t, value or awards"),
        (lambda areas: [(*a[:3], a[3] + 1, *a[4:]) for a in areas], "area 0's landscapes, t, value or awards"),
        (lambda areas: [(*a[:4], [9, 9], *a[5:]) for a in areas], "an area's count"),
        (lambda areas: [(*a[:4], [1, 0, 0], *a[5:]) for a in areas], "counts for 2 players"),
        (lambda areas: [(*a[:6], 10**6) for a in areas], "an area's turn"),
        (lambda areas: [a[:6] for a in areas], "seven fields"),
        (lambda areas: [*areas, areas[0]], "not one whole component"),
    ],
)
def test_bad_areas_are_refused(change: Any, message: str) -> None:
    last, _ = _terra_nova_end()
    fields = last.native.export()
    assert len(fields["areas"]) >= 2
    fields["areas"] = change([tuple(a) for a in fields["areas"]])
    del fields["num_areas"]
    with pytest.raises(ValueError, match=message):
        last.native.load(fields)


def test_num_areas_must_count_the_areas() -> None:
    last, _ = _terra_nova_end()
    fields = last.native.export()
    fields["num_areas"] += 1
    with pytest.raises(ValueError, match="num_areas is"):
        last.native.load(fields)


@pytest.mark.parametrize("game_id", ["terranova", "medina"])
def test_python_state_replays_no_move(game_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The protocol's `python_state()` (native/src/protocol.rs) after every move: the
    # Python engine never applies a move to build it, though Terra Nova scores areas.
    state_class = type(make(game_id, engine="python").new_initial_state(CONFIGS[game_id]))
    replays = []
    python_apply = state_class.apply

    def counted_apply(self: Any, move: Any) -> Any:
        replays.append(move)
        return python_apply(self, move)

    native = native_game(make(game_id, engine="python"))
    rng = random.Random(11)
    state = native.new_initial_state(CONFIGS[game_id])
    expected = make(game_id, engine="python").new_initial_state(CONFIGS[game_id])
    areas = 0
    monkeypatch.setattr(state_class, "apply", counted_apply)
    while not state.is_terminal():
        move = rng.choice(list(state.legal_moves_of_kind(rng.choice(list(state.legal_kinds())))))
        state = state.apply(move)
        with monkeypatch.context() as undo:
            undo.setattr(state_class, "apply", python_apply)
            expected = expected.apply(expected.parse_move(expected.move_to_str(move)))
        python = state.python_state()
        areas = len(getattr(python, "areas", ()))
        assert python == expected
        assert python.to_json() == state.to_json()
    assert replays == []
    assert (areas > 0) == (game_id == "terranova")


def test_an_export_without_its_areas_is_a_clear_error_not_a_replay() -> None:
    # A position past the areas the Rust state records (`MAX_RECORDED_AREAS`) exports no
    # `areas`: its Python state cannot be built, and says so.
    last, _ = _terra_nova_end()
    fields = last.native.export()
    del fields["areas"]

    class WithoutAreas:
        config = last.config
        native = type("Export", (), {"export": staticmethod(lambda: dict(fields))})()

        def outcome(self) -> Any:
            return last.outcome()

    native = native_game(make("terranova", engine="python"))
    with pytest.raises(NativeEngineError, match=r"do not build its Python state: \d+ areas were scored"):
        native.python_state_of(WithoutAreas())  # type: ignore[arg-type]
