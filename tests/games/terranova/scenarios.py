"""Terra Nova's spec §7 conformance scenarios as data (run by ``test_scenarios.py``).

One scenario style for both games (``tests/scenarios.py``): a position, then ``steps``.
The position is the spec's: cells are axial ``(q, r)``, seats ``Y``=0, ``R``=1, ``B``=2,
``G``=3, the named player (``to_move``, default Y) about to take action 1; ``board`` is
a test map (``D37``, ``"disc168"``, or ``("P", W, H, columns, missing)`` for the spec's
``P(W,H) "columns"``); ``setup`` starts a new game instead (``num_players``, ``board``,
``start_player``).  Moves are in the game's notation (``docs/notation.md``: ``d4-f4``,
``#e4``, ``d4`` for a placement, ``pass``): column letter ``a`` is the smallest q on the
map, row ``1`` the smallest r, so on ``D37`` the centre (0, 0) is ``d4`` and on
``P(W,H)`` the cell (q, r) is letter q + 1, row r + 1.  The comments give the spec's axial
cells.

Steps: the shared words of ``tests/scenarios.py`` (``play``, ``legal``, ``illegal``,
``moves``, ``count``, ``kinds``, ``to_move``, ``scores``, ``ply``, ``phase``, ``over``,
``not_over``, ``describe``) and Terra Nova's own (``test_scenarios.py``):

* ``("action", n)``: the current player is about to take action ``n`` (1-3).
* ``("supply", n)``, ``("closed", n)`` (closed cells), ``("on_board", seat, n)``,
  ``("removed", seat, n)``, ``("area", k, size, "lands", value, [awards])`` (the k-th
  scored area), ``("zones", [sizes])`` (sizes of the open zones, largest first),
  ``("counts", n, [colours])`` (pioneers in hand per seat, seat colours).
* ``("place_all",)``: finish the placement phase on the first empty cells, checking
  the seat order.
* ``("mmm_turns", n)``: play ``n`` turns of three moves each (first legal slide).
"""

from __future__ import annotations

from typing import Any

D37 = "D3-7"
T14_MAP = ("P", 9, 3, "FFMMAPSHR", ())

