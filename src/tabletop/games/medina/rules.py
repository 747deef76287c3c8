"""Medina's rules: legal placements, applying a move, palace status, tiles and turn order.

The spec (``shared/rules/medina.md``) is the authority; section numbers below refer to it.
Everything is computed with bitsets: the street rule reduces to two sets kept up to date
incrementally (``State.forbid``: where a new palace may not start; ``State.contested``:
squares touching two palaces, where no palace piece or stable may ever go).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from tabletop.core.errors import IllegalMoveError
from tabletop.core.protocol import TERMINAL, GameConfig, Move
from tabletop.games.medina.board import (
    ADJACENT_WALL_SPACES,
    BUILDING,
    HORIZONTAL_WALLS,
    INNER,
    NUM_RUNS,
    NUM_SQUARES,
    ORTHO_MASK,
    RUN_TOWER,
    SIDE_NEIGHBORS,
    SQUARE_NAMES,
    TOUCH_CLOSED,
    TOWER_RUN,
    TOWERS,
    VERTICAL_WALLS,
    WALL_FRONT,
    WALL_SPACES,
    WIDTH,
    Mask,
    ortho_dilate,
    ortho_dilate_any,
    squares_of,
    two_or_more_neighbors,
)
from tabletop.games.medina.moves import (
    COLORS,
    DOME,
    DOME_MOVES,
    KINDS,
    MERCHANT,
    MERCHANT_MOVES,
    NUM_SLOTS,
    PALACE_MOVES,
    PASS,
    STABLE,
    STABLE_MOVES,
    START_MOVES,
    WALL,
    WALL_MOVES,
    Dome,
    MedinaMove,
    Merchant,
    MoveList,
    MoveSource,
    PalacePiece,
    Pass,
    Stable,
    StartMerchant,
    Wall,
    moves_on,
)
from tabletop.games.medina.ruleset import RuleSet
from tabletop.games.medina.state import OVER, PLAY, START, Palace, State

SUPPLY = {
    3: (6, 6, 6, 6, 4, 4, 8, 10),
    4: (5, 5, 5, 5, 4, 3, 6, 8),
}
"""Supply per player by player count, slots as ``moves.SLOT_NAMES`` (§1.2)."""

BOX = (20, 20, 20, 20, 16, 12, 25, 32)
"""Box contents per slot (§1.1); domes: 4 per player colour."""


# --- setup -----------------------------------------------------------------------------


def initial_state(game: Any, config: GameConfig, rules: RuleSet) -> State:
    """The position before the starting merchant (or after it, with ``start_merchant="random"``)."""
    n = config.num_players
    s = State.__new__(State)
    s.game = game
    s.config = config
    s.rules = rules
    s.num_players = n
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
    s.supply = SUPPLY[n] * n
    s.retired = (0, 0, 0, 0)
    s.palace_tiles = (-1, -1, -1, -1)
    s.tower_tiles = (-1, -1, -1, -1)
    s.start_square = -1
    s._cache = {}
    if rules.start_merchant == "random":
        # The engine stays deterministic: no seed means seed 0.
        rng = random.Random(config.seed if config.seed is not None else 0)
        squares = squares_of(start_squares(rules))
        s = _place_start(s, squares[rng.randrange(len(squares))])
        s.ply = 0
    return s


def start_squares(rules: RuleSet) -> Mask:
    """Where the starting merchant may go (§2.1, A10)."""
    return BUILDING if rules.start_merchant_anywhere else INNER


# --- derived square sets -----------------------------------------------------------------


def new_palace_squares(s: State) -> Mask:
    """Empty building squares touching no palace piece and no stable (§3.1.3)."""
    return BUILDING & ~s.occupied & ~s.forbid


def stable_squares(s: State) -> Mask:
    """Empty squares next to a palace piece that touch no other palace (§3.3)."""
    c = s._cache
    m: Mask | None = c.get("stable")
    if m is None:
        m = ortho_dilate(s.palace_mask) & ~s.occupied & ~s.contested
        c["stable"] = m
    return m


def merchant_squares(s: State) -> Mask:
    """Where a merchant may go: the active chain's extensions, else new-chain squares (§3.4)."""
    c = s._cache
    m: Mask | None = c.get("merchant")
    if m is None:
        free = BUILDING & ~s.occupied
        crowded = two_or_more_neighbors(s.merchants)
        m = ortho_dilate(s.chain_ends) & free & ~crowded if s.chain_ends else 0
        if not m:
            m = free & ~crowded if s.rules.new_chain_may_touch_one else free & ~ortho_dilate(s.merchants)
        c["merchant"] = m
    return m


