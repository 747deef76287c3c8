"""Medina's fixed action space and observation tensors (``core.encoding``).

One board, so one encoding for every configuration: ``kind block * 234 + square``
(squares as ``board.py`` numbers them, ``row * 18 + col``, ``A1`` = 0):

=====  ============================  =============
block  move                          indices
=====  ============================  =============
0      ``start@SQ`` (setup)          0 .. 233
1-4    palace piece (gray, black,    234 .. 1169
       brown, orange)
5      ``dome@SQ``                   1170 .. 1403
6      ``stable@SQ``                 1404 .. 1637
7      ``merchant@SQ``               1638 .. 1871
8      ``wall@SQ``                   1872 .. 2105
9      ``pass``                      2106
=====  ============================  =============

2,107 actions.  Every index names a well-formed move (most are never legal: a wall
on a building square, say); the mask tells which are legal now.

The second edition (:class:`SecondEditionEncoding`) keeps these indices and appends block
10, ``neutral@SQ`` (2106 .. 2339), then ``pass`` (2340) and ``tea`` (2341): 2,342 actions.
Its observations are the first edition's planes and vector followed by
:data:`PLANES_2E` and :data:`VECTOR_2E` (the 2-player board is the south-west corner of
the same grid: the ``building`` plane shows which squares exist).

Observations are planes over the 13 × 18 grid, plane row = board row (row 0 is rank 1,
drawn at the bottom), so a square's index is its position in a plane.  Seats are
relative to the observer: ``+0`` is the observer, ``+1`` the next seat in turn order.
"""

from __future__ import annotations

from array import array
from typing import Final

from tabletop.core.encoding import ObservationSpec
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.protocol import State as ProtocolState
from tabletop.games.medina.board import (
    BUILDING,
    HEIGHT,
    NEUTRAL,
    NUM_SQUARES,
    TOWERS,
    WALL_SPACES,
    WIDTH,
    Geometry,
    geometry_for,
    squares_of,
)
from tabletop.games.medina.moves import (
    DOME_MOVES,
    MERCHANT_MOVES,
    NEUTRAL_MOVES,
    NUM_SLOTS,
    PALACE_COLORS,
    PALACE_MOVES,
    PASS,
    SLOT_NAMES,
    STABLE_MOVES,
    START_MOVES,
    TEA,
    WALL_MOVES,
    Dome,
    Merchant,
    Move,
    NeutralDome,
    PalacePiece,
    Pass,
    Stable,
    StartMerchant,
    Tea,
    Wall,
)
from tabletop.games.medina.state import OVER, PLAY, START, State

MAX_SEATS: Final = 4
SCORE_SCALE: Final = 100.0
"""Score planes hold ``score / SCORE_SCALE``."""

_SEATS: Final = tuple(f"+{i}" for i in range(MAX_SEATS))
_TABLES: Final[tuple[tuple[Move, ...], ...]] = (
    START_MOVES,
    *PALACE_MOVES,
    DOME_MOVES,
    STABLE_MOVES,
    MERCHANT_MOVES,
    WALL_MOVES,
)
PASS_ACTION: Final = len(_TABLES) * NUM_SQUARES
NUM_ACTIONS: Final = PASS_ACTION + 1
_BLOCK: Final[dict[type, int]] = {
    StartMerchant: 0,
    Dome: 5,
    Stable: 6,
    Merchant: 7,
    Wall: 8,
}

PLANES: Final = (
    "building",
    "wall_space",
    "tower",
    *(f"palace:{c}" for c in PALACE_COLORS),
    "stable",
    "merchant",
    "wall",
    "start_merchant",
    *(f"owned:{s}" for s in _SEATS),
    *(f"dome:{s}" for s in _SEATS),
    "unfinished",
    "extension",
    "abandoned",
    "chain",
    "chain_ends",
    "placements_left",
    *(f"score:{s}" for s in _SEATS),
)
"""The observation planes, in order (``docs/research.md``)."""

_HOLDERS: Final = ("none", *_SEATS)
VECTOR: Final = (
    "phase:start",
    "phase:play",
    "phase:over",
    *(f"to_move:{s}" for s in _SEATS),
    "placements_left",
    "obligation",
    *(f"supply:{s}:{slot}" for s in _SEATS for slot in SLOT_NAMES),
    *(f"palace_tile:{c}:{h}" for c in PALACE_COLORS for h in _HOLDERS),
    *(f"tower_tile:{t}:{h}" for t in range(4) for h in _HOLDERS),
    *(f"score:{s}" for s in _SEATS),
    *(f"retired:{c}" for c in PALACE_COLORS),
    "num_players",
)
"""The entries of the vector of global numbers, in order."""

