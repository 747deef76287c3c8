"""The position builders for the tests of both games: a mid-game position straight from
a layout, without playing up to it (spec §7 of Terra Nova, §8 of Medina).

Both take the same scenario words (``docs/architecture.md``): the pieces per seat (Terra
Nova: ``pieces`` seat -> axial cells; Medina: ``layout`` items in the spec's notation),
``stones``/``domes`` and the tiles, ``to_move`` and ``variants``; :func:`position` reads
one scenario dict for either game.  Test maps for Terra Nova are in
``tests/games/terranova/helpers.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tabletop.core.protocol import GameConfig, OptionValue
from tabletop.core.protocol import State as ProtocolState
from tabletop.core.registry import make
from tabletop.core.state_base import draft, freeze
from tabletop.games.medina.board import (
    NEUTRAL,
    TOUCH_CLOSED,
    Geometry,
    Mask,
    mask_of,
    ortho_dilate,
    parse_square,
    squares_of,
    two_or_more_neighbors,
)
from tabletop.games.medina.moves import NUM_SLOTS, PALACE_COLORS, PALACE_COLORS_2E, SLOT_NAMES
from tabletop.games.medina.state import PLAY as MEDINA_PLAY
from tabletop.games.medina.state import Palace
from tabletop.games.medina.state import State as MedinaState
from tabletop.games.terranova import GAME as TERRANOVA
from tabletop.games.terranova import State as TerraNovaState
from tabletop.games.terranova import board_for
from tabletop.games.terranova.ruleset import resolve_ruleset
from tabletop.games.terranova.state import PLAY, SEAT_COLORS, Context

SEATS = {"Y": 0, "R": 1, "B": 2, "G": 3}
"""Terra Nova seat letters (yellow, red, blue, green), as the spec's scenarios name them."""


def position(game_id: str, scenario: Mapping[str, Any], board_map: Mapping[str, Any] | None = None) -> ProtocolState:
    """The position of a scenario dict, for either game.

    Keys: Terra Nova ``pieces`` ({seat letter: [axial cells]}), ``stones``, ``players``,
    ``supply``; Medina ``layout`` (items such as ``"gray:E5 E6"``), ``domes``,
    ``palace_tiles``, ``tower_tiles``, ``supplies``, ``active_chain``, ``players``,
    ``placements_left``, ``obligation``; both: ``to_move`` (a seat number, or a Terra Nova
    seat letter) and ``variants``.  Terra Nova needs ``board_map`` (the map object).
    """
    to_move = scenario.get("to_move", 0)
    if isinstance(to_move, str):
        to_move = SEATS[to_move]
    if game_id == "terranova":
        assert board_map is not None, "a Terra Nova position needs its map"
        return terranova_position(
            board_map,
            {SEATS[k] if isinstance(k, str) else k: v for k, v in scenario.get("pieces", {}).items()},
            stones=scenario.get("stones", ()),
            num_players=scenario.get("players", 2),
            to_move=to_move,
            supply=scenario.get("supply"),
            variants=scenario.get("variants"),
            ruleset=scenario.get("ruleset", "default"),
        )
    if game_id == "medina":
        state = medina_position(
            *scenario.get("layout", ()),
            num_players=scenario.get("players", 4),
            domes=scenario.get("domes"),
            palace_tiles=scenario.get("palace_tiles"),
            tower_tiles=scenario.get("tower_tiles"),
            supplies=scenario.get("supplies"),
            active_chain=scenario.get("active_chain"),
            current_player=to_move,
            placements_left=scenario.get("placements_left", 2),
            obligation=scenario.get("obligation", False),
            variants=scenario.get("variants"),
            ruleset=scenario.get("ruleset", "default"),
            tea_pool=scenario.get("tea_pool"),
            tower_merchants=scenario.get("tower_merchants"),
        )
        return state
    raise ValueError(f"no position builder for {game_id!r}")


# --- Terra Nova ------------------------------------------------------------------------


