"""The native engines (Rust, ``tabletop._native``) behind the game protocol.

``tabletop.make(game_id, engine="native")`` returns a :class:`NativeGame`: the same game
(id, options, hooks) whose states are ``tabletop._native.NativeState`` values
(:class:`NativeState` here; ``native/src/protocol.rs``), the protocol state itself in
Rust: legal kinds and moves, ``apply``, scores and outcome are its Rust methods, so a
Python loop through the protocol calls Rust directly.  Moves are the Python engine's own
``Move`` objects, mapped to and from the Rust action ids through the game's ``encoding``
hook (the move table made here), so records, notation and every layer above see no
difference.  Whatever reads a position's Python fields (``to_json``, rendering,
``describe_score``, ``evaluate``, observations, game-specific attributes) gets the exact
Python state, built on first use from the fields the Rust position exports
(:meth:`NativeGame.python_state_of`: ``export()``, then the game's
``State.from_fields``), never by replaying moves: the export names every field of the
Python state (Terra Nova's scored ``areas`` included).  A Python engine state at any
position becomes the equal native state by :func:`native_state_of` (the Rust class's
``load``, the inverse of its ``export``), which keeps it as the native state's Python
state.

Nothing here names a game but :data:`NATIVE_CLASSES`: a game gets a native engine by
adding its Rust class to the extension and one entry there.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import operator
from array import array
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

if TYPE_CHECKING:
    from tabletop._native import MoveTable, NativeEncoder
    from tabletop._native import NativeState as _RustNativeState

from tabletop.core.encoding import Encoding, ObservationSpec, encoding_of
from tabletop.core.errors import ConfigError, TabletopError
from tabletop.core.protocol import Game, GameConfig, Move, OptionSpec, OptionValue, PlayerId, State
from tabletop.core.registry import register_engine
from tabletop.core.setups import seedless_key

NATIVE_CLASSES: Final[Mapping[str, str]] = {"terranova": "TerraNovaState", "medina": "MedinaState"}
"""The Rust state class of each game in ``tabletop._native``."""


class NativeEngineError(TabletopError):
    """The native engine was asked for but is not built, or lacks the game."""


class InvalidPositionError(TabletopError, ValueError):
    """A position the native engine cannot load: not of the game, or not one its rules
    can reach (the message says which field or invariant is wrong)."""


def native_module() -> ModuleType | None:
    """The extension module ``tabletop._native``, or ``None`` if it is not built."""
    try:
        module = importlib.import_module("tabletop._native")  # built by `make native`
    except ImportError:
        return None
    seq = getattr(module, "ActionSeq", None)
    if seq is not None and not issubclass(seq, Sequence):
        Sequence.register(seq)  # a sequence of moves, as `legal_moves_of_kind` promises
    return module


def native_class(game_id: str) -> Any | None:
    """The Rust state class of ``game_id``, or ``None`` if the extension lacks it."""
    module = native_module()
    name = NATIVE_CLASSES.get(game_id)
    if module is None or name is None:
        return None
    return getattr(module, name, None)


def has_native(game_id: str) -> bool:
    """Whether ``game_id`` has a native engine in this installation."""
    return native_class(game_id) is not None


def native_game(game: Game, *, fallback: bool = False) -> NativeGame:
    """The native engine of ``game`` (the Python engine's ``Game``).

    With ``fallback`` (``make``'s ``"auto"`` engine), a configuration that the native
    engine does not play (the game's optional ``native_refusal`` hook says why) starts on
    the Python engine instead of raising.

    Raises:
        NativeEngineError: if the extension is not built or has no engine for the game.
    """
    if isinstance(game, NativeGame):
        return game
    cls = native_class(game.id)
    if cls is None:
        why = (
            "the extension tabletop._native is not built (`make native`)"
            if native_module() is None
            else (f"tabletop._native has no engine for {game.id!r}")
        )
        raise NativeEngineError(f"no native engine for {game.id!r}: {why}")
    return NativeGame(game, cls, fallback=fallback)


class NativeGame:
    """A game whose states run on the native engine; otherwise the Python ``Game``.

    Every attribute not defined here (the optional hooks: ``maps``, ``rollout_horizon``,
    ...) is the Python game's; hooks called with native states get their Python states.
    """

    engine: Final = "native"

    def __init__(self, python: Game, state_class: Any, *, fallback: bool = False) -> None:
        self.python = python
        self._state_class = state_class
        self._fallback = fallback
        self._shared: dict[object, _Shared] = {}  # by _seedless(initial position)
        self._drawn: dict[object, _Shared] = {}  # by (seedless_key, draw) (`initial_draw`)
        self._with_draw: dict[object, _Shared] = {}  # by the asked config's seedless_key (`with_draw`)
        self._move_tables: dict[int, Any] = {}  # by id(encoding): a tabletop._native.MoveTable
        self._python_initials: dict[int, tuple[GameConfig, State]] = {}  # by id(config), `_python_initial`
        Draw = Callable[[GameConfig], tuple[GameConfig, Hashable] | None]
        self._initial_draw: Draw | None = getattr(python, "initial_draw", None)
        # The Rust class's own, where it has one: the same draw without Python's
        # generator, unchecked (so only ever a key of `_drawn`).
        self._native_draw: Draw | None = getattr(state_class, "initial_draw", None)

    # -- metadata -------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.python.id

    @property
    def name(self) -> str:
        return self.python.name

    @property
    def min_players(self) -> int:
        return self.python.min_players

    @property
    def max_players(self) -> int:
        return self.python.max_players

    @property
    def options(self) -> tuple[OptionSpec, ...]:
        return self.python.options

    @property
    def rulesets(self) -> Mapping[str, Mapping[str, OptionValue]]:
        return self.python.rulesets

    @property
    def bench_player_counts(self) -> tuple[int, ...]:
        return self.python.bench_player_counts

    # -- states ---------------------------------------------------------------------

    def new_initial_state(self, config: GameConfig) -> NativeState:
        """The initial state (config errors as the Python engine raises them).

        Where the game says what a config's seed draws (its optional ``initial_draw``
        hook), a game of a draw seen before starts from the Rust position kept for it,
        and its Python state is built only if asked for: the Python initial state was
        about half of a new game's 10 µs, and a random Terra Nova game of two players
        is only some 150 µs.  The Rust class's own ``initial_draw`` (Terra Nova's), which
        checks nothing, is tried first: a draw it finds was kept for a checked config
        of the same seedless key.
        """
        guessed = self._native_draw(config) if self._native_draw is not None else None
        if guessed is not None:
            state = self._kept_start(guessed, _draw_key(guessed))
            if state is not None:
                return state
        drawn = self._initial_draw(config) if self._initial_draw is not None else None
        draw_key = _draw_key(drawn)
        if drawn is not None and draw_key is not None:
            state = self._kept_start(drawn, draw_key) or self._start_with_draw(config, drawn)
            if state is not None:
                return state
        python_initial = self.python.new_initial_state(config)
        refusal = getattr(self.python, "native_refusal", None)  # a game's optional hook
        if self._fallback and refusal is not None and refusal(python_initial.config) is not None:
            # The "auto" engine: what the native engine does not play runs on the Python one
            # (refused configs never reach the kept starts above).
            return python_initial  # type: ignore[return-value]
        key = _seedless(python_initial)
        shared = self._shared.get(key)
        if shared is None:
            shared = self._shared_for(python_initial, key)
        if draw_key is not None:
            if len(self._drawn) >= 1024:
                self._drawn.clear()
            self._drawn[draw_key] = shared
            if drawn is not None and drawn[1] is not None and hasattr(shared.initial_core, "with_draw"):
                self._with_draw[seedless_key(config)] = shared
        # The config as the Python state has it (with anything drawn at random filled in).
        return _new_state(_context(self, python_initial.config, shared), shared.initial_core, python_initial)

    def _kept_start(self, drawn: tuple[GameConfig, Hashable], key: object) -> NativeState | None:
        """The initial state of ``drawn`` (``initial_draw``'s config and draw) from the
        Rust position kept under ``key`` (:func:`_draw_key`), or ``None`` if none is."""
        shared = self._drawn.get(key) if key is not None else None
        if shared is None:
            return None
        return _new_state(_context(self, drawn[0], shared), shared.initial_core, None)

    def _start_with_draw(self, config: GameConfig, drawn: tuple[GameConfig, Hashable]) -> NativeState | None:
        """The initial state of ``drawn`` made in Rust from the kept start of another seed
        of ``config`` (the Rust class's optional ``with_draw(draw)``: Medina's second
        edition places its drawn well and starting merchant on a fresh position), or
        ``None`` where none is kept.  A second-edition seed draws one of some 10,000
        positions: kept by draw, nearly every new game missed and built the Python initial
        state and its setup (about 0.4 ms, more than the game's moves)."""
        kept = self._with_draw.get(seedless_key(config))
        if kept is None:
            return None
        core = kept.initial_core.with_draw(drawn[1])
        return _new_state(kept.context_class(self, drawn[0], kept.moves), core, None)

    def _shared_for(self, python_initial: State, key: object) -> _Shared:
        """What every game starting from this position shares (built once, then cached
        under ``key``, :func:`_seedless`)."""
        refusal = getattr(self.python, "native_refusal", None)  # a game's optional hook
        reason = refusal(python_initial.config) if refusal is not None else None
        if reason is not None:
            raise ConfigError(f"the native engine cannot play this configuration: {reason}")
        header = self.python.canonical_config(python_initial.config).to_json()
        header["seed"] = None  # the engines read what the seed drew from "initial"
        setup = json.dumps({"config": header, "initial": python_initial.to_json()})
        try:
            core = self._state_class(setup)
        except ValueError as exc:
            raise ConfigError(f"the native engine cannot play this configuration: {exc}") from None
        encoding = encoding_of(self.python, python_initial.config)
        moves = self._move_table(encoding)
        if len(self._shared) >= 256:
            self._shared.clear()
            self._drawn.clear()
            self._with_draw.clear()
            self._move_tables.clear()
            self._move_tables[id(encoding)] = moves
        shared = self._shared[key] = _Shared(core, moves)
        return shared

    def _move_table(self, encoding: Encoding) -> MoveTable:
        """The ``MoveTable`` of one of the Python engine's encodings (one per encoding,
        so that every state and the encoding hand out the same ``Move`` objects)."""
        from tabletop._native import MoveTable  # a NativeGame exists only where it is built

        moves = self._move_tables.get(id(encoding))
        if moves is None or moves.encoding is not encoding:
            moves = self._move_tables[id(encoding)] = MoveTable(encoding)
        return moves

    def load_state(self, state: State) -> NativeState:
        """The native state equal to ``state``, a Python engine state of this game at any
        position (the Rust class's ``load``, the inverse of its ``export``): legal moves,
        scores, ``to_json`` and the moves that follow are the same.  The Python state is
        kept as the native state's Python state.

        Raises:
            InvalidPositionError: if ``state`` is of another game, or its fields do not
                describe a position of its game (the message names what is wrong).
        """
        if state.game.id != self.id:
            raise InvalidPositionError(f"a {state.game.id!r} position is not a {self.id!r} one")
        if isinstance(state, NativeState):
            return state
        # The initial state of the same config shares the board, rules and move table.
        initial = self.new_initial_state(state.config)
        try:
            core = initial.native.load(state)
        except ValueError as exc:
            raise InvalidPositionError(str(exc)) from None
        return _new_state(initial.context, core, state)

    def python_state_of(self, state: NativeState, known: State | None = None) -> State:
        """The Python engine's state equal to the native ``state``, built from the fields
        its Rust position exports (``export()``, the outcome) by the game's
        ``State.from_fields``, in the context of ``known``: a Python state of the same
        game (default: its config's initial state), whose fields fill any the export
        lacks (none do: Terra Nova's export has its scored ``areas``, Medina's every
        field, the second edition's included).  ``NativeState.python_state`` calls this
        with the nearest earlier state that has a Python state
        (``native/src/protocol.rs``); no move is ever replayed.

        Raises:
            NativeEngineError: if the game's Python state has no ``from_fields``, or the
                exported fields do not build one (a Terra Nova position that scored more
                areas than the native engine records, ``MAX_RECORDED_AREAS``).
        """
        if known is None:
            known = self._python_initial(state.config)
        build = getattr(type(known), "from_fields", None)
        context = getattr(known, "context", None)
        if build is None or context is None:
            raise NativeEngineError(f"the {self.id!r} Python state cannot be built from a native state's fields")
        fields = state.native.export()
        fields["result"] = state.outcome()  # a state keeping its outcome as a field (Terra Nova's)
        for name in getattr(known, "FIELDS", ()):
            if name not in fields:
                fields[name] = getattr(known, name)
        try:
            python: State = build(context, fields)
        except ValueError as exc:
            raise NativeEngineError(
                f"the native {self.id!r} state's fields do not build its Python state: {exc}"
            ) from None
        return python

    def _python_initial(self, config: GameConfig) -> State:
        """The Python engine's initial state of ``config`` (a native state's config, which
        names what was drawn), kept per config object: the states of one game share theirs."""
        kept = self._python_initials.get(id(config))
        if kept is not None and kept[0] is config:
            return kept[1]
        if len(self._python_initials) >= 256:
            self._python_initials.clear()
        initial = self.python.new_initial_state(config)
        self._python_initials[id(config)] = (config, initial)
        return initial

    def canonical_config(self, config: GameConfig) -> GameConfig:
        return self.python.canonical_config(config)

    def parse_move(self, text: str) -> Move:
        return self.python.parse_move(text)

    def render_text(self, state: State, *, color: bool = False) -> str:
        return self.python.render_text(python_state(state), color=color)

    def render_svg(self, state: State, *, last_moves: Sequence[Move] = ()) -> str:
        return self.python.render_svg(python_state(state), last_moves=last_moves)

    def describe_score(self, state: State) -> str:
        return self.python.describe_score(python_state(state))

    def seat_colors(self, num_players: int) -> tuple[str, ...]:
        return self.python.seat_colors(num_players)

    def evaluate(self, state: State) -> tuple[float, ...]:
        return self.python.evaluate(python_state(state))

    def encoding(self, config: GameConfig) -> Encoding:
        """The Python engine's encoding, reading native states through their Python states."""
        inner = encoding_of(self.python, config)
        return _NativeEncoding(inner, self._move_table(inner))

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.python, name)
        if callable(value):
            return _with_python_states(value)
        return value

    def __repr__(self) -> str:
        return f"<NativeGame {self.id!r}>"


def _seedless(python_initial: State) -> object:
    """The key of an initial position's native setup: the position with its config's
    seed left out.

    The Rust state reads what the seed drew (a start player, a start square) from the
    position's fields, never the seed itself, so the games of every seed that draws the
    same position share one setup.  A key with the seed would miss for every new seed:
    building the setup (the position's ``to_json``, the JSON text, parsing it in Rust)
    cost about 400 µs, more than a random Medina game's moves.  The key is the config
    without its seed and the values of the state's other fields, read in one call
    (``operator.attrgetter``): the state with a seedless config, hashed and compared
    (``replace``, then its ``__hash__`` and ``__eq__``), was about 9 of a new Medina
    game's 14 µs.  The config's part is the games' own setup key
    (:func:`tabletop.core.setups.seedless_key`).  A state without named fields
    (``FIELDS``) is its own key, with the seed left out of its config, as is one whose
    config has no seedless key.
    """
    config = python_initial.config
    config_key = seedless_key(config)
    values = _FIELD_VALUES.get(type(python_initial))
    fields = getattr(python_initial, "FIELDS", None) if values is None else None
    if fields is not None:
        values = _FIELD_VALUES[type(python_initial)] = operator.attrgetter(*(f for f in fields if f != "config"))
    if values is None or config_key is None:
        if config.seed is None or not hasattr(python_initial, "replace"):
            return python_initial
        return python_initial.replace(config=dataclasses.replace(config, seed=None))
    return (type(python_initial), config_key, values(python_initial))


def _draw_key(drawn: tuple[GameConfig, Hashable] | None) -> object:
    """The key of ``NativeGame._drawn`` for ``initial_draw``'s config and draw: the
    config's seedless key and the draw (``None`` where the config has no such key)."""
    config_key = seedless_key(drawn[0]) if drawn is not None else None
    return None if config_key is None or drawn is None else (config_key, drawn[1])


_FIELD_VALUES: dict[type, Callable[[object], tuple[object, ...]]] = {}
"""Per state class, the getter of its fields' values but the config (:func:`_seedless`)."""


def _with_python_states(function: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(python_state(a) if isinstance(a, NativeState) else a for a in args)
        kwargs = {k: python_state(v) if isinstance(v, NativeState) else v for k, v in kwargs.items()}
        return function(*args, **kwargs)

    return call


def native_state_of(state: State) -> NativeState:
    """``state`` on the native engine: itself if it is native, else the equal native state
    loaded from the Python engine's position (:meth:`NativeGame.load_state`).

    Raises:
        NativeEngineError: if the extension is not built or has no engine for its game.
        InvalidPositionError: if its fields do not describe a position of its game.
    """
    if isinstance(state, NativeState):
        return state
    game = state.game
    loader = _LOADERS.get(game.id)
    if loader is None or loader.python is not game:
        loader = _LOADERS[game.id] = native_game(game)
    return loader.load_state(state)


_LOADERS: dict[str, NativeGame] = {}
"""The native game :func:`native_state_of` loads each game's states into: kept, so that its
initial states (board, rules, move table) are built once per configuration, not per call."""


def python_state(state: State) -> State:
    """The Python engine's state equal to ``state`` (``state`` itself if it is one)."""
    return state.python_state() if isinstance(state, NativeState) else state


class _Shared:
    """What the games from one initial position share: its Rust state, the move table
    (``tabletop._native.MoveTable``: action ids and the Python engine's ``Move`` objects)."""

    __slots__ = ("context_class", "initial_core", "moves")

    def __init__(self, initial_core: Any, moves: MoveTable) -> None:
        from tabletop._native import NativeContext

        self.initial_core = initial_core
        self.moves = moves
        # Found once: a new game makes one `NativeContext`, and an import costs more.
        self.context_class = NativeContext


if TYPE_CHECKING:

    @runtime_checkable
    class NativeState(State, Protocol):
        """A position of a native engine, behaving as the Python engine's state.

        The class is ``tabletop._native.NativeState`` (``native/src/protocol.rs``): the
        protocol's calls are its Rust methods, so that a Python loop through the protocol
        calls Rust directly.  A game's own fields (``pioneers``, ``phase``, ...) are the
        equal Python state's (:meth:`python_state`, built on first use): the protocol does
        not define them, and a ``__getattr__`` reaching for them made every method call
        of a Python loop a few per cent dearer.  What it offers beyond
        :class:`~tabletop.core.protocol.State`:
        """

        @property
        def native(self) -> Any:
            """The Rust position (``TerraNovaState``, ``MedinaState``), for whole loops in Rust."""
            ...

        @property
        def context(self) -> Any:
            """The ``NativeContext`` every state of this game shares (game, config, moves)."""
            ...

        def apply(self, move: Move) -> NativeState: ...

        def apply_action(self, action: int) -> NativeState:
            """The state after the move with this action id (``Game.encoding``).

            Raises:
                IllegalMoveError: if it is not legal here.
            """
            ...

        def move_of_action(self, action: int) -> Move:
            """The Python engine's ``Move`` of an action id."""
            ...

        def python_state(self) -> State:
            """The Python engine's equal state (built on first use, then kept)."""
            ...

        def parse_move(self, text: str) -> Move: ...

        def move_to_str(self, move: Move) -> str: ...

        def to_json(self) -> dict[str, Any]: ...

else:

    class _NoNativeState:
        """Stands for ``tabletop._native.NativeState`` where the extension is not built:
        nothing is an instance, and none can be made."""

        def __init__(self, *args: object) -> None:
            raise NativeEngineError("the extension tabletop._native is not built (`make native`)")

    NativeState = getattr(native_module(), "NativeState", None) or _NoNativeState
    _RustNativeState = NativeState


def _new_state(context: Any, core: Any, python: State | None) -> NativeState:
    """The native state at ``core`` (a Rust position), equal to ``python``; without one,
    ``core`` is the initial position of the context's config, whose Python state is then
    the Python engine's ``new_initial_state(config)``, built when first asked for."""
    state: NativeState = _RustNativeState(context, core, python)
    return state


def _context(game: NativeGame, config: GameConfig, shared: _Shared) -> Any:
    """The ``NativeContext`` of one game: what its states share."""
    return shared.context_class(game, config, shared.moves)


@dataclass(frozen=True, slots=True)
class BatchStep:
    """What :func:`step_batch` returns for ``n`` games of ``a`` action ids each."""

    states: list[NativeState | None]
    """The next states (``None`` where the action was not legal)."""
    terminal: bytes
    """One byte per game: 1 where the game is over."""
    returns: list[tuple[float, ...]]
    """Each game's ``returns()`` (empty where the action was not legal)."""
    masks: bytes
    """``n * a`` bytes, game by game: each next state's ``Encoding.action_mask``."""


def step_batch(states: Sequence[NativeState], actions: Sequence[int]) -> BatchStep:
    """Applies ``actions[i]`` (action ids) to ``states[i]`` for every ``i`` in one call into
    Rust, with each next state's outcome and legal-action mask, as a batched research loop
    steps many games (``docs/native.md``).

    Raises:
        ValueError: if the states are not native states of one game and board, or the
            lengths differ.
    """
    if not states:
        return BatchStep([], b"", [], b"")
    rust_states = [s for s in states if isinstance(s, _RustNativeState)]
    if len(rust_states) != len(states):
        raise ValueError("step_batch needs native states of one game (make(..., engine='native'))")
    next_rust, terminal, returns, masks = _RustNativeState.step_batch(rust_states, list(actions))
    next_states: list[NativeState | None] = list(next_rust)
    return BatchStep(next_states, bytes(terminal), [tuple(r) for r in returns], bytes(masks))


class _NativeEncoding:
    """A game's encoding that reads native states through their Python states, and
    decodes through the game's ``MoveTable`` (the same ``Move`` objects its native
    states hand out, so applying a decoded move finds its id at once)."""

    def __init__(self, inner: Encoding, moves: MoveTable) -> None:
        self._inner = inner
        self._moves = moves
        self._size = inner.num_distinct_actions
        spec = inner.spec
        self._planes_bytes = 4 * len(spec.planes) * spec.plane_size
        self._vector_bytes = 4 * len(spec.vector)
        self._encoder: NativeEncoder | None = None  # made for the first native state

    def native_encoder(self, state: NativeState) -> NativeEncoder:
        """The ``tabletop._native.NativeEncoder`` of this encoding's game and board: the
        observation and the mask of a native state written by Rust into the caller's
        buffers (``native/src/vector.rs``), value for value the Python encoding's."""
        encoder = self._encoder
        if encoder is None:
            module = native_module()
            if module is None:  # a native state exists, so the extension is built
                raise NativeEngineError("the extension tabletop._native is not built (`make native`)")
            encoder = self._encoder = module.NativeEncoder(state)
        return encoder

    @property
    def num_distinct_actions(self) -> int:
        return self._inner.num_distinct_actions

    @property
    def spec(self) -> ObservationSpec:
        return self._inner.spec

    @property
    def max_game_length(self) -> int:
        return self._inner.max_game_length

    def encode(self, move: Move) -> int:
        return self._moves.encode(move)

    def decode(self, action: int) -> Move:
        if type(action) is int and 0 <= action < self._size:  # anything else: the inner encoding's own error
            move: Move = self._moves[action]
            return move
        return self._inner.decode(action)

    # The action ids are the Rust engine's own: legal actions and masks come from it.

    def legal_actions(self, state: State) -> list[int]:
        if isinstance(state, NativeState):
            ids: list[int] = state.native.legal_actions().ascending_ids()
            return ids
        return self._inner.legal_actions(state)

    def action_mask(self, state: State) -> bytearray:
        if isinstance(state, NativeState):
            mask = bytearray(self._size)
            self.native_encoder(state).mask_into(state, mask)
            return mask
        return self._inner.action_mask(state)

    def observe(self, state: State, seat: PlayerId) -> Any:
        """The Python encoding's observation; of a native state, written by Rust (the
        same values: ``tests/envs/test_native_encoding.py``) without its Python state."""
        if isinstance(state, NativeState):
            planes = array("f", bytes(self._planes_bytes))
            vector = array("f", bytes(self._vector_bytes))
            self.native_encoder(state).observe_into(state, seat, planes, vector)
            return planes, vector
        return self._inner.observe(python_state(state), seat)

    def action_to_str(self, action: int) -> str:
        return self._inner.action_to_str(action)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        return _with_python_states(value) if callable(value) else value


class _NativeEngines:
    """The native engines as an engine provider of ``core.registry`` (``make(game_id,
    engine="native")``, and ``"auto"`` where built), with the native search bots."""

    def has_engine(self, game_id: str) -> bool:
        return has_native(game_id)

    def engine_game(self, game: Game, *, fallback: bool = False) -> Game:
        try:
            return native_game(game, fallback=fallback)
        except NativeEngineError as exc:
            raise ConfigError(str(exc)) from None

    def agent_factories(self) -> Mapping[str, Callable[[str | None, int | None], Any]]:
        from tabletop.native.alphabeta import agent_factories as alphabeta_factories
        from tabletop.native.learned import agent_factories as learned_factories
        from tabletop.native.mcts import agent_factories
        from tabletop.native.puct import agent_factories as puct_factories

        return {**agent_factories(), **alphabeta_factories(), **puct_factories(), **learned_factories()}


register_engine("native", _NativeEngines())
