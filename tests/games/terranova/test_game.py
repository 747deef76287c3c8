"""The Terra Nova Game object: registration, configuration, JSON view and hooks."""

from __future__ import annotations

import random

import pytest

from tabletop.ai.agent import random_move
from tabletop.core.errors import ConfigError, IllegalMoveError, InvalidMoveError
from tabletop.core.moves import LazyMoves
from tabletop.core.protocol import TERMINAL, GameConfig
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.core.registry import make
from tabletop.games.terranova import GAME, PASS, Place, Slide, State, Stone
from tabletop.testing.conformance import check_game
from tests.builders import terranova_position

from .helpers import d37, disc168, parallelogram


def test_registered_under_its_id() -> None:
    game = make("terranova", engine="python")
    assert game is GAME
    assert (game.min_players, game.max_players, game.bench_player_counts) == (2, 4, (2, 3, 4))
    assert set(game.rulesets) == {"default", "english"}


def test_protocol_conformance() -> None:
    check_game(GAME, n_games=1, seed=3, check_every=5)


@pytest.mark.parametrize("players", [0, 1, 5, True, "2"])
def test_bad_player_counts_are_rejected(players: object) -> None:
    with pytest.raises(ConfigError, match="2 to 4 players"):
        GAME.new_initial_state(GameConfig(players))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("ruleset", "variants", "named"),
    [
        ("house", {}, "house"),
        ("default", {"return_rule": "sometimes"}, "return_rule"),
        ("default", {"no_such_flag": True}, "no_such_flag"),
        ("default", {"lake_is_landscape": 1}, "lake_is_landscape"),
        ("default", {"stall_limit_rounds": 0}, "stall_limit_rounds"),
        ("default", {"stall_limit_rounds": True}, "stall_limit_rounds"),
        ("english", {"mobility_test": "psychic"}, "mobility_test"),
    ],
)
def test_bad_rulesets_and_flags_name_the_problem(ruleset: str, variants: dict[str, object], named: str) -> None:
    config = GameConfig(2, ruleset=ruleset, variants=variants)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=named):
        GAME.new_initial_state(config)
    with pytest.raises(ConfigError, match=named):
        GAME.canonical_config(config)


def test_presets_set_their_flags() -> None:
    english = GAME.new_initial_state(GameConfig(2, ruleset="english", seed=1)).rules
    assert (english.return_rule, english.end_on_player_eliminated) == ("strict", True)
    default = GAME.new_initial_state(GameConfig(2, seed=1)).rules
    assert (default.return_rule, default.end_on_player_eliminated, default.stall_limit_rounds) == (
        "end_of_turn",
        False,
        10,
    )
    off = GAME.new_initial_state(GameConfig(2, variants={"stall_limit_rounds": None}, seed=1)).rules
    assert off.stall_limit_rounds is None


def test_map_too_small_for_the_pioneers_is_rejected() -> None:
    with pytest.raises(ConfigError, match="at least 27"):
        GAME.new_initial_state(GameConfig(2, map=parallelogram(5, 5, "ABCDE")))  # 25 cells
    GAME.new_initial_state(GameConfig(2, map=parallelogram(9, 3, "FFMMAPSHR")))  # 27 cells: enough


def test_default_map_is_isola() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1))
    assert state.board.map.id == "isola"
    assert state.board.num_cells == len(state.board.map.cells)


def test_start_player_given_or_drawn_from_the_seed() -> None:
    assert GAME.new_initial_state(GameConfig(3, start_player=2)).current_player == 2
    drawn = {GAME.new_initial_state(GameConfig(4, seed=s)).start_player for s in range(40)}
    assert drawn == {0, 1, 2, 3}
    assert GAME.new_initial_state(GameConfig(4, seed=7)).start_player == random.Random(7).randrange(4)
    unseeded = GAME.new_initial_state(GameConfig(3))
    assert unseeded.config.start_player == unseeded.start_player  # stored, so records replay
    with pytest.raises(ConfigError, match="start_player"):
        GAME.new_initial_state(GameConfig(2, start_player=2))


