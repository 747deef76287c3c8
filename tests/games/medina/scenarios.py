"""Medina's spec §8 conformance scenarios and the §7 worked scoring example, as data (run
by ``test_medina_scenarios.py``).

One scenario style for both games (``tests/scenarios.py``): a position, then ``steps``.
The position is written in the spec's notation (``tests/builders.medina_position``):
``layout`` items ``"gray:E5 E6"`` (palace pieces), ``"S:..."`` (stables), ``"M:..."``
(merchants, the last one listed in the active chain), ``"W:..."`` (walls); ``domes``
(square -> owning seat), ``palace_tiles``, ``tower_tiles``, ``supplies`` (per seat, slot
-> count; empty slots as in ``EMPTY``), ``players`` (default 4), ``to_move`` (default
Red), ``variants``; or ``setup`` (a new game: ``num_players``, ``variants``).  Seats are
Red 0, Blue 1, Green 2, Yellow 3.  Ids start with the spec's number: ``8.20-...`` is
§8.20, ``A4-...`` the variant A4 of §6, ``5.2-...`` a rule of §5.2 that §8 does not
cover.

Steps: the shared words of ``tests/scenarios.py`` (``play``, ``legal``, ``illegal``,
``moves``, ``count``, ``kinds``, ``to_move``, ``scores``, ``ply``, ``phase``, ``over``,
``not_over``, ``describe``) and Medina's own (``test_medina_scenarios.py``):

* ``("turn_to", seat)``: give the turn to ``seat`` (two placements, no obligation), to
  make placements for any seat without playing the others' turns.
* ``("tiles", {tile: seat})``: who holds these tiles (palace colours, towers ``A1``,
  ``R1``, ``A13``, ``R13``; ``None``: in the supply).
* ``("palace", square, (pieces, stables, merchants, walls))``: the score breakdown of the
  palace on ``square``.
* ``("sheet", {colour: total})``: the owned palaces of the score sheet, and its totals
  equal ``scores()``.
* ``("palace_status", square, status)``: ``"unfinished"``, ``"abandoned"`` or
  ``"owned"``; ``("unfinished", colour, square)``: the unfinished palace of that colour
  holds ``square`` (``None``: there is none).
* ``("supply", slot, [per seat])``, ``("retired", colour, n)``, ``("obligation", flag)``,
  ``("placements_left", n)``, ``("chain", [squares])`` (the active merchant chain).
"""

from __future__ import annotations

from typing import Any

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3

EMPTY = {"gray": 0, "black": 0, "brown": 0, "orange": 0, "dome": 0, "stable": 0, "merchant": 0, "wall": 0}
"""A supply with nothing left (``supplies`` entries build on it)."""

NO_TILES = {
    "gray": None,
    "black": None,
    "brown": None,
    "orange": None,
    "A1": None,
    "R1": None,
    "A13": None,
    "R13": None,
}

SEED_EXAMPLE = [
    "gray:B2 C2 D2 E2",
    "black:B4 C4 C5 D5 E5",
    "orange:P2 Q2 Q3 Q4",
    "W:B1 C1 D1 E1 A2 A3 A4 P1 Q1",
    "M:B3 C3 D3 D4 E4",
    "M:O3 O4 P4 P5 Q5",
]
"""The final position of spec §7 without the stables."""

_24 = {"layout": ["gray:E5", "gray:K8", "M:M11"], "domes": {"E5": RED}, "to_move": YELLOW}
"""§8.24 (a): Yellow places its last merchant; Red (a dome only, already owning gray) is unable."""

_A8 = {"layout": ["gray:B2", "M:B3 C3"], "to_move": YELLOW}
"""A8: gray:B2 has one extension square left (C2): a merchant there would abandon it."""
_A8_SUPPLIES = [{**EMPTY, "dome": 1, "merchant": 2}, EMPTY, EMPTY, {**EMPTY, "wall": 1}]