SCENARIOS: list[dict[str, Any]] = [
    {
        "id": "T01-2p",
        "title": "setup counts, 2 players",
        "setup": {"num_players": 2, "board": "disc168"},
        "steps": [
            ("counts", 13, ["yellow", "red"]),
            ("supply", 80),
            ("scores", [0, 0]),
            ("phase", "placement"),
        ],
    },
    {
        "id": "T01-3p",
        "title": "setup counts, 3 players",
        "setup": {"num_players": 3, "board": "disc168"},
        "steps": [
            ("counts", 10, ["yellow", "red", "blue"]),
            ("supply", 80),
            ("scores", [0, 0, 0]),
            ("phase", "placement"),
        ],
    },
    {
        "id": "T01-4p",
        "title": "setup counts, 4 players",
        "setup": {"num_players": 4, "board": "disc168"},
        "steps": [
            ("counts", 8, ["yellow", "red", "blue", "green"]),
            ("supply", 80),
            ("scores", [0, 0, 0, 0]),
            ("phase", "placement"),
        ],
    },
    {
        "id": "T02",
        "title": "placement order and occupied cells",
        "setup": {"num_players": 3, "board": D37, "start_player": 0},
        "steps": [
            ("to_move", 0),
            ("play", "d4"),  # (0, 0)
            ("to_move", 1),
            ("illegal", "d4", "occupied"),  # (0, 0)
            ("place_all",),
            ("ply", 30),
            ("phase", "play"),
            ("scores", [0, 0, 0]),
            ("closed", 0),
            ("to_move", 0),
            ("action", 1),
        ],
    },
    {
        "id": "T03",
        "title": "straight lines",
        "board": D37,
        "pieces": {"Y": [(0, 0)]},
        "steps": [
            ("count", "d4-", 18),  # from (0, 0)
            ("illegal", "d4-e5", "straight line"),  # (0, 0)-(1, 1)
            ("illegal", "d4-d4", "at least one cell"),  # (0, 0)-(0, 0)
        ],
    },
    {
        "id": "T03-edge",
        "title": "no move beyond the board edge",
        "board": D37,
        "pieces": {"Y": [(3, 0)]},
        "steps": [
            (
                "moves",
                "g4-",
                [
                    "g4-f4",
                    "g4-e4",
                    "g4-d4",
                    "g4-c4",
                    "g4-b4",
                    "g4-a4",
                    "g4-g3",
                    "g4-g2",
                    "g4-g1",
                    "g4-f5",
                    "g4-e6",
                    "g4-d7",
                ],
            ),  # from (3, 0)
        ],
    },
    {
        "id": "T04",
        "title": "blocking",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-1, 0)], "R": [(2, 0)]},
        "stones": [(0, -1)],
        "steps": [
            (
                "moves",
                "d4-",
                ["d4-e4", "d4-e3", "d4-f2", "d4-g1", "d4-c5", "d4-b6", "d4-a7", "d4-d5", "d4-d6", "d4-d7"],
            ),  # from (0, 0)
            ("illegal", "d4-g4", "pioneer at d4 cannot reach g4: path blocked at f4"),  # (0, 0)-(3, 0)
            ("illegal", "d4-d2", "path blocked"),  # (0, 0)-(0, -2)
            ("illegal", "d4-b4", "path blocked"),  # (0, 0)-(-2, 0)
        ],
    },
    {
        "id": "T05",
        "title": "gaps stop movement",
        "board": ("P", 5, 3, "ABCDE", ((2, 1),)),
        "pieces": {"Y": [(0, 1)]},
        "steps": [
            ("moves", "a2-", ["a2-b2", "a2-b1", "a2-a1", "a2-a3"]),  # from (0, 1)
            ("illegal", "a2-d2", "leaves the board"),  # (0, 1)-(3, 1)
        ],
    },
    {
        "id": "T06",
        "title": "the first action is a move",
        "board": D37,
        "pieces": {"Y": [(0, 0)], "R": [(3, -3)]},
        "steps": [
            ("kinds", ["move"]),
            ("illegal", "#e4", "first action"),  # P@(1, 0)
            ("illegal", "pass", "you can move"),
        ],
    },
    {
        "id": "T07",
        "title": "pass",
        "board": D37,
        "players": 3,
        "pieces": {"Y": [(0, 0)], "R": [(-1, 0), (0, 1), (3, -3)], "B": [(-1, 1), (-3, 3)]},
        "stones": [(1, 0), (1, -1), (0, -1)],
        "steps": [
            ("kinds", ["pass"]),
            ("illegal", "d4-d2", "path blocked"),  # (0, 0)-(0, -2)
            ("play", "pass"),
            ("to_move", 1),
            ("action", 1),
            ("not_over",),
            ("supply", 77),
        ],
    },
    {
        "id": "T08",
        "title": "freed during the turn",
        "board": D37,
        "pieces": {"Y": [(3, 0), (2, 0)], "R": [(3, -1), (2, 1)]},
        "steps": [
            ("moves", "g4-", []),  # from (3, 0)
            ("play", "f4-e4"),  # (2, 0)-(1, 0)
            ("moves", "g4-", ["g4-f4"]),  # from (3, 0)
            ("play", "g4-f4"),  # (3, 0)-(2, 0)
            ("to_move", 0),
            ("action", 3),
        ],
    },
    {
        "id": "T09",
        "title": "stone adjacency after two moves",
        "board": D37,
        "pieces": {"Y": [(0, 0), (0, -3), (-2, 3)]},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "d1-d2"),  # (0, -3)-(0, -2)
            ("legal", "#e4", True),  # P@(1, 0)
            ("legal", "#d1", True),  # P@(0, -3)
            ("illegal", "#c6", "must touch a pioneer you moved this turn"),  # P@(-1, 2)
            ("illegal", "#d2", "occupied"),  # P@(0, -2)
        ],
    },
    {
        "id": "T10",
        "title": "second stone impossible, third action must be a move",
        "board": D37,
        "pieces": {"Y": [(1, 0), (3, -3)], "R": [(1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]},
        "steps": [
            ("play", "e4-d4"),  # (1, 0)-(0, 0)
            ("moves", "#", ["#e4"]),
            ("play", "#e4"),  # P@(1, 0)
            ("closed", 0),
            ("to_move", 0),
            ("action", 3),
            ("kinds", ["move"]),
            ("moves", "#", []),
            ("count", "g1-", 7),  # from (3, -3)
            ("count", "d4-", 0),  # from (0, 0)
            ("illegal", "pass", "cannot be ended voluntarily"),
        ],
    },
    {
        "id": "T10-alone",
        "title": "without C the turn ends after two actions",
        "board": D37,
        "pieces": {"Y": [(1, 0)], "R": [(1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]},
        # Y's turn ends after two actions; Y is then stuck, so E2 ends the game.
        "steps": [
            ("play", "e4-d4"),  # (1, 0)-(0, 0)
            ("play", "#e4"),  # P@(1, 0)
            ("ply", 2),
            ("over", "one_mobile_player", [0, 1]),
        ],
    },
    {
        "id": "T11",
        "title": "return restriction, default",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)], "R": [(-2, 3)]},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "f4-d4"),  # (2, 0)-(0, 0)
            ("to_move", 0),
            ("action", 3),
            ("kinds", ["move"]),
            ("illegal", "#e4", "must move again"),  # P@(1, 0)
            ("illegal", "a7-a6", "must move again"),  # (-3, 3)-(-3, 2)
            ("count", "a7-", 0),  # from (-3, 3)
            ("legal", "d4-d6", True),  # (0, 0)-(0, 2)
            ("illegal", "pass", "cannot be ended voluntarily"),
            ("play", "d4-d6"),  # (0, 0)-(0, 2)
            ("to_move", 1),
            ("action", 1),
        ],
    },
    {
        "id": "T11-out-back-out",
        "title": "out, back and out again to another cell is allowed",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)]},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "f4-d4"),  # (2, 0)-(0, 0)
            (
                "moves",
                "d4-",
                [
                    "d4-e4",
                    "d4-f4",
                    "d4-g4",
                    "d4-e3",
                    "d4-f2",
                    "d4-g1",
                    "d4-d3",
                    "d4-d2",
                    "d4-d1",
                    "d4-c4",
                    "d4-b4",
                    "d4-a4",
                    "d4-c5",
                    "d4-b6",
                    "d4-d5",
                    "d4-d6",
                    "d4-d7",
                ],
            ),  # from (0, 0)
        ],
    },
    {
        "id": "T11-third",
        "title": "a return as action 3 is illegal (out, stone, back)",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)]},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "#g4"),  # P@(3, 0)
            ("illegal", "f4-d4", "may not end the turn on its start cell"),  # (2, 0)-(0, 0)
            ("legal", "f4-e4", True),  # (2, 0)-(1, 0)
        ],
    },
    {
        "id": "T11-triangle",
        "title": "a triangle of three moves back to the start is illegal",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)]},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "f4-f2"),  # (2, 0)-(2, -2)
            ("illegal", "f2-d4", "start cell"),  # (2, -2)-(0, 0)
        ],
    },
    {
        "id": "T11-other-between",
        "title": "a return as action 3 is illegal after another pioneer's move (M(X) M(Y) M(X back))",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)]},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "a7-b7"),  # (-3, 3)-(-2, 3)
            ("illegal", "f4-d4", "may not end the turn on its start cell"),  # (2, 0)-(0, 0)
            ("legal", "f4-e4", True),  # (2, 0)-(1, 0)
        ],
    },
    {
        "id": "T11-strict",
        "title": "return restriction, strict",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)]},
        "variants": {"return_rule": "strict"},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("illegal", "f4-d4", "strict"),  # (2, 0)-(0, 0)
        ],
    },
    {
        "id": "T11-english",
        "title": "preset english uses the strict return rule",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)], "R": [(3, -3)]},
        "ruleset": "english",
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("illegal", "f4-d4", "strict"),  # (2, 0)-(0, 0)
        ],
    },
    {
        "id": "T11-three-moves-only",
        "title": "three_moves_only: only the third move of one pioneer is restricted",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)]},
        "variants": {"return_rule": "three_moves_only"},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "f4-f2"),  # (2, 0)-(2, -2)
            ("illegal", "f2-d4", "third move"),  # (2, -2)-(0, 0)
            ("legal", "f2-d2", True),  # (2, -2)-(0, -2)
        ],
    },
    {
        "id": "T11-three-moves-only-stone",
        "title": "three_moves_only: out, stone, back is allowed",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 3)]},
        "variants": {"return_rule": "three_moves_only"},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "#g4"),  # P@(3, 0)
            ("play", "f4-d4"),  # (2, 0)-(0, 0)
            ("ply", 3),
        ],
    },
    {
        "id": "T13",
        "title": "another pioneer may end on s(X)",
        "board": D37,
        "pieces": {"Y": [(0, 0), (-3, 0)]},
        "steps": [
            ("play", "d4-d6"),  # (0, 0)-(0, 2)
            ("legal", "a4-d4", True),  # (-3, 0)-(0, 0)
            ("play", "a4-d4"),  # (-3, 0)-(0, 0)
        ],
    },
    {
        "id": "T14",
        "title": "rulebook example A",
        "board": T14_MAP,
        "players": 3,
        "to_move": "R",
        "pieces": {"B": [(0, 1), (2, 2)], "R": [(1, 0), (7, 1)]},
        "stones": [(4, 0), (4, 1)],
        "steps": [
            ("play", "h2-f2"),  # (7, 1)-(5, 1)
            ("play", "#e3"),  # P@(4, 2)
            ("scores", [0, 0, 24]),
            ("area", 0, 12, "FM", 24, [0, 0, 24]),
            ("closed", 12),
            ("on_board", 2, 0),
            ("on_board", 1, 1),
            ("removed", 2, 2),
            ("removed", 1, 1),
            ("zones", [12]),
            ("supply", 77),
            ("to_move", 1),
            ("action", 3),
        ],
    },
    {
        "id": "T14-mover-removed",
        "title": "a mover removed by scoring no longer makes a stone legal (§3.6)",
        "board": T14_MAP,
        "players": 3,
        "to_move": "R",
        "pieces": {"B": [(0, 1), (2, 1)], "R": [(1, 2), (7, 1)]},
        "stones": [(4, 0), (4, 1)],
        "steps": [
            ("play", "b3-d3"),  # (1, 2)-(3, 2)
            ("play", "#e3"),  # P@(4, 2)
            ("scores", [0, 0, 24]),
            ("removed", 1, 1),
            ("to_move", 1),
            ("action", 3),
            ("kinds", ["move"]),
            ("moves", "#", []),
            ("illegal", "#f3", "must touch a pioneer you moved this turn"),  # P@(5, 2)
        ],
    },
    {
        "id": "T15",
        "title": "rulebook example B: a tie splits the value",
        "board": ("P", 8, 3, "LLLFMPSH", ()),
        "players": 3,
        "to_move": "B",
        "pieces": {"B": [(0, 0), (5, 0)], "R": [(1, 2)]},
        "stones": [(2, 1), (2, 2)],
        "steps": [
            ("play", "f1-e1"),  # (5, 0)-(4, 0)
            ("play", "#d1"),  # P@(3, 0)
            ("scores", [0, 10, 10]),
            ("area", 0, 7, "L", 21, [0, 10, 10]),
            ("closed", 7),
        ],
    },
    {
        "id": "T15-lake-not-landscape",
        "title": "lake_is_landscape=false: a lake-only area counts as t = 1",
        "board": ("P", 8, 3, "LLLFMPSH", ()),
        "players": 3,
        "to_move": "B",
        "pieces": {"B": [(0, 0), (5, 0)], "R": [(1, 2)]},
        "stones": [(2, 1), (2, 2)],
        "variants": {"lake_is_landscape": False},
        "steps": [
            ("play", "f1-e1"),  # (5, 0)-(4, 0)
            ("play", "#d1"),  # P@(3, 0)
            ("scores", [0, 10, 10]),
        ],
    },
    {
        "id": "T18",
        "title": "an area without pioneers closes and scores nothing",
        "board": T14_MAP,
        "players": 3,
        "to_move": "R",
        "pieces": {"R": [(7, 1)], "Y": [(8, 2)]},
        "stones": [(4, 0), (4, 1)],
        "steps": [
            ("play", "h2-f2"),  # (7, 1)-(5, 1)
            ("play", "#e3"),  # P@(4, 2)
            ("scores", [0, 0, 0]),
            ("area", 0, 12, "FM", 24, [0, 0, 0]),
            ("closed", 12),
        ],
    },
    {
        "id": "T19",
        "title": "pioneers are not walls",
        "board": T14_MAP,
        "players": 3,
        "to_move": "R",
        "pieces": {"B": [(4, 2)], "R": [(0, 0), (8, 1)]},
        "stones": [(4, 0), (4, 1)],
        "steps": [
            ("play", "i2-h2"),  # (8, 1)-(7, 1)
            ("play", "#h1"),  # P@(7, 0)
            ("scores", [0, 0, 0]),
            ("closed", 0),
            ("zones", [24]),
        ],
    },
    {
        "id": "T21",
        "title": "E1 and a shared win",
        "board": ("P", 7, 1, "AABCDDE", ()),
        "pieces": {"Y": [(0, 0), (1, 0)], "R": [(6, 0)]},
        "steps": [
            ("play", "b1-c1"),  # (1, 0)-(2, 0)
            ("play", "#d1"),  # P@(3, 0)
            ("scores", [6, 6]),
            ("zones", []),
            ("over", "board_divided", [0, 1]),
        ],
    },
    {
        "id": "T22",
        "title": "E2: one mobile player ends the game",
        "board": D37,
        "pieces": {"R": [(0, 0)], "Y": [(-1, 0), (-1, 1), (0, 1), (3, -3)]},
        "stones": [(1, 0), (1, -1), (0, -1)],
        "steps": [
            ("play", "g1-g3"),  # (3, -3)-(3, -1)
            ("play", "#g2"),  # P@(3, -2)
            ("play", "#g4"),  # P@(3, 0)
            ("scores", [0, 0]),
            ("closed", 0),
            ("over", "one_mobile_player", [0, 1]),
        ],
    },
    {
        "id": "T22-potential",
        "title": "E2 with mobility_test=potential: play continues and R passes",
        "board": D37,
        "pieces": {"R": [(0, 0)], "Y": [(-1, 0), (-1, 1), (0, 1), (3, -3)]},
        "stones": [(1, 0), (1, -1), (0, -1)],
        "variants": {"mobility_test": "potential"},
        "steps": [
            ("play", "g1-g3"),  # (3, -3)-(3, -1)
            ("play", "#g2"),  # P@(3, -2)
            ("play", "#g4"),  # P@(3, 0)
            ("not_over",),
            ("to_move", 1),
            ("action", 1),
            ("kinds", ["pass"]),
            ("play", "pass"),
            ("to_move", 0),
            ("action", 1),
        ],
    },
    {
        "id": "T24",
        "title": "the last stone",
        "board": D37,
        "supply": 1,
        "pieces": {"Y": [(0, 0), (-3, 3)], "R": [(-3, 0)]},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "#g4"),  # P@(3, 0)
            ("supply", 0),
            ("kinds", ["move"]),
            ("illegal", "#e4", "supply is empty"),  # P@(1, 0)
            ("illegal", "f4-d4", "start cell"),  # (2, 0)-(0, 0)
            ("legal", "f4-e4", True),  # (2, 0)-(1, 0)
            ("legal", "a7-b7", True),  # (-3, 3)-(-2, 3)
            ("play", "f4-e4"),  # (2, 0)-(1, 0)
            ("over", "stones_exhausted", [0, 1]),
        ],
    },
    {
        "id": "T24-play-on",
        "title": "end_on_stones_exhausted=false plays on",
        "board": D37,
        "supply": 1,
        "pieces": {"Y": [(0, 0), (-3, 3)], "R": [(-3, 0)]},
        "variants": {"end_on_stones_exhausted": False},
        "steps": [
            ("play", "d4-f4"),  # (0, 0)-(2, 0)
            ("play", "#g4"),  # P@(3, 0)
            ("play", "f4-e4"),  # (2, 0)-(1, 0)
            ("not_over",),
            ("to_move", 1),
            ("action", 1),
        ],
    },
    {
        "id": "T25",
        "title": "stall guard: 20 turns without a stone end a 2-player game",
        "board": D37,
        "pieces": {"Y": [(0, 0)], "R": [(-3, 3)]},
        "steps": [
            ("mmm_turns", 19),
            ("not_over",),
            ("mmm_turns", 1),
            ("over", "stall", [0, 1]),
            ("scores", [0, 0]),
        ],
    },
    {
        "id": "T25-off",
        "title": "stall_limit_rounds=null never ends by stalling",
        "board": D37,
        "pieces": {"Y": [(0, 0)], "R": [(-3, 3)]},
        "variants": {"stall_limit_rounds": None},
        "steps": [
            ("mmm_turns", 60),
            ("not_over",),
        ],
    },
    {
        "id": "E3-english",
        "title": "preset english: a player without pioneers ends the game (E3)",
        "board": T14_MAP,
        "players": 3,
        "to_move": "R",
        "ruleset": "english",
        "pieces": {"B": [(0, 1), (2, 2)], "R": [(1, 0), (7, 1)], "Y": [(8, 2)]},
        "stones": [(4, 0), (4, 1)],
        "steps": [
            ("play", "h2-f2"),  # (7, 1)-(5, 1)
            ("play", "#e3"),  # P@(4, 2)
            ("scores", [0, 0, 24]),
            ("play", "f2-f3"),  # (5, 1)-(5, 2)
            ("over", "player_eliminated", [2]),
        ],
    },
    {
        "id": "A18-type-reduction",
        "title": "covering the last cell of a landscape scores the zone it leaves",
        "board": ("P", 4, 2, "ABCD", ()),
        "pieces": {"Y": [(0, 0), (3, 1)], "R": [(1, 1), (1, 0)]},
        "steps": [
            ("play", "d2-c2"),  # (3, 1)-(2, 1)
            ("legal", "#d2", True),  # P@(3, 1)
            ("play", "#d1"),  # P@(3, 0)
            ("closed", 0),
            ("play", "#d2"),  # P@(3, 1)
            ("area", 0, 6, "ABC", 6, [3, 3]),
            ("scores", [3, 3]),
            ("over", "board_divided", [0, 1]),
        ],
    },
    {
        "id": "A18-off",
        "title": "score_on_type_reduction=false: no scoring without a split",
        "board": ("P", 4, 2, "ABCD", ()),
        "pieces": {"Y": [(0, 0), (3, 1)], "R": [(1, 1), (1, 0)]},
        "variants": {"score_on_type_reduction": False},
        "steps": [
            ("play", "d2-c2"),  # (3, 1)-(2, 1)
            ("play", "#d1"),  # P@(3, 0)
            ("play", "#d2"),  # P@(3, 1)
            ("closed", 0),
            ("scores", [0, 0]),
            ("not_over",),
        ],
    },
    {
        "id": "A16-end-of-turn",
        "title": "scoring_timing=end_of_turn scores once, after the last action",
        "board": T14_MAP,
        "players": 3,
        "to_move": "R",
        "variants": {"scoring_timing": "end_of_turn"},
        "pieces": {"B": [(0, 1), (2, 2)], "R": [(1, 0), (7, 1)], "Y": [(8, 2)]},
        "stones": [(4, 0), (4, 1)],
        "steps": [
            ("play", "h2-f2"),  # (7, 1)-(5, 1)
            ("play", "#e3"),  # P@(4, 2)
            ("scores", [0, 0, 0]),
            ("closed", 0),
            ("play", "f2-g2"),  # (5, 1)-(6, 1)
            ("scores", [0, 0, 24]),
            ("closed", 12),
            ("to_move", 2),
            ("action", 1),
        ],
    },
    {
        "id": "A16-end-of-turn-A18-off-covering",
        "title": "end_of_turn with score_on_type_reduction=false: a zone only made smaller does not score",
        "board": ("P", 4, 2, "ABCD", ()),
        "pieces": {"Y": [(0, 0), (3, 1)], "R": [(1, 1), (1, 0)]},
        "variants": {"scoring_timing": "end_of_turn", "score_on_type_reduction": False},
        "steps": [
            ("play", "d2-c2"),  # (3, 1)-(2, 1)
            ("play", "#d1"),  # P@(3, 0)
            ("play", "#d2"),  # P@(3, 1)
            ("to_move", 1),
            ("action", 1),
            ("closed", 0),
            ("scores", [0, 0]),
            ("not_over",),
        ],
    },
    {
        "id": "A16-end-of-turn-A18-off-split",
        "title": "end_of_turn with score_on_type_reduction=false: a zone split off this turn scores",
        "board": T14_MAP,
        "players": 3,
        "to_move": "R",
        "variants": {"scoring_timing": "end_of_turn", "score_on_type_reduction": False},
        "pieces": {"B": [(0, 1), (2, 2)], "R": [(1, 0), (7, 1)], "Y": [(8, 2)]},
        "stones": [(4, 0), (4, 1)],
        "steps": [
            ("play", "h2-f2"),  # (7, 1)-(5, 1)
            ("play", "#e3"),  # P@(4, 2)
            ("scores", [0, 0, 0]),
            ("play", "f2-g2"),  # (5, 1)-(6, 1)
            ("scores", [0, 0, 24]),
            ("closed", 12),
        ],
    },
    {
        "id": "A2-few-dry-landscapes",
        "title": "lake_is_landscape=false on a board with 3 dry landscapes: the first stone scores it",
        "board": ("P", 4, 2, "ABCL", ()),
        "pieces": {"Y": [(0, 0)], "R": [(3, 1)]},
        "variants": {"lake_is_landscape": False},
        "steps": [
            ("play", "a1-a2"),  # (0, 0)-(0, 1)
            ("play", "#a1"),  # P@(0, 0)
            ("area", 0, 7, "ABCL", 7, [3, 3]),
            ("over", "board_divided", [0, 1]),
        ],
    },
]
