"""Record format: parsing, validation and clear errors for corrupt input."""

from __future__ import annotations

import json

import pytest

from tabletop.core.errors import RecordError
from tabletop.core.outcome import Outcome
from tabletop.core.protocol import GameConfig
from tabletop.core.record import GameRecord, PlayerInfo


def _record_json(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "format": "tabletop-record",
        "version": 1,
        "game": "terranova",
        "config": {"num_players": 2, "ruleset": "default", "variants": {}, "map": None, "seed": 3},
        "players": [{"name": "Ann", "agent": "human"}, {"name": "Bot", "agent": "random"}],
        "date": "2026-11-22T10:00:00+00:00",
        "result": None,
        "actions": ["a", "b"],
    }
    data.update(overrides)
    return data


def test_record_round_trips_through_text() -> None:
    record = GameRecord(
        game="terranova",
        config=GameConfig(num_players=2, variants={"return_rule": "strict"}, seed=5),
        players=(PlayerInfo("Ann"), PlayerInfo("Bot", "random")),
        actions=("x1", "y2"),
        result=Outcome.from_scores((3, 3), "stall"),
        date="2026-01-01T00:00:00+00:00",
    )
    again = GameRecord.loads(record.dumps())
    assert again == record
    assert again.result is not None and again.result.winners == (0, 1)


def test_valid_header_is_read() -> None:
    record = GameRecord.from_json(_record_json())
    assert record.config.seed == 3
    assert record.players[1] == PlayerInfo("Bot", "random")
    assert record.actions == ("a", "b")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        (json.dumps(_record_json(format="pgn")), "not a tabletop record"),
        (json.dumps(_record_json(version=9)), "unsupported record version"),
        (json.dumps({k: v for k, v in _record_json().items() if k != "game"}), "missing field 'game'"),
        (json.dumps(_record_json(actions="a b")), "field 'actions' must be list"),
        (json.dumps(_record_json(actions=["a", 3])), "action 1 is 3"),
        (json.dumps(_record_json(players=[{"name": "solo"}])), "1 players listed"),
        (json.dumps(_record_json(players=[{"nom": "x"}, {"name": "y"}])), "players[0]"),
        (json.dumps(_record_json(config={"num_players": "two"})), "num_players"),
        (json.dumps(_record_json(config={"num_players": 2, "seed": "x"})), "config.seed"),
        (json.dumps(_record_json(result={"scores": 1})), "bad result"),
    ],
)
def test_corrupt_record_is_rejected_with_reason(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message.replace("[", r"\[").replace("]", r"\]")):
        GameRecord.loads(text)


def test_action_error_carries_index() -> None:
    with pytest.raises(RecordError) as info:
        GameRecord.loads(json.dumps(_record_json(actions=["ok", None])))
    assert info.value.index == 1


def test_outcome_shares_win_between_tied_leaders() -> None:
    outcome = Outcome.from_scores((10, 12, 12), "board_divided")
    assert outcome.winners == (1, 2)
    assert outcome.returns() == (0.0, 0.5, 0.5)
    assert Outcome.from_json(outcome.to_json()) == outcome


@pytest.mark.parametrize(
    "overrides",
    [
        {"players": [{"name": "A\ud800", "agent": "human"}, {"name": "Bot", "agent": "random"}]},
        {"actions": ["a", "\udc00"]},
        {"date": "\ud83d"},
        {"game": "terra\udfffnova"},
    ],
    ids=["name", "action", "date", "game"],
)
def test_lone_surrogates_are_refused(overrides: dict[str, object]) -> None:
    # JSON's "\ud800" escape parses into a str that can be neither printed nor written.
    with pytest.raises(RecordError, match="not valid Unicode"):
        GameRecord.from_json(_record_json(**overrides))
