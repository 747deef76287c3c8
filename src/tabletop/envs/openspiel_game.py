"""The games as OpenSpiel Python games (``tabletop.envs.register_openspiel``).

``python_tabletop_terranova`` and ``python_tabletop_medina``: sequential, deterministic,
perfect information, general sum (the ``utility`` parameter: ``win`` pays each seat its
win share, which sums to 1; ``score`` pays the final scores), terminal rewards.
Parameters: ``players``, ``seed`` (Terra Nova draws its start player from it; 0 by
default, so a game is deterministic), ``ruleset``, ``utility`` and, for Terra Nova,
``map`` (a built-in map id).  Actions are the game's encoding (``Game.encoding``);
the observation tensor is the planes then the vector, flat.

States are pickled by OpenSpiel's serialization (``pyspiel.serialize_game_and_state``):
the tabletop state inside pickles as its game's config and its moves, and is replayed
when loaded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from tabletop.core.encoding import Encoding
from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make, player_counts
from tabletop.envs.common import setup
from tabletop.native import NativeState

GAMES: Final = ("terranova", "medina")
UTILITIES: Final = ("win", "score")
_TERMINAL: Final = int(pyspiel.PlayerId.TERMINAL)
MAX_SCORE: Final = 1000.0
"""OpenSpiel's ``max_utility`` under ``utility=score``: a bound no game reaches."""


def short_name(game_id: str) -> str:
    """The OpenSpiel name of a game: ``python_tabletop_<id>``."""
    return f"python_tabletop_{game_id}"


def _defaults(game_id: str) -> dict[str, Any]:
    game = make(game_id)
    params: dict[str, Any] = {"players": player_counts(game)[0], "seed": 0, "ruleset": "default", "utility": "win"}
    if getattr(game, "maps", None):
        params["map"] = "isola"
    return params


def _game_type(game_id: str) -> pyspiel.GameType:
    game = make(game_id)
    return pyspiel.GameType(
        short_name=short_name(game_id),
        long_name=f"Python tabletop {game.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_defaults(game_id),
    )