_P: Final = {name: i * NUM_SQUARES for i, name in enumerate(PLANES)}
_V: Final = {name: i for i, name in enumerate(VECTOR)}


def _template(geo: Geometry | None = None) -> array[float]:
    out = array("f", bytes(4 * len(PLANES) * NUM_SQUARES))
    building, walls, towers = (
        (BUILDING, WALL_SPACES, TOWERS) if geo is None else (geo.building, geo.wall_spaces, geo.tower_mask)
    )
    for plane, mask in (("building", building), ("wall_space", walls), ("tower", towers)):
        for sq in squares_of(mask):
            out[_P[plane] + sq] = 1.0
    return out


class MedinaEncoding:
    """The action indices and observations of Medina (one board, any player count)."""

    def __init__(self, num_players: int, max_game_length: int, geo: Geometry | None = None) -> None:
        self._spec = ObservationSpec(PLANES, HEIGHT, WIDTH, VECTOR)
        self._template = _template(geo)
        self._num_players = num_players
        self._max_game_length = max_game_length

    @property
    def num_distinct_actions(self) -> int:
        """2,107."""
        return NUM_ACTIONS

    @property
    def spec(self) -> ObservationSpec:
        """The planes and vector entries (``docs/research.md``)."""
        return self._spec

    @property
    def max_game_length(self) -> int:
        """Every action places a piece from a supply, or passes: one setup action plus at
        most ``players`` actions (one placement and the others' passes) per piece."""
        return self._max_game_length

    def encode(self, move: ProtocolMove) -> int:
        """The action index of ``move``.

        Raises:
            ValueError: if ``move`` is not a Medina move.
        """
        if isinstance(move, PalacePiece):
            if not (0 <= move.color < len(PALACE_COLORS) and 0 <= move.square < NUM_SQUARES):
                raise ValueError(f"{move!r} is not on the board")
            return (1 + move.color) * NUM_SQUARES + move.square
        if isinstance(move, Pass):
            return PASS_ACTION
        block = _BLOCK.get(type(move))
        square = getattr(move, "square", -1)
        if block is None or type(square) is not int or not 0 <= square < NUM_SQUARES:
            raise ValueError(f"{move!r} is not a Medina move on the board")
        return block * NUM_SQUARES + square

    def decode(self, action: int) -> Move:
        """The move of an action index.

        Raises:
            ValueError: if ``action`` is out of range.
        """
        if isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action!r} is not in range({NUM_ACTIONS})")
        if action == PASS_ACTION:
            return PASS
        block, square = divmod(int(action), NUM_SQUARES)
        return _TABLES[block][square]

    def legal_actions(self, state: ProtocolState) -> list[int]:
        """The indices of the legal moves, ascending."""
        encode = self.encode
        out = [encode(m) for m in state.legal_moves()]
        out.sort()
        return out

    def action_mask(self, state: ProtocolState) -> bytearray:
        """1 for each legal action, 0 elsewhere."""
        mask = bytearray(NUM_ACTIONS)
        for a in self.legal_actions(state):
            mask[a] = 1
        return mask

    def action_to_str(self, action: int) -> str:
        """The notation of the action's move (``gray@E5``, ``wall@B1``, ``pass``)."""
        return str(self.decode(action))

    def observe(self, state: ProtocolState, seat: int) -> tuple[array[float], array[float]]:
        """Planes and vector as seen by ``seat`` (``docs/research.md``)."""
        assert isinstance(state, State)
        out = array("f", self._template)
        num = state.num_players
        colors = (_P["palace:gray"], _P["palace:black"], _P["palace:brown"], _P["palace:orange"])
        for palace in state.palaces:
            for sq in squares_of(palace.pieces):
                out[colors[palace.color] + sq] = 1.0
            components = palace.pieces | palace.stables
            if palace.owner >= 0:
                rel = (palace.owner - seat) % num
                _set(out, _P["owned:+0"] + rel * NUM_SQUARES, components)
                if palace.dome >= 0:
                    out[_P["dome:+0"] + rel * NUM_SQUARES + palace.dome] = 1.0
            elif palace.abandoned:
                _set(out, _P["abandoned"], components)
        for color, pid in enumerate(state.unfinished):
            if pid >= 0:
                palace = state.palaces[pid]
                _set(out, _P["unfinished"], palace.pieces | palace.stables)
            _set(out, _P["extension"], state.ext[color])
        _set(out, _P["stable"], state.stables)
        _set(out, _P["merchant"], state.merchants)
        _set(out, _P["wall"], state.walls)
        if state.start_square >= 0:
            out[_P["start_merchant"] + state.start_square] = 1.0
        _set(out, _P["chain"], state.chain)
        _set(out, _P["chain_ends"], state.chain_ends)
        placements = state.placements_left if state.phase != OVER else 0
        _fill(out, _P["placements_left"], placements / 2.0)
        scores = state.scores()
        for player, score in enumerate(scores):
            _fill(out, _P["score:+0"] + ((player - seat) % num) * NUM_SQUARES, score / SCORE_SCALE)

        vector = array("f", bytes(4 * len(VECTOR)))
        phase = state.phase
        vector[0 if phase == START else 1 if phase == PLAY else 2] = 1.0
        if phase != OVER:
            vector[_V["to_move:+0"] + (state.current_player - seat) % num] = 1.0
        vector[_V["placements_left"]] = placements
        vector[_V["obligation"]] = float(state.obligation)
        supply0 = _V["supply:+0:gray"]
        for player in range(num):
            rel = (player - seat) % num
            for slot in range(NUM_SLOTS):
                vector[supply0 + rel * NUM_SLOTS + slot] = state.supply[player * NUM_SLOTS + slot]
            vector[_V["score:+0"] + rel] = scores[player]
        for base, holders in (
            (_V["palace_tile:gray:none"], state.palace_tiles),
            (_V["tower_tile:0:none"], state.tower_tiles),
        ):
            for i, holder in enumerate(holders):
                vector[base + 5 * i + (0 if holder < 0 else 1 + (holder - seat) % num)] = 1.0
        for color, count in enumerate(state.retired):
            vector[_V["retired:gray"] + color] = count
        vector[_V["num_players"]] = num
        return out, vector


