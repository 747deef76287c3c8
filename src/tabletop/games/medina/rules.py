"""Medina's rules: setup, applying a move (palaces, tiles, towers) and turn order.

The spec (``docs/rules/medina.md``) is the authority; section numbers below refer to it.
Where each piece may go is ``placement.py``; legal moves and the reasons a move is
illegal are ``moves.py``; final scoring is ``scoring.py``.  Here :func:`apply` checks a
move, places the piece and keeps the derived state up to date: palace records and their
status (unfinished, abandoned), the palace and tower tiles (§4), retired colours, the
merchant chain, wall runs, and the turn order with the game end and the last-player dome
obligation (§5).  Everything is computed with bitsets: the street rule reduces to two
sets kept up to date incrementally (``State.forbid``: where a new palace may not start;
``State.contested``: squares touching two palaces, where no palace piece or stable may
ever go).
"""

from __future__ import annotations

import functools
import random
from dataclasses import replace

from tabletop.core.errors import ConfigError, IllegalMoveError
from tabletop.core.protocol import TERMINAL
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.state_base import blank, build, draft, freeze
from tabletop.games.medina.board import (
    NEUTRAL,
    NUM_RUNS,
    ORTHO_MASK,
    RUN_TOWER,
    SQUARE_NAMES,
    TOUCH_CLOSED,
    TOUCH_MASK,
    WIDTH,
    Mask,
    geometry_for,
    ortho_dilate,
    ortho_dilate_any,
    parse_square,
    square,
    squares_of,
)
from tabletop.games.medina.moves import (
    DOME,
    MERCHANT,
    NUM_SLOTS,
    PURPLE,
    STABLE,
    TEA_SOURCE,
    WALL,
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
    illegal_reason,
    is_able,
    is_legal,
    keep_sources,
    placement_sources,
    tea_usable,
)
from tabletop.games.medina.placement import dome_targets, start_squares
from tabletop.games.medina.ruleset import RuleSet
from tabletop.games.medina.state import OVER, PLAY, START, TEA_TILES, Context, Palace, State

SUPPLY = {
    3: (6, 6, 6, 6, 4, 4, 8, 10),
    4: (5, 5, 5, 5, 4, 3, 6, 8),
}
"""Supply per player by player count, slots as ``moves.SLOT_NAMES`` (§1.2)."""

SUPPLY_2E = {
    2: (8, 8, 8, 8, 4, 4, 12, 15),
    3: (6, 6, 6, 6, 4, 4, 8, 12),
    4: (5, 5, 5, 5, 4, 3, 6, 9),
}
"""The second edition's supplies (2e §1.2): 2 players, and more walls with 3 and 4."""


def tower_merchant_counts(values: tuple[int, int, int, int]) -> tuple[int, ...]:
    """Merchants on each tower tile at setup (2e §1.4): 3, 2, 1, 0 on towers 1-4 (4 − value)."""
    return tuple(max(0, 4 - v) for v in values)


def well_squares(rules: RuleSet, well: int, building: Mask) -> tuple[Mask, Mask]:
    """The red squares (touching the well) and the yellow bonus squares (2e §1.5, E5)."""
    red = TOUCH_MASK[well]
    col, row = well % WIDTH, well // WIDTH
    if rules.well_bonus_squares == "plaza_ring":
        offsets = [(dc, dr) for dc in (-2, 2) for dr in (-1, 0, 1)] + [(dc, dr) for dc in (-1, 0, 1) for dr in (-2, 2)]
    else:
        offsets = [(-2, 0), (2, 0), (0, -2), (0, 2)]
    yellow = 0
    for dc, dr in offsets:
        c, r = col + dc, row + dr
        if 0 <= c < WIDTH and 0 <= r < 13:
            yellow |= 1 << square(c, r)
    return red, yellow & building


BOX = (20, 20, 20, 20, 16, 12, 25, 32)
"""Box contents per slot (§1.1); domes: 4 per player colour."""


# --- setup -----------------------------------------------------------------------------


