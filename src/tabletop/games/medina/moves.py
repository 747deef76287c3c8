"""Medina moves: the move values, legal move generation and legality with reasons.

``str(move)`` is the move's notation (see :mod:`tabletop.games.medina.notation`).
Moves hold square indices (:mod:`tabletop.games.medina.board`); the tables below hold
one shared instance per (kind, square) so move generation only looks them up.

Legal moves combine the supply with the placement rules of each piece
(``placement.py``): :func:`legal_kinds`, then :func:`legal_moves_of_kind` (a lazy
:class:`~tabletop.core.moves.LazyMoves`), as kind-first play asks for them; :func:`legal_by_kind` lists every
move, the last-player dome obligation (§5.2) applied.  :func:`is_legal` is a bitset
test; :func:`illegal_reason` says why a move is not legal.  :func:`is_able` (§5.1)
tells whether a player can place anything.  Applying a move is ``rules.py``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Final

from tabletop.core.errors import Message, short_repr
from tabletop.core.moves import LazyMoves
from tabletop.core.protocol import Move as ProtocolMove
from tabletop.core.state_base import set_memo
from tabletop.games.medina.board import (
    NUM_SQUARES,
    SQUARE_NAMES,
    Mask,
    Square,
    ortho_dilate,
    squares_of,
    two_or_more_neighbors,
)
from tabletop.games.medina.messages import SAY
from tabletop.games.medina.placement import (
    dome_targets,
    merchant_squares,
    neutral_targets,
    new_palace_squares,
    stable_squares,
    start_squares,
    wall_squares,
)

if TYPE_CHECKING:
    from tabletop.games.medina.state import State

PALACE_COLORS: Final = ("gray", "black", "brown", "orange")
"""Palace colours by index; the palace tile of colour ``c`` is worth ``c + 1``."""

PALACE_COLORS_2E: Final = ("gray", "purple", "brown", "orange")
"""The second edition's names of the same colour slots (2e E9: black → purple, the tea colour)."""

PURPLE: Final = 1
"""The colour slot whose claims award tea tiles in the second edition (2e §4.3)."""


def color_names(edition: int) -> tuple[str, str, str, str]:
    """The palace colour words of an edition."""
    return PALACE_COLORS_2E if edition == 2 else PALACE_COLORS


# Supply slots per player: the four palace colours, then the other piece kinds.
DOME: Final = 4
STABLE: Final = 5
MERCHANT: Final = 6
WALL: Final = 7
NUM_SLOTS: Final = 8
SLOT_NAMES: Final = (*PALACE_COLORS, "dome", "stable", "merchant", "wall")


@dataclass(frozen=True, slots=True)
class StartMerchant:
    """The setup placement of the starting merchant (from the box) by the start player."""

    kind: ClassVar[str] = "merchant_start"
    square: Square

    def __str__(self) -> str:
        return f"start@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class PalacePiece:
    """A palace piece of colour ``color`` (index into :data:`PALACE_COLORS`) on a building square."""

    kind: ClassVar[str] = "palace"
    color: int
    square: Square

    def __str__(self) -> str:
        return f"{PALACE_COLORS[self.color]}@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Dome:
    """A dome on the palace piece at ``square``: claims that piece's palace."""

    kind: ClassVar[str] = "dome"
    square: Square

    def __str__(self) -> str:
        return f"dome@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Stable:
    """A stable on a building square next to a palace piece."""

    kind: ClassVar[str] = "stable"
    square: Square

    def __str__(self) -> str:
        return f"stable@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Merchant:
    """A merchant from the player's supply on a building square."""

    kind: ClassVar[str] = "merchant"
    square: Square

    def __str__(self) -> str:
        return f"merchant@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Wall:
    """A wall piece on a wall space."""

    kind: ClassVar[str] = "wall"
    square: Square

    def __str__(self) -> str:
        return f"wall@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class NeutralDome:
    """A neutral dome (2e) on the palace piece at ``square``: the palace is finished for nobody."""

    kind: ClassVar[str] = "neutral"
    square: Square

    def __str__(self) -> str:
        return f"neutral@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Tea:
    """Returning a tea tile to the box instead of the turn's second placement (2e §2.2)."""

    kind: ClassVar[str] = "tea"

    def __str__(self) -> str:
        return "tea"