_A2 = {"layout": ["black:B3 C3 C2", "M:H8 H9 H10", "M:B2"]}
"""A2: the active chain B2 is boxed in by the black palace; the old chain H8-H10 is dead."""

_A7 = {
    "layout": ["gray:E5", "gray:K8", "M:M11"],
    "domes": {"E5": BLUE},
    # Blue owns gray: its dome has no target, so Blue is unable.
    "supplies": [{**EMPTY, "dome": 1, "merchant": 3}, {**EMPTY, "dome": 1}, EMPTY, {**EMPTY, "merchant": 1}],
    "to_move": YELLOW,
}
"""A7: who is "the last player" of the dome obligation: by ability (default) or by supply."""

_RECHECK = {
    "players": 3,
    "ruleset": "boardspace",
    # Green's gray B2 has one free neighbour, C2 (its only stable square); black H8 is
    # abandoned (merchants all round), so only a dome can still claim it (A1, on here).
    "layout": ["gray:B2", "black:H8", "M:H7 H9 G8 I8", "M:B3", "M:D2"],
    "domes": {"B2": GREEN},
    "supplies": [{**EMPTY, "dome": 1, "merchant": 2}, {**EMPTY, "stable": 1}, {**EMPTY, "stable": 1}],
}
"""E12b: Red's merchant on C2 takes the others' only move (a stable on C2)."""