def initial_state(context: Context) -> State:
    """The position before the starting merchant (or after it, with ``start_merchant="random"``),
    in the game of ``context`` (its config, with what the setup draws filled in, is the
    returned state's)."""
    config = context.config
    rules = context.rules
    geo = context.geo
    n = context.num_players
    second = rules.edition == 2
    s = blank(State)
    s.context = context
    s.phase = START
    s.current_player = config.start_player or 0
    s.placements_left = 1
    s.obligation = False
    s.turn = 0
    s.ply = 0
    s.palace_mask = s.stables = s.merchants = s.walls = s.occupied = s.forbid = s.contested = 0
    s.palaces = ()
    s.unfinished = (-1, -1, -1, -1)
    s.ext = (0, 0, 0, 0)
    s.owned = (-1,) * (4 * n)
    s.chain = s.chain_ends = 0
    s.runs = (0,) * NUM_RUNS
    s.supply = (SUPPLY_2E if second else SUPPLY)[n] * n
    s.retired = (0, 0, 0, 0)
    s.palace_tiles = (-1, -1, -1, -1)
    s.tower_tiles = (-1, -1, -1, -1)
    s.start_square = -1
    s.well = -1
    s.red = s.yellow = 0
    s.neutral = (rules.neutral_dome_count(n),) * n
    s.tea = (0,) * n
    s.tea_pool = TEA_TILES if second else 0
    s.tea_fresh = 0
    s.tower_merchants = tower_merchant_counts(rules.tower_value_tuple()) if second else (0, 0, 0, 0)
    s.second_step = False
    s.claims = ()
    drawn: dict[str, str] = {}
    well, start = setup_squares(rules, n, config.seed, drawn)
    if well >= 0:
        s.well = well
        s.red, s.yellow = well_squares(rules, well, geo.building)
        s.occupied = 1 << well  # never empty, for every rule
        # No palace piece or stable may ever go on a red square: the street-rule sets say so.
        s.forbid = s.contested = s.red
    if start >= 0:
        s = _place_start(build(s), start)
        s.ply = 0
    if drawn:
        # The config records what was drawn, so that a game record replays it whatever
        # the random generator (and a Boardspace record can name its squares).
        s.context = replace(
            context,
            config=replace(config, variants={**config.variants, **drawn}),
            rules=replace(
                rules, well=drawn.get("well", rules.well), start_square=drawn.get("start_square", rules.start_square)
            ),
        )
    return build(s)


def setup_squares(rules: RuleSet, num_players: int, seed: int | None, drawn: dict[str, str]) -> tuple[int, int]:
    """The squares of the well (2e) and the starting merchant placed at setup (-1: none),
    drawn from ``seed`` where the rules say so (and, in the second edition, the drawn
    squares' names added to ``drawn``, which a new game's config records).

    The engine stays deterministic: no seed means seed 0.  Draws: the well, then the
    starting merchant (2e §2.1), so the merchant never lands on the well.
    """
    second = rules.edition == 2
    geo = geometry_for(num_players)
    rng = random.Random(seed if seed is not None else 0)
    well = -1
    if second and rules.well != "none":
        if rules.well == "random":
            inner = _inner_squares(num_players)
            well = inner[rng.randrange(len(inner))]
            drawn["well"] = SQUARE_NAMES[well]
        else:
            well = well_square(rules.well, num_players)
    start = -1
    if second and rules.start_square:
        start = start_square(rules, num_players)
    elif rules.start_merchant == "random":
        squares = squares_of(start_squares(rules, geo) & ~(1 << well if well >= 0 else 0))
        start = squares[rng.randrange(len(squares))]
        if second:
            drawn["start_square"] = SQUARE_NAMES[start]
    return well, start


@functools.lru_cache(maxsize=4)
def _inner_squares(num_players: int) -> list[int]:
    return squares_of(geometry_for(num_players).inner)


def start_square(rules: RuleSet, num_players: int) -> int:
    """The square of a ``start_square`` option: a starting-merchant square of the board in
    use (inner, or any building square with A10), not the well.

    Raises:
        ConfigError: if it names no such square.
    """
    geo = geometry_for(num_players)
    sq = parse_square(rules.start_square)
    well = parse_square(rules.well) if rules.well not in ("random", "none") else None
    if sq is None or not start_squares(rules, geo) >> sq & 1 or sq == well:
        raise ConfigError(
            f"bad value {rules.start_square!r} for variant flag 'start_square': not a starting-merchant square "
            f"of the {num_players}-player board (an inner square, not the well)"
        )
    return sq


