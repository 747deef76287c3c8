"""Terra Nova's fixed action space and observation tensors (``core.encoding``).

The encoding is made per map, since the action space is a map's cells: a map with ``N``
cells whose longest straight line from a cell has ``L`` cells after it has

====================  ===========================================  ==============
actions               index                                        count
====================  ===========================================  ==============
place on cell ``c``   ``c``                                        ``N``
slide                 ``N + (src * 6 + direction) * L + steps - 1``  ``6 N L``
stone on cell ``c``   ``N + 6 N L + c``                            ``N``
pass                  ``2 N + 6 N L``                              1
====================  ===========================================  ==============

Isola Nuova (168 cells, ``L`` = 14) has 14,449 actions.  Directions are E, NE, NW, W, SW,
SE (0..5).  Maps are bounded (``mapfile.MAX_CELLS``, ``MAX_SPAN``), so every map's action
space is too; two maps have the same action space only if they have the same cells.

Observations are planes over the map's bounding box of axial coordinates: row
``r - r_min``, column ``q - q_min`` (``docs/research.md`` draws it).  Seats are relative
to the observer: ``+0`` is the observer, ``+1`` the next seat in turn order.
"""

from __future__ import annotations

from array import array
from typing import Final

from tabletop.core.cells import NO_CELL, CellGeometry
from tabletop.core.encoding import ObservationSpec
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.protocol import State as ProtocolState
from tabletop.games.terranova.board import NUM_DIRECTIONS, Board, bit_indices
from tabletop.games.terranova.moves import PASS, Move, Pass, Place, Slide, Stone
from tabletop.games.terranova.ruleset import RuleSet
from tabletop.games.terranova.state import OVER, PIONEERS_PER_PLAYER, PLACEMENT, PLAY, TOTAL_STONES, State

MAX_SEATS: Final = 4
"""Seat planes and entries are made for four seats whatever the player count (the
unused ones stay 0), so one map has one observation shape."""

SCORE_SCALE: Final = 100.0
"""Score planes hold ``points / SCORE_SCALE``."""

_SEATS: Final = tuple(f"+{i}" for i in range(MAX_SEATS))


