"""Medina's move values: one frozen dataclass per kind of placement, plus pass.

``str(move)`` is the move's notation (see :mod:`tabletop.games.medina.notation`).
Moves hold square indices (:mod:`tabletop.games.medina.board`); the tables at the end
hold one shared instance per (kind, square) so move generation only looks them up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

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