def well_square(text: str, num_players: int) -> int:
    """The square of a ``well`` option naming one: an inner square of the board in use.

    Raises:
        ConfigError: if it names no inner square of that board.
    """
    geo = geometry_for(num_players)
    sq = parse_square(text)
    if sq is None or not geo.inner >> sq & 1:
        raise ConfigError(
            f"bad value {text!r} for variant flag 'well': not an inner square of the {num_players}-player board"
        )
    return sq


# --- applying moves ------------------------------------------------------------------------------


def apply(s: State, move: ProtocolMove) -> State:
    """The state after ``move`` (the turn order, game end and obligation included).

    Raises:
        IllegalMoveError: with the reason, if ``move`` is not legal in ``s``.
    """
    if not is_legal(s, move):
        reason = illegal_reason(s, move)
        raise IllegalMoveError(f"illegal move {_text(move)!r}: {reason}", reason=reason)
    player = s.current_player
    # A legal move is exactly one of the move classes (the legality test compares types).
    tp = type(move)
    if tp is Pass:
        new = draft(s)
        new.ply += 1
        _start_next_turn(new, player)
        return freeze(new)
    if tp is StartMerchant:
        return freeze(_place_start(s, move.square))  # type: ignore[attr-defined]
    if tp is Tea:
        new = draft(s)
        new.ply += 1
        new.tea = (*s.tea[:player], s.tea[player] - 1, *s.tea[player + 1 :])
        _start_next_turn(new, player)
        return freeze(new)
    new = place_piece(s, player, move)  # type: ignore[arg-type]
    if s.placements_left == 2:
        new.placements_left = 1
        rules = s.context.rules
        satisfied = tp is Dome or (tp is NeutralDome and rules.neutral_dome_satisfies_obligation)
        if satisfied:
            new.obligation = False
        if rules.edition == 2:
            new.second_step = True
        if rules.obligation_recheck and rules.last_player_dome_obligation:
            # E12b (Boardspace): the obligation of the second placement is decided now.
            new.obligation = not satisfied and _alone_with_dome(new, player)
        if _can_continue(new, player):
            return freeze(new)
    _start_next_turn(new, player)
    return freeze(new)


def _text(move: object) -> str:
    return str(move)


def _can_continue(s: State, player: int) -> bool:
    """Whether ``player`` has a legal second action in ``s`` (placements_left == 1): a
    placement, or with ``tea_spend_when_stuck`` a tea tile (2e E6)."""
    if s.obligation:
        if sup_domes(s, player) and dome_targets(s, player):
            return True
        return is_able(s, player) or (s.context.rules.tea_spend_when_stuck and tea_usable(s, player) > 0)
    # Without the obligation, the player's placements are exactly the legal moves of
    # ``s`` if they go on: kept rather than looked up a second time.
    sources = placement_sources(s, player)
    if s.second_step and tea_usable(s, player) > 0 and (sources or s.context.rules.tea_spend_when_stuck):
        sources["tea"] = (TEA_SOURCE,)
    if sources:
        keep_sources(s, sources)
        return True
    return False


def _alone_with_dome(s: State, player: int) -> bool:
    """Whether ``player`` is the only able player (A7: the only one with pieces) and can
    place an own dome in ``s``: the last-player dome obligation (§5.2)."""
    if not (sup_domes(s, player) and dome_targets(s, player)):
        return False
    others = _OTHERS[s.context.num_players][player]
    if s.context.rules.last_player_by_supply:
        return all(_supply_count(s, q) == 0 for q in others)
    return not any(is_able(s, q) for q in others)


def _supply_count(s: State, player: int) -> int:
    """Pieces in ``player``'s supply, neutral domes included (tea tiles are not pieces)."""
    return sum(s.supply[player * NUM_SLOTS : (player + 1) * NUM_SLOTS]) + s.neutral[player]


def sup_domes(s: State, player: int) -> int:
    """Domes left in ``player``'s supply."""
    return s.supply[player * NUM_SLOTS + DOME]


