"""The spec's conformance scenarios (§8) and worked scoring example (§7), as data.

Positions are built with :func:`tabletop.games.medina.position.build_position` from the
spec's own notation; seats are Red 0, Blue 1, Green 2, Yellow 3.
"""

from __future__ import annotations

from typing import Any

import pytest

from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.games.medina import State
from tabletop.games.medina.scoring import palace_score, score_sheet
from tests.builders import medina_position, medina_with_turn

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3


def _position(case: dict[str, Any]) -> State:
    kwargs = {k: v for k, v in case.items() if k not in ("layout", "checks", "id", "player")}
    state = medina_position(*case.get("layout", ()), **kwargs)
    return medina_with_turn(state, case.get("player", RED))


# Each case: a position and a list of (move, legal?) checks, each on the same position.
PLACEMENT_CASES: list[dict[str, Any]] = [
    {
        "id": "2-new-palace-street-rule",
        "layout": ["gray:E5"],
        "checks": [("black@G5", True), ("black@G7", True), ("black@F6", False), ("black@A5", False)],
    },
    {
        "id": "3-must-extend",
        "layout": ["gray:E5"],
        "checks": [("gray@E6", True), ("gray@F6", False), ("gray@H8", False)],
    },
    {
        "id": "4-extension-respects-streets",
        "layout": ["gray:E5 E6", "black:H6", "S:G6"],
        "checks": [("gray@F5", False), ("gray@F6", False), ("gray@E7", True), ("gray@D5", True)],
    },
    {
        "id": "5-new-palace-after-claim",
        "layout": ["gray:E5"],
        "domes": {"E5": RED},
        "player": BLUE,
        "checks": [("gray@K8", True), ("gray@E6", False), ("gray@F5", False)],
    },
    {
        "id": "6-abandoned-palace-default",
        "layout": ["gray:B2", "M:B3 C3 C2"],
        "checks": [("dome@B2", False), ("gray@K8", True)],
    },
    {
        "id": "6-abandoned-palace-claimable",
        "layout": ["gray:B2", "M:B3 C3 C2"],
        "variants": {"abandoned_palace_claimable": True},
        "checks": [("dome@B2", True), ("gray@K8", True)],
    },
    {
        "id": "7-one-palace-per-colour-red",
        "layout": ["gray:E5", "gray:K8"],
        "domes": {"E5": RED},
        "player": RED,
        "checks": [("dome@K8", False)],
    },
    {
        "id": "7-one-palace-per-colour-blue",
        "layout": ["gray:E5", "gray:K8"],
        "domes": {"E5": RED},
        "player": BLUE,
        "checks": [("dome@K8", True), ("dome@E5", False)],
    },
    {
        "id": "8-dome-targets",
        "layout": ["orange:H7", "S:H8", "M:J5"],
        "checks": [("dome@H8", False), ("dome@J5", False), ("dome@A2", False), ("dome@H7", True)],
    },
    {
        "id": "10-stables",
        "layout": ["gray:E5", "black:G6"],
        "checks": [("stable@D5", True), ("stable@F6", False), ("stable@F5", False)],
    },
    {
        "id": "10-stables-after-D5",
        "layout": ["gray:E5", "black:G6", "S:D5"],
        "checks": [("stable@C5", False), ("stable@A5", False)],
    },
    {
        "id": "10-stable-next-to-owned-palace",
        "layout": ["gray:E5", "black:G6", "S:D5"],
        "domes": {"E5": BLUE},
        "checks": [("stable@E6", True)],
    },
    {
        "id": "11-merchant-extension",
        "layout": ["M:E6 E5 F5 G5 G6"],
        "checks": [
            ("merchant@E7", True),
            ("merchant@D6", True),
            ("merchant@G7", True),
            ("merchant@H6", True),
            ("merchant@F6", False),
            ("merchant@H5", False),
            ("merchant@D5", False),
            ("merchant@F4", False),
            ("merchant@K8", False),
        ],
    },
    {
        "id": "13-wall-growth",
        "layout": [],
        "checks": [
            ("wall@B1", True),
            ("wall@A2", True),
            ("wall@Q1", True),
            ("wall@R2", True),
            ("wall@Q13", True),
            ("wall@C1", False),
            ("wall@H1", False),
        ],
    },
    {
        "id": "13-wall-growth-after-B1",
        "layout": ["W:B1"],
        "checks": [("wall@C1", True)],
    },
    {
        "id": "14-gate-rule-closing",
        "layout": ["W:B1 C1 D1 E1 F1 G1 H1 J1 K1 L1 M1 N1 O1 P1 Q1"],
        "checks": [("wall@I1", False)],
    },
    {
        "id": "14-gate-rule-run-to-far-tower",
        "layout": ["W:B1 C1 D1 E1 F1 G1 H1 I1 J1 K1 L1 M1 N1 O1"],
        "checks": [("wall@P1", True)],
    },
    {
        "id": "14-gate-rule-last-space",
        "layout": ["W:B1 C1 D1 E1 F1 G1 H1 I1 J1 K1 L1 M1 N1 O1 P1"],
        "checks": [("wall@Q1", False)],
    },
    {
        "id": "18-stable-next-to-wall",
        "layout": ["W:Q1 P1", "orange:P3"],
        "domes": {"P3": GREEN},
        "checks": [("stable@P2", True)],
    },
]