@dataclass(frozen=True, slots=True)
class Pass:
    """The only move of a player who cannot place anything while the game goes on."""

    kind: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"


Move = StartMerchant | PalacePiece | Dome | NeutralDome | Stable | Merchant | Wall | Tea | Pass
"""Any Medina move."""

KINDS: Final = ("merchant_start", "palace", "dome", "neutral", "stable", "merchant", "wall", "tea", "pass")
"""Every kind, in the order ``legal_kinds`` lists them (``neutral`` and ``tea``: second edition)."""

PASS: Final = Pass()
TEA: Final = Tea()

START_MOVES: Final = tuple(StartMerchant(sq) for sq in range(NUM_SQUARES))
PALACE_MOVES: Final = tuple(tuple(PalacePiece(c, sq) for sq in range(NUM_SQUARES)) for c in range(len(PALACE_COLORS)))
DOME_MOVES: Final = tuple(Dome(sq) for sq in range(NUM_SQUARES))
NEUTRAL_MOVES: Final = tuple(NeutralDome(sq) for sq in range(NUM_SQUARES))
STABLE_MOVES: Final = tuple(Stable(sq) for sq in range(NUM_SQUARES))
MERCHANT_MOVES: Final = tuple(Merchant(sq) for sq in range(NUM_SQUARES))
WALL_MOVES: Final = tuple(Wall(sq) for sq in range(NUM_SQUARES))


def moves_on(table: tuple[Move, ...], mask: Mask) -> list[Move]:
    """The shared move instances of ``table`` for every square of ``mask``, in square order."""
    return [table[sq] for sq in squares_of(mask)]


MoveSource = tuple[tuple[Move, ...], Mask]
"""A move table (one move per square) and the squares where those moves are legal."""

TEA_SOURCE: Final[MoveSource] = ((TEA,), 1)
"""The tea move as a move source: a one-entry table, "square" 0."""

Sources = dict[str, Sequence[MoveSource]]
"""The move sources of each kind with legal moves, kinds in ``KINDS`` order."""


def move_list(sources: Sequence[MoveSource]) -> LazyMoves[Move, tuple[MoveSource, ...]]:
    """The moves of (table, square set) pairs, listed lazily (:class:`~tabletop.core.moves.LazyMoves`).

    ``len`` is a popcount and ``[i]`` finds the i-th square, so kind-first random play
    (``rng.choice``) never builds the list of moves.
    """
    srcs = tuple(sources)
    count = 0
    for _, mask in srcs:
        count += mask.bit_count()
    return LazyMoves(count, _nth_of_one if len(srcs) == 1 else _nth_move, _walk_moves, srcs)


def _nth_of_one(srcs: tuple[MoveSource, ...], i: int) -> Move:
    # The common case (a one-piece kind): one table, one mask.
    table, mask = srcs[0]
    return table[nth_square(mask, i)]


def _nth_move(srcs: tuple[MoveSource, ...], i: int) -> Move:
    for table, mask in srcs:
        count = mask.bit_count()
        if i < count:
            return table[nth_square(mask, i)]
        i -= count
    raise IndexError("move index out of range")  # pragma: no cover - guarded by LazyMoves


def _walk_moves(srcs: tuple[MoveSource, ...]) -> Iterator[Move]:
    for table, mask in srcs:
        for sq in squares_of(mask):
            yield table[sq]