def wall_squares(s: State) -> Mask:
    """Empty wall spaces next to exactly one of {tower, wall piece} along the side (§3.5)."""
    c = s._cache
    m: Mask | None = c.get("wall")
    if m is None:
        occ = s.walls | TOWERS
        m = (
            (HORIZONTAL_WALLS & ((occ << 1) ^ (occ >> 1))) | (VERTICAL_WALLS & ((occ << WIDTH) ^ (occ >> WIDTH)))
        ) & ~s.walls
        c["wall"] = m
    return m


def claimable(s: State) -> list[int]:
    """Ids of the palaces a dome may claim (ignoring the one-per-colour rule) (§3.2, A1)."""
    c = s._cache
    ids: list[int] | None = c.get("claimable")
    if ids is None:
        if s.rules.abandoned_palace_claimable:
            ids = [i for i, p in enumerate(s.palaces) if p.owner < 0]
        else:
            ids = [i for i in s.unfinished if i >= 0]
            ids.sort()
        c["claimable"] = ids
    return ids


def dome_targets(s: State, player: int) -> Mask:
    """Palace pieces the player may dome: claimable palaces of colours they don't own yet."""
    base = player * 4
    m = 0
    for i in claimable(s):
        p = s.palaces[i]
        if s.owned[base + p.color] < 0:
            m |= p.pieces
    return m


def is_able(s: State, player: int) -> bool:
    """Whether ``player`` has a legal placement for some piece in their supply (§5.1)."""
    sup = s.supply
    base = player * NUM_SLOTS
    newpal = -1
    for col in range(4):
        if sup[base + col]:
            if s.unfinished[col] >= 0:
                return True
            if newpal < 0:
                newpal = new_palace_squares(s)
            if newpal:
                return True
    return bool(
        (sup[base + DOME] and dome_targets(s, player))
        or (sup[base + STABLE] and stable_squares(s))
        or (sup[base + MERCHANT] and merchant_squares(s))
        or (sup[base + WALL] and wall_squares(s))
    )


# --- legal moves ---------------------------------------------------------------------------


def _placement_sources(s: State, player: int) -> dict[str, list[MoveSource]]:
    """Where ``player`` may place each kind of piece (ignoring the dome obligation).

    Only kinds with at least one legal square appear.  Moves are not built here: kind-first
    play needs the kinds of every state but the moves of one kind only.
    """
    sup = s.supply
    base = player * NUM_SLOTS
    out: dict[str, list[MoveSource]] = {}
    palace: list[MoveSource] = []
    newpal = -1
    for col in range(4):
        if sup[base + col]:
            if s.unfinished[col] >= 0:
                palace.append((PALACE_MOVES[col], s.ext[col]))
            else:
                if newpal < 0:
                    newpal = new_palace_squares(s)
                if newpal:
                    palace.append((PALACE_MOVES[col], newpal))
    if palace:
        out["palace"] = palace
    if sup[base + DOME]:
        m = dome_targets(s, player)
        if m:
            out["dome"] = [(DOME_MOVES, m)]
    if sup[base + STABLE]:
        m = stable_squares(s)
        if m:
            out["stable"] = [(STABLE_MOVES, m)]
    if sup[base + MERCHANT]:
        m = merchant_squares(s)
        if m:
            out["merchant"] = [(MERCHANT_MOVES, m)]
    if sup[base + WALL]:
        m = wall_squares(s)
        if m:
            out["wall"] = [(WALL_MOVES, m)]
    return out


def _build(sources: list[MoveSource]) -> tuple[MedinaMove, ...]:
    if len(sources) == 1:
        table, mask = sources[0]
        return tuple(moves_on(table, mask))
    out: list[MedinaMove] = []
    for table, mask in sources:
        out += moves_on(table, mask)
    return tuple(out)


def _sources(s: State) -> dict[str, list[MoveSource]] | None:
    """The move sources of the current player, or ``None`` when moves must be listed in full."""
    c = s._cache
    if "sources" in c:
        got: dict[str, list[MoveSource]] | None = c["sources"]
        return got
    got = None
    if s.phase == PLAY and not s.obligation:
        got = _placement_sources(s, s.current_player)
        if not got:
            got = None  # the pass case
    elif s.phase == START:
        got = {"merchant_start": [(START_MOVES, start_squares(s.rules) & ~s.occupied)]}
    c["sources"] = got
    return got