def _start_next_turn(s: State, previous: int) -> None:
    """Moves ``s`` (fresh, unpublished) to the start of the next turn, or ends the game (§5.3)."""
    n = s.context.num_players
    nxt = (previous + 1) % n
    others = _OTHERS[n][nxt]
    # Where nxt may place: empty if nxt cannot place (§5.1), with "dome" if nxt can dome.
    sources = placement_sources(s, nxt)
    if not sources:
        if not any(is_able(s, q) for q in others):
            s.phase = OVER
            s.current_player = TERMINAL
            s.placements_left = 0
            s.obligation = False
            return
        alone = False  # nxt must pass
    elif "dome" in sources and s.context.rules.last_player_dome_obligation:
        if s.context.rules.last_player_by_supply:
            alone = all(_supply_count(s, q) == 0 for q in others)
        else:
            # A plain loop: this runs on most turns, and any() over a generator costs more.
            alone = True
            for q in others:
                if is_able(s, q):
                    alone = False
                    break
    else:
        alone = False
    s.current_player = nxt
    s.turn += 1
    # 2e §2.2: with 3-4 players the second turn has one placement too (the first is
    # the starting merchant's turn, set up by ``_place_start``).
    opening = s.context.rules.edition == 2 and s.turn == 2 and n >= 3
    s.placements_left = 1 if opening else 2
    s.second_step = False
    s.tea_fresh = 0
    alone = alone and not opening
    s.obligation = alone
    if not alone:
        # Without the obligation these are nxt's legal moves (none: a pass): kept rather
        # than looked up a second time.
        keep_sources(s, sources)


_OTHERS = {n: tuple(tuple((p + k) % n for k in range(1, n)) for p in range(n)) for n in (2, 3, 4)}
"""``_OTHERS[n][p]``: the other seats after ``p`` in turn order."""


def _place_start(s: State, sq: int) -> State:
    """A draft of the state after the starting merchant on ``sq``."""
    new = draft(s)
    bit = 1 << sq
    new.merchants = bit
    new.occupied = s.occupied | bit
    new.chain = new.chain_ends = bit
    new.start_square = sq
    new.phase = PLAY
    new.placements_left = 1 if s.context.rules.edition == 2 else 2  # 2e §2.2: turn 1 has one placement
    new.turn = 1
    new.ply = s.ply + 1
    return new


def palace_at(s: State, bit: int) -> int:
    """The id of the palace with a component (piece or stable) on square bit ``bit``."""
    for i, p in enumerate(s.palaces):
        if (p.pieces | p.stables) & bit:
            return i
    raise KeyError(bit)


def _palace_next_to(s: State, sq: int) -> int:
    """The id of the palace with a piece adjacent to ``sq`` (unique by the street rule)."""
    around = ORTHO_MASK[sq]
    for i, p in enumerate(s.palaces):
        if p.pieces & around:
            return i
    raise KeyError(sq)


def _tile_events(s: State, owner: int) -> bool:
    """Whether a palace of ``owner`` (a seat or ``NEUTRAL``) takes tiles (2e E2)."""
    return owner >= 0 or (owner == NEUTRAL and s.context.rules.neutral_claims_tiles)


def _claim_only(s: State) -> bool:
    """2e E10: only claims cause tower events (a second-edition flag: no effect in the first)."""
    return s.context.rules.tower_events_claim_only and s.context.rules.edition == 2


def _connection_keys(s: State, components: Mask) -> set[int]:
    """The towers (or runs, A4) whose walls touch ``components``."""
    near = ortho_dilate_any(components) & s.walls
    if not near:
        return set()
    per_run = s.context.rules.tower_reconnect_per_run
    return {r if per_run else RUN_TOWER[r] for r, m in enumerate(s.runs) if m & near}


def _key_tower(s: State, key: int) -> int:
    return RUN_TOWER[key] if s.context.rules.tower_reconnect_per_run else key


def _take_towers(new: State, owner: int, keys: set[int]) -> None:
    """Connection events of ``owner``'s palace at these towers (runs, A4): the tower tiles,
    and the merchants still on them (2e §4.2: to the owner's supply, or the box)."""
    if not keys:
        return
    tiles = list(new.tower_tiles)
    on_tiles = new.tower_merchants
    for key in keys:
        tower = _key_tower(new, key)
        tiles[tower] = owner
        if on_tiles[tower]:
            if owner >= 0:
                supply = list(new.supply)
                supply[owner * NUM_SLOTS + MERCHANT] += on_tiles[tower]
                new.supply = tuple(supply)
            on_tiles = (*on_tiles[:tower], 0, *on_tiles[tower + 1 :])
    new.tower_tiles = tuple(tiles)
    new.tower_merchants = on_tiles