SCENARIOS: list[dict[str, Any]] = [
    {
        "id": "8.1-start-merchant",
        "title": "§8.1 the start merchant goes on an inner building square",
        "setup": {"num_players": 4},
        "steps": [
            ("phase", "start_merchant"),
            ("kinds", ["merchant_start"]),
            ("legal", "start@C3", True),
            ("legal", "start@P11", True),
            ("legal", "start@B5", False),  # border square
            ("legal", "start@C2", False),
            ("legal", "start@A5", False),  # wall space
        ],
    },
    {
        "id": "8.1-start-merchant-anywhere",
        "title": "§8.1 with start_merchant_anywhere: any building square",
        "setup": {"num_players": 4, "variants": {"start_merchant_anywhere": True}},
        "steps": [("legal", "start@B5", True), ("legal", "start@A5", False)],
    },
    {
        "id": "8.2-new-palace-street-rule",
        "title": "§8.2 a new palace keeps the street rule",
        "layout": ["gray:E5"],
        "steps": [
            ("legal", "black@G5", True),
            ("legal", "black@G7", True),
            ("legal", "black@F6", False),  # diagonal touch
            ("legal", "black@A5", False),
        ],
    },
    {
        "id": "8.3-must-extend",
        "title": "§8.3 an unfinished palace must be extended",
        "layout": ["gray:E5"],
        "steps": [
            ("legal", "gray@E6", True),
            ("illegal", "gray@F6", "unfinished gray palace"),  # diagonal only
            ("illegal", "gray@H8", "unfinished gray palace"),  # elsewhere while unfinished
        ],
    },
    {
        "id": "8.4-extension-respects-streets",
        "title": "§8.4 an extension respects the streets, stables included",
        "layout": ["gray:E5 E6", "black:H6", "S:G6"],
        "steps": [
            ("legal", "gray@F5", False),  # touches the stable G6
            ("legal", "gray@F6", False),
            ("legal", "gray@E7", True),
            ("legal", "gray@D5", True),
        ],
    },
    {
        "id": "8.4-illegal-reasons",
        "title": "§8.4 and §8.14: the error names the rule (street rule, gate rule)",
        "layout": ["gray:E5 E6", "black:H6", "S:G6", "W:B1 C1 D1 E1 F1 G1 H1 J1 K1 L1 M1 N1 O1 P1 Q1"],
        "steps": [("illegal", "gray@F5", "street rule"), ("illegal", "wall@I1", "gate rule")],
    },
    {
        "id": "8.5-new-palace-after-claim",
        "title": "§8.5 after a claim a new palace of the colour may start",
        "layout": ["gray:E5"],
        "domes": {"E5": RED},
        "to_move": BLUE,
        "steps": [("legal", "gray@K8", True), ("legal", "gray@E6", False), ("legal", "gray@F5", False)],
    },
    {
        "id": "8.6-abandoned-palace-default",
        "title": "§8.6 an abandoned palace cannot be claimed and allows a new one",
        "layout": ["gray:B2", "M:B3 C3 C2"],
        "steps": [
            ("palace_status", "B2", "abandoned"),
            ("unfinished", "gray", None),
            ("legal", "dome@B2", False),
            ("legal", "gray@K8", True),
        ],
    },
    {
        "id": "8.6-abandoned-palace-claimable",
        "title": "§8.6 with abandoned_palace_claimable (A1): the dome is legal",
        "layout": ["gray:B2", "M:B3 C3 C2"],
        "variants": {"abandoned_palace_claimable": True},
        "steps": [("legal", "dome@B2", True), ("legal", "gray@K8", True)],
    },
    {
        "id": "8.7-one-palace-per-colour-red",
        "title": "§8.7 Red, owning a gray palace, cannot claim another",
        "layout": ["gray:E5", "gray:K8"],
        "domes": {"E5": RED},
        "to_move": RED,
        "steps": [("legal", "dome@K8", False)],
    },
    {
        "id": "8.7-one-palace-per-colour-blue",
        "title": "§8.7 Blue may claim the unfinished gray palace, not the owned one",
        "layout": ["gray:E5", "gray:K8"],
        "domes": {"E5": RED},
        "to_move": BLUE,
        "steps": [("legal", "dome@K8", True), ("legal", "dome@E5", False)],
    },
    {
        "id": "8.8-dome-targets",
        "title": "§8.8 a dome goes only on a palace piece",
        "layout": ["orange:H7", "S:H8", "M:J5"],
        "steps": [
            ("legal", "dome@H8", False),  # stable
            ("legal", "dome@J5", False),  # merchant
            ("legal", "dome@A2", False),  # wall space
            ("legal", "dome@H7", True),
        ],
    },
    {
        "id": "8.9-colour-retirement-3p",
        "title": "§8.9 with 3 players the third gray claim retires gray",
        "layout": ["gray:E5", "gray:K5", "gray:K8"],
        "domes": {"E5": RED, "K5": BLUE},
        "players": 3,
        "to_move": GREEN,
        "steps": [
            ("play", "dome@K8"),
            ("supply", "gray", [0, 0, 0]),
            ("retired", "gray", 3 * 6),
            ("turn_to", RED),
            ("moves", "gray@", []),
            ("turn_to", BLUE),
            ("moves", "gray@", []),
            ("turn_to", GREEN),
            ("moves", "gray@", []),
        ],
    },
    {
        "id": "8.9-colour-kept-4p",
        "title": "§8.9 with 4 players Yellow keeps its gray pieces",
        "layout": ["gray:E5", "gray:K5", "gray:K8"],
        "domes": {"E5": RED, "K5": BLUE},
        "to_move": GREEN,
        "steps": [
            ("play", "dome@K8"),
            ("supply", "gray", [5, 5, 5, 5]),
            ("turn_to", YELLOW),
            ("legal", "gray@E3", True),
        ],
    },
    {
        "id": "8.10-stables",
        "title": "§8.10 a stable is next to exactly one palace",
        "layout": ["gray:E5", "black:G6"],
        "steps": [
            ("legal", "stable@D5", True),
            ("legal", "stable@F6", False),  # touches gray E5 too
            ("legal", "stable@F5", False),  # touches black G6 too
        ],
    },
    {
        "id": "8.10-stables-after-D5",
        "title": "§8.10 not next to a stable only, not on a wall space",
        "layout": ["gray:E5", "black:G6", "S:D5"],
        "steps": [("legal", "stable@C5", False), ("legal", "stable@A5", False)],
    },
    {
        "id": "8.10-stable-next-to-owned-palace",
        "title": "§8.10 owned palaces accept stables",
        "layout": ["gray:E5", "black:G6", "S:D5"],
        "domes": {"E5": BLUE},
        "steps": [("legal", "stable@E6", True)],
    },
    {
        "id": "8.11-merchant-extension",
        "title": "§8.11 merchants extend the active chain at its ends",
        "layout": ["M:E6 E5 F5 G5 G6"],
        "steps": [
            ("legal", "merchant@E7", True),
            ("legal", "merchant@D6", True),
            ("legal", "merchant@G7", True),
            ("legal", "merchant@H6", True),
            ("legal", "merchant@F6", False),  # 3 merchant neighbours
            ("legal", "merchant@H5", False),  # next to a middle merchant only
            ("legal", "merchant@D5", False),
            ("legal", "merchant@F4", False),
            ("legal", "merchant@K8", False),  # the chain can still grow
        ],
    },
    {
        "id": "8.13-wall-growth",
        "title": "§8.13 walls grow from the towers",
        "layout": [],
        "steps": [
            ("legal", "wall@B1", True),
            ("legal", "wall@A2", True),
            ("legal", "wall@Q1", True),
            ("legal", "wall@R2", True),
            ("legal", "wall@Q13", True),
            ("legal", "wall@C1", False),
            ("legal", "wall@H1", False),
        ],
    },
    {
        "id": "8.13-wall-growth-after-B1",
        "title": "§8.13 after W:B1, C1 is legal",
        "layout": ["W:B1"],
        "steps": [("legal", "wall@C1", True)],
    },
    {
        "id": "8.14-gate-rule-closing",
        "title": "§8.14 the wall may not close the last gate",
        "layout": ["W:B1 C1 D1 E1 F1 G1 H1 J1 K1 L1 M1 N1 O1 P1 Q1"],
        "steps": [("legal", "wall@I1", False)],
    },
    {
        "id": "8.14-gate-rule-run-to-far-tower",
        "title": "§8.14 fourteen pieces from A1: P1 is legal",
        "layout": ["W:B1 C1 D1 E1 F1 G1 H1 I1 J1 K1 L1 M1 N1 O1"],
        "steps": [("legal", "wall@P1", True)],
    },
    {
        "id": "8.14-gate-rule-last-space",
        "title": "§8.14 after W:P1, Q1 is illegal",
        "layout": ["W:B1 C1 D1 E1 F1 G1 H1 I1 J1 K1 L1 M1 N1 O1 P1"],
        "steps": [("legal", "wall@Q1", False)],
    },
    {
        "id": "8.15-tower-tile-on-claim",
        "title": "§8.15 a claim next to a tower's wall takes the tower tile",
        "layout": ["W:B1 C1", "gray:C2 D2 E2"],
        "steps": [("play", "dome@C2"), ("tiles", {"A1": RED, "gray": RED}), ("scores", [9, 0, 0, 0])],  # 3 + 1 + 4 + 1
    },
    {
        "id": "8.18-connection-by-stable",
        "title": "§8.18 a stable connects an owned palace to a tower",
        "layout": ["W:Q1 P1", "orange:P3"],
        "domes": {"P3": GREEN},
        "steps": [
            ("legal", "stable@P2", True),
            ("play", "stable@P2"),
            ("tiles", {"R1": GREEN}),
            ("scores", [0, 0, 9, 0]),
        ],
    },
    {
        "id": "8.18-wall-next-to-unowned-palace",
        "title": "§8.18 a wall next to an unowned palace changes nothing",
        "layout": ["W:B1", "gray:C2"],
        "steps": [("play", "wall@C1"), ("tiles", NO_TILES)],
    },
    {
        "id": "4.2-wall-next-to-owned-palace",
        "title": "§4.2 a wall next to an owned palace connects it",
        "layout": ["W:B1", "gray:C2"],
        "domes": {"C2": BLUE},
        "tower_tiles": {"A1": YELLOW},
        "steps": [("play", "wall@C1"), ("tiles", {"A1": BLUE})],
    },
    {
        "id": "A4-reconnect-per-tower",
        "title": "A4 default: a new wall run to the same tower is no new connection",
        # Blue's palace touches A1's south run; Yellow took A1 later.
        "layout": ["W:B1", "gray:B2"],
        "domes": {"B2": BLUE},
        "tower_tiles": {"A1": YELLOW},
        "variants": {"tower_reconnect_per_run": False},
        "steps": [("play", "wall@A2"), ("tiles", {"A1": YELLOW})],
    },
    {
        "id": "A4-reconnect-per-run",
        "title": "A4 tower_reconnect_per_run: the west run is a new connection",
        "layout": ["W:B1", "gray:B2"],
        "domes": {"B2": BLUE},
        "tower_tiles": {"A1": YELLOW},
        "variants": {"tower_reconnect_per_run": True},
        "steps": [("play", "wall@A2"), ("tiles", {"A1": BLUE})],
    },
    {
        "id": "4.1-palace-tile-to-larger-palace",
        "title": "§4.1 a palace tile moves only to a strictly larger palace",
        "layout": ["gray:C5 D5", "gray:K5 K6"],
        "domes": {"C5": RED},
        "palace_tiles": {"gray": RED},
        "to_move": BLUE,
        "steps": [
            ("play", "dome@K5"),
            ("tiles", {"gray": RED}),  # a tie
            ("turn_to", BLUE),
            ("play", "stable@K7"),
            ("tiles", {"gray": BLUE}),
        ],
    },
    {
        "id": "8.20-adjacency",
        "title": "§8.20 adjacency scoring: 3 + 1 + 2, E6 once, G4 via the stable, G7 not",
        "layout": ["gray:E5 F5 F6", "S:F4", "M:E6 G4 G7"],
        "domes": {"E5": RED},
        "steps": [("palace", "E5", (3, 1, 2, 0)), ("scores", [6, 0, 0, 0])],
    },
    {
        "id": "8.21-wall-next-to-stable",
        "title": "§8.21 a wall next to a stable scores: 1 + 1 + 1",
        "layout": ["W:B1 C1", "orange:C3", "S:C2"],
        "domes": {"C3": RED},
        "steps": [("palace", "C3", (1, 1, 0, 1)), ("scores", [3, 0, 0, 0])],
    },
    {
        "id": "A11-merchant-next-to-stable-on",
        "title": "A11 stable_adjacency_scores on: a merchant next only to the stable F4 scores",
        "layout": ["gray:E5 F5 F6", "S:F4", "M:E6 G4 G7"],
        "domes": {"E5": RED},
        "variants": {"stable_adjacency_scores": True},
        "steps": [("palace", "E5", (3, 1, 2, 0)), ("scores", [6, 0, 0, 0]), ("sheet", {"gray": 6})],
    },
    {
        "id": "A11-merchant-next-to-stable-off",
        "title": "A11 stable_adjacency_scores off: G4 (next only to the stable) does not score",
        "layout": ["gray:E5 F5 F6", "S:F4", "M:E6 G4 G7"],
        "domes": {"E5": RED},
        "variants": {"stable_adjacency_scores": False},
        "steps": [("palace", "E5", (3, 1, 1, 0)), ("scores", [5, 0, 0, 0]), ("sheet", {"gray": 5})],
    },
    {
        "id": "A11-wall-next-to-stable-on",
        "title": "A11 stable_adjacency_scores on: a wall next only to a stable scores",
        "layout": ["W:B1 C1", "orange:C3", "S:C2"],
        "domes": {"C3": RED},
        "variants": {"stable_adjacency_scores": True},
        "steps": [("palace", "C3", (1, 1, 0, 1)), ("scores", [3, 0, 0, 0]), ("sheet", {"orange": 3})],
    },
    {
        "id": "A11-wall-next-to-stable-off",
        "title": "A11 stable_adjacency_scores off: the wall still scores",
        "layout": ["W:B1 C1", "orange:C3", "S:C2"],
        "domes": {"C3": RED},
        "variants": {"stable_adjacency_scores": False},
        "steps": [("palace", "C3", (1, 1, 0, 1)), ("scores", [3, 0, 0, 0]), ("sheet", {"orange": 3})],
    },
    {
        "id": "8.21-connected-by-the-stable-on-claim",
        "title": "§8.21 the claim connects the palace to tower A1 through the stable",
        "layout": ["W:B1 C1", "orange:C3", "S:C2"],
        "steps": [("play", "dome@C3"), ("tiles", {"A1": RED}), ("scores", [11, 0, 0, 0])],
    },
    {
        "id": "8.22-unowned-palaces",
        "title": "§8.22 unowned palaces score nothing and their tiles stay in the supply",
        "layout": ["brown:H7 H8", "M:G7 G8 I8", "black:B2", "W:B1 A2"],
        "steps": [("scores", [0, 0, 0, 0]), ("tiles", NO_TILES), ("sheet", {})],
    },
    {
        "id": "8.24a-nobody-can-place",
        "title": "§8.24 (a) the game ends at once when nobody can place",
        **_24,
        "supplies": [{**EMPTY, "dome": 1}, EMPTY, EMPTY, {**EMPTY, "merchant": 1}],
        "steps": [("play", "merchant@M12"), ("over", "no_legal_placements", [RED]), ("scores", [1, 0, 0, 0])],
    },
    {
        "id": "8.24a-unable-player-passes",
        "title": "§8.24 (a) Red is unable and passes; Blue, with a wall, plays on",
        **_24,
        "supplies": [{**EMPTY, "dome": 1}, {**EMPTY, "wall": 1}, EMPTY, {**EMPTY, "merchant": 1}],
        "steps": [
            ("play", "merchant@M12"),
            ("to_move", RED),
            ("kinds", ["pass"]),
            ("play", "pass"),
            ("to_move", BLUE),
            ("kinds", ["wall"]),
        ],
    },
    {
        "id": "8.24b-short-turn",
        "title": "§8.24 (b) a player with one placement left ends the turn after it",
        "layout": [],
        "supplies": [{**EMPTY, "merchant": 1}],
        "steps": [("play", "merchant@H8"), ("to_move", BLUE), ("placements_left", 2)],
    },
    {
        "id": "5.2-dome-obligation",
        "title": "§5.2 the last able player must place a dome",
        "layout": ["gray:E5", "M:M11"],
        "supplies": [{**EMPTY, "dome": 1, "merchant": 3}, EMPTY, EMPTY, {**EMPTY, "merchant": 1}],
        "to_move": YELLOW,
        "steps": [
            ("play", "merchant@M12"),
            ("to_move", RED),
            ("obligation", True),
            ("kinds", ["dome", "merchant"]),
            ("play", "merchant@M10"),
            ("kinds", ["dome"]),
            ("illegal", "merchant@M9", "dome obligation"),
        ],
    },
    {
        "id": "A8-lookahead",
        "title": "A8 default: under the obligation a merchant may not kill the last dome target",
        **_A8,
        "supplies": _A8_SUPPLIES,
        "steps": [("play", "wall@B1"), ("obligation", True), ("legal", "merchant@C2", False)],
    },
    {
        "id": "A8-no-lookahead",
        "title": "A8 dome_obligation_lookahead=false: the merchant is legal and waives the obligation",
        **_A8,
        "supplies": _A8_SUPPLIES,
        "variants": {"dome_obligation_lookahead": False},
        "steps": [
            ("play", "wall@B1"),
            ("legal", "merchant@C2", True),
            ("play", "merchant@C2"),
            ("to_move", RED),
            ("kinds", ["merchant"]),
        ],
    },
    {
        "id": "A2-new-chain-default",
        "title": "A2 default: a new chain may not touch a merchant",
        **_A2,
        "steps": [("legal", "merchant@K5", True), ("legal", "merchant@G9", False), ("legal", "merchant@H7", False)],
    },
    {
        "id": "A2-new-chain-next-to-one-merchant",
        "title": "A2 new_chain_may_touch_one: a new chain may touch one merchant and merges with it",
        **_A2,
        "variants": {"new_chain_may_touch_one": True},
        "steps": [
            ("legal", "merchant@G9", True),
            ("legal", "merchant@H7", True),
            ("legal", "merchant@K5", True),
            ("legal", "merchant@B4", True),
            ("play", "merchant@G9"),
            ("turn_to", RED),
            # The merged group is the active chain, grown only from the new merchant.
            ("moves", "merchant@", ["merchant@F9"]),
            ("chain", ["H8", "G9", "H9", "H10"]),
        ],
    },
    {
        "id": "A7-obligation-by-ability",
        "title": "A7 default: Red is the last player able to place, so the dome obligation holds",
        **_A7,
        "variants": {"last_player_by_supply": False},
        "steps": [("play", "merchant@M12"), ("to_move", RED), ("obligation", True)],
    },
    {
        "id": "A7-obligation-by-supply",
        "title": "A7 last_player_by_supply: Blue still has pieces, so there is no obligation",
        **_A7,
        "variants": {"last_player_by_supply": True},
        "steps": [("play", "merchant@M12"), ("to_move", RED), ("obligation", False)],
    },
    {
        "id": "8.25-seed-palace-scores",
        "title": "§8.25 (§7) the seed example: palace scores 11 / 10 / 13, totals 17 / 16 / 14",
        "layout": [*SEED_EXAMPLE, "S:F2 P3 O2"],
        "domes": {"B2": GREEN, "B4": BLUE, "P2": RED},
        "palace_tiles": {"gray": GREEN, "black": BLUE, "orange": RED},
        "tower_tiles": {"A1": BLUE, "R1": RED},
        "steps": [("sheet", {"orange": 11, "black": 10, "gray": 13}), ("scores", [17, 16, 14, 0])],
    },
    {
        "id": "8.25-seed-tiles-from-the-claims",
        "title": "§8.25 (§7) the claims in order gray, black, orange hand out the tiles",
        "layout": [*SEED_EXAMPLE, "S:F2"],
        "steps": [
            ("turn_to", GREEN),
            ("play", "dome@B2"),
            ("tiles", {"A1": GREEN, "gray": GREEN}),
            ("turn_to", BLUE),
            ("play", "dome@B4"),
            ("turn_to", RED),
            ("play", "dome@P2"),
            ("turn_to", RED),
            ("play", "stable@P3"),
            ("turn_to", RED),
            ("play", "stable@O2"),
            ("tiles", {"gray": GREEN, "black": BLUE, "brown": None, "orange": RED, "A1": BLUE, "R1": RED}),
            ("scores", [17, 16, 14, 0]),
            ("describe", "orange"),
        ],
    },
    {
        "id": "E12b-obligation-recheck",
        "title": "boardspace (obligation_recheck): a first placement that leaves the others unable creates "
        "the dome obligation for the second",
        **_RECHECK,
        "steps": [
            ("obligation", False),
            ("play", "merchant@C2"),
            ("to_move", RED),
            ("obligation", True),
            ("kinds", ["dome"]),
            ("illegal", "merchant@E2", "dome obligation"),
            ("play", "dome@H8"),
        ],
    },
    {
        "id": "E12b-obligation-at-the-start-of-the-turn",
        "title": "without obligation_recheck the obligation is decided at the start of the turn: the second "
        "placement stays free",
        **_RECHECK,
        "variants": {"obligation_recheck": False},
        "steps": [("play", "merchant@C2"), ("obligation", False), ("kinds", ["dome", "merchant"])],
    },
]
