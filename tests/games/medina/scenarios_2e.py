"""The second edition's conformance scenarios (``medina-2e.md`` §9) as data, run by
``test_medina_scenarios.py`` through the shared scenario runner.

Written like ``scenarios.py`` (the same position keys and step words), plus ``ruleset``
(``second_edition`` unless a scenario says otherwise), domes and tile holders ``"N"``
(neutral), supply slots ``purple``, ``neutral`` and ``tea``, ``tea_pool`` and
``tower_merchants``; the step words ``tea_pool``, ``tower_merchants``, ``well``,
``no_square``, ``board`` and ``random_setups``.  As in §9: 4 players on the 3–4-player
board with the well at ``O10``, 3 players likewise, 2 players on the 2-player board with
the well at ``M9``; a normal (two-placement) turn.  Ids start with the §9 number
(``2e.5-...``).
"""

from __future__ import annotations

from typing import Any

from .scenarios import EMPTY

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3

EMPTY_2E = {**EMPTY, "neutral": 0, "tea": 0}
"""A second-edition supply with nothing left."""


def position(players: int = 4, well: str | None = None, **flags: Any) -> dict[str, Any]:
    """The position keys of a §9 scenario: the second edition, the well at §9's square."""
    variants = {"well": well or ("M9" if players == 2 else "O10"), **flags}
    return {"ruleset": "second_edition", "players": players, "variants": variants}


_BOARD_2P = {
    "building": 140,
    "inner": 96,
    "wall_spaces": 48,
    "towers": {"A1": 4, "P1": 2, "A12": 1, "P12": 3},
    "building_squares": ["B2", "O11", "C3", "N10", "O10"],
    "inner_squares": ["C3", "N10"],
    "border_squares": ["O10", "B2"],
    "wall_squares": ["P5", "A11", "O12"],
}

_SUPPLIES = {
    2: (8, 4, 2, 4, 12, 15),
    3: (6, 4, 1, 4, 8, 12),
    4: (5, 4, 0, 3, 6, 9),
}
"""Per player count: palace pieces per colour, domes, neutral domes, stables, merchants, walls (§1.2)."""


def _supply_steps(n: int) -> list[tuple[Any, ...]]:
    pieces, domes, neutral, stables, merchants, walls = _SUPPLIES[n]
    steps: list[tuple[Any, ...]] = [("supply", c, [pieces] * n) for c in ("gray", "purple", "brown", "orange")]
    steps += [
        ("supply", "dome", [domes] * n),
        ("supply", "neutral", [neutral] * n),
        ("supply", "stable", [stables] * n),
        ("supply", "merchant", [merchants] * n),
        ("supply", "wall", [walls] * n),
        ("supply", "tea", [0] * n),
        ("tea_pool", 6),
    ]
    towers = {"A12": 3, "P1": 2, "P12": 1, "A1": 0} if n == 2 else {"A13": 3, "R1": 2, "R13": 1, "A1": 0}
    return [*steps, ("tower_merchants", towers)]


_WELL_H7 = position(well="H7")

_NEUTRAL_TARGETS = {
    **position(3),
    "layout": ["gray:E5", "gray:K8", "S:K9", "M:C10"],
    "domes": {"E5": RED},
}

_AFTER_NEUTRAL = {**position(3), "layout": ["gray:E5", "gray:K8"], "domes": {"E5": RED}}

_TEA_TOWER = {
    **position(4),
    "layout": ["W:B13 C13", "purple:C12 D12"],
    "supplies": [{"merchant": 0}],
}

_TOWER_FIRST = {
    **position(4),
    "layout": ["W:B13 C13 A12 A11 A10 A9", "gray:C12 D12", "orange:B8 B9"],
}

_NEUTRAL_TOWER = {**position(3), "layout": ["W:B13 C13 D13 E13", "brown:B12", "gray:E12 F12"]}