def nth_square(mask: Mask, i: int) -> Square:
    """The ``i``-th (0-based) square of ``mask`` in increasing order; ``i < popcount(mask)``."""
    # A binary search over halves of the 256-bit window (the board has 234 squares), unrolled.
    low = 0
    count = (mask & _LOW128).bit_count()
    if i >= count:
        i -= count
        mask >>= 128
        low = 128
    count = (mask & _LOW64).bit_count()
    if i >= count:
        i -= count
        mask >>= 64
        low += 64
    count = (mask & 0xFFFFFFFF).bit_count()
    if i >= count:
        i -= count
        mask >>= 32
        low += 32
    count = (mask & 0xFFFF).bit_count()
    if i >= count:
        i -= count
        mask >>= 16
        low += 16
    count = (mask & 0xFF).bit_count()
    if i >= count:
        i -= count
        mask >>= 8
        low += 8
    return low + _NTH_IN_BYTE[mask & 0xFF][i]


_LOW128: Final = (1 << 128) - 1
_LOW64: Final = (1 << 64) - 1


_NTH_IN_BYTE: Final = tuple(tuple(b for b in range(8) if v >> b & 1) for v in range(256))


# --- who can place ------------------------------------------------------------------------


def tea_usable(s: State, player: int) -> int:
    """Tea tiles ``player`` may spend now (2e E7: not those received this turn, if so ruled)."""
    held = s.tea[player]
    if held and not s.context.rules.tea_usable_turn_received and player == s.current_player:
        held -= s.tea_fresh
    return held


def tea_legal(s: State) -> bool:
    """Whether the current player may spend a tea tile now (2e §2.2): at the second step of
    a two-placement turn, holding one, and not when the second placement must be a dome."""
    if not s.second_step or s.placements_left != 1 or tea_usable(s, s.current_player) <= 0:
        return False
    return not (s.obligation and s.supply[s.current_player * NUM_SLOTS + DOME] and dome_targets(s, s.current_player))


def is_able(s: State, player: int) -> bool:
    """Whether ``player`` has a legal placement for some piece in their supply (§5.1;
    neutral domes count, tea tiles do not)."""
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
        or (s.neutral[player] and neutral_targets(s))
    )


# --- legal moves ---------------------------------------------------------------------------


def placement_sources(s: State, player: int) -> Sources:
    """Where ``player`` may place each kind of piece (ignoring the dome obligation).

    Only kinds with at least one legal square appear, so it is non-empty exactly when
    ``player`` can place something (:func:`is_able`).  Moves are not built here: kind-first
    play needs the kinds of every state but the moves of one kind only.  ``rules.py`` calls
    it for the player about to move and keeps the result (:func:`keep_sources`), so the
    legal kinds are not looked up a second time.
    """
    base = player * NUM_SLOTS
    sup = s.supply[base : base + NUM_SLOTS]
    out: Sources = {}
    unfinished = s.unfinished
    ext = s.ext
    palace: list[MoveSource] = []
    newpal = -1
    for col in _COLOR_INDICES:
        if sup[col]:
            if unfinished[col] >= 0:
                palace.append((PALACE_MOVES[col], ext[col]))
            else:
                if newpal < 0:
                    newpal = new_palace_squares(s)
                if newpal:
                    palace.append((PALACE_MOVES[col], newpal))
    if palace:
        out["palace"] = palace
    # The square sets below are usually cached (``placement.py``, handed on by
    # ``rules.py``): read from the cache first, without a call (unless unknown or empty).
    if sup[DOME]:
        m = dome_targets(s, player)
        if m:
            out["dome"] = ((DOME_MOVES, m),)
    if s.neutral[player]:
        m = neutral_targets(s)
        if m:
            out["neutral"] = ((NEUTRAL_MOVES, m),)
    if sup[STABLE]:
        m = s.known_stable_squares or stable_squares(s)
        if m:
            out["stable"] = ((STABLE_MOVES, m),)
    if sup[MERCHANT]:
        m = s.known_merchant_squares or merchant_squares(s)
        if m:
            out["merchant"] = ((MERCHANT_MOVES, m),)
    if sup[WALL]:
        m = s.known_wall_squares or wall_squares(s)
        if m:
            out["wall"] = ((WALL_MOVES, m),)
    return out


_COLOR_INDICES: Final = tuple(range(len(PALACE_COLORS)))