def _check_palace_tile(new: State, pid: int) -> None:
    """Gives palace tile of ``pid``'s colour to its owner if it is now strictly the largest (§4.1).

    The tile palace is always the largest qualifying owned palace of its colour, so the
    rival is the holder's palace (a seat owns one per colour) or, for a tile held by
    ``NEUTRAL`` (2e §4.1), the largest neutral-owned one.
    """
    pal = new.palaces[pid]
    holder = new.palace_tiles[pal.color]
    if holder == pal.owner:
        return
    if holder >= 0:
        rival = new.palaces[new.owned[holder * 4 + pal.color]]
        if (pal.pieces | pal.stables).bit_count() <= (rival.pieces | rival.stables).bit_count():
            return  # sizes as Palace.size
    elif holder == NEUTRAL:
        largest = max(
            p.size for i, p in enumerate(new.palaces) if p.owner == NEUTRAL and p.color == pal.color and i != pid
        )
        if pal.size <= largest:
            return
    tiles = list(new.palace_tiles)
    tiles[pal.color] = pal.owner
    new.palace_tiles = tuple(tiles)


def _replace_palace(new: State, pid: int, pal: Palace) -> None:
    palaces = list(new.palaces)
    if pid == len(palaces):
        palaces.append(pal)
    else:
        palaces[pid] = pal
    new.palaces = tuple(palaces)


def _add_component(new: State, sq: int, pal: Palace, pid: int, is_stable: bool) -> None:
    """Adds a palace piece or stable of ``pal`` on ``sq`` and updates the street-rule sets."""
    bit = 1 << sq
    zone = TOUCH_CLOSED[sq]
    new.contested |= zone & new.forbid & ~pal.touch
    new.forbid |= zone
    new.occupied |= bit
    if is_stable:
        new.stables |= bit
        pal = Palace(pal.color, pal.pieces, pal.stables | bit, pal.touch | zone, pal.owner, pal.dome, pal.abandoned)
    else:
        new.palace_mask |= bit
        pal = Palace(pal.color, pal.pieces | bit, pal.stables, pal.touch | zone, pal.owner, pal.dome, pal.abandoned)
    _replace_palace(new, pid, pal)


def _update_status(new: State) -> None:
    """Recomputes the unfinished palaces' extension squares; abandons those with none (§3.1.4)."""
    unfinished = new.unfinished
    if unfinished == _NONE_UNFINISHED:
        return  # nothing to recompute (the extension squares stay as they are: none)
    free = new.geo.building & ~new.occupied & ~new.contested
    ext = list(new.ext)
    old_palaces = new.palaces
    palaces: list[Palace] | None = None
    abandoned: list[int] = []
    for col in range(4):
        pid = unfinished[col]
        if pid < 0:
            continue
        m = old_palaces[pid].pieces
        e = ((m << 1) | (m >> 1) | (m << WIDTH) | (m >> WIDTH)) & free  # ortho_dilate, inlined
        ext[col] = e
        if not e:
            if palaces is None:
                palaces = list(old_palaces)
                abandoned = list(unfinished)
            palaces[pid] = _abandoned(palaces[pid])
            abandoned[col] = -1
    new.ext = tuple(ext)
    if palaces is not None:
        new.unfinished = tuple(abandoned)
        new.palaces = tuple(palaces)


_NONE_UNFINISHED = (-1, -1, -1, -1)


def _abandoned(p: Palace) -> Palace:
    """``p`` marked abandoned (built directly: ``_replace`` is much slower)."""
    return Palace(p.color, p.pieces, p.stables, p.touch, p.owner, p.dome, True)


_SLOT: dict[type, int] = {Merchant: MERCHANT, Wall: WALL, Stable: STABLE, Dome: DOME}
"""The supply slot of each non-palace piece."""


