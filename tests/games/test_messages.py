"""Coded engine messages: refusals carry a stable code and params, translated by the web client."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tabletop.core.errors import Catalogue, IllegalMoveError, InvalidMoveError, Message, reason_of
from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make
from tabletop.games.medina.messages import SAY as MEDINA
from tabletop.games.terranova.messages import SAY as TERRANOVA

I18N = Path(__file__).resolve().parents[2] / "src" / "tabletop" / "web" / "i18n"
LANGUAGES = ("en", "sv", "fi", "nl", "it")
CATALOGUES = (TERRANOVA, MEDINA)
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def strings(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return data


def forms(text: str | dict[str, str]) -> list[str]:
    """A translation's texts: one string, or one per plural category."""
    return list(text.values()) if isinstance(text, dict) else [text]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("catalogue", CATALOGUES, ids=lambda c: c.prefix)
def test_every_code_is_translated_with_the_same_placeholders(lang: str, catalogue: Catalogue) -> None:
    table = strings(lang)
    for code, english in catalogue.codes().items():
        key = f"msg.{code}"
        assert key in table, f"{lang}.json lacks {key}"
        for text in forms(table[key]):
            assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english)), (lang, key, text)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_every_english_key(lang: str) -> None:
    english, other = strings("en"), strings(lang)
    assert sorted(set(english) - set(other)) == []
    for key, text in other.items():
        if isinstance(text, dict):  # plural forms: "other" is always there
            assert "other" in text, (lang, key)


def test_a_message_is_its_english_text() -> None:
    m = TERRANOVA("occupied", cell="c4")
    assert isinstance(m, str) and m == "c4 is occupied"
    assert m.to_json() == {"code": "terranova.occupied", "params": {"cell": "c4"}, "text": "c4 is occupied"}
    with pytest.raises(KeyError):
        TERRANOVA("no_such_code")


def first_state(game_id: str, seed: int, plies: int) -> State:
    """A position ``plies`` random actions into a 3-player game (or the end, if sooner)."""
    game = make(game_id, engine="python")
    state = game.new_initial_state(GameConfig(3, seed=seed))
    rng = random.Random(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state = state.apply(rng.choice(list(state.legal_moves())))
    return state


@settings(max_examples=25, deadline=None)
@given(
    game_id=st.sampled_from(["terranova", "medina"]),
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 60),
    cell_pick=st.integers(0, 10_000),
)
def test_every_refusal_carries_a_catalogued_code(game_id: str, seed: int, plies: int, cell_pick: int) -> None:
    state = first_state(game_id, seed, plies)
    legal = {state.move_to_str(m) for m in state.legal_moves()} if not state.is_terminal() else set()
    names = sorted(set(re.findall(r"[A-Za-z]+\d+", " ".join(legal)))) or ["a1", "E5"]
    cell = names[cell_pick % len(names)]
    candidates = [cell, f"#{cell}", f"{cell}-{cell}", f"gray@{cell}", f"stable@{cell}", f"wall@{cell}", "pass"]
    known = {**TERRANOVA.codes(), **MEDINA.codes()}
    for text in candidates:
        try:
            move = state.parse_move(text)
        except InvalidMoveError as exc:
            reason = reason_of(exc)
            assert reason is not None and reason.code in known, (text, str(exc))
            continue
        if text in legal or state.move_to_str(move) in legal:
            continue
        with pytest.raises(IllegalMoveError) as info:
            state.apply(move)
        reason = reason_of(info.value)
        assert isinstance(reason, Message) and reason.code in known, (text, str(info.value))
        assert str(reason) in str(info.value)  # the terminal keeps the same English words


def test_terranova_stone_away_from_movers_says_why() -> None:
    state = first_state("terranova", 1, 0)
    rng = random.Random(2)
    while state.legal_kinds() != ("move",) and not state.is_terminal():  # play through setup
        state = state.apply(rng.choice(list(state.legal_moves())))
    slide = next(iter(state.legal_moves_of_kind("move")))
    after = state.apply(slide)
    stones = {after.move_to_str(m) for m in after.legal_moves_of_kind("stone")}
    all_cells = re.findall(r"[a-z]+\d+", " ".join(after.move_to_str(m) for m in after.legal_moves()))
    far = next(f"#{c}" for c in sorted(set(all_cells)) if f"#{c}" not in stones and c not in after.move_to_str(slide))
    with pytest.raises(IllegalMoveError) as info:
        after.apply(after.parse_move(far))
    assert reason_of(info.value) is not None
    assert reason_of(info.value).code in {"terranova.stone_not_adjacent", "terranova.occupied"}  # type: ignore[union-attr]


def test_medina_notation_errors_are_coded() -> None:
    state = first_state("medina", 3, 0)
    with pytest.raises(InvalidMoveError) as info:
        state.parse_move("castle@E5")
    reason = reason_of(info.value)
    assert reason is not None and reason.code == "medina.unknown_piece" and reason.params["piece"] == "'castle'"


@pytest.mark.parametrize("game_id", ["terranova", "medina"])
def test_score_sheet_is_json_and_adds_up(game_id: str) -> None:
    state = first_state(game_id, 5, 400)
    game = make(game_id, engine="python")
    sheet = game.score_sheet(state)
    json.dumps(sheet)
    players = next(t for t in sheet["tables"] if t["id"] == "players")
    assert [row[0] for row in players["rows"]] == [{"seat": p} for p in range(3)]
    total_column = 1 if game_id == "terranova" else len(players["headers"]) - 1
    assert [row[total_column] for row in players["rows"]] == list(state.scores())
    english = strings("en")
    for table in sheet["tables"]:
        assert len({len(row) for row in table["rows"]} | {len(table["headers"])}) == 1
        for key in [table["caption"], *table["headers"]]:
            assert key in english, key


@pytest.mark.parametrize(
    ("game_id", "reasons"),
    [
        ("terranova", ["board_divided", "one_mobile_player", "player_eliminated", "stones_exhausted", "stall"]),
        ("medina", ["no_legal_placements"]),
    ],
)
def test_end_reasons_are_translated(game_id: str, reasons: list[str]) -> None:
    for lang in LANGUAGES:
        table = strings(lang)
        for reason in reasons:
            assert f"end.{game_id}.{reason}" in table, (lang, reason)