def legal_kinds(s: State) -> tuple[str, ...]:
    """The kinds of the current player's legal moves, in ``moves.KINDS`` order."""
    sources = _sources(s)
    if sources is None:
        return tuple(legal_by_kind(s))
    return tuple(k for k in KINDS if k in sources)


def legal_moves_of_kind(s: State, kind: str) -> Sequence[MedinaMove]:
    """The current player's legal moves of one kind (cached; a lazy :class:`MoveList`)."""
    c = s._cache
    key = "kind:" + kind
    got: Sequence[MedinaMove] | None = c.get(key)
    if got is None:
        sources = _sources(s)
        if sources is None:
            got = legal_by_kind(s).get(kind, ())
        else:
            src = sources.get(kind)
            got = MoveList(src) if src else ()
        c[key] = got
    return got


def legal_by_kind(s: State) -> dict[str, tuple[MedinaMove, ...]]:
    """The current player's legal moves by kind, kinds in ``moves.KINDS`` order (cached)."""
    c = s._cache
    got: dict[str, tuple[MedinaMove, ...]] | None = c.get("legal")
    if got is not None:
        return got
    if s.phase == OVER:
        got = {}
    else:
        sources = _sources(s)
        if sources is not None:
            got = {k: _build(sources[k]) for k in KINDS if k in sources}
        else:
            by_kind = {k: list(_build(src)) for k, src in _placement_sources(s, s.current_player).items()}
            if s.obligation:
                by_kind = _apply_obligation(s, by_kind)
            got = {k: tuple(by_kind[k]) for k in KINDS if k in by_kind} if by_kind else {"pass": (PASS,)}
    c["legal"] = got
    return got


def _apply_obligation(s: State, by_kind: dict[str, list[MedinaMove]]) -> dict[str, list[MedinaMove]]:
    """Filters placements by the last-player dome obligation (§5.2, A8)."""
    domes = by_kind.get("dome")
    if s.placements_left == 1:
        # The first placement was not a dome: the second one must be (waived without lookahead
        # when no dome placement is left).
        return {"dome": domes} if domes else by_kind
    if not s.rules.dome_obligation_lookahead:
        return by_kind
    player = s.current_player
    out: dict[str, list[MedinaMove]] = {}
    for kind, moves in by_kind.items():
        if kind == "dome":
            out[kind] = moves
            continue
        keep = [m for m in moves if dome_targets(_place(s, player, m), player)]
        if keep:
            out[kind] = keep
    return out


# --- legality with reasons -------------------------------------------------------------------


def illegal_reason(s: State, move: Move) -> str | None:
    """Why ``move`` is illegal now, or ``None`` if it is legal."""
    if not isinstance(move, StartMerchant | PalacePiece | Dome | Stable | Merchant | Wall | Pass):
        return f"{move!r} is not a Medina move"
    if is_legal(s, move):
        return None
    if not isinstance(move, Pass) and not (isinstance(move.square, int) and 0 <= move.square < NUM_SQUARES):
        return f"no square with index {move.square!r}"
    if isinstance(move, PalacePiece) and not (isinstance(move.color, int) and 0 <= move.color < len(COLORS)):
        return f"no palace colour with index {move.color!r}"
    return _explain(s, move, legal_by_kind(s))


def is_legal(s: State, move: Move) -> bool:
    """Whether ``move`` is legal in ``s``: a bitset test, without listing the moves."""
    if s.phase != PLAY or s.obligation or isinstance(move, Pass):
        kind = getattr(move, "kind", None)
        return isinstance(kind, str) and move in legal_moves_of_kind(s, kind)
    sq = getattr(move, "square", -1)
    if type(sq) is not int or not 0 <= sq < NUM_SQUARES:
        return False
    bit = 1 << sq
    base = s.current_player * NUM_SLOTS
    sup = s.supply
    tp = type(move)
    if tp is PalacePiece:
        col = move.color  # type: ignore[attr-defined]
        if type(col) is not int or not 0 <= col < 4 or not sup[base + col]:
            return False
        return bool(bit & (s.ext[col] if s.unfinished[col] >= 0 else new_palace_squares(s)))
    if tp is Merchant:
        return bool(sup[base + MERCHANT] and bit & merchant_squares(s))
    if tp is Wall:
        return bool(sup[base + WALL] and bit & wall_squares(s))
    if tp is Stable:
        return bool(sup[base + STABLE] and bit & stable_squares(s))
    if tp is Dome:
        return bool(sup[base + DOME] and bit & dome_targets(s, s.current_player))
    return False


