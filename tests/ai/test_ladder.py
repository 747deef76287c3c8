"""The named ladder: specs, the server's game list, the CLI, and games that score."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from tabletop.ai.agent import make_agent
from tabletop.ai.ladder import DEFAULT_LEVEL, LADDER, SCALES, Level, LevelAgent, ladder_level, scale
from tabletop.arena.match import new_game, play_match
from tabletop.cli.main import app
from tabletop.core.errors import ConfigError
from tabletop.server.app import create_app
from tabletop.server.config import Settings


def test_every_level_builds_its_engine_for_each_game() -> None:
    for level in LADDER:
        agent = make_agent(level.key, seed=1)
        assert isinstance(agent, LevelAgent) and agent.name == level.key
        for game_id, spec in level.specs.items():
            assert agent.for_game(game_id).name == make_agent(spec, seed=1).name
    assert ladder_level("Club").spec("medina") == "mcts:2"
    with pytest.raises(ConfigError, match="no bot for the game"):
        ladder_level("Club").spec("chess")


def test_a_level_plays_its_spec_for_the_game_of_the_position() -> None:
    # A level whose specs differ by game plays each game's own: same seed, same moves.
    level = Level("mixed", "Mixed", {"terranova": "greedy", "medina": "random"}, "test", {}, {})
    for game_id in ("terranova", "medina"):
        state = new_game(game_id, 3, seed=4)
        expected = make_agent(level.spec(game_id), seed=9).choose_move(state)
        assert LevelAgent(level, 9).choose_move(state) == expected


def test_a_level_whose_engine_is_not_built_here_plays_its_fallback_unmeasured() -> None:
    level = Level(
        "mixed", "Mixed", {"terranova": "nosuch:1", "medina": "greedy"}, "test",
        {"terranova": 700, "medina": 600}, {"terranova": 0.1, "medina": 0.1}, {"terranova": "random"},
    )  # fmt: skip
    installed = level.installed()
    assert installed.specs == {"terranova": "random", "medina": "greedy"}
    assert installed.elo == {"medina": 600} and installed.seconds_per_move == {"medina": 0.1}
    assert LevelAgent(level, 1).for_game("terranova").name == "random"
    with pytest.raises(ConfigError, match="unknown agent"):  # no fallback: the level cannot play
        LevelAgent(Level("x", "X", {"medina": "nosuch:1"}, "test", {}, {}), 1)


def test_a_scale_spec_plays_its_exact_setting_and_the_game_s_spec_elsewhere() -> None:
    level = Level(
        "netted", "Netted", {"terranova": "random", "medina": "random"}, "test",
        {"medina": 900, "terranova": 800}, {"medina": 0.1}, scale_specs={"medina": "greedy"},
    )  # fmt: skip
    agent = LevelAgent(level, 5)
    three = new_game("medina", 3, seed=2)
    assert level.spec_for(three) == "greedy" and agent.for_state(three).name == "greedy"
    assert agent.choose_move(three) == make_agent("greedy", seed=5).choose_move(three)
    for other in (new_game("medina", 4, seed=2), new_game("terranova", 2, seed=2)):
        assert level.spec_for(other) == "random" and agent.for_state(other).name == "random"
    second = new_game("medina", 3, seed=2, ruleset="second_edition")
    assert level.spec_for(second) == "random"
    # A scale spec that cannot be built here is dropped with its scale's Elo and time.
    missing = replace(level, scale_specs={"medina": "nosuch:1"}).installed()
    assert missing.scale_specs == {} and missing.elo == {"terranova": 800} and missing.seconds_per_move == {}
    assert LevelAgent(missing, 5).for_state(three).name == "random"


def test_levels_take_no_argument_and_unknown_levels_fail() -> None:
    with pytest.raises(ConfigError):
        make_agent("club:2")
    with pytest.raises(ConfigError):
        ladder_level("legend")


def test_measured_elo_rises_with_every_level() -> None:
    for s in SCALES:
        measured = [level.elo[s.key] for level in LADDER if s.key in level.elo]
        assert measured == sorted(measured) and len(set(measured)) == len(measured)
        assert len(measured) >= 3, f"{s.key}: a scale is measured from random up"
    assert set(LADDER[0].specs.values()) == {"random"} and LADDER[0].elo == {s.key: 0 for s in SCALES}


def test_every_elo_is_kept_on_a_scale_and_a_level_is_measured_bottom_up() -> None:
    """An Elo is a sum of SPRT steps from random: a level measured on a scale has every
    level below it measured there too, and its time a move too."""
    keys = {s.key for s in SCALES}
    for s in SCALES:
        assert s.num_players in s.players
        new_game(s.game, s.num_players, seed=1, ruleset=s.ruleset)  # a setting the game plays
        below_measured = True
        for level in LADDER:
            assert set(level.elo) <= keys and set(level.seconds_per_move) <= keys
            if s.key in level.elo:
                assert below_measured, f"{level.key} on {s.key} without the step below it"
                assert s.key in level.seconds_per_move
            below_measured = s.key in level.elo
    with pytest.raises(ConfigError, match="unknown ladder scale"):
        scale("medina-5p")
    assert scale("medina-2e-2p").ruleset == "second_edition"


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
        Settings(db_url="sqlite://", default_bot="legend")


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


def test_grandmaster_plays_what_it_learned_where_it_learned_it_and_master_elsewhere() -> None:
    from tabletop.native import has_native

    if not (has_native("medina") and has_native("terranova")):
        pytest.skip("the network search and the learned evaluation need the extension (make native)")
    grandmaster, master = ladder_level("grandmaster"), ladder_level("master")
    agent = LevelAgent(grandmaster, 3)
    three = new_game("medina", 3, seed=5)
    assert agent.for_state(three).name.startswith("puct:medina-3p")
    assert agent.choose_move(three) in three.legal_moves()
    two = new_game("terranova", 2, seed=5)
    assert agent.for_state(two).name.startswith("learned:terranova-2p,5")
    for other in (new_game("medina", 4, seed=5), new_game("terranova", 3, seed=5)):
        assert grandmaster.spec_for(other) == master.spec_for(other)
    for scale_key in ("medina", "terranova"):
        assert grandmaster.elo[scale_key] > master.elo[scale_key]
    assert set(grandmaster.elo) == {"medina", "terranova"}  # not measured where it is Master's search


def test_grandmaster_without_its_network_falls_back_to_master_unmeasured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tabletop.ai.ladder as ladder_module
    import tabletop.native.puct as puct_module

    monkeypatch.delenv(puct_module.NETWORKS_VARIABLE, raising=False)
    monkeypatch.setattr(puct_module, "PACKAGED_NETWORKS", tmp_path)  # an empty package
    ladder_module._builds.cache_clear()
    try:
        installed = ladder_level("grandmaster").installed()
        assert installed.scale_specs == {} and installed.elo == {} and installed.seconds_per_move == {}
        three = new_game("medina", 3, seed=5)
        assert installed.spec_for(three) == ladder_level("master").installed().spec_for(three)
        assert LevelAgent(installed, 1).choose_move(three) in three.legal_moves()
    finally:
        ladder_module._builds.cache_clear()
