"""Terra Nova's message catalogue: every refusal reason with a stable code.

The engine returns these as :class:`~tabletop.core.errors.Message` values (English text
that also carries ``code`` and ``params``); the web client translates each code
(``web/i18n/*.json``, keys ``msg.terranova.<name>``).  A new reason is added here, then
in every language file: ``tests/games/test_messages.py`` checks that nothing is missing.
"""

from __future__ import annotations

from tabletop.core.errors import Catalogue

SAY = Catalogue(
    "terranova",
    {
        "game_over": "the game is over",
        "all_placed": "all pioneers are already on the board",
        "no_such_cell": "there is no {cell} on this board",
        "occupied": "{cell} is occupied",
        "no_pass_in_setup": "no passing while placing pioneers",
        "no_voluntary_end": "a turn cannot be ended voluntarily: an action is still possible",
        "must_move_not_pass": "you can move a pioneer, so you may not pass",
        "not_a_move": "{move} is not a Terra Nova move",
        "no_slide_in_setup": "pioneers cannot move while they are being placed",
        "no_pioneer_at": "you have no pioneer at {cell}",
        "must_move_returned": "the pioneer at {cell} is back on its start cell and must move again as action 3",
        "zero_length": "a move must go at least one cell",
        "leaves_board": "the line from {src} to {dst} leaves the board",
        "not_straight": "{dst} is not in a straight line from {src}",
        "blocked": "pioneer at {src} cannot reach {dst}: path blocked at {cell}",
        "no_return_strict": "the pioneer may not return to its start cell {cell} (return_rule=strict)",
        "no_return_end_of_turn": "the pioneer may not end the turn on its start cell {cell}",
        "no_return_third_move": "a third move of the same pioneer may not end on its start cell {cell}",
        "no_stone_in_setup": "no stones while pioneers are being placed",
        "first_action_moves": "the first action of a turn must move a pioneer",
        "supply_empty": "the stone supply is empty",
        "scored_area": "{cell} belongs to a scored area",
        "stone_not_adjacent": "a stone must touch a pioneer you moved this turn",
        "bad_cell_name": "{text} is not a cell name (expected a column letter and a row number, e.g. d4)",
        "unknown_cell": "there is no cell {text} on map {map}",
        "not_move_text": "{text} is not move text",
        "two_cells": "a move is two cells joined by '-'",
    },
)
"""Says a Terra Nova message: ``SAY("occupied", cell="c4")``."""
