"""Medina's move values: one frozen dataclass per kind of placement, plus pass.

``str(move)`` is the move's notation (see :mod:`tabletop.games.medina.notation`).
Moves hold square indices (:mod:`tabletop.games.medina.board`); the tables at the end
hold one shared instance per (kind, square) so move generation only looks them up.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, overload

from tabletop.games.medina.board import NUM_SQUARES, SQUARE_NAMES, Mask, Square, squares_of

COLORS: Final = ("gray", "black", "brown", "orange")
"""Palace colours by index; the palace tile of colour ``c`` is worth ``c + 1``."""

# Supply slots per player: the four palace colours, then the other piece kinds.
DOME: Final = 4
STABLE: Final = 5
MERCHANT: Final = 6
WALL: Final = 7
NUM_SLOTS: Final = 8
SLOT_NAMES: Final = (*COLORS, "dome", "stable", "merchant", "wall")


@dataclass(frozen=True, slots=True)
class StartMerchant:
    """The setup placement of the starting merchant (from the box) by the start player."""

    square: Square

    @property
    def kind(self) -> str:
        """Always ``"merchant_start"``."""
        return "merchant_start"

    def __str__(self) -> str:
        return f"start@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class PalacePiece:
    """A palace piece of colour ``color`` (index into :data:`COLORS`) on a building square."""

    color: int
    square: Square

    @property
    def kind(self) -> str:
        """Always ``"palace"`` (every colour is one kind)."""
        return "palace"

    def __str__(self) -> str:
        return f"{COLORS[self.color]}@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Dome:
    """A dome on the palace piece at ``square``: claims that piece's palace."""

    square: Square

    @property
    def kind(self) -> str:
        """Always ``"dome"``."""
        return "dome"

    def __str__(self) -> str:
        return f"dome@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Stable:
    """A stable on a building square next to a palace piece."""

    square: Square

    @property
    def kind(self) -> str:
        """Always ``"stable"``."""
        return "stable"

    def __str__(self) -> str:
        return f"stable@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Merchant:
    """A merchant from the player's supply on a building square."""

    square: Square

    @property
    def kind(self) -> str:
        """Always ``"merchant"``."""
        return "merchant"

    def __str__(self) -> str:
        return f"merchant@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Wall:
    """A wall piece on a wall space."""

    square: Square

    @property
    def kind(self) -> str:
        """Always ``"wall"``."""
        return "wall"

    def __str__(self) -> str:
        return f"wall@{SQUARE_NAMES[self.square]}"


@dataclass(frozen=True, slots=True)
class Pass:
    """The only move of a player who cannot place anything while the game goes on."""

    @property
    def kind(self) -> str:
        """Always ``"pass"``."""
        return "pass"

    def __str__(self) -> str:
        return "pass"


MedinaMove = StartMerchant | PalacePiece | Dome | Stable | Merchant | Wall | Pass
"""Any Medina move."""

KINDS: Final = ("merchant_start", "palace", "dome", "stable", "merchant", "wall", "pass")
"""Every kind, in the order ``legal_kinds`` lists them."""

PASS: Final = Pass()

START_MOVES: Final = tuple(StartMerchant(sq) for sq in range(NUM_SQUARES))
PALACE_MOVES: Final = tuple(tuple(PalacePiece(c, sq) for sq in range(NUM_SQUARES)) for c in range(len(COLORS)))
DOME_MOVES: Final = tuple(Dome(sq) for sq in range(NUM_SQUARES))
STABLE_MOVES: Final = tuple(Stable(sq) for sq in range(NUM_SQUARES))
MERCHANT_MOVES: Final = tuple(Merchant(sq) for sq in range(NUM_SQUARES))
WALL_MOVES: Final = tuple(Wall(sq) for sq in range(NUM_SQUARES))


def moves_on(table: tuple[MedinaMove, ...], mask: Mask) -> list[MedinaMove]:
    """The shared move instances of ``table`` for every square of ``mask``, in square order."""
    return [table[sq] for sq in squares_of(mask)]


MoveSource = tuple[tuple[MedinaMove, ...], Mask]
"""A move table (one move per square) and the squares where those moves are legal."""


class MoveList(Sequence[MedinaMove]):
    """An immutable sequence of moves read lazily from (table, square set) pairs.

    Like python-chess's ``LegalMoveGenerator``: ``len`` and indexing need no list of moves
    (``len`` is a popcount, ``[i]`` finds the i-th square), so kind-first random play
    (``rng.choice``) never builds one.  Iterating or comparing builds the tuple once.
    It compares equal to any tuple or list with the same moves.
    """

    __slots__ = ("_items", "_len", "_sources")

    def __init__(self, sources: Sequence[MoveSource]) -> None:
        self._sources = tuple(sources)
        self._len = sum(mask.bit_count() for _, mask in self._sources)
        self._items: tuple[MedinaMove, ...] | None = None

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> MedinaMove: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[MedinaMove, ...]: ...

    def __getitem__(self, index: int | slice) -> MedinaMove | tuple[MedinaMove, ...]:
        if isinstance(index, slice):
            return self.to_tuple()[index]
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError("move index out of range")
        for table, mask in self._sources:
            count = mask.bit_count()
            if i < count:
                return table[nth_square(mask, i)]
            i -= count
        raise IndexError("move index out of range")  # pragma: no cover - guarded by _len

    def __iter__(self) -> Iterator[MedinaMove]:
        return iter(self.to_tuple())

    def __contains__(self, move: object) -> bool:
        return move in self.to_tuple()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MoveList | tuple | list):
            return self.to_tuple() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MoveList({list(self.to_tuple())!r})"

    def to_tuple(self) -> tuple[MedinaMove, ...]:
        """The moves as a tuple (built once)."""
        items = self._items
        if items is None:
            out: list[MedinaMove] = []
            for table, mask in self._sources:
                out += [table[sq] for sq in squares_of(mask)]
            items = self._items = tuple(out)
        return items


def nth_square(mask: Mask, i: int) -> Square:
    """The ``i``-th (0-based) square of ``mask`` in increasing order; ``i < popcount(mask)``."""
    low = 0
    width = 256
    while width > 8:
        half = width >> 1
        count = ((mask >> low) & ((1 << half) - 1)).bit_count()
        if i >= count:
            i -= count
            low += half
        width = half
    return low + _NTH_IN_BYTE[(mask >> low) & 0xFF][i]


_NTH_IN_BYTE: Final = tuple(tuple(b for b in range(8) if v >> b & 1) for v in range(256))