class TerraNovaEncoding:
    """The action indices and observations of Terra Nova on one board.

    Attributes:
        board: the board.
        line: ``L``, the most cells a slide can pass (the longest ray of the map).
    """

    def __init__(self, board: Board, rules: RuleSet, num_players: int) -> None:
        self.board = board
        n = board.num_cells
        self.line: int = max((len(ray) for rays in board.rays for ray in rays), default=1) or 1
        self._slide0 = n
        self._stone0 = n + NUM_DIRECTIONS * n * self.line
        self._pass = self._stone0 + n
        self._num_actions = self._pass + 1
        self._slide_index: dict[int, int] = {}
        self._max_game_length = _max_game_length(rules, num_players)
        q_max = max(q for q, _ in board.coords)
        r_max = max(r for _, r in board.coords)
        width = q_max - board.q_min + 1
        height = r_max - board.r_min + 1
        self._pos: tuple[int, ...] = tuple((r - board.r_min) * width + (q - board.q_min) for q, r in board.coords)
        lands = tuple(f"land:{ls.id}" for ls in board.landscapes)
        planes = (
            "cell",
            *lands,
            *(f"pioneers:{s}" for s in _SEATS),
            "stones",
            "closed",
            "moved",
            "turn_start",
            "must_move",
            "actions_left",
            "supply",
            *(f"score:{s}" for s in _SEATS),
        )
        vector = (
            "phase:placement",
            "phase:play",
            "phase:over",
            *(f"to_move:{s}" for s in _SEATS),
            "actions_left",
            "supply",
            *(f"score:{s}" for s in _SEATS),
            *(f"in_hand:{s}" for s in _SEATS),
            *(f"removed:{s}" for s in _SEATS),
            "stall",
            "num_players",
        )
        self._spec = ObservationSpec(planes, height, width, vector)
        hw = self._spec.plane_size
        self._hw = hw
        template = array("f", bytes(4 * len(planes) * hw))
        for cell, pos in enumerate(self._pos):
            template[pos] = 1.0
            template[(1 + board.land[cell]) * hw + pos] = 1.0
        self._template = template
        index = {name: i * hw for i, name in enumerate(planes)}
        self._pioneers0 = index["pioneers:+0"]
        self._stones = index["stones"]
        self._closed = index["closed"]
        self._moved = index["moved"]
        self._turn_start = index["turn_start"]
        self._must_move = index["must_move"]
        self._actions_left = index["actions_left"]
        self._supply = index["supply"]
        self._score0 = index["score:+0"]
        self._cell_geometry: CellGeometry | None = None

    @property
    def num_distinct_actions(self) -> int:
        """``2 N + 6 N L + 1``."""
        return self._num_actions

    @property
    def spec(self) -> ObservationSpec:
        """The planes and vector entries (``docs/research.md``)."""
        return self._spec

    @property
    def max_game_length(self) -> int:
        """An upper bound on the actions of one game (see :func:`_max_game_length`)."""
        return self._max_game_length

    # -- actions ------------------------------------------------------------------

    def encode(self, move: ProtocolMove) -> int:
        """The action index of ``move``.

        Raises:
            ValueError: if ``move`` is not a Terra Nova move on this board.
        """
        n = self.board.num_cells
        if isinstance(move, Slide):
            key = move.src * n + move.dst if _cell_ok(move.src, n) and _cell_ok(move.dst, n) else -1
            index = self._slide_index.get(key)
            if index is None:
                path = self.board.path_at(key) if key >= 0 else None
                if path is None:
                    raise ValueError(f"{move!r} is not a slide on this board")
                _, direction, steps = path
                index = self._slide0 + (move.src * NUM_DIRECTIONS + direction) * self.line + steps - 1
                self._slide_index[key] = index
            return index
        if isinstance(move, Place | Stone):
            if not _cell_ok(move.cell, n):
                raise ValueError(f"{move!r} is not on this board")
            return move.cell if isinstance(move, Place) else self._stone0 + move.cell
        if isinstance(move, Pass):
            return self._pass
        raise ValueError(f"{move!r} is not a Terra Nova move")

    def decode(self, action: int) -> Move:
        """The move of an action index.

        Raises:
            ValueError: if ``action`` is out of range or a slide that leaves the board.
        """
        board = self.board
        if isinstance(action, bool) or not 0 <= action < self._num_actions:
            raise ValueError(f"action {action!r} is not in range({self._num_actions})")
        action = int(action)
        if action < self._slide0:
            return board.place_moves[action]
        if action < self._stone0:
            src, rest = divmod(action - self._slide0, NUM_DIRECTIONS * self.line)
            direction, k = divmod(rest, self.line)
            ray = board.rays[src][direction]
            if k >= len(ray):
                raise ValueError(f"action {action} slides off the board")
            move = board.slide(src, ray[k])
            assert move is not None
            return move
        if action < self._pass:
            return board.stone_moves[action - self._stone0]
        return PASS

    def legal_actions(self, state: ProtocolState) -> list[int]:
        """The indices of the legal moves, ascending."""
        assert isinstance(state, State)
        out: list[int] = []
        encode = self.encode
        for kind in state.legal_kinds():
            moves = state.legal_moves_of_kind(kind)
            if kind == "place":
                out += [m.cell for m in moves]  # type: ignore[union-attr]
            elif kind == "stone":
                stone0 = self._stone0
                out += [stone0 + m.cell for m in moves]  # type: ignore[union-attr]
            elif kind == "move":
                n = self.board.num_cells
                known = self._slide_index
                for m in moves:
                    index = known.get(m.src * n + m.dst)  # type: ignore[union-attr]
                    out.append(encode(m) if index is None else index)
            else:
                out += map(encode, moves)
        out.sort()
        return out

    def action_mask(self, state: ProtocolState) -> bytearray:
        """1 for each legal action, 0 elsewhere."""
        mask = bytearray(self._num_actions)
        for a in self.legal_actions(state):
            mask[a] = 1
        return mask

    def cell_geometry(self) -> CellGeometry:
        """The cells as the cells network reads them (``tabletop.core.cells``): the six
        neighbours in direction order; a placement and a stone read their cell (heads 0
        and 1, classes 0 and 1), a slide its start through head ``2 + d`` and its end
        through head ``8 + d`` (class ``3 + d L + steps - 1``), the pass no cell (class 2)."""
        if self._cell_geometry is None:
            board = self.board
            n, line = board.num_cells, self.line
            cells: list[tuple[int, int]] = [(cell, NO_CELL) for cell in range(n)]
            heads: list[tuple[int, int]] = [(0, 0)] * n
            classes: list[int] = [0] * n
            for src in range(n):
                for direction in range(NUM_DIRECTIONS):
                    ray = board.rays[src][direction]
                    for k in range(line):
                        cells.append((src, ray[k] if k < len(ray) else NO_CELL))
                        heads.append((2 + direction, 8 + direction))
                        classes.append(3 + direction * line + k)
            cells += [(cell, NO_CELL) for cell in range(n)] + [(NO_CELL, NO_CELL)]
            heads += [(1, 1)] * n + [(0, 0)]
            classes += [1] * n + [2]
            self._cell_geometry = CellGeometry(
                positions=self._pos,
                neighbours=tuple(tuple(board.next_cell[d][cell] for d in range(NUM_DIRECTIONS)) for cell in range(n)),
                action_cells=tuple(cells),
                action_heads=tuple(heads),
                action_classes=tuple(classes),
                num_heads=2 + 2 * NUM_DIRECTIONS,
                num_classes=3 + NUM_DIRECTIONS * line,
            )
        return self._cell_geometry

    def action_to_str(self, action: int) -> str:
        """The notation of the action's move (``h8``, ``h8-k8``, ``#j8``, ``pass``)."""
        move = self.decode(action)
        return str(move)

    # -- observations ------------------------------------------------------------

    def observe(self, state: ProtocolState, seat: int) -> tuple[array[float], array[float]]:
        """Planes and vector as seen by ``seat`` (``docs/research.md``)."""
        assert isinstance(state, State)
        hw = self._hw
        pos = self._pos
        out = array("f", self._template)
        num = state.context.num_players
        for player, own in enumerate(state.pioneers):
            base = self._pioneers0 + ((player - seat) % num) * hw
            for cell in bit_indices(own):
                out[base + pos[cell]] = 1.0
        for base, mask in ((self._stones, state.stones), (self._closed, state.closed)):
            for cell in bit_indices(mask):
                out[base + pos[cell]] = 1.0
        for cur, start in state.movers:
            out[self._moved + pos[cur]] = 1.0
            out[self._turn_start + pos[start]] = 1.0
        if state.pending_return >= 0:
            out[self._must_move + pos[state.pending_return]] = 1.0
        actions_left = state.actions_left
        _fill(out, self._actions_left, hw, actions_left / 3.0)
        _fill(out, self._supply, hw, state.supply / TOTAL_STONES)
        for player, points in enumerate(state.points):
            _fill(out, self._score0 + ((player - seat) % num) * hw, hw, points / SCORE_SCALE)
        vector = array("f", bytes(4 * len(self._spec.vector)))
        phase = state.phase
        vector[0 if phase == PLACEMENT else 1 if phase == PLAY else 2] = 1.0
        if phase != OVER:
            vector[3 + (state.current_player - seat) % num] = 1.0
        vector[7] = actions_left
        vector[8] = state.supply
        for player in range(num):
            rel = (player - seat) % num
            vector[9 + rel] = state.points[player]
            vector[13 + rel] = state.in_hand[player]
            vector[17 + rel] = state.removed[player]
        vector[21] = state.stall
        vector[22] = num
        return out, vector