@pytest.mark.parametrize(
    ("case", "move", "legal"),
    [(case, move, legal) for case in PLACEMENT_CASES for move, legal in case["checks"]],
    ids=[f"{case['id']}:{move}" for case in PLACEMENT_CASES for move, _ in case["checks"]],
)
def test_placement_legality(case: dict[str, Any], move: str, legal: bool) -> None:
    state = _position(case)
    parsed = state.parse_move(move)
    assert state.is_legal(parsed) is legal
    assert (parsed in state.legal_moves()) is legal
    if not legal:
        before = state.to_json()
        with pytest.raises(IllegalMoveError, match=move):
            state.apply(parsed)
        assert state.to_json() == before


@pytest.mark.parametrize(
    ("move", "legal"),
    [("start@C3", True), ("start@P11", True), ("start@B5", False), ("start@C2", False), ("start@A5", False)],
)
def test_1_start_merchant(move: str, legal: bool) -> None:
    state = make("medina").new_initial_state(GameConfig(num_players=4))
    assert state.legal_kinds() == ("merchant_start",)
    assert state.is_legal(state.parse_move(move)) is legal


def test_1_start_merchant_anywhere_variant() -> None:
    state = make("medina").new_initial_state(GameConfig(num_players=4, variants={"start_merchant_anywhere": True}))
    assert state.is_legal(state.parse_move("start@B5"))
    assert not state.is_legal(state.parse_move("start@A5"))


@pytest.mark.parametrize("move", ["gray@F6", "gray@H8"])
def test_3_illegal_extension_names_the_rule(move: str) -> None:
    state = _position({"layout": ["gray:E5"]})
    with pytest.raises(IllegalMoveError, match="unfinished gray palace"):
        state.apply(state.parse_move(move))


def test_illegal_reasons_quote_the_rule() -> None:
    state = _position({"layout": ["gray:E5 E6", "black:H6", "S:G6", "W:B1 C1 D1 E1 F1 G1 H1 J1 K1 L1 M1 N1 O1 P1 Q1"]})
    with pytest.raises(IllegalMoveError, match="street rule"):
        state.apply(state.parse_move("gray@F5"))
    with pytest.raises(IllegalMoveError, match="gate rule"):
        state.apply(state.parse_move("wall@I1"))


def test_6_abandoned_palace_allows_a_new_one() -> None:
    state = _position({"layout": ["gray:B2", "M:B3 C3 C2"]})
    assert state.palaces[0].abandoned
    assert state.unfinished[0] == -1