def terranova_position(
    board_map: Mapping[str, Any],
    pieces: Mapping[int, Iterable[tuple[int, int]]],
    *,
    stones: Iterable[tuple[int, int]] = (),
    num_players: int = 2,
    to_move: int = 0,
    supply: int | None = None,
    variants: Mapping[str, OptionValue] | None = None,
    ruleset: str = "default",
) -> TerraNovaState:
    """A play-phase position built directly (spec §7 conventions).

    Args:
        board_map: the map JSON object.
        pieces: seat -> the axial cells of that seat's pioneers.
        stones: axial cells holding stones.
        num_players: seats.
        to_move: the seat about to take action 1.
        supply: stones left (default 80 minus the stones on the board).
        variants: rule flags.
        ruleset: preset.
    """
    config = GameConfig(
        num_players, ruleset=ruleset, variants=dict(variants or {}), map=dict(board_map), start_player=0
    )
    # Built directly: test boards may be smaller than a full setup needs (spec §2.5).
    board = board_for(config.map)
    context = Context(
        TERRANOVA, config, board, resolve_ruleset(ruleset, config.variants), num_players, SEAT_COLORS[:num_players]
    )
    pioneers = [0] * num_players
    for seat, cells in pieces.items():
        for h in cells:
            pioneers[seat] |= 1 << board.index[h]
    stone_mask = 0
    for h in stones:
        stone_mask |= 1 << board.index[h]
    return TerraNovaState.from_fields(
        context,
        {
            "current_player": to_move,
            "phase": PLAY,
            "pioneers": tuple(pioneers),
            "in_hand": (0,) * num_players,
            "stones": stone_mask,
            "supply": 80 - stone_mask.bit_count() if supply is None else supply,
            "turn": 100,
        },
    )


# --- Medina ---------------------------------------------------------------------------

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