def _build(sources: Sequence[MoveSource]) -> tuple[Move, ...]:
    if len(sources) == 1:
        table, mask = sources[0]
        return tuple(moves_on(table, mask))
    out: list[Move] = []
    for table, mask in sources:
        out += moves_on(table, mask)
    return tuple(out)


def _sources(s: State) -> Sources:
    """The move sources of the current player (cached); empty when the moves must be listed
    in full (a pending dome obligation, a pass, game over)."""
    got = s.known_sources
    if got is None:
        if s.phase == PLAY and not s.obligation:
            got = placement_sources(s, s.current_player)  # empty: the pass case
            if tea_legal(s):
                got["tea"] = (TEA_SOURCE,)
        elif s.phase == START:
            got = {"merchant_start": ((START_MOVES, start_squares(s.context.rules, s.context.geo) & ~s.occupied),)}
        else:
            got = {}
        set_memo(s, "known_sources", got)
    return got


def keep_sources(s: State, sources: Sources) -> None:
    """Records ``sources`` (:func:`placement_sources` of the player to move, no dome
    obligation pending) as the legal moves of the fresh state ``s``, with their kinds.

    ``rules.py`` has to find them anyway to know whether that player can place (§5.1).
    """
    set_memo(s, "known_sources", sources)
    if sources:
        # The sources are built in ``KINDS`` order, so their keys are the kinds in order.
        set_memo(s, "known_kinds", tuple(sources))


def legal_kinds(s: State) -> tuple[str, ...]:
    """The kinds of the current player's legal moves, in ``moves.KINDS`` order (cached)."""
    got = s.known_kinds
    if got is None:
        sources = _sources(s)
        # The sources are built in ``KINDS`` order, so their keys are the kinds in order.
        got = tuple(sources) if sources else tuple(legal_by_kind(s))
        set_memo(s, "known_kinds", got)
    return got


def legal_moves_of_kind(s: State, kind: str) -> Sequence[Move]:
    """The current player's legal moves of one kind (a lazy :class:`~tabletop.core.moves.LazyMoves` if many).

    Not cached: built from the cached move sources, which costs less than caching it
    (kind-first play asks once per state).
    """
    sources = s.known_sources
    if sources is None:
        sources = _sources(s)
    if not sources:
        return legal_by_kind(s).get(kind, ())
    src = sources.get(kind)
    if not src:
        return ()
    if len(src) == 1 and src[0][1].bit_count() <= _SMALL:
        # A few moves: a plain tuple is cheaper to build than the lazy list is to read.
        table, mask = src[0]
        small: list[Move] = []
        while mask:
            low = mask & -mask
            small.append(table[low.bit_length() - 1])
            mask ^= low
        return tuple(small)
    return move_list(src)


_SMALL: Final = 4
"""Up to this many moves of a kind are listed at once as a tuple; more make a lazy list."""


def legal_by_kind(s: State) -> dict[str, tuple[Move, ...]]:
    """The current player's legal moves by kind, kinds in ``moves.KINDS`` order (cached)."""
    got = s.known_by_kind
    if got is not None:
        return got
    if s.phase == OVER:
        got = {}
    else:
        sources = _sources(s)
        if sources:
            got = {k: _build(sources[k]) for k in KINDS if k in sources}
        else:
            by_kind = {k: list(_build(src)) for k, src in placement_sources(s, s.current_player).items()}
            if s.obligation:
                by_kind = _apply_obligation(s, by_kind)
            if tea_legal(s):
                by_kind["tea"] = [TEA]
            got = {k: tuple(by_kind[k]) for k in KINDS if k in by_kind} if by_kind else {"pass": (PASS,)}
    set_memo(s, "known_by_kind", got)
    return got