def test_9_colour_retirement_three_players() -> None:
    state = _position(
        {
            "layout": ["gray:E5", "gray:K5", "gray:K8"],
            "domes": {"E5": RED, "K5": BLUE},
            "num_players": 3,
            "player": GREEN,
        }
    )
    after = state.apply(state.parse_move("dome@K8"))
    assert [after.supply[p * 8] for p in range(3)] == [0, 0, 0]
    assert after.retired[0] == 3 * 6
    for seat in range(3):
        probe = medina_with_turn(after, seat)
        assert "palace" not in probe.legal_kinds() or all(m.color != 0 for m in probe.legal_moves_of_kind("palace"))  # type: ignore[attr-defined]


def test_9_colour_not_retired_with_four_players() -> None:
    state = _position({"layout": ["gray:E5", "gray:K5", "gray:K8"], "domes": {"E5": RED, "K5": BLUE}, "player": GREEN})
    after = state.apply(state.parse_move("dome@K8"))
    assert after.supply[YELLOW * 8] == 5
    yellow = medina_with_turn(after, YELLOW)
    assert yellow.is_legal(yellow.parse_move("gray@E3"))


def test_15_tower_tile_on_claim() -> None:
    state = _position({"layout": ["W:B1 C1", "gray:C2 D2 E2"]})
    after = state.apply(state.parse_move("dome@C2"))
    assert after.tower_tiles[0] == RED  # tower A1


def test_18_connection_by_stable() -> None:
    state = _position({"layout": ["W:Q1 P1", "orange:P3"], "domes": {"P3": GREEN}})
    after = state.apply(state.parse_move("stable@P2"))
    assert after.tower_tiles[1] == GREEN  # tower R1


def test_18_wall_next_to_unowned_palace_changes_nothing() -> None:
    state = _position({"layout": ["W:B1", "gray:C2"]})
    after = state.apply(state.parse_move("wall@C1"))
    assert after.tower_tiles == (-1, -1, -1, -1)
    assert after.palace_tiles == (-1, -1, -1, -1)


def test_wall_next_to_owned_palace_connects_it() -> None:
    state = _position({"layout": ["W:B1", "gray:C2"], "domes": {"C2": BLUE}, "tower_tiles": {"A1": YELLOW}})
    after = state.apply(state.parse_move("wall@C1"))
    assert after.tower_tiles[0] == BLUE


def test_reconnection_to_the_same_tower_is_not_an_event() -> None:
    # Blue's palace touches A1's south run; Yellow took A1 later; a wall on A1's west run
    # next to Blue's palace is no new connection by default, but is one per run (A4).
    for per_run, holder in ((False, YELLOW), (True, BLUE)):
        state = _position(
            {
                "layout": ["W:B1", "gray:B2"],
                "domes": {"B2": BLUE},
                "tower_tiles": {"A1": YELLOW},
                "variants": {"tower_reconnect_per_run": per_run},
            }
        )
        after = state.apply(state.parse_move("wall@A2"))
        assert after.tower_tiles[0] == holder


def test_palace_tile_moves_only_to_a_strictly_larger_palace() -> None:
    state = _position(
        {"layout": ["gray:C5 D5", "gray:K5 K6"], "domes": {"C5": RED}, "palace_tiles": {"gray": RED}, "player": BLUE}
    )
    tie = state.apply(state.parse_move("dome@K5"))
    assert tie.palace_tiles[0] == RED
    larger = medina_with_turn(tie, BLUE).apply(tie.parse_move("stable@K7"))
    assert larger.palace_tiles[0] == BLUE


@pytest.mark.parametrize(
    ("layout", "domes", "expected"),
    [
        (["gray:E5 F5 F6", "S:F4", "M:E6 G4 G7"], {"E5": RED}, (3, 1, 2, 0)),  # §8.20
        (["W:B1 C1", "orange:C3", "S:C2"], {"C3": RED}, (1, 1, 0, 1)),  # §8.21
    ],
    ids=["20-adjacency", "21-wall-next-to-stable"],
)
def test_adjacency_scoring(layout: list[str], domes: dict[str, int], expected: tuple[int, int, int, int]) -> None:
    state = _position({"layout": layout, "domes": domes})
    ps = palace_score(state, 0)
    assert (ps.pieces, ps.stables, ps.merchants, ps.walls) == expected
    assert state.scores()[RED] == sum(expected)