def _set(out: array[float], base: int, mask: int) -> None:
    while mask:
        low = mask & -mask
        out[base + low.bit_length() - 1] = 1.0
        mask ^= low


def _fill(out: array[float], start: int, value: float) -> None:
    if value:
        out[start : start + NUM_SQUARES] = array("f", (value,)) * NUM_SQUARES


NEUTRAL_BLOCK: Final = len(_TABLES)
"""The second edition's block of ``neutral@SQ`` actions."""
PASS_ACTION_2E: Final = (NEUTRAL_BLOCK + 1) * NUM_SQUARES
TEA_ACTION: Final = PASS_ACTION_2E + 1
NUM_ACTIONS_2E: Final = TEA_ACTION + 1

PLANES_2E: Final = ("well", "red", "yellow", "neutral_owned", "neutral_dome")
"""The second edition's planes, after :data:`PLANES`."""
VECTOR_2E: Final = (
    *(f"neutral:{s}" for s in _SEATS),
    *(f"tea:{s}" for s in _SEATS),
    "tea_pool",
    *(f"tower_merchants:{t}" for t in range(4)),
    *(f"palace_tile:{c}:neutral" for c in PALACE_COLORS),
    *(f"tower_tile:{t}:neutral" for t in range(4)),
    "tea_allowed",
)
"""The second edition's vector entries, after :data:`VECTOR` (tile holders ``neutral``:
held for nobody; the first edition's entries then say ``none``)."""
_V2: Final = {name: len(VECTOR) + i for i, name in enumerate(VECTOR_2E)}