def _apply_obligation(s: State, by_kind: dict[str, list[Move]]) -> dict[str, list[Move]]:
    """Filters placements by the last-player dome obligation (§5.2, A8)."""
    domes = by_kind.get("dome")
    if s.placements_left == 1:
        # The first placement was not a dome: the second one must be (waived without lookahead
        # when no dome placement is left).
        return {"dome": domes} if domes else by_kind
    if not s.context.rules.dome_obligation_lookahead:
        return by_kind
    player = s.current_player
    out: dict[str, list[Move]] = {}
    satisfying = ("dome", "neutral") if s.context.rules.neutral_dome_satisfies_obligation else ("dome",)
    for kind, moves in by_kind.items():
        if kind in satisfying:
            out[kind] = moves
            continue
        keep = [m for m in moves if dome_targets(_rules.place_piece(s, player, m), player)]
        if keep:
            out[kind] = keep
    return out


# --- legality with reasons -------------------------------------------------------------------


def illegal_reason(s: State, move: ProtocolMove) -> Message | None:
    """Why ``move`` is illegal now, or ``None`` if it is legal."""
    if not isinstance(move, StartMerchant | PalacePiece | Dome | NeutralDome | Stable | Merchant | Wall | Tea | Pass):
        return SAY("not_a_move", move=short_repr(move))
    if is_legal(s, move):
        return None
    if not isinstance(move, Pass | Tea) and not (isinstance(move.square, int) and 0 <= move.square < NUM_SQUARES):
        return SAY("no_square_index", index=short_repr(move.square))
    if isinstance(move, PalacePiece) and not (isinstance(move.color, int) and 0 <= move.color < len(PALACE_COLORS)):
        return SAY("no_color_index", index=short_repr(move.color))
    return _explain(s, move, legal_by_kind(s))


def is_legal(s: State, move: ProtocolMove) -> bool:
    """Whether ``move`` is legal in ``s``: a bitset test, without listing the moves."""
    if s.phase != PLAY or s.obligation or isinstance(move, Pass | Tea):
        kind = getattr(move, "kind", None)
        return isinstance(kind, str) and move in legal_moves_of_kind(s, kind)
    sq = getattr(move, "square", -1)
    if type(sq) is not int or not 0 <= sq < NUM_SQUARES:
        return False
    bit = 1 << sq
    base = s.current_player * NUM_SLOTS
    sup = s.supply
    tp = type(move)
    # The most frequent kinds first; cached square sets are read without a call.
    if tp is Wall:
        return bool(sup[base + WALL] and bit & (s.known_wall_squares or wall_squares(s)))
    if tp is Merchant:
        return bool(sup[base + MERCHANT] and bit & (s.known_merchant_squares or merchant_squares(s)))
    if tp is PalacePiece:
        col = move.color  # type: ignore[attr-defined]
        if type(col) is not int or not 0 <= col < 4 or not sup[base + col]:
            return False
        return bool(bit & (s.ext[col] if s.unfinished[col] >= 0 else new_palace_squares(s)))
    if tp is Stable:
        return bool(sup[base + STABLE] and bit & (s.known_stable_squares or stable_squares(s)))
    if tp is Dome:
        return bool(sup[base + DOME] and bit & dome_targets(s, s.current_player))
    if tp is NeutralDome:
        return bool(s.neutral[s.current_player] and bit & neutral_targets(s))
    return False


def _in_sources(sources: Sources, move: Move) -> bool:
    """Whether ``move`` is one of the moves described by ``sources``."""
    sq = getattr(move, "square", -1)
    return any(table[sq] == move and mask >> sq & 1 for table, mask in sources.get(move.kind, ()))