@pytest.mark.parametrize(
    ("layout", "expected_on", "expected_off"),
    [
        # A merchant next only to the stable F4 (G4) and one next to the palace (E6, G7 is not).
        (["gray:E5 F5 F6", "S:F4", "M:E6 G4 G7"], (3, 1, 2, 0), (3, 1, 1, 0)),
        # A wall next only to a stable: it scores whatever the flag says (§6.A A11).
        (["W:B1 C1", "orange:C3", "S:C2"], (1, 1, 0, 1), (1, 1, 0, 1)),
    ],
    ids=["merchant-next-to-stable", "wall-next-to-stable"],
)
def test_a11_off_drops_merchants_next_to_stables_only(
    layout: list[str], expected_on: tuple[int, ...], expected_off: tuple[int, ...]
) -> None:
    domes = {next(w.split(":")[1].split()[0] for w in layout if w.split(":")[0] in ("gray", "orange")): RED}
    for flag, expected in ((True, expected_on), (False, expected_off)):
        state = _position({"layout": layout, "domes": domes, "variants": {"stable_adjacency_scores": flag}})
        ps = palace_score(state, 0)
        assert (ps.pieces, ps.stables, ps.merchants, ps.walls) == expected, flag
        assert state.scores()[RED] == sum(expected)
        assert score_sheet(state).totals() == state.scores()


def test_21_connected_by_the_stable_on_claim() -> None:
    state = _position({"layout": ["W:B1 C1", "orange:C3", "S:C2"]})
    after = state.apply(state.parse_move("dome@C3"))
    assert after.tower_tiles[0] == RED


def test_22_unowned_palaces_score_nothing() -> None:
    state = _position({"layout": ["brown:H7 H8", "M:G7 G8 I8", "black:B2", "W:B1 A2"]})
    assert state.scores() == (0, 0, 0, 0)
    assert state.palace_tiles == (-1, -1, -1, -1)
    assert score_sheet(state).palaces == ()


def test_24a_unable_player_passes_and_game_ends_when_nobody_can_place() -> None:
    empty = {"gray": 0, "black": 0, "brown": 0, "orange": 0, "dome": 0, "stable": 0, "merchant": 0, "wall": 0}
    red_dome_only = {**empty, "dome": 1}
    layout = ["gray:E5", "gray:K8", "M:M11"]
    # Yellow places its last merchant; Red (dome only, already owns gray) is unable.
    base = {"layout": layout, "domes": {"E5": RED}, "player": YELLOW}
    yellow_last = {**empty, "merchant": 1}
    state = _position({**base, "supplies": [red_dome_only, empty, empty, yellow_last]})
    over = state.apply(state.parse_move("merchant@M12"))
    assert over.is_terminal()
    assert over.outcome() is not None
    # Same, but Blue still has a wall: Red must pass, then Blue plays.
    state = _position({**base, "supplies": [red_dome_only, {**empty, "wall": 1}, empty, yellow_last]})
    red = state.apply(state.parse_move("merchant@M12"))
    assert red.current_player == RED
    assert red.legal_kinds() == ("pass",)
    blue = red.apply(red.parse_move("pass"))
    assert blue.current_player == BLUE
    assert blue.legal_kinds() == ("wall",)


def test_24b_short_turn() -> None:
    empty = {"gray": 0, "black": 0, "brown": 0, "orange": 0, "dome": 0, "stable": 0, "merchant": 0, "wall": 0}
    state = _position({"layout": [], "supplies": [{**empty, "merchant": 1}], "player": RED})
    after = state.apply(state.parse_move("merchant@H8"))
    assert after.current_player == BLUE
    assert after.placements_left == 2


