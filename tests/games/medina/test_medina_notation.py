"""Medina move notation: canonical text, lenient reading, precise errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.core.errors import InvalidMoveError
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.games.medina.board import SQUARE_NAMES, parse_square, square_name
from tabletop.games.medina.moves import Dome, PalacePiece, Pass, StartMerchant, Wall
from tabletop.games.medina.notation import parse_move

GAME = make("medina", engine="python")


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("gray@E5", PalacePiece(0, parse_square("E5") or 0)),
        ("Grey @ e5", PalacePiece(0, parse_square("E5") or 0)),
        ("orange@P2", PalacePiece(3, parse_square("P2") or 0)),
        ("dome@B4", Dome(parse_square("B4") or 0)),
        ("WALL@b1", Wall(parse_square("B1") or 0)),
        ("start@C3", StartMerchant(parse_square("C3") or 0)),
        (" pass ", Pass()),
    ],
)
def test_parse(text: str, move: object) -> None:
    assert parse_move(text) == move
    assert GAME.parse_move(text) == move


@pytest.mark.parametrize("text", ["", "gray", "gray@", "gray@S5", "gray@B14", "gray@B0", "tower@A1", "E5", "pass E5"])
def test_bad_text_raises_invalid_move_error_quoting_it(text: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        parse_move(text)
    assert repr(text) in str(info.value) or repr(text.strip()) in str(info.value) or text == ""


def test_canonical_text() -> None:
    assert [str(parse_move(t)) for t in ("Gray@e5", "dome @ b4", "PASS")] == ["gray@E5", "dome@B4", "pass"]


def test_square_names_round_trip() -> None:
    assert all(parse_square(square_name(sq)) == sq for sq in range(len(SQUARE_NAMES)))
    assert (square_name(0), square_name(17), square_name(233)) == ("A1", "R1", "R13")


def test_setup_phase_reads_merchant_as_the_starting_merchant() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=3))
    assert state.parse_move("merchant@C3") == StartMerchant(parse_square("C3") or 0)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=12))
def test_parser_only_raises_invalid_move_error(text: str) -> None:
    try:
        move = parse_move(text)
    except InvalidMoveError:
        return
    assert parse_move(str(move)) == move