def place_piece(s: State, player: int, move: Move) -> State:
    """A draft of the state after ``player`` puts ``move``'s piece on the board (no turn
    bookkeeping); :func:`apply` finishes and freezes it.

    ``move`` must be a legal placement (not a pass or the starting merchant).

    Each branch also hands ``new`` the square sets cached by ``placement.py`` that the
    placement leaves unchanged, or changes only by taking its square:

    * the wall squares read the walls only: unchanged unless a wall was placed;
    * the stable squares read the palace pieces, the occupied and contested squares: a
      merchant only takes its square; a wall or a dome changes none of them;
    * the merchant squares read the occupied squares, the merchants and the active
      chain: a palace piece or stable only takes its square, which leaves the same set
      minus that square whichever branch (chain, new chain) produced it, unless that
      leaves it empty (then the other branch may apply: recomputed); a wall or a dome
      changes none of them;
    * the claimable palaces read the palaces and the unfinished ones: kept while both
      are the same objects (a merchant that abandons a palace replaces them).
    """
    new = draft(s)
    new.ply = s.ply + 1
    sq = move.square  # type: ignore[union-attr]
    bit = 1 << sq
    tp = type(move)
    # The piece leaves the supply.
    if tp is not NeutralDome:
        supply = list(s.supply)
        supply[player * NUM_SLOTS + (move.color if tp is PalacePiece else _SLOT[tp])] -= 1  # type: ignore[union-attr]
        new.supply = tuple(supply)
    if tp is PalacePiece:
        col = move.color  # type: ignore[union-attr]
        pid = s.unfinished[col]
        if pid < 0:
            pid = len(s.palaces)
            pal = Palace(col, 0, 0, 0, -1, -1, False)
            new.unfinished = (*s.unfinished[:col], pid, *s.unfinished[col + 1 :])
        else:
            pal = s.palaces[pid]
        _add_component(new, sq, pal, pid, is_stable=False)
        _update_status(new)
        new.known_wall_squares = s.known_wall_squares
        merchant = s.known_merchant_squares
        if merchant:
            new.known_merchant_squares = merchant & ~bit or None
    elif tp is Merchant:
        new.merchants = s.merchants | bit
        new.occupied = s.occupied | bit
        end = ORTHO_MASK[sq] & s.chain_ends
        if end and s.chain_ends:
            ends = (s.chain_ends & ~end) | bit
            if not ORTHO_MASK[end.bit_length() - 1] & s.merchants:
                ends |= end  # a one-merchant chain keeps its first merchant as the other end
            new.chain_ends = ends
            new.chain = s.chain | bit
        else:
            new.chain_ends = bit
            new.chain = _merchant_group(new.merchants, bit)
        _shrink_status(new, bit)
        new.known_wall_squares = s.known_wall_squares
        stable = s.known_stable_squares
        if stable is not None:
            new.known_stable_squares = stable & ~bit
        if new.palaces is s.palaces:  # no palace abandoned
            new.known_claimable = s.known_claimable
    elif tp is Wall:
        new.known_stable_squares = s.known_stable_squares
        new.known_merchant_squares = s.known_merchant_squares
        new.known_claimable = s.known_claimable
        new.walls = s.walls | bit
        # The run on the side of its neighbour (a tower or a wall piece; a legal wall piece
        # has exactly one).
        geo = s.context.geo
        (nb, run), (_, other_run) = geo.side_runs[sq]
        if not (s.walls | geo.tower_mask) >> nb & 1:
            run = other_run
        new_runs = list(s.runs)
        new_runs[run] |= bit
        new.runs = tuple(new_runs)
        front = 1 << geo.wall_front[sq]
        if (s.palace_mask | s.stables) & front and not _claim_only(s):
            pid = palace_at(s, front)
            pal = s.palaces[pid]
            if _tile_events(s, pal.owner):
                key = run if s.context.rules.tower_reconnect_per_run else RUN_TOWER[run]
                if key not in _connection_keys(s, pal.pieces | pal.stables):
                    _take_towers(new, pal.owner, {key})
    elif tp is Stable:
        pid = _palace_next_to(s, sq)
        pal = s.palaces[pid]
        _add_component(new, sq, pal, pid, is_stable=True)
        _update_status(new)
        new.known_wall_squares = s.known_wall_squares
        merchant = s.known_merchant_squares
        if merchant:
            new.known_merchant_squares = merchant & ~bit or None
        if _tile_events(s, pal.owner):
            _check_palace_tile(new, pid)
            if ORTHO_MASK[sq] & s.walls and not _claim_only(s):
                before = _connection_keys(s, pal.pieces | pal.stables)
                after = _connection_keys(new, pal.pieces | pal.stables | bit)
                _take_towers(new, pal.owner, after - before)
    elif tp is Dome:
        new.known_wall_squares = s.known_wall_squares
        new.known_stable_squares = s.known_stable_squares
        new.known_merchant_squares = s.known_merchant_squares
        pid = palace_at(s, bit)
        pal = s.palaces[pid]
        pal = Palace(pal.color, pal.pieces, pal.stables, pal.touch, player, sq, pal.abandoned)
        _replace_palace(new, pid, pal)
        col = pal.color
        base = player * 4
        new.owned = (*s.owned[: base + col], pid, *s.owned[base + col + 1 :])
        if s.unfinished[col] == pid:
            new.unfinished = (*s.unfinished[:col], -1, *s.unfinished[col + 1 :])
            new.ext = (*s.ext[:col], 0, *s.ext[col + 1 :])
        _check_palace_tile(new, pid)
        _take_towers(new, player, _connection_keys(s, pal.pieces | pal.stables))
        owned = new.owned
        for q in range(s.context.num_players):
            if owned[q * 4 + col] < 0:
                break
        else:
            _retire(new, col)  # every player owns a palace of this colour
        if s.context.rules.edition == 2:
            new.claims = (*s.claims, pid)
            if col == PURPLE:
                _award_tea(new, player)
    elif tp is NeutralDome:
        new.known_wall_squares = s.known_wall_squares
        new.known_stable_squares = s.known_stable_squares
        new.known_merchant_squares = s.known_merchant_squares
        new.supply = s.supply  # the neutral dome comes from its own count
        new.neutral = (*s.neutral[:player], s.neutral[player] - 1, *s.neutral[player + 1 :])
        pid = palace_at(s, bit)
        pal = s.palaces[pid]
        pal = Palace(pal.color, pal.pieces, pal.stables, pal.touch, NEUTRAL, sq, pal.abandoned)
        _replace_palace(new, pid, pal)
        col = pal.color
        if s.unfinished[col] == pid:
            new.unfinished = (*s.unfinished[:col], -1, *s.unfinished[col + 1 :])
            new.ext = (*s.ext[:col], 0, *s.ext[col + 1 :])
        if s.context.rules.neutral_claims_tiles:
            _check_palace_tile(new, pid)
            _take_towers(new, NEUTRAL, _connection_keys(s, pal.pieces | pal.stables))
        new.claims = (*s.claims, pid)
        if col == PURPLE:
            _award_tea(new, NEUTRAL)
    else:  # pragma: no cover - guarded by the callers
        raise TypeError(move)
    return new


