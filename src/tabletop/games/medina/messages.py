"""Medina's message catalogue: every refusal reason with a stable code.

The engine returns these as :class:`~tabletop.core.errors.Message` values (English text
that also carries ``code`` and ``params``); the web client translates each code
(``web/i18n/*.json``, keys ``msg.medina.<name>``; a ``color`` param is a palace colour
word the client translates too).  A new reason is added here, then in every language
file: ``tests/games/test_messages.py`` checks that nothing is missing.
"""

from __future__ import annotations

from tabletop.core.errors import Catalogue

SAY = Catalogue(
    "medina",
    {
        "not_a_move": "{move} is not a Medina move",
        "no_square_index": "no square with index {index}",
        "no_color_index": "no palace colour with index {index}",
        "game_over": "the game is over",
        "start_first": "the start player must first place the starting merchant ('start@<square>')",
        "start_on_building": "the starting merchant must go on a building square (B2-Q12)",
        "start_on_inner": "the starting merchant must go on an inner square (C3-P11)",
        "start_done": "the starting merchant has already been placed",
        "pass_only_when_stuck": "passing is allowed only when no placement is possible",
        "only_pass": "no placement is possible: the only legal move is pass",
        "no_such_square": "no such square",
        "dome_obligation": "last-player dome obligation: this placement must be a dome",
        "dome_obligation_lookahead": "last-player dome obligation: this placement would leave no dome placement",
        "no_walls_left": "no wall pieces left in supply",
        "not_wall_space": "{square} is not a wall space",
        "wall_there": "{square} already holds a wall piece",
        "wall_not_connected": "{square} is not next to a tower or a wall piece",
        "gate_rule": "gate rule: a wall piece on {square} would close the gate of its side",
        "not_building": "{square} is not a building square",
        "no_domes_left": "no domes left in supply",
        "dome_needs_palace": "a dome must go on a palace piece; {square} holds none",
        "palace_owned": "the palace at {square} is already owned",
        "own_color_already": "you already own a {color} palace",
        "palace_abandoned": "the palace at {square} is abandoned (it can no longer grow) and cannot be claimed",
        "occupied": "{square} is occupied",
        "color_retired": "{color} is retired (every player owns a {color} palace)",
        "no_color_left": "no {color} palace pieces left in supply",
        "touches_palace": "street rule: {square} touches another palace",
        "must_extend": "must extend the unfinished {color} palace (a square next to one of its pieces)",
        "new_palace_touches": "street rule: a new {color} palace on {square} would touch a palace piece or stable",
        "no_stables_left": "no stables left in supply",
        "stable_needs_palace": "a stable must be next to a palace piece; {square} is not",
        "stable_two_palaces": "street rule: a stable on {square} would touch a second palace",
        "no_merchants_left": "no merchants left in supply",
        "merchant_crowded": "a merchant on {square} would be next to two or more merchants",
        "extend_chain": "the active merchant chain can still grow: the merchant must extend one of its ends",
        "new_chain_touches": "a new merchant chain may not start next to a merchant ({square})",
        "illegal": "illegal move",
        "no_square_here": "{square} is not a square of this board ({text})",
        "red_square": "{square} touches the well: no palace piece or stable may go there",
        "well_square": "{square} holds the well",
        "no_neutral_left": "no neutral domes left in supply",
        "no_tea": "no tea tile to spend now",
        "tea_not_now": "a tea tile may only replace the second placement of a two-placement turn",
        "move_not_text": "a move must be text, got {text}",
        "not_medina_notation": "not a Medina move: {text} (expected '<piece>@<square>' such as 'gray@E5', or 'pass')",
        "unknown_piece": "unknown piece {piece} in {text} (expected one of {pieces})",
        "bad_square": "bad square {square} in {text} (expected A1-R13, e.g. 'E5')",
    },
)
"""Says a Medina message: ``SAY("occupied", square="E5")``."""