class TabletopGame(pyspiel.Game):  # type: ignore[misc]
    """A tabletop game for OpenSpiel (one class serves both games: ``game_id``)."""

    game_id: str = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_defaults(self.game_id), **(params or {})}
        if merged["utility"] not in UTILITIES:
            raise ValueError(f"utility must be one of {', '.join(UTILITIES)}, not {merged['utility']!r}")
        self.utility: str = merged["utility"]
        self.setup = setup(
            self.game_id, int(merged["players"]), ruleset=str(merged["ruleset"]), map=merged.get("map") or None
        )
        self.config: GameConfig = self.setup.config(int(merged["seed"]))
        self.initial: State = self.setup.game.new_initial_state(self.config)
        encoding = self.setup.encoding
        self.reader = _Reader(encoding, self.initial)
        info = pyspiel.GameInfo(
            num_distinct_actions=encoding.num_distinct_actions,
            max_chance_outcomes=0,
            num_players=self.setup.num_players,
            min_utility=0.0,
            max_utility=1.0 if self.utility == "win" else MAX_SCORE,
            utility_sum=None,
            max_game_length=encoding.max_game_length,
        )
        super().__init__(_TYPES[self.game_id], info, params or {})

    @property
    def encoding(self) -> Encoding:
        """The game's action and observation encoding."""
        return self.setup.encoding

    def new_initial_state(self) -> TabletopState:
        """The initial state of the configured game."""
        return TabletopState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The planes-and-vector observer (perfect information: everyone sees everything)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return TabletopObserver(self.encoding, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class _Reader:
    """What every state of one game reads: its encoding, and how its positions list
    their legal actions, play an action and write an observation tensor.  On the native
    engine these are Rust calls (the native encoder's ``legal_actions`` and
    ``observe_flat_into``, the state's ``apply_action``: no ``Move`` is made); on the
    Python engine the encoding's.  Both give the same values
    (``tests/envs/test_engines_agree.py``).  They are the native calls themselves, not
    Python methods around them: a step of a Python loop calls all three, and a Python
    frame around one costs about 0.1 µs of a step of 3.5 µs."""

    __slots__ = ("apply", "encoding", "legal_actions", "observe_into", "size")

    legal_actions: Callable[[State], list[int]]
    """A position's legal actions, ascending; none once the game is over."""
    apply: Callable[[State, int], State]
    """The position after a legal action."""
    observe_into: Callable[[State, int, npt.NDArray[np.float32]], None]
    """Writes a position seen by a seat into a tensor of ``size`` floats (planes, then vector)."""

    def __init__(self, encoding: Encoding, initial: State) -> None:
        self.encoding = encoding
        spec = encoding.spec
        self.size = len(spec.planes) * spec.plane_size + len(spec.vector)
        native_encoder = getattr(encoding, "native_encoder", None)
        if native_encoder is not None and isinstance(initial, NativeState):
            native = native_encoder(initial)
            self.legal_actions = native.legal_actions
            self.apply = cast(Callable[[State, int], State], NativeState.apply_action)
            self.observe_into = native.observe_flat_into
        else:
            self.legal_actions = self._python_legal_actions
            self.apply = self._python_apply
            self.observe_into = self._python_observe_into

    def _python_legal_actions(self, state: State) -> list[int]:
        return [] if state.is_terminal() else self.encoding.legal_actions(state)

    def _python_apply(self, state: State, action: int) -> State:
        return state.apply(self.encoding.decode(action))

    def _python_observe_into(self, state: State, player: int, tensor: npt.NDArray[np.float32]) -> None:
        planes, vector = self.encoding.observe(state, player)
        split = len(planes)
        tensor[:split] = np.frombuffer(planes, np.float32)
        tensor[split:] = np.frombuffer(vector, np.float32)


class _Actions:
    """The actions of a game so far, as links (``_Actions(before, action)``: these
    actions and then ``action``): applying one is O(1), and the tuple of
    them and their notation are made when first asked for (serializing, ``str``), then
    kept.  (Writing each action's notation as it was played read the Python engine's
    state at every step of a native game, and copying the tuple made a game quadratic.)
    """

    __slots__ = ("_text", "_tuple", "before", "last")

    def __init__(self, before: _Actions | None = None, last: int = -1) -> None:
        self.before = before
        self.last = last
        self._tuple: tuple[int, ...] | None = () if before is None else None
        self._text: str | None = "" if before is None else None

    def _since(self, known: Callable[[_Actions], object]) -> tuple[_Actions, list[int]]:
        """The nearest link (this one or earlier) where ``known`` is not ``None``, and
        the actions after it, oldest first (a loop: a history may be long)."""
        link, tail = self, []
        while known(link) is None and link.before is not None:
            tail.append(link.last)
            link = link.before
        tail.reverse()
        return link, tail

    def as_tuple(self) -> tuple[int, ...]:
        """Every action from the initial state, in order."""
        if self._tuple is None:
            link, tail = self._since(lambda a: a._tuple)
            self._tuple = (link._tuple or ()) + tuple(tail)
        return self._tuple

    def notation(self, encoding: Encoding) -> str:
        """The actions in the game's notation, space-separated (``Encoding.action_to_str``:
        an action's notation needs no state)."""
        if self._text is None:
            link, tail = self._since(lambda a: a._text)
            self._text = " ".join(filter(None, [link._text, *map(encoding.action_to_str, tail)]))
        return self._text


class _Position:
    """The tabletop state of an OpenSpiel state, the actions that led to it and its
    game's :class:`_Reader`; pickles as (game id, config, actions).  The actions keep no
    earlier state alive."""

    __slots__ = ("actions", "reader", "state")

    def __init__(self, state: State, actions: _Actions, reader: _Reader) -> None:
        self.state = state
        self.actions = actions
        self.reader = reader

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return self  # immutable: OpenSpiel's clone shares it

    def __reduce__(self) -> tuple[Any, ...]:
        state = self.state
        config = state.game.canonical_config(state.config).to_json()
        return (_replay, (state.game.id, config, self.actions.as_tuple()))


def _replay(game_id: str, config: dict[str, Any], actions: tuple[int, ...]) -> _Position:
    game = make(game_id)
    config_ = GameConfig.from_json(config)
    state = game.new_initial_state(config_)
    reader = _Reader(game.encoding(config_), state)  # type: ignore[attr-defined]
    played = _Actions()
    for action in actions:
        state = reader.apply(state, action)
        played = _Actions(played, action)
    return _Position(state, played, reader)


class TabletopState(pyspiel.State):  # type: ignore[misc]
    """A position; ``tabletop_state`` is the tabletop State inside."""

    def __init__(self, game: TabletopGame) -> None:
        super().__init__(game)
        self._position = _Position(game.initial, _Actions(), game.reader)
        self._utility = game.utility

    @property
    def tabletop_state(self) -> State:
        """The tabletop state (immutable)."""
        return self._position.state

    def _encoding(self) -> Encoding:
        return self._position.reader.encoding

    def current_player(self) -> int:
        """The seat to act, or ``pyspiel.PlayerId.TERMINAL``."""
        state = self._position.state
        return _TERMINAL if state.is_terminal() else state.current_player

    # ``legal_actions`` and ``observation_tensor`` called from Python are answered here
    # (pyspiel's own go through C++ and back: the trampoline to ``_legal_actions`` and a
    # list converted twice; the observer, then a Python list of thousands of floats).
    # Called from C++ (``random_sim_test``, C++ algorithms), pyspiel's own run, through
    # ``_legal_actions`` and the observer of ``make_py_observer``: the same values.

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions of the player to act (of ``player``: none unless it is
        to act), ascending; none once the game is over."""
        position = self._position
        if player is not None and player != self.current_player():
            if player < 0 and not position.state.is_terminal():  # pyspiel's error for a pseudo-player
                actions: list[int] = pyspiel.State.legal_actions(self, player)
                return actions
            return []
        return position.reader.legal_actions(position.state)

    def observation_tensor(self, player: int | None = None) -> npt.NDArray[np.float32]:
        """``player``'s (default: the player to act's) observation tensor, the planes then
        the vector, as a new float32 array (pyspiel's own gives the same values as a list)."""
        position = self._position
        state = position.state
        if player is None:
            player = _TERMINAL if state.is_terminal() else state.current_player
        if not 0 <= player < state.num_players:  # pyspiel's error for a pseudo-player
            return np.asarray(pyspiel.State.observation_tensor(self, player), np.float32)
        reader = position.reader
        tensor = np.empty(reader.size, np.float32)
        reader.observe_into(state, player, tensor)
        return tensor

    def _legal_actions(self, player: int) -> list[int]:
        state = self._position.state
        return self._position.reader.legal_actions(state) if player == state.current_player else []

    def _apply_action(self, action: int) -> None:
        position = self._position
        reader = position.reader
        self._position = _Position(reader.apply(position.state, action), _Actions(position.actions, action), reader)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._encoding().action_to_str(action)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._position.state.is_terminal()

    def returns(self) -> list[float]:
        """Win shares (``utility=win``) or final scores (``utility=score``) once over, else zeros."""
        state = self._position.state
        if not state.is_terminal():
            return [0.0] * state.num_players
        if self._utility == "score":
            return [float(s) for s in state.scores()]
        return [float(r) for r in state.returns()]

    def __str__(self) -> str:
        """The moves so far in the game's notation (OpenSpiel asks for this string often:
        drawing the board each time would cost more than the game; ``render()`` draws it)."""
        position = self._position
        return f"{position.state!r} moves: {position.actions.notation(self._encoding())}"

    def render(self) -> str:
        """The board as the terminal draws it."""
        state = self._position.state
        return state.game.render_text(state)


class TabletopObserver:
    """OpenSpiel's PyObserver: ``tensor`` (planes then vector, flat) with the views
    ``dict["planes"]`` (planes × height × width) and ``dict["vector"]``."""

    def __init__(self, encoding: Encoding, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        spec = encoding.spec
        size = len(spec.planes) * spec.plane_size
        self.tensor = np.zeros(size + len(spec.vector), np.float32)
        self.dict = {"planes": self.tensor[:size].reshape(spec.shape), "vector": self.tensor[size:]}
        # The (immutable) position and player the tensor was last filled from.
        self._filled_from: tuple[object, int] = (None, -1)

    def set_from(self, state: TabletopState, player: int) -> None:
        """Fills the tensor with ``state`` seen by ``player`` (by its game's reader: a
        native state's by Rust, straight into the tensor)."""
        position = state._position
        filled = self._filled_from
        if position.state is filled[0] and player == filled[1]:
            return  # pyspiel's observation_tensor() calls this twice for one position
        self._filled_from = (position.state, player)
        position.reader.observe_into(position.state, player, self.tensor)

    def string_from(self, state: TabletopState, player: int) -> str:
        """The moves so far in the game's notation (the same for every player: perfect
        information; the drawing is ``str(state)``)."""
        return str(state)


_TYPES: dict[str, pyspiel.GameType] = {}


def register() -> tuple[str, ...]:
    """Registers both games with OpenSpiel once; returns their OpenSpiel names."""
    names = []
    for game_id in GAMES:
        name = short_name(game_id)
        if game_id not in _TYPES:
            _TYPES[game_id] = _game_type(game_id)
            cls = type(f"TabletopGame_{game_id}", (TabletopGame,), {"game_id": game_id})
            pyspiel.register_game(_TYPES[game_id], cls)
        names.append(name)
    return tuple(names)
