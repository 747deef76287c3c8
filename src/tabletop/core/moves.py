"""The lazy move sequence both games return from ``legal_moves_of_kind``.

Like python-chess's ``LegalMoveGenerator``: a random pick (``rng.choice``) needs only
``len`` and one index, so a game that can count its moves and find the i-th one without
listing them (a popcount over a bitset, a walk to the i-th set bit) never builds the
list.  Iterating uses the game's own sequential walk; comparing, slicing and ``in``
build the tuple once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar, overload

M = TypeVar("M")
D = TypeVar("D")


class LazyMoves(Sequence[M], Generic[M, D]):
    """An immutable sequence of ``length`` moves, read through ``at(data, i)`` (the i-th
    move, ``0 <= i < length``) and ``walk(data)`` (every move in order), where ``data`` is
    what the game needs to find them (module-level functions and one value: nothing is
    allocated per list but the list itself).

    It compares equal to any list, tuple or ``LazyMoves`` holding the same moves.
    """

    __slots__ = ("_at", "_data", "_items", "_len", "_walk")

    def __init__(self, length: int, at: Callable[[D, int], M], walk: Callable[[D], Iterator[M]], data: D) -> None:
        self._len = length
        self._at = at
        self._walk = walk
        self._data = data
        self._items: tuple[M, ...] | None = None

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> M: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[M, ...]: ...

    def __getitem__(self, index: int | slice) -> M | tuple[M, ...]:
        if type(index) is int and 0 <= index < self._len:
            return self._at(self._data, index)  # the common case: rng.choice
        if isinstance(index, slice):
            return self.to_tuple()[index]
        i = index + self._len if index < 0 else index
        if not 0 <= i < self._len:
            raise IndexError("move index out of range")
        return self._at(self._data, i)

    def __iter__(self) -> Iterator[M]:
        items = self._items
        return iter(items) if items is not None else self._walk(self._data)

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
            items = self._items = tuple(self._walk(self._data))
        return items