def _in_sources(sources: dict[str, list[MoveSource]], move: MedinaMove) -> bool:
    """Whether ``move`` is one of the moves described by ``sources``."""
    sq = getattr(move, "square", -1)
    return any(table[sq] == move and mask >> sq & 1 for table, mask in sources.get(move.kind, ()))


def _explain(s: State, move: MedinaMove, legal: dict[str, tuple[MedinaMove, ...]]) -> str:
    """A human-readable reason for an illegal move (only called for illegal moves)."""
    if s.phase == OVER:
        return "the game is over"
    if s.phase == START:
        if not isinstance(move, StartMerchant):
            return "the start player must first place the starting merchant ('start@<square>')"
        if s.rules.start_merchant_anywhere:
            return "the starting merchant must go on a building square (B2-Q12)"
        return "the starting merchant must go on an inner square (C3-P11)"
    if isinstance(move, StartMerchant):
        return "the starting merchant has already been placed"
    if isinstance(move, Pass):
        return "passing is allowed only when no placement is possible"
    if "pass" in legal:
        return "no placement is possible: the only legal move is pass"
    sq = move.square
    if not 0 <= sq < len(SQUARE_NAMES):
        return "no such square"
    name = SQUARE_NAMES[sq]
    player = s.current_player
    base = player * NUM_SLOTS
    bit = 1 << sq
    if s.obligation and move.kind != "dome" and _in_sources(_placement_sources(s, player), move):
        if s.placements_left == 1:
            return "last-player dome obligation: this placement must be a dome"
        return "last-player dome obligation: this placement would leave no dome placement"
    if isinstance(move, Wall):
        if not s.supply[base + WALL]:
            return "no wall pieces left in supply"
        if not WALL_SPACES & bit:
            return f"{name} is not a wall space"
        if s.walls & bit:
            return f"{name} already holds a wall piece"
        occ = s.walls | TOWERS
        touching = sum(1 for nb in SIDE_NEIGHBORS[sq] if occ >> nb & 1)
        if touching == 0:
            return f"{name} is not next to a tower or a wall piece"
        return f"gate rule: a wall piece on {name} would close the gate of its side"
    if not BUILDING & bit:
        return f"{name} is not a building square"
    if isinstance(move, Dome):
        if not s.supply[base + DOME]:
            return "no domes left in supply"
        if not s.palace_mask & bit:
            return f"a dome must go on a palace piece; {name} holds none"
        pal = s.palaces[palace_at(s, bit)]
        if pal.owner >= 0:
            return f"the palace at {name} is already owned"
        if s.owned[player * 4 + pal.color] >= 0:
            return f"you already own a {COLORS[pal.color]} palace"
        return f"the palace at {name} is abandoned (it can no longer grow) and cannot be claimed"
    if s.occupied & bit:
        return f"{name} is occupied"
    if isinstance(move, PalacePiece):
        col = move.color
        if s.supply[base + col] == 0:
            if s.retired[col]:
                return f"{COLORS[col]} is retired (every player owns a {COLORS[col]} palace)"
            return f"no {COLORS[col]} palace pieces left in supply"
        if s.unfinished[col] >= 0:
            if s.contested & bit:
                return f"street rule: {name} touches another palace"
            return f"must extend the unfinished {COLORS[col]} palace (a square next to one of its pieces)"
        return f"street rule: a new {COLORS[col]} palace on {name} would touch a palace piece or stable"
    if isinstance(move, Stable):
        if not s.supply[base + STABLE]:
            return "no stables left in supply"
        if not ortho_dilate(s.palace_mask) & bit:
            return f"a stable must be next to a palace piece; {name} is not"
        return f"street rule: a stable on {name} would touch a second palace"
    if isinstance(move, Merchant):
        if not s.supply[base + MERCHANT]:
            return "no merchants left in supply"
        if two_or_more_neighbors(s.merchants) & bit:
            return f"a merchant on {name} would be next to two or more merchants"
        if s.chain_ends and ortho_dilate(s.chain_ends) & ~s.occupied & ~two_or_more_neighbors(s.merchants):
            return "the active merchant chain can still grow: the merchant must extend one of its ends"
        return f"a new merchant chain may not start next to a merchant ({name})"
    return "illegal move"  # pragma: no cover - every kind is handled above