_NEUTRAL_WALL = {
    **position(4),
    "layout": ["W:R2 R3 R4 R5", "orange:Q2", "gray:Q6"],
    "domes": {"Q2": RED, "Q6": "N"},
    "palace_tiles": {"orange": RED, "gray": "N"},
    "tower_tiles": {"R1": RED},
    "tower_merchants": {"R1": 0},
    "to_move": BLUE,
}

_TILE = {
    **position(2),
    "layout": ["orange:E5 E6", "orange:K5 K6 K7"],
    "domes": {"E5": RED},
    "palace_tiles": {"orange": RED},
    "to_move": BLUE,
}

_OBLIGATION = {
    **position(2),
    "layout": ["gray:F3", "purple:F6", "brown:I3", "orange:K8", "M:C3 C4"],
    "domes": {"F3": RED, "F6": RED, "I3": RED},
    "supplies": [{**EMPTY_2E, "dome": 1, "neutral": 1, "merchant": 3, "tea": 1}, EMPTY_2E],
    "to_move": BLUE,  # Blue can only pass: Red's turn then starts with the obligation
}

_WORKED_EXAMPLE = {
    "layout": [
        "purple:B2 C2 D2",
        "S:B3",
        "gray:F8 F9 G9",
        "orange:H6 I6",
        "gray:K3 L3",
        "brown:L10 M10",
        "W:B1 C1 D1 A2 A3",
        "M:E8 E9 E10",
        "M:J6 J7",
        "M:D6",
    ],
    "domes": {"B2": BLUE, "F9": RED, "I6": RED, "K3": BLUE, "L10": "N"},
    "palace_tiles": {"purple": BLUE, "gray": RED, "orange": RED, "brown": "N"},
    "tower_tiles": {"A1": BLUE},
}

_TIE = {
    **position(3),
    "layout": ["gray:C3 C4 C5 C6", "purple:H3 H4 H5", "M:I4"],
    "domes": {"C3": RED, "H3": BLUE},
    "supplies": [EMPTY_2E, EMPTY_2E, EMPTY_2E],
}
"""Red: gray 4 pieces (4 points, size 4); Blue: purple 3 pieces + 1 merchant (4 points, size 3)."""

_TIE_EQUAL = {
    **position(3),
    "layout": ["gray:C3 C4 C5 C6", "purple:H3 H4 H5 H6"],
    "supplies": [EMPTY_2E, EMPTY_2E, EMPTY_2E],
}
"""Red and Blue: 4 points each, largest palaces of size 4: the earlier claim wins the tie-break."""

