"""Medina's move notation and the JSON view of a position.

ProtocolMove notation (``docs/notation.md``, Medina section): ``<piece>@<square>`` or ``pass``.

=============  ======================================  ==============
piece          meaning                                 example
=============  ======================================  ==============
``gray``       gray palace piece (also ``grey``)       ``gray@E5``
``black``      black palace piece (2e: ``purple``)     ``black@G7``
``brown``      brown palace piece                      ``brown@H8``
``orange``     orange palace piece                     ``orange@P2``
``dome``       dome on the palace piece on the square  ``dome@E5``
``stable``     stable                                  ``stable@F6``
``merchant``   merchant                                ``merchant@K8``
``wall``       wall piece on a wall space              ``wall@B1``
``start``      the starting merchant (setup)           ``start@C3``
``neutral``    neutral dome (2e) on the palace piece   ``neutral@E5``
``tea``        a tea tile instead of the 2nd placement ``tea``
=============  ======================================  ==============

Squares are named ``A1``–``R13`` (column letter, row number; row 1 is south); the second
edition's 2-player board is ``A1``–``P12``.  Parsing is case-insensitive and ignores spaces
around the parts.  The second edition writes the colour-2 pieces ``purple@E5`` and reads
``black@E5`` as the same move (Boardspace's name for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tabletop.core.errors import InvalidMoveError, short_repr
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.games.medina.board import NEUTRAL, RUN_TOWER, SQUARE_NAMES, parse_square, squares_of
from tabletop.games.medina.messages import SAY
from tabletop.games.medina.moves import (
    DOME_MOVES,
    MERCHANT_MOVES,
    NEUTRAL_MOVES,
    PALACE_COLORS_2E,
    PALACE_MOVES,
    PASS,
    SLOT_NAMES,
    STABLE_MOVES,
    START_MOVES,
    TEA,
    WALL_MOVES,
    Merchant,
    Move,
    PalacePiece,
    color_names,
)

if TYPE_CHECKING:
    from tabletop.games.medina.state import State

_TABLES: dict[str, tuple[Move, ...]] = {
    "gray": PALACE_MOVES[0],
    "grey": PALACE_MOVES[0],
    "black": PALACE_MOVES[1],
    "purple": PALACE_MOVES[1],
    "brown": PALACE_MOVES[2],
    "orange": PALACE_MOVES[3],
    "dome": DOME_MOVES,
    "stable": STABLE_MOVES,
    "merchant": MERCHANT_MOVES,
    "wall": WALL_MOVES,
    "start": START_MOVES,
    "neutral": NEUTRAL_MOVES,
}

PIECE_WORDS = ("gray", "black", "purple", "brown", "orange", "dome", "neutral", "stable", "merchant", "wall", "start")


def parse_move(text: str) -> Move:
    """Reads ``<piece>@<square>`` or ``pass``.

    >>> str(parse_move("Gray @ e5"))
    'gray@E5'

    Raises:
        InvalidMoveError: quoting ``text``, if it is not well-formed notation.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(SAY("move_not_text", text=short_repr(text)))
    body = text.strip().lower()
    if body == "pass":
        return PASS
    if body == "tea":
        return TEA
    piece, sep, where = body.partition("@")
    piece = piece.strip()
    if not sep:
        raise InvalidMoveError(SAY("not_medina_notation", text=short_repr(text)))
    table = _TABLES.get(piece)
    if table is None:
        raise InvalidMoveError(
            SAY("unknown_piece", piece=short_repr(piece), text=short_repr(text), pieces=", ".join(PIECE_WORDS))
        )
    sq = parse_square(where)
    if sq is None:
        raise InvalidMoveError(SAY("bad_square", square=short_repr(where.strip()), text=short_repr(text)))
    return table[sq]


def move_to_str(move: ProtocolMove, edition: int = 1) -> str:
    """The notation of a Medina move (``str(move)``; the second edition's colour words)."""
    if edition == 2 and isinstance(move, PalacePiece):
        return f"{PALACE_COLORS_2E[move.color]}@{SQUARE_NAMES[move.square]}"
    return str(move)


def as_start(move: Move) -> Move:
    """The starting-merchant move on the square of a merchant move."""
    assert isinstance(move, Merchant)
    return START_MOVES[move.square]


# --- JSON view -------------------------------------------------------------------------------


def _names(mask: int) -> list[str]:
    return [SQUARE_NAMES[sq] for sq in squares_of(mask)]