def test_dome_obligation_for_the_last_able_player() -> None:
    empty = {"gray": 0, "black": 0, "brown": 0, "orange": 0, "dome": 0, "stable": 0, "merchant": 0, "wall": 0}
    red = {**empty, "dome": 1, "merchant": 3}
    supplies = [red, empty, empty, {**empty, "merchant": 1}]
    state = _position({"layout": ["gray:E5", "M:M11"], "supplies": supplies, "player": YELLOW})
    turn = state.apply(state.parse_move("merchant@M12"))
    assert turn.current_player == RED and turn.obligation
    assert set(turn.legal_kinds()) == {"dome", "merchant"}
    second = turn.apply(turn.parse_move("merchant@M10"))
    assert second.legal_kinds() == ("dome",)
    with pytest.raises(IllegalMoveError, match="dome obligation"):
        second.apply(second.parse_move("merchant@M9"))


def test_dome_obligation_lookahead_forbids_killing_the_last_dome() -> None:
    empty = {"gray": 0, "black": 0, "brown": 0, "orange": 0, "dome": 0, "stable": 0, "merchant": 0, "wall": 0}
    red = {**empty, "dome": 1, "merchant": 2}
    # gray:B2 has one extension square left (C2): a merchant there would abandon it.
    layout = ["gray:B2", "M:B3 C3"]
    supplies = [red, empty, empty, {**empty, "wall": 1}]
    state = _position({"layout": layout, "supplies": supplies, "player": YELLOW})
    turn = state.apply(state.parse_move("wall@B1"))
    assert turn.obligation
    merchants = {str(m) for m in turn.legal_moves_of_kind("merchant")}
    assert "merchant@C2" not in merchants
    relaxed = _position(
        {"layout": layout, "supplies": supplies, "player": YELLOW, "variants": {"dome_obligation_lookahead": False}}
    )
    turn = relaxed.apply(relaxed.parse_move("wall@B1"))
    assert "merchant@C2" in {str(m) for m in turn.legal_moves_of_kind("merchant")}
    waived = turn.apply(turn.parse_move("merchant@C2"))
    assert waived.current_player == RED and "merchant" in waived.legal_kinds()


SEED_EXAMPLE = [
    "gray:B2 C2 D2 E2",
    "black:B4 C4 C5 D5 E5",
    "orange:P2 Q2 Q3 Q4",
    "W:B1 C1 D1 E1 A2 A3 A4 P1 Q1",
    "M:B3 C3 D3 D4 E4",
    "M:O3 O4 P4 P5 Q5",
]


def test_25_seed_example_palace_scores() -> None:
    state = _position(
        {
            "layout": [*SEED_EXAMPLE, "S:F2 P3 O2"],
            "domes": {"B2": GREEN, "B4": BLUE, "P2": RED},
            "palace_tiles": {"gray": GREEN, "black": BLUE, "orange": RED},
            "tower_tiles": {"A1": BLUE, "R1": RED},
        }
    )
    by_colour = {ps.color: ps.total for ps in score_sheet(state).palaces}
    assert by_colour == {3: 11, 1: 10, 0: 13}
    assert state.scores()[:3] == (17, 16, 14)


def test_25_seed_example_tiles_from_the_claims() -> None:
    state = _position({"layout": [*SEED_EXAMPLE, "S:F2"]})
    for seat, dome in ((GREEN, "B2"), (BLUE, "B4"), (RED, "P2")):
        state = medina_with_turn(state, seat).apply(state.parse_move(f"dome@{dome}"))
        if dome == "B2":
            assert state.tower_tiles[0] == GREEN and state.palace_tiles[0] == GREEN
    for stable in ("P3", "O2"):
        state = medina_with_turn(state, RED).apply(state.parse_move(f"stable@{stable}"))
    assert state.palace_tiles == (GREEN, BLUE, -1, RED)
    assert state.tower_tiles[:2] == (BLUE, RED)
    assert state.scores() == (17, 16, 14, 0)
    assert "orange" in make("medina").describe_score(state)