# --- applying moves ------------------------------------------------------------------------------


def apply(s: State, move: Move) -> State:
    """The state after ``move`` (the turn order, game end and obligation included).

    Raises:
        IllegalMoveError: with the reason, if ``move`` is not legal in ``s``.
    """
    if not is_legal(s, move):
        reason = illegal_reason(s, move)
        raise IllegalMoveError(f"illegal move {_text(move)!r}: {reason}")
    player = s.current_player
    if isinstance(move, Pass):
        new = s._copy()
        new.ply += 1
        _start_next_turn(new, player)
        return new
    if isinstance(move, StartMerchant):
        new = _place_start(s, move.square)
        return new
    new = _place(s, player, move)  # type: ignore[arg-type]
    if s.placements_left == 2:
        new.placements_left = 1
        if isinstance(move, Dome):
            new.obligation = False
        if _can_continue(new, player):
            return new
    _start_next_turn(new, player)
    return new


def _text(move: object) -> str:
    return str(move)


def _can_continue(s: State, player: int) -> bool:
    """Whether ``player`` has a legal second placement in ``s`` (placements_left == 1)."""
    if s.obligation and sup_domes(s, player) and dome_targets(s, player):
        return True
    return is_able(s, player)


def sup_domes(s: State, player: int) -> int:
    """Domes left in ``player``'s supply."""
    return s.supply[player * NUM_SLOTS + DOME]


def _start_next_turn(s: State, previous: int) -> None:
    """Moves ``s`` (fresh, unpublished) to the start of the next turn, or ends the game (§5.3)."""
    n = s.num_players
    nxt = (previous + 1) % n
    others = [(nxt + k) % n for k in range(1, n)]
    if not is_able(s, nxt):
        if not any(is_able(s, q) for q in others):
            s.phase = OVER
            s.current_player = TERMINAL
            s.placements_left = 0
            s.obligation = False
            return
        alone = False  # nxt must pass
    elif sup_domes(s, nxt) and dome_targets(s, nxt):
        if s.rules.last_player_by_supply:
            alone = all(sum(s.supply[q * NUM_SLOTS : (q + 1) * NUM_SLOTS]) == 0 for q in others)
        else:
            alone = not any(is_able(s, q) for q in others)
    else:
        alone = False
    s.current_player = nxt
    s.placements_left = 2
    s.turn += 1
    s.obligation = alone


def _place_start(s: State, sq: int) -> State:
    new = s._copy()
    bit = 1 << sq
    new.merchants = bit
    new.occupied = s.occupied | bit
    new.chain = new.chain_ends = bit
    new.start_square = sq
    new.phase = PLAY
    new.placements_left = 2
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


def _connection_keys(s: State, components: Mask) -> set[int]:
    """The towers (or runs, A4) whose walls touch ``components``."""
    near = ortho_dilate_any(components) & s.walls
    if not near:
        return set()
    per_run = s.rules.tower_reconnect_per_run
    return {r if per_run else RUN_TOWER[r] for r, m in enumerate(s.runs) if m & near}


def _key_tower(s: State, key: int) -> int:
    return RUN_TOWER[key] if s.rules.tower_reconnect_per_run else key


def _take_towers(new: State, owner: int, keys: set[int]) -> None:
    if not keys:
        return
    tiles = list(new.tower_tiles)
    for key in keys:
        tiles[_key_tower(new, key)] = owner
    new.tower_tiles = tuple(tiles)


def _check_palace_tile(new: State, pid: int) -> None:
    """Gives palace tile of ``pid``'s colour to its owner if it is now strictly the largest (§4.1)."""
    pal = new.palaces[pid]
    holder = new.palace_tiles[pal.color]
    if holder == pal.owner:
        return
    if holder >= 0 and pal.size <= new.palaces[new.owned[holder * 4 + pal.color]].size:
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
        pal = pal._replace(stables=pal.stables | bit, touch=pal.touch | zone)
    else:
        new.palace_mask |= bit
        pal = pal._replace(pieces=pal.pieces | bit, touch=pal.touch | zone)
    _replace_palace(new, pid, pal)