class SecondEditionEncoding(MedinaEncoding):
    """The second edition: the first edition's actions plus ``neutral@SQ`` and ``tea``, its
    observations plus the well, neutral palaces, tea tiles and tower merchants."""

    native_vector_env: Final = False
    """The Rust vector env plays the first edition only (``tabletop.envs.vector``): its
    starts are drawn start players, not a second-edition seed's well and starting
    merchant.  The native encoder (``native/src/medina/encode.rs``) writes this encoding."""

    def __init__(self, num_players: int, max_game_length: int, geo: Geometry) -> None:
        super().__init__(num_players, max_game_length, geo)
        self._spec = ObservationSpec((*PLANES, *PLANES_2E), HEIGHT, WIDTH, (*VECTOR, *VECTOR_2E))

    @property
    def num_distinct_actions(self) -> int:
        """2,342."""
        return NUM_ACTIONS_2E

    def encode(self, move: ProtocolMove) -> int:
        """The action index of ``move``.

        Raises:
            ValueError: if ``move`` is not a Medina move.
        """
        if isinstance(move, Tea):
            return TEA_ACTION
        if isinstance(move, Pass):
            return PASS_ACTION_2E
        if isinstance(move, NeutralDome):
            if type(move.square) is not int or not 0 <= move.square < NUM_SQUARES:
                raise ValueError(f"{move!r} is not a Medina move on the board")
            return NEUTRAL_BLOCK * NUM_SQUARES + move.square
        return super().encode(move)

    def decode(self, action: int) -> Move:
        """The move of an action index.

        Raises:
            ValueError: if ``action`` is out of range.
        """
        if isinstance(action, bool) or not 0 <= action < NUM_ACTIONS_2E:
            raise ValueError(f"action {action!r} is not in range({NUM_ACTIONS_2E})")
        if action == TEA_ACTION:
            return TEA
        if action == PASS_ACTION_2E:
            return PASS
        block, square = divmod(int(action), NUM_SQUARES)
        if block == NEUTRAL_BLOCK:
            return NEUTRAL_MOVES[square]
        return _TABLES[block][square]

    def action_mask(self, state: ProtocolState) -> bytearray:
        """1 for each legal action, 0 elsewhere."""
        mask = bytearray(NUM_ACTIONS_2E)
        for a in self.legal_actions(state):
            mask[a] = 1
        return mask

    def observe(self, state: ProtocolState, seat: int) -> tuple[array[float], array[float]]:
        """Planes and vector as seen by ``seat``: the first edition's, then the second's."""
        assert isinstance(state, State)
        planes, vector = super().observe(state, seat)
        extra = array("f", bytes(4 * len(PLANES_2E) * NUM_SQUARES))
        if state.well >= 0:
            extra[state.well] = 1.0
        _set(extra, NUM_SQUARES, state.red)
        _set(extra, 2 * NUM_SQUARES, state.yellow)
        for palace in state.palaces:
            if palace.owner == NEUTRAL:
                _set(extra, 3 * NUM_SQUARES, palace.pieces | palace.stables)
                extra[4 * NUM_SQUARES + palace.dome] = 1.0
        more = array("f", bytes(4 * len(VECTOR_2E)))
        num = state.num_players
        base = len(VECTOR)
        for player in range(num):
            rel = (player - seat) % num
            more[_V2["neutral:+0"] - base + rel] = state.neutral[player]
            more[_V2["tea:+0"] - base + rel] = state.tea[player]
        more[_V2["tea_pool"] - base] = state.tea_pool
        for t, count in enumerate(state.tower_merchants):
            more[_V2["tower_merchants:0"] - base + t] = count
        for c, holder in enumerate(state.palace_tiles):
            more[_V2["palace_tile:gray:neutral"] - base + c] = float(holder == NEUTRAL)
        for t, holder in enumerate(state.tower_tiles):
            more[_V2["tower_tile:0:neutral"] - base + t] = float(holder == NEUTRAL)
        more[_V2["tea_allowed"] - base] = float(state.second_step and state.placements_left == 1)
        return planes + extra, vector + more


_ENCODINGS: dict[tuple[int, int, int], MedinaEncoding] = {}


def encoding_for(num_players: int, supply: tuple[int, ...], edition: int = 1, neutral: int = 0) -> MedinaEncoding:
    """The (shared) encoding for a player count and edition; ``supply`` is the initial
    supply of every seat, ``neutral`` the neutral domes of one seat (second edition)."""
    if edition == 2:
        # Every piece (neutral domes and the 6 tower merchants included) and every tea
        # tile is at most one action, followed by at most the others' passes.
        length = 1 + (sum(supply) + neutral * num_players + 6 + 6) * num_players
    else:
        length = 1 + sum(supply) * num_players
    key = (num_players, length, edition)
    encoding = _ENCODINGS.get(key)
    if encoding is None:
        encoding = _ENCODINGS[key] = (
            SecondEditionEncoding(num_players, length, geometry_for(num_players))
            if edition == 2
            else MedinaEncoding(num_players, length)
        )
    return encoding
