"""Medina's second edition beyond the §9 scenarios: random self-play at 2, 3 and 4 players
with every second-edition flag at its default and flipped (every game ends, keeps the
invariants of the spec's §10 and its record replays), the config that records the drawn
well and starting merchant, notation, and the engine choice."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tabletop.ai.agent import random_move
from tabletop.core.encoding import encoding_of
from tabletop.core.errors import ConfigError, InvalidMoveError
from tabletop.core.protocol import GameConfig
from tabletop.core.record import GameRecord, PlayerInfo, replay
from tabletop.core.registry import make, player_counts
from tabletop.games.medina import MedinaGame, State
from tabletop.games.medina.moves import MERCHANT, NUM_SLOTS
from tabletop.native import has_native

GAME = make("medina", engine="python")

FLIPPED: dict[str, Any] = {
    "neutral_claims_tiles": False,
    "neutral_dome_any_unowned": True,
    "well_bonus_squares": "plaza_ring",
    "tea_spend_when_stuck": True,
    "tea_usable_turn_received": False,
    "tower_events_claim_only": True,
    "last_player_dome_obligation": False,
    "neutral_dome_satisfies_obligation": True,
    "obligation_recheck": True,
    "tie_break": "largest_palace",
    "abandoned_palace_claimable": True,
    "last_player_by_supply": True,
    "start_merchant_anywhere": True,
}
"""Every second-edition flag (and the first-edition ones that change it) away from its default."""

CASES = [
    ("second_edition", {}),
    ("second_edition", FLIPPED),
    ("boardspace_v2", {}),
    ("second_edition", {"well": "none", "start_merchant": "player"}),
]


def _invariants(s: State) -> None:
    """2e §10: merchants and tea tiles are conserved; nothing of a palace on a red square."""
    n = s.num_players
    supply_merchants = sum(s.supply[p * NUM_SLOTS + MERCHANT] for p in range(n))
    # Merchants: the box's 31 are in supplies, on the board, on tower tiles or back in the box.
    assert s.merchants.bit_count() + supply_merchants + sum(s.tower_merchants) <= 31
    assert s.tea_pool + sum(s.tea) <= 6 and min(s.tea) >= 0 and s.tea_pool >= 0
    assert not (s.palace_mask | s.stables) & s.red, "a palace component on a red square"
    if s.well >= 0:
        assert not (s.palace_mask | s.stables | s.merchants) >> s.well & 1, "a piece on the well"
    assert min(s.neutral) >= 0 and min(s.supply) >= 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize(("ruleset", "variants"), CASES, ids=["default", "flipped", "boardspace_v2", "no-well"])
def test_random_games_end_keep_the_invariants_and_replay(
    num_players: int, ruleset: str, variants: dict[str, Any]
) -> None:
    for seed in range(2):
        rng = random.Random(seed)
        initial = GAME.new_initial_state(
            GameConfig(num_players=num_players, ruleset=ruleset, variants=variants, seed=seed)
        )
        state = initial
        moves = []
        while not state.is_terminal():
            assert state.ply < 400, "a game that does not end"
            _invariants(state)
            move = random_move(state, rng) if seed % 2 else rng.choice(state.legal_moves())
            assert state.is_legal(move)
            moves.append(move)
            state = state.apply(move)
        assert state.outcome() is not None
        record = GameRecord.from_states(initial, moves, [PlayerInfo(f"p{i}", "random") for i in range(num_players)])
        again = replay(GameRecord.loads(record.dumps()), engine="python")
        assert again == state and again.outcome() == state.outcome()
        if has_native("medina"):
            # The record replays on the native engine to the same end (a Rust position).
            native: Any = replay(GameRecord.loads(record.dumps()), engine="native")
            assert hasattr(native, "native") and native.python_state() == state
            assert (native.scores(), native.outcome()) == (state.scores(), state.outcome())


def test_the_config_records_the_drawn_well_and_starting_merchant() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=2, ruleset="second_edition", seed=5))
    assert isinstance(state, State)
    recorded = GAME.canonical_config(state.config).variants
    assert recorded == {"well": state.to_json()["well"]["square"], "start_square": state.to_json()["start_merchant"]}
    # Another seed with these squares is the same position: the record does not need the generator.
    again = GAME.new_initial_state(GameConfig(num_players=2, ruleset="second_edition", variants=recorded, seed=99))
    assert again.to_json() == state.to_json()


@pytest.mark.parametrize(
    ("variants", "flag"),
    [
        ({"well": "B2"}, "well"),  # a border square
        ({"well": "O10"}, "well"),  # no inner square of the 2-player board
        ({"well": "E5", "start_square": "E5"}, "start_square"),
        ({"start_square": "B2"}, "start_square"),
    ],
)
def test_bad_squares_are_refused(variants: dict[str, Any], flag: str) -> None:
    with pytest.raises(ConfigError, match=flag):
        GAME.new_initial_state(GameConfig(num_players=2, ruleset="second_edition", variants=variants))


def test_two_players_need_the_second_edition() -> None:
    with pytest.raises(ConfigError, match="second edition"):
        GAME.new_initial_state(GameConfig(num_players=2))
    assert player_counts(GAME) == [3, 4]
    assert player_counts(GAME, "second_edition") == [2, 3, 4]


def test_notation_names_purple_and_reads_black() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=3, ruleset="second_edition", seed=1))
    move = state.parse_move("black@C3")
    assert state.parse_move("purple@C3") == move
    assert state.move_to_str(move) == "purple@C3"
    assert str(state.parse_move("neutral@E5")) == "neutral@E5" and str(state.parse_move(" Tea ")) == "tea"
    two = GAME.new_initial_state(GameConfig(num_players=2, ruleset="second_edition", seed=1))
    with pytest.raises(InvalidMoveError, match="Q5"):
        two.parse_move("merchant@Q5")


def test_the_auto_engine_plays_the_second_edition_natively_where_built() -> None:
    auto = make("medina", engine="auto")
    state = auto.new_initial_state(GameConfig(num_players=2, ruleset="second_edition", seed=2))
    assert state.to_json()["rules"]["edition"] == 2
    assert isinstance(state, State) != has_native("medina")  # a NativeState where the extension is built
    assert not hasattr(MedinaGame(), "native_refusal")  # the native engine plays every config


@pytest.mark.parametrize("num_players", [2, 3])
def test_the_research_encoding_covers_the_second_edition(num_players: int) -> None:
    config = GameConfig(num_players=num_players, ruleset="second_edition", seed=4)
    encoding = encoding_of(GAME, config)
    assert encoding.num_distinct_actions == 2342
    first_edition = encoding_of(GAME, GameConfig(num_players=3))
    assert first_edition.num_distinct_actions == 2107  # unchanged: the native engine's action ids
    rng = random.Random(num_players)
    state = GAME.new_initial_state(config)
    kinds_seen: set[str] = set()
    while not state.is_terminal():
        legal = list(state.legal_moves())
        actions = encoding.legal_actions(state)
        assert sorted(encoding.encode(m) for m in legal) == actions
        assert all(encoding.decode(encoding.encode(m)) == m for m in legal)
        mask = encoding.action_mask(state)
        assert [a for a, bit in enumerate(mask) if bit] == actions
        kinds_seen |= {m.kind for m in legal}
        if state.ply % 25 == 0:
            planes, vector = encoding.observe(state, state.current_player)
            spec = encoding.spec
            assert len(planes) == len(spec.planes) * spec.plane_size and len(vector) == len(spec.vector)
            assert planes[spec.plane("well") * spec.plane_size + state.well] == 1.0
        state = state.apply(random_move(state, rng))
    assert state.ply <= encoding.max_game_length
    assert {"neutral", "tea"} <= kinds_seen or num_players == 3  # 3 players: one neutral dome each


def test_the_score_sheet_has_a_well_column_in_the_second_edition() -> None:
    second = GAME.new_initial_state(GameConfig(num_players=2, ruleset="second_edition", seed=1))
    first = GAME.new_initial_state(GameConfig(num_players=3, seed=1))
    headers = next(table["headers"] for table in GAME.score_sheet(second)["tables"] if table["id"] == "palaces")  # type: ignore[attr-defined]
    assert headers[-2:] == ["sheet.well", "sheet.total"]
    assert "sheet.well" not in [h for t in GAME.score_sheet(first)["tables"] for h in t["headers"]]  # type: ignore[attr-defined]


def test_the_command_line_benches_and_checks_the_second_edition() -> None:
    from typer.testing import CliRunner

    from tabletop.cli.main import app

    runner = CliRunner()
    result = runner.invoke(
        app, ["bench", "engine", "medina", "--ruleset", "second_edition", "-n", "2", "--seconds", "0.05"]
    )
    assert result.exit_code == 0, result.output
    assert "second_edition" in result.output and "no_legal_placements" in result.output
    result = runner.invoke(app, ["bench", "engine", "medina", "-n", "2", "--seconds", "0.05"])
    assert result.exit_code == 2 and "ruleset 'default' is for 3 to 4 players" in result.stderr


@pytest.mark.skipif(not has_native("medina"), reason="the native extension is not built")
def test_the_native_bench_has_rows_for_both_editions() -> None:
    from typer.testing import CliRunner

    from tabletop.cli.main import app

    args = ["bench", "engine", "medina", "--engine", "native", "-n", "3", "--seconds", "0.02", "--no-yardstick"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    # The first line of each row: ruleset, players, the loop's first word (cells wrap).
    rows = [[c.strip() for c in line.split("│")[1:4]] for line in result.output.splitlines() if "│ 3 " in line]
    assert [ruleset for ruleset, _, loop in rows if loop == "whole"] == ["default", "second_edition"]