def _update_status(new: State) -> None:
    """Recomputes the unfinished palaces' extension squares; abandons those with none (§3.1.4)."""
    free = BUILDING & ~new.occupied & ~new.contested
    ext = list(new.ext)
    unfinished = list(new.unfinished)
    palaces: list[Palace] | None = None
    for col in range(4):
        pid = unfinished[col]
        if pid < 0:
            continue
        e = ortho_dilate(new.palaces[pid].pieces) & free
        ext[col] = e
        if not e:
            if palaces is None:
                palaces = list(new.palaces)
            palaces[pid] = palaces[pid]._replace(abandoned=True)
            unfinished[col] = -1
    new.ext = tuple(ext)
    new.unfinished = tuple(unfinished)
    if palaces is not None:
        new.palaces = tuple(palaces)


def _take(new: State, player: int, slot: int) -> None:
    i = player * NUM_SLOTS + slot
    sup = new.supply
    new.supply = (*sup[:i], sup[i] - 1, *sup[i + 1 :])


def _place(s: State, player: int, move: MedinaMove) -> State:
    """The state after ``player`` puts ``move``'s piece on the board (no turn bookkeeping).

    ``move`` must be a legal placement (not a pass or the starting merchant).
    """
    new = s._copy()
    new.ply = s.ply + 1
    sq = move.square  # type: ignore[union-attr]
    bit = 1 << sq
    if isinstance(move, PalacePiece):
        col = move.color
        _take(new, player, col)
        pid = s.unfinished[col]
        if pid < 0:
            pid = len(s.palaces)
            pal = Palace(col, 0, 0, 0, -1, -1, False)
            new.unfinished = (*s.unfinished[:col], pid, *s.unfinished[col + 1 :])
        else:
            pal = s.palaces[pid]
        _add_component(new, sq, pal, pid, is_stable=False)
        _update_status(new)
    elif isinstance(move, Merchant):
        _take(new, player, MERCHANT)
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
        _update_status(new)
    elif isinstance(move, Wall):
        _take(new, player, WALL)
        new.walls = s.walls | bit
        occ = s.walls | TOWERS
        nb = next(nb for nb in SIDE_NEIGHBORS[sq] if occ >> nb & 1)
        run = TOWER_RUN[(sq, nb)] if TOWERS >> nb & 1 else next(r for r, m in enumerate(s.runs) if m >> nb & 1)
        new.runs = (*s.runs[:run], s.runs[run] | bit, *s.runs[run + 1 :])
        front = 1 << WALL_FRONT[sq]
        if (s.palace_mask | s.stables) & front:
            pid = palace_at(s, front)
            pal = s.palaces[pid]
            if pal.owner >= 0:
                key = run if s.rules.tower_reconnect_per_run else RUN_TOWER[run]
                if key not in _connection_keys(s, pal.pieces | pal.stables):
                    _take_towers(new, pal.owner, {key})
    elif isinstance(move, Stable):
        _take(new, player, STABLE)
        pid = _palace_next_to(s, sq)
        pal = s.palaces[pid]
        _add_component(new, sq, pal, pid, is_stable=True)
        _update_status(new)
        if pal.owner >= 0:
            _check_palace_tile(new, pid)
            if ADJACENT_WALL_SPACES[sq] & s.walls:
                before = _connection_keys(s, pal.pieces | pal.stables)
                after = _connection_keys(new, pal.pieces | pal.stables | bit)
                _take_towers(new, pal.owner, after - before)
    elif isinstance(move, Dome):
        _take(new, player, DOME)
        pid = palace_at(s, bit)
        pal = s.palaces[pid]._replace(owner=player, dome=sq)
        _replace_palace(new, pid, pal)
        col = pal.color
        base = player * 4
        new.owned = (*s.owned[: base + col], pid, *s.owned[base + col + 1 :])
        if s.unfinished[col] == pid:
            new.unfinished = (*s.unfinished[:col], -1, *s.unfinished[col + 1 :])
            new.ext = (*s.ext[:col], 0, *s.ext[col + 1 :])
        _check_palace_tile(new, pid)
        _take_towers(new, player, _connection_keys(s, pal.pieces | pal.stables))
        if all(new.owned[q * 4 + col] >= 0 for q in range(s.num_players)):
            _retire(new, col)
    else:  # pragma: no cover - guarded by the callers
        raise TypeError(move)
    return new


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