def _explain(s: State, move: Move, legal: dict[str, tuple[Move, ...]]) -> Message:
    """A human-readable reason for an illegal move (only called for illegal moves)."""
    if s.phase == OVER:
        return SAY("game_over")
    if s.phase == START:
        if not isinstance(move, StartMerchant):
            return SAY("start_first")
        if s.context.rules.start_merchant_anywhere:
            return SAY("start_on_building")
        return SAY("start_on_inner")
    if isinstance(move, StartMerchant):
        return SAY("start_done")
    if isinstance(move, Pass):
        return SAY("pass_only_when_stuck")
    if "pass" in legal:
        return SAY("only_pass")
    if isinstance(move, Tea):
        if s.obligation and s.second_step and "dome" in legal:
            return SAY("dome_obligation")
        if not s.second_step:
            return SAY("tea_not_now")
        return SAY("no_tea")
    sq = move.square
    if not 0 <= sq < len(SQUARE_NAMES):
        return SAY("no_such_square")
    name = SQUARE_NAMES[sq]
    player = s.current_player
    base = player * NUM_SLOTS
    bit = 1 << sq
    if s.obligation and move.kind != "dome" and _in_sources(placement_sources(s, player), move):
        if s.placements_left == 1:
            return SAY("dome_obligation")
        return SAY("dome_obligation_lookahead")
    geo = s.context.geo
    if isinstance(move, Wall):
        if not s.supply[base + WALL]:
            return SAY("no_walls_left")
        if not geo.wall_spaces & bit:
            return SAY("not_wall_space", square=name)
        if s.walls & bit:
            return SAY("wall_there", square=name)
        occ = s.walls | geo.tower_mask
        touching = sum(1 for nb in geo.side_neighbors[sq] if occ >> nb & 1)
        if touching == 0:
            return SAY("wall_not_connected", square=name)
        return SAY("gate_rule", square=name)
    if not geo.building & bit:
        return SAY("not_building", square=name)
    if sq == s.well:
        return SAY("well_square", square=name)
    if isinstance(move, NeutralDome):
        if not s.neutral[player]:
            return SAY("no_neutral_left")
        if not s.palace_mask & bit:
            return SAY("dome_needs_palace", square=name)
        if s.palaces[_rules.palace_at(s, bit)].owner != -1:
            return SAY("palace_owned", square=name)
        return SAY("palace_abandoned", square=name)
    if isinstance(move, Dome):
        if not s.supply[base + DOME]:
            return SAY("no_domes_left")
        if not s.palace_mask & bit:
            return SAY("dome_needs_palace", square=name)
        pal = s.palaces[_rules.palace_at(s, bit)]
        if pal.owner != -1:
            return SAY("palace_owned", square=name)
        if s.owned[player * 4 + pal.color] >= 0:
            return SAY("own_color_already", color=color_names(s.context.rules.edition)[pal.color])
        return SAY("palace_abandoned", square=name)
    if s.occupied & bit:
        return SAY("occupied", square=name)
    if s.red & bit and isinstance(move, PalacePiece | Stable):
        return SAY("red_square", square=name)
    if isinstance(move, PalacePiece):
        col = move.color
        if s.supply[base + col] == 0:
            if s.retired[col]:
                return SAY("color_retired", color=color_names(s.context.rules.edition)[col])
            return SAY("no_color_left", color=color_names(s.context.rules.edition)[col])
        if s.unfinished[col] >= 0:
            if s.contested & bit:
                return SAY("touches_palace", square=name)
            return SAY("must_extend", color=color_names(s.context.rules.edition)[col])
        return SAY("new_palace_touches", color=color_names(s.context.rules.edition)[col], square=name)
    if isinstance(move, Stable):
        if not s.supply[base + STABLE]:
            return SAY("no_stables_left")
        if not ortho_dilate(s.palace_mask) & bit:
            return SAY("stable_needs_palace", square=name)
        return SAY("stable_two_palaces", square=name)
    if isinstance(move, Merchant):
        if not s.supply[base + MERCHANT]:
            return SAY("no_merchants_left")
        if two_or_more_neighbors(s.merchants) & bit:
            return SAY("merchant_crowded", square=name)
        if s.chain_ends and ortho_dilate(s.chain_ends) & ~s.occupied & ~two_or_more_neighbors(s.merchants):
            return SAY("extend_chain")
        return SAY("new_chain_touches", square=name)
    return SAY("illegal")  # pragma: no cover - every kind is handled above


# Late imports: state.py and rules.py use this module (State delegates move generation
# here; rules.py checks moves with it), and this module needs the phases and, for the
# dome obligation's lookahead and the reasons, a placement applied (rules.py).
from tabletop.games.medina import rules as _rules  # noqa: E402
from tabletop.games.medina.state import OVER, PLAY, START  # noqa: E402
