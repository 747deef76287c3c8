"""The lazy move sequence both games return from ``legal_moves_of_kind``.

Like python-chess's ``LegalMoveGenerator``: a random pick (``rng.choice``) needs only
``len`` and one index, so a game that can count its moves and find the i-th one without
listing them (a popcount over a bitset, a walk to the i-th set bit) never builds the
list.  Iterating uses the game's own sequential walk; comparing, slicing and ``in``
build the tuple once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, overload

M = TypeVar("M")


class LazyMoves(Sequence[M]):
    """An immutable sequence of ``length`` moves, read through ``at`` (the i-th move,
    ``0 <= i < length``) and ``walk`` (every move in order).

    It compares equal to any list, tuple or ``LazyMoves`` holding the same moves.
    """

    __slots__ = ("_at", "_items", "_len", "_walk")

    def __init__(self, length: int, at: Callable[[int], M], walk: Callable[[], Iterator[M]]) -> None:
        self._len = length
        self._at = at
        self._walk = walk
        self._items: tuple[M, ...] | None = None

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> M: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[M, ...]: ...

    def __getitem__(self, index: int | slice) -> M | tuple[M, ...]:
        if type(index) is int and 0 <= index < self._len:
            return self._at(index)  # the common case: rng.choice
        if isinstance(index, slice):
            return self.to_tuple()[index]
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError("move index out of range")
        return self._at(i)

    def __iter__(self) -> Iterator[M]:
        items = self._items
        return iter(items) if items is not None else self._walk()

    def __contains__(self, move: object) -> bool:
        return move in self.to_tuple()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyMoves | tuple | list):
            return self.to_tuple() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a sequence value, like list

    def __repr__(self) -> str:
        return f"LazyMoves({list(self.to_tuple())!r})"

    def to_tuple(self) -> tuple[M, ...]:
        """The moves as a tuple (built once)."""
        items = self._items
        if items is None:
            items = self._items = tuple(self._walk())
        return items