def test_initial_draw_is_the_start_player_of_the_initial_state() -> None:
    for config in [GameConfig(3, start_player=2), *(GameConfig(4, seed=s) for s in range(20))]:
        drawn = GAME.initial_draw(config)
        assert drawn is not None
        state_config, start = drawn
        initial = GAME.new_initial_state(config)
        assert state_config == initial.config and start == initial.start_player == initial.current_player
    assert GAME.initial_draw(GameConfig(3)) is None  # each unseeded game draws its own
    with pytest.raises(ConfigError, match="start_player"):
        GAME.initial_draw(GameConfig(2, start_player=2))


def test_a_checked_setup_is_not_reused_by_a_config_that_only_compares_equal() -> None:
    # Setups are cached by the config without its seed; `True == 1` and `2.0 == 2` in
    # Python, but only one of each pair is valid.
    GAME.new_initial_state(GameConfig(2, variants={"lake_is_landscape": False}, seed=1))
    with pytest.raises(ConfigError, match="lake_is_landscape"):
        GAME.new_initial_state(GameConfig(2, variants={"lake_is_landscape": 0}, seed=2))
    GAME.new_initial_state(GameConfig(2, start_player=1, seed=3))
    with pytest.raises(ConfigError, match="start_player"):
        GAME.new_initial_state(GameConfig(2, start_player=True, seed=4))
    GAME.new_initial_state(GameConfig(2, seed=5))
    with pytest.raises(ConfigError, match="2 to 4 players"):
        GAME.new_initial_state(GameConfig(2.0, seed=6))  # type: ignore[arg-type]


def test_each_new_game_is_its_own_empty_board() -> None:
    # Later games of a setup copy the first one's empty board: each keeps its own
    # config, and every field is what a board laid out from scratch has.
    for seed in range(12):
        config = GameConfig(3, seed=seed, variants={"lake_is_landscape": False})
        state = GAME.new_initial_state(config)
        assert state.config is config
        fresh = State.from_fields(
            state.context,
            {
                "current_player": state.start_player,
                "phase": "placement",
                "pioneers": (0, 0, 0),
                "in_hand": (10, 10, 10),
                "start_player": state.start_player,
            },
        )
        assert {f: getattr(state, f) for f in State.FIELDS} == {f: getattr(fresh, f) for f in State.FIELDS}
        assert state.legal_moves() == fresh.legal_moves()
    custom = GameConfig(2, map=disc168(), seed=1)  # an inline map: keyed by its JSON text
    assert GAME.new_initial_state(custom).board.num_cells == 168


def test_canonical_config_inlines_custom_maps_only() -> None:
    assert GAME.canonical_config(GameConfig(2, seed=1)).map is None
    assert GAME.canonical_config(GameConfig(2, map="isola", seed=1)).map == "isola"
    custom = GAME.canonical_config(GameConfig(2, map=disc168(), seed=1))
    assert isinstance(custom.map, dict) and custom.map["id"] == "disc168"
    again = GAME.new_initial_state(custom)
    assert again.board.coords == GAME.new_initial_state(GameConfig(2, map=disc168(), seed=1)).board.coords


def test_record_with_custom_map_replays() -> None:
    rng = random.Random(5)
    initial = GAME.new_initial_state(GameConfig(3, map=disc168(), seed=5))
    state, moves = initial, []
    while not state.is_terminal():
        move = random_move(state, rng)
        moves.append(move)
        state = state.apply(move)
    record = GameRecord.from_states(initial, moves, [PlayerInfo(f"p{i}") for i in range(3)])
    assert replay(GameRecord.loads(record.dumps())) == state


def test_to_json_has_what_a_client_needs() -> None:
    state = terranova_position(d37(), {0: [(0, 0)], 1: [(3, -3)]}, stones=[(1, 0)])
    state = state.apply(state.parse_move("d4-d6"))
    data = state.to_json()
    assert {
        "cells",
        "landscapes",
        "players",
        "pioneers",
        "stones",
        "closed",
        "areas",
        "scores",
        "supply",
        "current_player",
        "phase",
        "progress",
        "outcome",
    } <= set(data)
    assert len(data["cells"]) == 37 and data["cells"][0] == {"name": "d1", "q": 0, "r": -3, "landscape": "L"}
    assert data["pioneers"] == [["d6"], ["g1"]]
    assert data["stones"] == ["e4"]
    assert data["progress"] == {
        "action": 2,
        "actions_taken": 1,
        "actions_left": 2,
        "movers": [{"cell": "d6", "start": "d4"}],
        "pending_return": None,
    }
    assert data["phase"] == "play" and data["outcome"] is None
    assert [ls["id"] for ls in data["landscapes"] if ls["water"]] == ["L"]


