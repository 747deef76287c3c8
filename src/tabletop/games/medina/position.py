"""Building Medina positions directly from a piece layout (for tests, puzzles and analysis).

:func:`build_position` takes the spec's scenario notation (§8)::

    build_position("gray:E5 E6", "black:H6", "S:G6", "M:E6 E5", "W:B1 C1", domes={"E5": 0})

and derives everything the engine tracks incrementally (palaces, street-rule sets,
palace status, merchant chains, wall runs).  Tile holders depend on history, so they are
given explicitly (default: all tiles in the supply).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.games.medina.board import (
    BUILDING,
    SIDE_NEIGHBORS,
    TOUCH_CLOSED,
    TOWER_RUN,
    TOWERS,
    WALL_SPACES,
    Mask,
    mask_of,
    ortho_dilate,
    parse_square,
    squares_of,
    two_or_more_neighbors,
)
from tabletop.games.medina.moves import NUM_SLOTS, PALACE_COLORS, SLOT_NAMES
from tabletop.games.medina.state import PLAY, Palace, State

_LABELS = {"S": "stable", "M": "merchant", "W": "wall"}


def _squares(text: str) -> list[int]:
    out = []
    for word in text.replace(",", " ").split():
        sq = parse_square(word)
        if sq is None:
            raise ValueError(f"bad square {word!r}")
        out.append(sq)
    return out


def _groups(mask: Mask) -> list[Mask]:
    """Orthogonally connected groups of ``mask`` (building squares), in square order."""
    groups = []
    rest = mask
    while rest:
        group = rest & -rest
        while True:
            grown = group | (ortho_dilate(group) & mask)
            if grown == group:
                break
            group = grown
        groups.append(group)
        rest &= ~group
    return groups


def build_position(
    *layout: str,
    num_players: int = 4,
    domes: Mapping[str, int] | None = None,
    palace_tiles: Mapping[str, int] | None = None,
    tower_tiles: Mapping[str, int] | None = None,
    supplies: Sequence[Mapping[str, int]] | None = None,
    active_chain: str | None = None,
    current_player: int = 0,
    placements_left: int = 2,
    obligation: bool = False,
    variants: Mapping[str, bool | int | str] | None = None,
) -> State:
    """A mid-game position built from a layout.

    Args:
        layout: items ``"<colour>:<squares>"`` (palace pieces), ``"S:<squares>"``
            (stables), ``"M:<squares>"`` (merchants) and ``"W:<squares>"`` (wall pieces),
            squares separated by spaces, e.g. ``"gray:E5 E6"``.
        num_players: 3 or 4.
        domes: dome square to owning seat; the dome claims that square's palace.
        palace_tiles: palace colour to holding seat (missing: in the supply).
        tower_tiles: tower square (``A1``, ``R1``, ``A13``, ``R13``) to holding seat.
        supplies: per seat, slot name (``moves.SLOT_NAMES``) to count; missing slots keep
            the full starting supply.
        active_chain: a square of the active merchant chain (default: the chain of the
            last merchant listed).
        current_player: the seat to act.
        placements_left: 2 (start of the turn) or 1.
        obligation: whether the last-player dome obligation is pending.
        variants: rule flags.

    Raises:
        ValueError: for a bad item or square, palaces that touch, a stable without a
            palace, a wall piece not connected to a tower, or two unfinished palaces of
            one colour.
    """
    game = make("medina")
    config = GameConfig(num_players=num_players, variants=dict(variants or {}))
    s: State = game.new_initial_state(config)  # type: ignore[assignment]
    s = s._copy()
    colours: list[Mask] = [0, 0, 0, 0]
    stables = merchants = walls = 0
    last_merchant = -1
    for item in layout:
        label, sep, rest = item.partition(":")
        label = label.strip()
        if not sep:
            raise ValueError(f"bad layout item {item!r}")
        squares = _squares(rest)
        m = mask_of(squares)
        if label.lower() in PALACE_COLORS:
            colours[PALACE_COLORS.index(label.lower())] |= m
        elif label == "S":
            stables |= m
        elif label == "M":
            merchants |= m
            if squares:
                last_merchant = squares[-1]
        elif label == "W":
            walls |= m
        else:
            raise ValueError(f"bad layout label {label!r} in {item!r}")
    pieces = colours[0] | colours[1] | colours[2] | colours[3]
    if (pieces | stables | merchants) & ~BUILDING or walls & ~WALL_SPACES:
        raise ValueError("pieces must stand on building squares and walls on wall spaces")
    palaces: list[Palace] = []
    for col in range(4):
        for group in _groups(colours[col]):
            palaces.append(Palace(col, group, 0, 0, -1, -1, False))
    palaces.sort(key=lambda p: (p.pieces & -p.pieces).bit_length())
    for sq in squares_of(stables):
        near = [i for i, p in enumerate(palaces) if ortho_dilate(1 << sq) & p.pieces]
        if len(near) != 1:
            raise ValueError(f"stable on square {sq} must be next to exactly one palace")
        p = palaces[near[0]]
        palaces[near[0]] = p._replace(stables=p.stables | 1 << sq)
    forbid = contested = 0
    for i, p in enumerate(palaces):
        touch = 0
        for sq in squares_of(p.pieces | p.stables):
            touch |= TOUCH_CLOSED[sq]
        palaces[i] = p._replace(touch=touch)
        contested |= forbid & touch
        forbid |= touch
    for p in palaces:
        if (p.pieces | p.stables) & contested:
            raise ValueError("palaces (with their stables) must not touch each other")
    owned = [-1] * (4 * num_players)
    for name, seat in (domes or {}).items():
        dome_sq = parse_square(name)
        pid = next((i for i, p in enumerate(palaces) if dome_sq is not None and p.pieces >> dome_sq & 1), None)
        if pid is None or dome_sq is None:
            raise ValueError(f"dome square {name!r} holds no palace piece")
        owned[seat * 4 + palaces[pid].color] = pid
        palaces[pid] = palaces[pid]._replace(owner=seat, dome=dome_sq)
    s.palaces = tuple(palaces)
    s.palace_mask = pieces
    s.stables = stables
    s.merchants = merchants
    s.walls = walls
    s.occupied = pieces | stables | merchants
    s.forbid = forbid
    s.contested = contested
    s.owned = tuple(owned)
    # Palace status.
    free = BUILDING & ~s.occupied & ~contested
    unfinished = [-1, -1, -1, -1]
    ext = [0, 0, 0, 0]
    for i, p in enumerate(palaces):
        if p.owner >= 0:
            continue
        e = ortho_dilate(p.pieces) & free
        if e:
            if unfinished[p.color] >= 0:
                raise ValueError(f"two unfinished {PALACE_COLORS[p.color]} palaces")
            unfinished[p.color] = i
            ext[p.color] = e
        else:
            palaces[i] = p._replace(abandoned=True)
    s.palaces = tuple(palaces)
    s.unfinished = tuple(unfinished)
    s.ext = tuple(ext)
    # Merchant chains.
    if merchants:
        anchor = parse_square(active_chain) if active_chain else last_merchant
        if anchor is None or not merchants >> anchor & 1:
            raise ValueError(f"active_chain {active_chain!r} is not a merchant square")
        chain = next(g for g in _groups(merchants) if g >> anchor & 1)
        s.chain = chain
        crowded = two_or_more_neighbors(merchants)
        s.chain_ends = chain & ~crowded
    # Wall runs.
    runs = [0] * len(s.runs)
    for sq in squares_of(walls):
        runs[_run_of(walls, sq)] |= 1 << sq
    s.runs = tuple(runs)
    # Supplies and tiles.
    sup = list(s.supply)
    for seat, overrides in enumerate(supplies or ()):
        for name, count in overrides.items():
            sup[seat * NUM_SLOTS + SLOT_NAMES.index(name)] = count
    s.supply = tuple(sup)
    s.palace_tiles = tuple((palace_tiles or {}).get(c, -1) for c in PALACE_COLORS)
    names = ("A1", "R1", "A13", "R13")
    s.tower_tiles = tuple((tower_tiles or {}).get(n, -1) for n in names)
    s.phase = PLAY
    s.turn = 1
    s.current_player = current_player
    s.placements_left = placements_left
    s.obligation = obligation
    s.start_square = -1
    s._clear_caches()
    return s


def _run_of(walls: Mask, sq: int) -> int:
    """The run a wall piece belongs to: walk along its side to the tower it is contiguous with."""
    for first in SIDE_NEIGHBORS[sq]:
        prev, cur = sq, first
        while True:
            if TOWERS >> cur & 1:
                return TOWER_RUN[(prev, cur)]
            if not walls >> cur & 1:
                break
            a, b = SIDE_NEIGHBORS[cur]
            prev, cur = cur, (b if a == prev else a)
    raise ValueError(f"wall piece on square {sq} is not connected to a tower")


def with_turn(s: State, player: int, placements_left: int = 2) -> State:
    """A copy of ``s`` with ``player`` to act and ``placements_left`` placements left.

    Lets scenario tests make placements for any seat without playing the others' turns.
    """
    new = s._copy()
    new.current_player = player
    new.placements_left = placements_left
    new.obligation = False
    return new
