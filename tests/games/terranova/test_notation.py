"""Terra Nova notation: cell names, action text and errors."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.core.errors import InvalidMoveError
from tabletop.core.protocol import GameConfig
from tabletop.games.terranova import GAME, PASS, State, board_for
from tabletop.games.terranova.board import column_letters
from tabletop.games.terranova.notation import cell_labels, cell_name, move_to_str, parse_cell, parse_move
from tests.builders import terranova_position

from .helpers import d37


def test_cell_names_on_the_test_disc() -> None:
    board = board_for(d37())
    assert cell_name(board, board.index[(0, 0)]) == "d4"
    assert cell_name(board, board.index[(0, -3)]) == "d1"
    assert cell_name(board, board.index[(-3, 3)]) == "a7"
    assert cell_name(board, board.index[(3, -3)]) == "g1"
    with pytest.raises(IndexError):
        cell_name(board, 37)


def test_every_isola_cell_round_trips() -> None:
    board = board_for("isola")
    for i in range(board.num_cells):
        assert parse_cell(board, cell_name(board, i)) == i
        assert parse_cell(board, cell_name(board, i).upper()) == i
    labels = cell_labels(board)
    assert labels["columns"][board.q_min] == "a" and labels["rows"][board.r_min] == "1"


def test_column_letters_continue_after_z() -> None:
    assert [column_letters(i) for i in (0, 1, 25, 26, 27, 52)] == ["a", "b", "z", "aa", "ab", "ba"]


def test_action_text() -> None:
    board = board_for(d37())
    d4, f4 = board.index[(0, 0)], board.index[(2, 0)]
    assert parse_move(board, "d4") == board.place_moves[d4]
    assert parse_move(board, "d4-f4") == board.slide(d4, f4)
    assert parse_move(board, " D4 -> F4 ") == board.slide(d4, f4)
    for text in ("#f4", "*f4", "@f4", "P@f4", "p@F4"):
        assert parse_move(board, text) == board.stone_moves[f4]
    assert parse_move(board, "pass") == PASS and parse_move(board, "PASS") == PASS
    assert move_to_str(board, board.stone_moves[f4]) == "#f4"
    assert move_to_str(board, PASS) == "pass"
    assert str(board.slide(d4, f4)) == "d4-f4"


def test_a_crooked_move_parses_but_is_illegal() -> None:
    board = board_for(d37())
    move = parse_move(board, "d4-e5")
    assert (move.src, move.dst) == (board.index[(0, 0)], board.index[(1, 1)])  # type: ignore[union-attr]


@pytest.mark.parametrize("text", ["", "d", "4d", "d4-", "d4-e4-f4", "#", "#zz9", "q9", "d4 e4", "pas", "d44"])
def test_bad_text_is_invalid_and_quoted(text: str) -> None:
    board = board_for(d37())
    with pytest.raises(InvalidMoveError) as info:
        parse_move(board, text)
    assert repr(text) in str(info.value)


def test_game_parse_move_uses_the_default_map() -> None:
    board = board_for("isola")
    assert GAME.parse_move("pass") == PASS
    name = board.names[40]
    assert GAME.parse_move(f"#{name}") == board.stone_moves[40]


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789#*@-> PAS\x00é", max_size=12))
def test_any_text_parses_or_is_invalid(text: str) -> None:
    board = board_for("isola")
    try:
        move = parse_move(board, text)
    except InvalidMoveError as exc:
        assert repr(text) in str(exc)
    else:
        assert parse_move(board, move_to_str(board, move)) == move


def test_legal_notation_of_each_kind_is_move_to_str_of_each_move() -> None:
    # The server lists the legal moves of every position it sends through the state's own
    # listing (labels, not formatting): it must say exactly what move_to_str says.
    rng = random.Random(5)
    kinds_seen: set[str] = set()
    for seed in range(6):
        state = GAME.new_initial_state(GameConfig(num_players=2 + seed % 3, seed=seed))
        while not state.is_terminal():
            assert isinstance(state, State)
            kinds = state.legal_kinds()
            for kind in kinds:
                expected = [state.move_to_str(m) for m in state.legal_moves_of_kind(kind)]
                assert state.legal_notation_of_kind(kind) == expected
                kinds_seen.add(kind)
            kind = rng.choice(list(kinds))
            state = state.apply(rng.choice(list(state.legal_moves_of_kind(kind))))
    assert kinds_seen >= {"place", "move", "stone"}


def test_legal_notation_of_the_pass() -> None:
    # A pass position is rare in random play: scenario T07's (the pass has no label).
    state = terranova_position(
        d37(),
        {0: [(0, 0)], 1: [(-1, 0), (0, 1), (3, -3)], 2: [(-1, 1), (-3, 3)]},
        stones=[(1, 0), (1, -1), (0, -1)],
        num_players=3,
    )
    assert list(state.legal_kinds()) == ["pass"]
    assert state.legal_notation_of_kind("pass") == ["pass"]
    assert state.legal_notation_of_kind("move") == []