def test_describe_score_lists_areas_and_awards() -> None:
    state = terranova_position(
        parallelogram(9, 3, "FFMMAPSHR"),
        {2: [(0, 1), (2, 2)], 1: [(1, 0), (7, 1)]},
        stones=[(4, 0), (4, 1)],
        num_players=3,
        to_move=1,
    )
    for text in ("h2-f2", "#e3"):
        state = state.apply(state.parse_move(text))
    text = GAME.describe_score(state)
    assert "blue      24 points" in text
    assert "12 cells, landscapes FM (t=2), value 24" in text
    assert "blue +24" in text
    assert len(GAME.evaluate(state)) == 3


def test_finished_game() -> None:
    state = terranova_position(parallelogram(7, 1, "AABCDDE"), {0: [(0, 0), (1, 0)], 1: [(6, 0)]})
    state = state.apply(state.parse_move("b1-c1")).apply(state.parse_move("#d1"))
    assert state.is_terminal() and state.current_player == TERMINAL and state.phase == "over"
    assert state.returns() == (0.5, 0.5)
    assert state.legal_moves_of_kind("move") == []
    with pytest.raises(IllegalMoveError, match="over"):
        state.apply(PASS)
    assert "over (board_divided)" in str(state)


def test_slide_list_is_a_sequence() -> None:
    state = terranova_position(d37(), {0: [(0, 0)], 1: [(3, -3)]})
    slides = state.legal_moves_of_kind("move")
    assert isinstance(slides, LazyMoves)
    listed = list(slides)
    assert len(slides) == len(listed) == 17
    assert [slides[i] for i in range(len(slides))] == listed
    assert slides[-1] == listed[-1] and list(slides[2:5]) == listed[2:5]
    assert slides == listed and slides == tuple(listed) and slides != listed[:-1]
    with pytest.raises(IndexError):
        slides[17]


def test_foreign_objects_are_illegal_not_crashes() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1))
    assert not state.is_legal("a1")
    with pytest.raises(IllegalMoveError):
        state.apply("a1")
    with pytest.raises(InvalidMoveError, match="'zz99'"):
        state.parse_move("zz99")
    play = terranova_position(d37(), {0: [(0, 0)], 1: [(3, -3)]})
    bad_moves = (
        Slide("a", 3, "a-3"),  # type: ignore[arg-type]
        Slide(18, 99, "@18-@99"),
        Stone(-1, "#@-1"),
        Place(500, "@500"),
        Slide(18, None, "@18-"),  # type: ignore[arg-type]
    )
    for bad in bad_moves:
        assert not play.is_legal(bad)
        with pytest.raises(IllegalMoveError, match=r"there is no cell|pioneers are already|first action"):
            play.apply(bad)


def test_render_hooks() -> None:
    state = GAME.new_initial_state(GameConfig(2, seed=1))
    assert isinstance(GAME.render_text(state), str)
    assert GAME.render_svg(state).startswith("<svg")
    assert state._repr_svg_().startswith("<svg")


def test_setup_end_check_runs_once() -> None:
    # On the 37-cell disc, 26 pioneers can box each other in; whatever happens the
    # state after the last placement is either play or already over by E2.
    rng = random.Random(2)
    state: State = GAME.new_initial_state(GameConfig(2, map=d37(), seed=2))
    while state.phase == "placement":
        state = state.apply(random_move(state, rng))
    assert state.phase in ("play", "over")
    assert state.turn == 26


def test_states_are_hashable_values() -> None:
    a = GAME.new_initial_state(GameConfig(2, seed=4))
    b = GAME.new_initial_state(GameConfig(2, seed=4))
    assert a == b and hash(a) == hash(b)
    move = a.legal_moves()[0]
    assert a.apply(move) == b.apply(move)
    assert len({a, b, a.apply(move)}) == 2