def _award_tea(new: State, claimer: int) -> None:
    """A purple claim's tea tiles (2e §4.3): half the pool, rounded up (3, 2, 1), to the
    claiming seat, or to the box for a neutral dome."""
    share = (new.tea_pool + 1) // 2
    if not share:
        return
    new.tea_pool -= share
    if claimer >= 0:
        new.tea = (*new.tea[:claimer], new.tea[claimer] + share, *new.tea[claimer + 1 :])
        new.tea_fresh += share


def _shrink_status(new: State, bit: int) -> None:
    """:func:`_update_status` after a placement that only occupies ``bit`` (a merchant).

    Palace pieces and contested squares are unchanged, so each extension set only loses
    ``bit``; a palace left with none is abandoned.
    """
    unfinished = new.unfinished
    if unfinished == _NONE_UNFINISHED:
        return
    keep = ~bit
    ext = [e & keep for e in new.ext]
    new.ext = tuple(ext)
    palaces: list[Palace] | None = None
    abandoned: list[int] = []
    for col in range(4):
        pid = unfinished[col]
        if pid >= 0 and not ext[col]:
            if palaces is None:
                palaces = list(new.palaces)
                abandoned = list(unfinished)
            palaces[pid] = _abandoned(palaces[pid])
            abandoned[col] = -1
    if palaces is not None:
        new.unfinished = tuple(abandoned)
        new.palaces = tuple(palaces)


def _retire(new: State, col: int) -> None:
    """Removes every colour-``col`` palace piece left in any supply from the game (§3.2.3)."""
    sup = list(new.supply)
    removed = 0
    for q in range(new.num_players):
        removed += sup[q * NUM_SLOTS + col]
        sup[q * NUM_SLOTS + col] = 0
    new.supply = tuple(sup)
    new.retired = (*new.retired[:col], new.retired[col] + removed, *new.retired[col + 1 :])


def _merchant_group(merchants: Mask, seed: Mask) -> Mask:
    """The orthogonally connected group of merchants containing ``seed``."""
    group = seed
    while True:
        grown = group | (ortho_dilate(group) & merchants)
        if grown == group:
            return group
        group = grown