def state_to_json(s: State) -> dict[str, Any]:
    """Everything a web client needs to draw and play the position.

    Keys: ``game``, ``num_players``, ``rules``, ``board`` (columns, rows, building squares,
    wall spaces, towers with values and holders), ``palaces`` (colour, pieces, stables,
    owner, dome, status, size, extension squares), ``pieces`` (one entry per occupied
    square), ``walls`` (square and tower), ``domes``, ``merchant_chain`` (active chain and
    its ends), ``supplies`` (per seat), ``retired``, ``palace_tiles``, ``tower_tiles``,
    ``phase``, ``current_player``, ``placements_left``, ``obligation``, ``turn``, ``ply``,
    ``scores``, ``legal_moves`` and ``outcome``.  The second edition adds ``edition`` (2),
    ``well`` (square, red and yellow squares; ``None`` without a well), ``tea_pool``,
    ``tower_merchants`` (by tower square), per-seat ``neutral`` and ``tea`` in
    ``supplies``; palace owners and tile holders may be ``"neutral"``.
    """
    from tabletop.games.medina.moves import legal_by_kind

    values = s.rules.tower_value_tuple()
    edition = s.rules.edition
    colors = color_names(edition)
    geo = s.geo
    towers = geo.towers
    palaces = []
    pieces: list[dict[str, Any]] = []
    for pid, pal in enumerate(s.palaces):
        status = "owned" if pal.owner != -1 else "abandoned" if pal.abandoned else "unfinished"
        palaces.append(
            {
                "id": pid,
                "color": colors[pal.color],
                "pieces": _names(pal.pieces),
                "stables": _names(pal.stables),
                "owner": _holder(pal.owner),
                "dome": SQUARE_NAMES[pal.dome] if pal.dome >= 0 else None,
                "status": status,
                "size": pal.size,
                "extension_squares": _names(s.ext[pal.color]) if s.unfinished[pal.color] == pid else [],
            }
        )
        pieces += [
            {"square": n, "type": "palace", "color": colors[pal.color], "palace": pid} for n in _names(pal.pieces)
        ]
        pieces += [{"square": n, "type": "stable", "palace": pid} for n in _names(pal.stables)]
    pieces += [{"square": n, "type": "merchant", "active": n in _names(s.chain)} for n in _names(s.merchants)]
    walls = []
    for run, mask in enumerate(s.runs):
        walls += [{"square": n, "tower": SQUARE_NAMES[towers[RUN_TOWER[run]]], "run": run} for n in _names(mask)]
    walls.sort(key=lambda w: SQUARE_NAMES.index(w["square"]))
    domes = [
        {"square": SQUARE_NAMES[p.dome], "player": _holder(p.owner), "palace": i}
        for i, p in enumerate(s.palaces)
        if p.owner != -1
    ]
    slot_names = (*colors, *SLOT_NAMES[4:])
    supplies: list[dict[str, int]] = [
        {name: s.supply[seat * 8 + slot] for slot, name in enumerate(slot_names)} for seat in range(s.num_players)
    ]
    if edition == 2:
        for seat, sup in enumerate(supplies):
            sup["neutral"] = s.neutral[seat]
            sup["tea"] = s.tea[seat]
    outcome = s.outcome()
    view: dict[str, Any] = {
        "game": "medina",
        "num_players": s.num_players,
        "rules": s.rules.to_json(),
        "board": {
            "columns": geo.columns,
            "rows": geo.rows,
            "building_squares": _names(geo.building),
            "wall_spaces": _names(geo.wall_spaces),
            "towers": [
                {"square": SQUARE_NAMES[sq], "value": values[t], "holder": _holder(s.tower_tiles[t])}
                for t, sq in enumerate(towers)
            ],
        },
        "palaces": palaces,
        "pieces": pieces,
        "walls": walls,
        "domes": domes,
        "merchant_chain": {"squares": _names(s.chain), "ends": _names(s.chain_ends)},
        "start_merchant": SQUARE_NAMES[s.start_square] if s.start_square >= 0 else None,
        "supplies": supplies,
        "retired": {colors[c]: n for c, n in enumerate(s.retired)},
        "palace_tiles": {colors[c]: {"value": c + 1, "holder": _holder(h)} for c, h in enumerate(s.palace_tiles)},
        "tower_tiles": {
            SQUARE_NAMES[sq]: {"value": values[t], "holder": _holder(s.tower_tiles[t])} for t, sq in enumerate(towers)
        },
        "phase": s.phase,
        "current_player": s.current_player,
        "placements_left": s.placements_left,
        "obligation": s.obligation,
        "turn": s.turn,
        "ply": s.ply,
        "scores": list(s.scores()),
        "legal_moves": [move_to_str(m, edition) for ms in legal_by_kind(s).values() for m in ms],
        "outcome": outcome.to_json() if outcome is not None else None,
    }
    if edition == 2:
        view["edition"] = 2
        view["well"] = (
            {"square": SQUARE_NAMES[s.well], "red": _names(s.red), "yellow": _names(s.yellow)} if s.well >= 0 else None
        )
        view["tea_pool"] = s.tea_pool
        view["tower_merchants"] = {SQUARE_NAMES[sq]: s.tower_merchants[t] for t, sq in enumerate(towers)}
    return view


def _holder(h: int) -> int | str | None:
    """A seat, ``"neutral"`` (2e) or ``None`` (nobody)."""
    return h if h >= 0 else "neutral" if h == NEUTRAL else None