SCENARIOS_2E: list[dict[str, Any]] = [
    {
        "id": "2e.1-two-player-board",
        "title": "§9.1 the 2-player board: 16x12, 140 building squares, towers A1 P1 A12 P12",
        **position(2),
        "steps": [
            ("board", _BOARD_2P),
            ("no_square", "Q5"),
            ("no_square", "B13"),
            ("no_square", "R2"),
            ("legal", "gray@B2", True),
        ],
    },
    *(
        {
            "id": f"2e.2-supplies-{n}p",
            "title": f"§9.2 the supplies of a fresh {n}-player game, the tea pool and the tower merchants",
            "setup": {"num_players": n, "ruleset": "second_edition", "seed": 1},
            "steps": _supply_steps(n),
        }
        for n in (2, 3, 4)
    ),
    {
        "id": "2e.3-random-setup",
        "title": "§9.3 the random well and starting merchant, for seeds 0-99 and every player count",
        "setup": {"num_players": 2, "ruleset": "second_edition"},
        "steps": [("random_setups", 100)],
    },
    {
        "id": "2e.4-opening-2p",
        "title": "§9.4 2 players: turn 1 has one placement (no tea), turn 2 two",
        "setup": {"num_players": 2, "ruleset": "second_edition", "seed": 3},
        "steps": [
            ("to_move", RED),
            ("placements_left", 1),
            ("count", "tea", 0),
            ("play", "wall@B1"),
            ("to_move", BLUE),
            ("placements_left", 2),
            ("play", "wall@C1"),
            ("to_move", BLUE),
            ("play", "wall@D1"),
            ("to_move", RED),
            ("placements_left", 2),
        ],
    },
    *(
        {
            "id": f"2e.4-opening-{n}p",
            "title": f"§9.4 {n} players: turns 1 and 2 have one placement each, turn 3 two",
            "setup": {"num_players": n, "ruleset": "second_edition", "seed": 3},
            "steps": [
                ("placements_left", 1),
                ("play", "wall@B1"),
                ("to_move", BLUE),
                ("placements_left", 1),
                ("play", "wall@C1"),
                ("to_move", GREEN),
                ("placements_left", 2),
            ],
        }
        for n in (3, 4)
    ),
    {
        "id": "2e.5-red-squares",
        "title": "§9.5 no new palace on a red square or the well",
        **_WELL_H7,
        "steps": [
            ("well", "H7", ["G6", "G7", "G8", "H6", "H8", "I6", "I7", "I8"], ["H5", "H9", "F7", "J7"]),
            ("illegal", "gray@G8", "touches the well"),
            ("illegal", "gray@I6", "touches the well"),
            ("illegal", "gray@H7", "holds the well"),
            ("legal", "gray@F7", True),
            ("legal", "gray@J7", True),
        ],
    },
    {
        "id": "2e.5-red-squares-extension",
        "title": "§9.5 a palace next to the plaza: its extension squares and stables avoid the red squares",
        **_WELL_H7,
        "layout": ["gray:F7"],
        "steps": [
            ("moves", "gray@", ["gray@E7", "gray@F6", "gray@F8"]),
            ("illegal", "stable@G7", "touches the well"),
            ("legal", "stable@E7", True),
        ],
    },
    {
        "id": "2e.5-red-squares-merchants",
        "title": "§9.5 merchants may go on red squares, never on the well",
        **_WELL_H7,
        "layout": ["M:H9"],
        "steps": [
            ("legal", "merchant@H8", True),
            ("legal", "merchant@H10", True),
            ("illegal", "merchant@H7", "holds the well"),
        ],
    },
    {
        "id": "2e.6-yellow-at-the-edge",
        "title": "§9.6 a well at C3: two yellow squares only",
        **position(well="C3"),
        "steps": [
            ("well", "C3", ["B2", "B3", "B4", "C2", "C4", "D2", "D3", "D4"], ["E3", "C5"]),
            ("illegal", "gray@D4", "touches the well"),
            ("legal", "gray@B5", True),
            ("legal", "gray@E3", True),
        ],
    },
    {
        "id": "2e.7-abandoned-by-the-plaza",
        "title": "§9.7 a palace whose only free neighbour is red is abandoned: no dome of either kind",
        **position(3, well="H7"),
        "layout": ["gray:F7", "M:E7 F6 F8"],
        "steps": [
            ("palace_status", "F7", "abandoned"),
            ("legal", "gray@K3", True),
            ("illegal", "dome@F7", "abandoned"),
            ("illegal", "neutral@F7", "abandoned"),
        ],
    },
    {
        "id": "2e.7-abandoned-by-the-plaza-A1",
        "title": "§9.7 with A1 (abandoned_palace_claimable) both kinds of dome may claim it",
        **position(3, well="H7", abandoned_palace_claimable=True),
        "layout": ["gray:F7", "M:E7 F6 F8"],
        "steps": [("legal", "dome@F7", True), ("legal", "neutral@F7", True)],
    },
    {
        "id": "2e.8-neutral-dome-targets",
        "title": "§9.8 a neutral dome claims any unfinished palace, whatever colours its placer owns",
        **_NEUTRAL_TARGETS,
        "steps": [
            ("illegal", "dome@K8", "already own a gray palace"),
            ("legal", "neutral@K8", True),
            ("illegal", "neutral@E5", "already owned"),
            ("illegal", "neutral@K9", "must go on a palace piece"),
            ("illegal", "neutral@C10", "must go on a palace piece"),
            ("illegal", "neutral@O10", "holds the well"),
            ("turn_to", BLUE),
            ("legal", "dome@K8", True),
        ],
    },
    {
        "id": "2e.8-no-neutral-domes-with-4",
        "title": "§9.8 with 4 players nobody holds a neutral dome",
        **position(4),
        "layout": ["gray:K8"],
        "steps": [("supply", "neutral", [0, 0, 0, 0]), ("count", "neutral@", 0)],
    },
    {
        "id": "2e.9-after-a-neutral-claim",
        "title": "§9.9 a neutral-owned palace is finished; a new palace of its colour may start",
        **_AFTER_NEUTRAL,
        "steps": [
            ("play", "neutral@K8"),
            ("palace_status", "K8", "owned"),
            ("unfinished", "gray", None),
            ("supply", "gray", [6, 6, 6]),
            ("legal", "gray@K9", False),
            ("legal", "stable@L8", True),
            ("play", "gray@C10"),
            ("to_move", BLUE),
            ("legal", "neutral@C10", True),
            ("turn_to", RED),
            ("illegal", "dome@C10", "already own a gray palace"),
        ],
    },
    {
        "id": "2e.10-retirement-ignores-neutral-domes",
        "title": "§9.10 only player domes count for colour retirement",
        **position(2),
        "layout": ["gray:E5", "gray:K8"],
        "domes": {"E5": RED},
        "to_move": BLUE,
        "steps": [
            ("play", "neutral@K8"),
            ("supply", "gray", [8, 8]),
            ("retired", "gray", 0),
            ("play", "gray@C10"),
            ("turn_to", BLUE),
            ("play", "dome@C10"),
            ("supply", "gray", [0, 0]),
            ("retired", "gray", 15),
        ],
    },
    {
        "id": "2e.11-tea-award",
        "title": "§9.11 purple claims award 3, 2, 1 tea tiles, a neutral dome's share to the box",
        **position(3),
        "layout": ["purple:C3"],
        "steps": [
            ("play", "dome@C3"),
            ("supply", "tea", [3, 0, 0]),
            ("tea_pool", 3),
            ("turn_to", BLUE),
            ("play", "purple@F3"),
            ("play", "neutral@F3"),
            ("supply", "tea", [3, 0, 0]),
            ("tea_pool", 1),
            ("turn_to", GREEN),
            ("play", "gray@L3"),
            ("play", "dome@L3"),
            ("supply", "tea", [3, 0, 0]),  # other colours award nothing
            ("turn_to", GREEN),
            ("play", "purple@J3"),
            ("play", "dome@J3"),
            ("supply", "tea", [3, 0, 1]),
            ("tea_pool", 0),
            ("turn_to", BLUE),
            ("play", "purple@C8"),
            ("play", "dome@C8"),
            ("supply", "tea", [3, 0, 1]),
            ("tea_pool", 0),
        ],
    },
    {
        "id": "2e.12-tea-option",
        "title": "§9.12 a tea tile replaces the second placement, never the first; it ends the turn",
        **position(4),
        "supplies": [{"tea": 1}],
        "steps": [
            ("illegal", "tea", "second placement"),
            ("play", "gray@K8"),
            ("legal", "tea", True),
            ("play", "tea"),
            ("to_move", BLUE),
            ("supply", "tea", [0, 0, 0, 0]),
            ("tea_pool", 6),
        ],
    },
    {
        "id": "2e.12-tea-kept-when-stuck",
        "title": "§9.12 (E6) with no second placement the turn ends and the tea tile is kept",
        **position(4),
        "supplies": [{**EMPTY_2E, "wall": 1, "tea": 1}],
        "steps": [("play", "wall@B1"), ("to_move", BLUE), ("supply", "tea", [1, 0, 0, 0])],
    },
    {
        "id": "2e.12-tea-spend-when-stuck",
        "title": "§9.12 (E6, Boardspace) with tea_spend_when_stuck the tea tile is the only action",
        **position(4, tea_spend_when_stuck=True),
        "supplies": [{**EMPTY_2E, "wall": 1, "tea": 1}],
        "steps": [("play", "wall@B1"), ("to_move", RED), ("kinds", ["tea"]), ("play", "tea"), ("to_move", BLUE)],
    },
    {
        "id": "2e.12-tea-is-no-piece",
        "title": "§9.12 tea tiles alone do not make a player able: a pass",
        **position(4),
        "supplies": [{**EMPTY_2E, "tea": 2}],
        "steps": [("kinds", ["pass"])],
    },
    {
        "id": "2e.13-tea-and-tower-merchants",
        "title": "§9.13 one claim: the purple tile, 3 tea tiles, tower 1 and its 3 merchants",
        **_TEA_TOWER,
        "steps": [
            ("play", "dome@C12"),
            ("tiles", {"purple": RED, "A13": RED}),
            ("supply", "tea", [3, 0, 0, 0]),
            ("tea_pool", 3),
            ("supply", "merchant", [3, 6, 6, 6]),
            ("tower_merchants", {"A13": 0}),
            ("kinds", ["palace", "stable", "merchant", "wall", "tea"]),
        ],
    },
    {
        "id": "2e.14-tower-merchants-first-connection",
        "title": "§9.14 tower merchants go to the first connection only",
        **_TOWER_FIRST,
        "steps": [
            ("play", "dome@C12"),
            ("tiles", {"A13": RED}),
            ("supply", "merchant", [9, 6, 6, 6]),
            ("tower_merchants", {"A13": 0}),
            ("turn_to", BLUE),
            ("play", "dome@B8"),
            ("tiles", {"A13": BLUE}),
            ("supply", "merchant", [9, 6, 6, 6]),
        ],
    },
    {
        "id": "2e.15-neutral-claim-at-a-tower",
        "title": "§9.15 a neutral claim takes the tower tile for nobody and boxes its merchants",
        **_NEUTRAL_TOWER,
        "steps": [
            ("play", "neutral@B12"),
            ("tiles", {"A13": "N", "brown": "N"}),
            ("tower_merchants", {"A13": 0}),
            ("supply", "merchant", [8, 8, 8]),
            ("turn_to", BLUE),
            ("play", "dome@E12"),
            ("tiles", {"A13": BLUE}),
            ("supply", "merchant", [8, 8, 8]),
        ],
    },
    {
        "id": "2e.15-neutral-claims-no-tiles",
        "title": "§9.15 with neutral_claims_tiles=False the neutral claim changes no tile",
        **_NEUTRAL_TOWER,
        "variants": {**_NEUTRAL_TOWER["variants"], "neutral_claims_tiles": False},
        "steps": [
            ("play", "neutral@B12"),
            ("tiles", {"A13": None, "brown": None}),
            ("tower_merchants", {"A13": 3}),
            ("turn_to", BLUE),
            ("play", "dome@E12"),
            ("tiles", {"A13": BLUE}),
            ("supply", "merchant", [8, 11, 8]),
        ],
    },
    {
        "id": "2e.16-wall-next-to-a-neutral-palace",
        "title": "§9.16 a wall connecting a neutral palace takes the tower tile for nobody",
        **_NEUTRAL_WALL,
        "steps": [("play", "wall@R6"), ("tiles", {"R1": "N"})],
    },
    *(
        {
            "id": f"2e.16-wall-next-to-a-neutral-palace-{flag}",
            "title": f"§9.16 with {flag}={value} Red keeps tower 2",
            **_NEUTRAL_WALL,
            "variants": {**_NEUTRAL_WALL["variants"], flag: value},
            "steps": [("play", "wall@R6"), ("tiles", {"R1": RED})],
        }
        for flag, value in (("neutral_claims_tiles", False), ("tower_events_claim_only", True))
    ),
    {
        "id": "2e.17-palace-tile-and-neutral-palaces",
        "title": "§9.17 the palace tile moves only to a strictly larger owned palace, neutral ones included",
        **_TILE,
        "steps": [
            ("play", "neutral@K5"),
            ("tiles", {"orange": "N"}),
            ("turn_to", RED),
            ("play", "stable@D5"),
            ("tiles", {"orange": "N"}),
            ("play", "stable@D6"),
            ("tiles", {"orange": RED}),
            ("turn_to", BLUE),
            ("play", "stable@L6"),
            ("tiles", {"orange": RED}),
            ("play", "stable@J6"),
            ("tiles", {"orange": "N"}),
        ],
    },
    {
        "id": "2e.17-palace-tile-neutral-claims-no-tiles",
        "title": "§9.17 with neutral_claims_tiles=False Red holds the orange tile throughout",
        **_TILE,
        "variants": {**_TILE["variants"], "neutral_claims_tiles": False},
        "steps": [
            ("play", "neutral@K5"),
            ("turn_to", RED),
            ("play", "stable@D5"),
            ("play", "stable@D6"),
            ("turn_to", BLUE),
            ("play", "stable@L6"),
            ("play", "stable@J6"),
            ("tiles", {"orange": RED}),
        ],
    },
    {
        "id": "2e.18-tower-merchants-re-enable",
        "title": "§9.18 a wall hands an unable player the tower merchants: it must place again",
        **position(3),
        "layout": ["gray:C12", "W:B13"],
        "domes": {"C12": GREEN},
        "supplies": [{}, {}, EMPTY_2E],
        "steps": [
            ("play", "wall@C13"),
            ("tiles", {"A13": GREEN}),
            ("supply", "merchant", [8, 8, 3]),
            ("play", "wall@D13"),
            ("to_move", BLUE),
            ("play", "wall@B1"),
            ("play", "wall@C1"),
            ("to_move", GREEN),
            ("kinds", ["merchant"]),
        ],
    },
    {
        "id": "2e.19-obligation-own-dome-first",
        "title": "§9.19 the obligation met by the first placement: the second is free (tea allowed)",
        **_OBLIGATION,
        "steps": [
            ("play", "pass"),
            ("to_move", RED),
            ("obligation", True),
            ("illegal", "neutral@K8", "dome obligation"),
            ("play", "dome@K8"),
            ("kinds", ["merchant", "tea"]),
        ],
    },
    {
        "id": "2e.19-obligation-own-dome-second",
        "title": "§9.19 after another first placement only the own dome is legal (no tea, no neutral)",
        **_OBLIGATION,
        "steps": [
            ("play", "pass"),
            ("play", "merchant@C5"),
            ("kinds", ["dome"]),
            ("moves", "dome@", ["dome@K8"]),
            ("illegal", "tea", "dome obligation"),
        ],
    },
    {
        "id": "2e.19-obligation-neutral-satisfies",
        "title": "§9.19 (E12a) with neutral_dome_satisfies_obligation a neutral dome meets it",
        **_OBLIGATION,
        "variants": {**_OBLIGATION["variants"], "neutral_dome_satisfies_obligation": True},
        "steps": [
            ("play", "pass"),
            ("play", "neutral@K8"),
            ("obligation", False),
            ("kinds", ["merchant", "tea"]),
            ("count", "dome@", 0),
        ],
    },
    {
        "id": "2e.20-gate-rule-2p",
        "title": "§9.20 the gate rule on the 2-player board",
        **position(2),
        "steps": [
            ("legal", "wall@O1", True),
            ("legal", "wall@P2", True),
            ("legal", "wall@P11", True),
            ("legal", "wall@B12", True),
            ("legal", "wall@O12", True),
            ("no_square", "Q1"),
        ],
    },
    {
        "id": "2e.20-gate-rule-2p-closing",
        "title": "§9.20 the last wall space of a side stays open (the gate)",
        **position(2),
        "layout": ["W:B1 C1 D1 E1 F1 G1 H1 I1 J1 K1 L1 M1"],
        "steps": [("legal", "wall@N1", True), ("play", "wall@N1"), ("illegal", "wall@O1", "gate rule")],
    },
    {
        "id": "2e.21-well-scoring",
        "title": "§9.21 +4 per palace component on a yellow square; neutral palaces score nothing",
        **_WELL_H7,
        "layout": ["orange:J7 K7", "gray:H9 H10", "M:H8", "purple:H4", "S:H5", "brown:F7"],
        "domes": {"J7": RED, "H9": BLUE, "H4": GREEN, "F7": "N"},
        "steps": [
            ("palace", "J7", (2, 0, 0, 0, 4)),
            ("palace", "H9", (2, 0, 1, 0, 4)),
            ("palace", "H4", (1, 1, 0, 0, 4)),
            ("scores", [6, 7, 6, 0]),
        ],
    },
    {
        "id": "2e.22-worked-example",
        "title": "§9.22 (§8) the worked example: palaces 9/7/9/2, totals Red 21, Blue 17",
        **position(2, well="F6"),
        **_WORKED_EXAMPLE,
        "steps": [
            ("well", "F6", ["E5", "E6", "E7", "F5", "F7", "G5", "G6", "G7"], ["D6", "H6", "F4", "F8"]),
            ("palace", "F8", (3, 0, 2, 0, 4)),
            ("palace", "H6", (2, 0, 1, 0, 4)),
            ("palace", "B2", (3, 1, 0, 5, 0)),
            ("palace", "K3", (2, 0, 0, 0, 0)),
            ("scores", [21, 17]),
            ("tiles", {"brown": "N", "purple": BLUE, "A1": BLUE, "A12": None}),
            ("tower_merchants", {"A12": 3, "P1": 2, "P12": 1}),
            ("describe", "well 4"),
        ],
    },
    {
        "id": "2e.22-worked-example-no-well",
        "title": "§9.22 (§8) without the well Red loses its two well bonuses",
        **position(2, well="none"),
        **_WORKED_EXAMPLE,
        "steps": [("well", None, [], []), ("scores", [13, 17])],
    },
    {
        "id": "2e.23-ties-shared",
        "title": "§9.23 equal totals share the win",
        **_TIE,
        "steps": [("scores", [4, 4, 0]), ("play", "pass"), ("over", "no_legal_placements", [RED, BLUE])],
    },
    {
        "id": "2e.23-ties-largest-palace",
        "title": "§9.23 (E13) tie_break=largest_palace: Red's largest palace (4) beats Blue's (3)",
        **_TIE,
        "variants": {**_TIE["variants"], "tie_break": "largest_palace"},
        "steps": [("play", "pass"), ("over", "no_legal_placements", [RED])],
    },
    *(
        {
            "id": f"2e.23-ties-earlier-claim-{first}",
            "title": "§9.23 (E13) equal largest palaces: the one claimed earlier wins",
            **_TIE_EQUAL,
            "domes": domes,
            "variants": {**_TIE_EQUAL["variants"], "tie_break": "largest_palace"},
            "steps": [("scores", [4, 4, 0]), ("play", "pass"), ("over", "no_legal_placements", [winner])],
        }
        for first, domes, winner in (
            ("red", {"C3": RED, "H3": BLUE}, RED),
            ("blue", {"H3": BLUE, "C3": RED}, BLUE),
        )
    ),
]
"""Every scenario of the second-edition spec's §9, with the variants it names."""
