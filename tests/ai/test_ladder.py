"""The named ladder: specs, the server's game list, the CLI, and games that score."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tabletop.ai.agent import make_agent
from tabletop.ai.ladder import DEFAULT_LEVEL, LADDER, ladder_level
from tabletop.arena.match import new_game, play_match
from tabletop.cli.main import app
from tabletop.core.errors import ConfigError
from tabletop.server.app import create_app
from tabletop.server.config import Settings


def test_every_level_builds_its_engine() -> None:
    for level in LADDER:
        assert make_agent(level.key, seed=1).name == make_agent(level.spec, seed=1).name
    assert ladder_level("Club").spec == make_agent("club").name


def test_levels_take_no_argument_and_unknown_levels_fail() -> None:
    with pytest.raises(ConfigError):
        make_agent("club:2")
    with pytest.raises(ConfigError):
        ladder_level("grandmaster")


def test_measured_elo_rises_with_every_level() -> None:
    for game in ("terranova", "medina"):
        measured = [level.elo[game] for level in LADDER if game in level.elo]
        assert measured == sorted(measured) and len(set(measured)) == len(measured)
    assert LADDER[0].spec == "random" and LADDER[0].elo == {"terranova": 0, "medina": 0}


def test_the_default_level_is_on_the_ladder() -> None:
    assert ladder_level(DEFAULT_LEVEL).key == DEFAULT_LEVEL


def test_the_game_list_serves_the_ladder_and_the_default_bot() -> None:
    settings = Settings(db_url="sqlite://", bot_executor="thread", default_bot="club")
    with TestClient(create_app(settings)) as client:
        games = client.get("/api/games").json()
    assert games
    for game in games:
        assert [level["key"] for level in game["ladder"]] == [level.key for level in LADDER]
        assert game["default_bot"] == "club"


def test_a_default_bot_that_is_no_bot_is_refused() -> None:
    with pytest.raises(ConfigError):
        Settings(db_url="sqlite://", default_bot="grandmaster")


def test_games_command_shows_the_ladder() -> None:
    result = CliRunner().invoke(app, ["games"])
    assert result.exit_code == 0, result.output
    for level in LADDER:
        assert f"{level.name} ({level.key})" in result.output


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game_id", "specs", "seed"),
    [
        ("terranova", ("casual", "casual", "casual"), 5),
        ("medina", ("beginner", "casual", "club"), 2),
        ("terranova", ("club", "casual"), 3),
    ],
)
def test_ladder_games_end_with_points(game_id: str, specs: tuple[str, ...], seed: int) -> None:
    # The issue: greedy self-play ended Terra Nova games by the stall rule at 0 for every seat.
    initial = new_game(game_id, len(specs), seed=seed)
    agents = [make_agent(spec, seed=seed + i) for i, spec in enumerate(specs)]
    record = play_match(initial, agents).record
    assert record.result is not None
    assert max(record.result.scores) > 0
