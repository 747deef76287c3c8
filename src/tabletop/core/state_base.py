"""What game states share: the immutable-state base and protocol defaults.

:class:`FrozenState` is how both games define their ``State``: named slot fields, no
change after publication, successors built by name (:func:`draft`, :func:`freeze`).
A game's State may also inherit :class:`StateDefaults` and override what it can do
faster (``legal_kinds``/``legal_moves_of_kind`` in particular: kind-first random play
calls them on every step).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Final, TypeVar

from tabletop.core.outcome import Outcome
from tabletop.core.protocol import Move


class StateDefaults:
    """Mixin deriving ``legal_kinds``, ``legal_moves_of_kind``, ``is_legal`` and ``returns``."""

    __slots__ = ()

    def legal_moves(self) -> Sequence[Move]:  # pragma: no cover - overridden
        raise NotImplementedError

    def outcome(self) -> Outcome | None:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def num_players(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def legal_kinds(self) -> Sequence[str]:
        """The distinct kinds among the legal moves, in order of first appearance."""
        return tuple(dict.fromkeys(m.kind for m in self.legal_moves()))

    def legal_moves_of_kind(self, kind: str) -> Sequence[Move]:
        """The legal moves of one kind."""
        return tuple(m for m in self.legal_moves() if m.kind == kind)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is among the legal moves."""
        return move in self.legal_moves()

    def returns(self) -> tuple[float, ...]:
        """Win share per seat once terminal, zeros before."""
        result = self.outcome()
        return result.returns() if result is not None else (0.0,) * self.num_players


class FrozenStateError(AttributeError):
    """Raised on an attempt to change a field of a published (frozen) state."""


S = TypeVar("S", bound="FrozenState")
T = TypeVar("T")


class FrozenState:
    """Base of an immutable game state: named slot fields, cheap successors.

    A subclass declares its fields once, as ``__slots__`` with annotations; the names
    in ``MEMO`` are derived values computed on first use (``None`` until then), which
    neither equality nor hashing nor pickling sees.  Every other slot is a field.

    A published state cannot be changed (:class:`FrozenStateError`).  States are built
    in exactly one way, by name: :func:`draft` (a mutable copy of a state, memo fields
    cleared) or :func:`blank` (nothing set), then fields assigned by name, then
    :func:`freeze` (or :func:`build`, which also checks that every field is set).
    That is what ``dataclasses.replace`` does, at a fraction of the cost: the hot path
    builds a state per action (a frozen dataclass's ``__init__`` made the engines 20-40 %
    slower; ``docs/benchmarks.md``, "State refactor").  :meth:`replace` is the short
    form for code off the hot path.
    """

    __slots__ = ()

    MEMO: ClassVar[tuple[str, ...]] = ()
    """Slots holding derived values (``None`` until computed), not part of the value."""
    FIELDS: ClassVar[tuple[str, ...]]
    """The fields, in declaration order (every slot not in :attr:`MEMO`)."""
    _frozen: ClassVar[type[Any]]
    _draft_type: ClassVar[type[Any]]
    _copy: ClassVar[Callable[..., Any]]
    _blank: ClassVar[Callable[..., Any]]
    _field_values: ClassVar[Callable[..., tuple[object, ...]]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_frozen" in cls.__dict__:
            return  # the draft type made below
        slots = cls.__dict__.get("__slots__", ())
        cls.FIELDS = tuple(name for name in slots if name not in cls.MEMO)
        # Every field's value in one C call (``_values``, ``build``): a generator of
        # ``getattr`` cost a new Terra Nova game about 7 µs of its 12 in ``build`` alone.
        getter: Callable[[Any], Any] = operator.attrgetter(*cls.FIELDS) if cls.FIELDS else (lambda state: ())
        if len(cls.FIELDS) == 1:
            getter = (lambda one: lambda state: (one(state),))(getter)
        cls._field_values = staticmethod(getter)
        cls._frozen = cls
        cls._draft_type = type(
            f"{cls.__name__}Draft",
            (cls,),
            {
                "__slots__": (),
                "__module__": cls.__module__,
                "_frozen": cls,
                # The plain slot setter: assignment is as fast as on a mutable object.
                "__setattr__": object.__setattr__,
                "__delattr__": object.__delattr__,
            },
        )
        # Generated once per class (as dataclasses does): a straight-line copy.
        lines = ["def copy(s):", "    d = new(D)"]
        lines += [f"    d.{name} = s.{name}" for name in cls.FIELDS]
        lines += [f"    d.{name} = None" for name in cls.MEMO]
        lines += ["    return d", "def blank():", "    d = new(D)"]
        lines += [f"    d.{name} = None" for name in cls.MEMO]
        lines += ["    return d"]
        namespace: dict[str, Any] = {"new": object.__new__, "D": cls._draft_type}
        exec("\n".join(lines), namespace)  # generated from the slot names only
        cls._copy = staticmethod(namespace["copy"])
        cls._blank = staticmethod(namespace["blank"])

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenStateError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenStateError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def _values(self) -> tuple[object, ...]:
        return self._field_values(self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self is other or self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (self._frozen, self._values()))

    def __copy__(self: S) -> S:
        return self

    def __deepcopy__(self: S, memo: object) -> S:
        return self

    def replace(self: S, **changes: object) -> S:
        """A copy with the named fields changed (``dataclasses.replace``, off the hot path).

        Raises:
            TypeError: for a name that is not a field.
        """
        new = draft(self)
        for name, value in changes.items():
            if name not in self.FIELDS:
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
            setattr(new, name, value)
        return freeze(new)


def draft(state: S) -> S:
    """A mutable copy of ``state`` (memo fields cleared), to assign fields to, then :func:`freeze`."""
    new: S = state._copy(state)
    return new


def blank(cls: type[S]) -> S:
    """A mutable state of type ``cls`` with no field set yet (then assign each, and :func:`build`)."""
    new: S = cls._blank()
    return new


def freeze(new: S) -> S:
    """Publishes a draft: from now on it is immutable (no copy is made)."""
    object.__setattr__(new, "__class__", new._frozen)
    return new


def build(new: S) -> S:
    """:func:`freeze` after checking that every field was assigned.

    Raises:
        TypeError: naming the fields left unset.
    """
    try:
        new._field_values(new)
    except AttributeError:
        missing = [name for name in new.FIELDS if not hasattr(new, name)]
        raise TypeError(f"{new._frozen.__name__} built without {', '.join(missing)}") from None
    return freeze(new)


set_memo: Final[Callable[[object, str, object], None]] = object.__setattr__
"""``set_memo(state, name, value)`` stores a derived value in the memo slot ``name`` of a
state, published or not: the one write a frozen state allows (the plain slot setter,
bound once: this runs several times per action)."""


def tupled(value: Any) -> Any:
    """``value`` with every list in it a tuple, nested lists too: a field's value from
    fields given as lists (a native position's ``export()``), for ``from_fields``."""
    if type(value) is not list:
        return value
    return tuple([tupled(item) if type(item) is list else item for item in value])


def _restore(cls: type[S], values: tuple[object, ...]) -> S:
    new = blank(cls)
    for name, value in zip(cls.FIELDS, values, strict=True):
        setattr(new, name, value)
    return freeze(new)