_CACHE: dict[tuple[Board, int | None, int], TerraNovaEncoding] = {}
_CACHE_SIZE: Final = 16


def encoding_for(board: Board, rules: RuleSet, num_players: int) -> TerraNovaEncoding:
    """The (cached) encoding of a board for a player count and rules."""
    key = (board, rules.stall_limit_rounds, num_players)
    encoding = _CACHE.get(key)
    if encoding is None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        encoding = _CACHE[key] = TerraNovaEncoding(board, rules, num_players)
    return encoding


def _cell_ok(cell: object, n: int) -> bool:
    return type(cell) is int and 0 <= cell < n


def _fill(out: array[float], start: int, size: int, value: float) -> None:
    if value:
        out[start : start + size] = array("f", (value,)) * size


def _max_game_length(rules: RuleSet, num_players: int) -> int:
    """Placements, then at most 3 actions a turn; a turn without a stone adds to the stall
    count (E5: ``stall_limit_rounds * players`` of them end the game) and at most 80
    turns place a stone.  Without E5 (``stall_limit_rounds=null``) no bound exists: then
    1,000,000 stands for one."""
    limit = rules.stall_limit_rounds
    placements = PIONEERS_PER_PLAYER[num_players] * num_players
    if limit is None:
        return 1_000_000
    turns = (TOTAL_STONES + 1) * limit * num_players
    return placements + 3 * turns