def medina_position(
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
    ruleset: str = "default",
    tea_pool: int | None = None,
    tower_merchants: Mapping[str, int] | None = None,
) -> MedinaState:
    """A mid-game position built from a layout.

    Args:
        layout: items ``"<colour>:<squares>"`` (palace pieces), ``"S:<squares>"``
            (stables), ``"M:<squares>"`` (merchants) and ``"W:<squares>"`` (wall pieces),
            squares separated by spaces, e.g. ``"gray:E5 E6"``.
        num_players: 2 (second edition), 3 or 4.
        domes: dome square to owning seat (``"N"``: a neutral dome, second edition); the
            dome claims that square's palace (claims in the order listed).
        palace_tiles: palace colour to holding seat (``"N"``: neutral; missing: in the supply).
        tower_tiles: tower square (``A1``, ``R1``/``P1``, ``A13``/``A12``, ``R13``/``P12``)
            to holding seat (``"N"``: neutral).
        supplies: per seat, slot name (``moves.SLOT_NAMES``, ``purple``, and in the second
            edition ``neutral`` and ``tea``) to count; missing slots keep the full starting
            supply.
        active_chain: a square of the active merchant chain (default: the chain of the
            last merchant listed).
        current_player: the seat to act.
        placements_left: 2 (start of the turn) or 1.
        obligation: whether the last-player dome obligation is pending.
        variants: rule flags (the well of the second edition: ``{"well": "H7"}``).
        ruleset: the preset (``second_edition``: a normal turn, turn 5).
        tea_pool: tea tiles left to award (default: as set up).
        tower_merchants: tower square to the merchants still on its tile (default: as set up).

    Raises:
        ValueError: for a bad item or square, palaces that touch, a stable without a
            palace, a wall piece not connected to a tower, or two unfinished palaces of
            one colour.
    """
    game = make("medina", engine="python")  # its fields are drafted below
    config = GameConfig(num_players=num_players, ruleset=ruleset, variants=dict(variants or {}))
    s: MedinaState = draft(game.new_initial_state(config))  # type: ignore[arg-type]
    geo = s.geo
    second = s.rules.edition == 2
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
        if label.lower() in PALACE_COLORS or label.lower() in PALACE_COLORS_2E:
            names = PALACE_COLORS if label.lower() in PALACE_COLORS else PALACE_COLORS_2E
            colours[names.index(label.lower())] |= m
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
    if (pieces | stables | merchants) & ~geo.building or walls & ~geo.wall_spaces:
        raise ValueError("pieces must stand on building squares and walls on wall spaces")
    well = 1 << s.well if s.well >= 0 else 0
    if (pieces | stables) & s.red or (pieces | stables | merchants) & well:
        raise ValueError("no palace piece or stable on a red square, and nothing on the well")
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
    forbid = contested = s.red  # red squares: never a palace piece or stable (2e)
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
    claims = []
    for name, who in (domes or {}).items():
        seat = NEUTRAL if who == "N" else int(who)
        dome_sq = parse_square(name)
        pid = next((i for i, p in enumerate(palaces) if dome_sq is not None and p.pieces >> dome_sq & 1), None)
        if pid is None or dome_sq is None:
            raise ValueError(f"dome square {name!r} holds no palace piece")
        if seat >= 0:
            owned[seat * 4 + palaces[pid].color] = pid
        palaces[pid] = palaces[pid]._replace(owner=seat, dome=dome_sq)
        claims.append(pid)
    s.palaces = tuple(palaces)
    s.palace_mask = pieces
    s.stables = stables
    s.merchants = merchants
    s.walls = walls
    s.occupied = pieces | stables | merchants | well
    s.forbid = forbid
    s.contested = contested
    s.owned = tuple(owned)
    # Palace status.
    free = geo.building & ~s.occupied & ~contested
    unfinished = [-1, -1, -1, -1]
    ext = [0, 0, 0, 0]
    for i, p in enumerate(palaces):
        if p.owner != -1:
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
    else:
        s.chain = s.chain_ends = 0  # no merchant, no active chain (not the new game's starting merchant)
    # Wall runs.
    runs = [0] * len(s.runs)
    for sq in squares_of(walls):
        runs[_run_of(geo, walls, sq)] |= 1 << sq
    s.runs = tuple(runs)
    # Supplies and tiles.
    sup = list(s.supply)
    neutral = list(s.neutral)
    tea = list(s.tea)
    for seat, overrides in enumerate(supplies or ()):
        for name, count in overrides.items():
            if name == "neutral":
                neutral[seat] = count
            elif name == "tea":
                tea[seat] = count
            else:
                slot = SLOT_NAMES.index("black" if name == "purple" else name)
                sup[seat * NUM_SLOTS + slot] = count
    s.supply = tuple(sup)
    s.neutral = tuple(neutral)
    s.tea = tuple(tea)
    if tea_pool is not None:
        s.tea_pool = tea_pool

    def holder(who: int | str) -> int:
        return NEUTRAL if who == "N" else int(who)

    tiles = {("black" if k == "purple" else k): v for k, v in (palace_tiles or {}).items()}
    s.palace_tiles = tuple(holder(tiles.get(c, -1)) for c in PALACE_COLORS)
    slots = list(zip(("A1", "R1", "A13", "R13"), ("A1", "P1", "A12", "P12"), strict=True))
    towers = tower_tiles or {}
    s.tower_tiles = tuple(holder(towers.get(a, towers.get(b, -1))) for a, b in slots)
    if tower_merchants is not None:
        s.tower_merchants = tuple(
            tower_merchants.get(a, tower_merchants.get(b, s.tower_merchants[t])) for t, (a, b) in enumerate(slots)
        )
    s.claims = tuple(claims) if second else ()
    s.phase = MEDINA_PLAY
    s.turn = 5 if second else 1  # the second edition's opening turns are over
    s.current_player = current_player
    s.placements_left = placements_left
    s.second_step = second and placements_left == 1
    s.obligation = obligation
    s.start_square = -1
    return freeze(s)


def _run_of(geo: Geometry, walls: Mask, sq: int) -> int:
    """The run a wall piece belongs to: walk along its side to the tower it is contiguous with."""
    for first, run in geo.side_runs[sq]:
        prev, cur = sq, first
        while True:
            if geo.tower_mask >> cur & 1:
                return run
            if not walls >> cur & 1:
                break
            a, b = geo.side_neighbors[cur]
            prev, cur = cur, (b if a == prev else a)
    raise ValueError(f"wall piece on square {sq} is not connected to a tower")


def medina_with_turn(s: MedinaState, player: int, placements_left: int = 2) -> MedinaState:
    """A copy of ``s`` with ``player`` to act and ``placements_left`` placements left.

    Lets scenario tests make placements for any seat without playing the others' turns.
    """
    return s.replace(
        current_player=player,
        placements_left=placements_left,
        obligation=False,
        second_step=s.rules.edition == 2 and placements_left == 1,
        tea_fresh=0,
    )
