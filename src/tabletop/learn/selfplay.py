"""Self-play on the native engine, and the replay buffer of its positions.

A game of self-play plays every seat by one search (:class:`Search`): at each move it
records the network's input (the position from the view of the seat to act), the legal
action ids, the search's visit counts over them and the seat to act; at the end, the
final win shares (``State.returns()``).  The first :attr:`SelfPlayConfig.sampled_moves`
moves are drawn in proportion to the visits (the openings vary), the rest are the most
visited action.

**The search** that makes the targets is chosen by one function, :func:`make_search`:
the search with the network (:func:`network_search`: PUCT in Rust with the policy as
prior and the value head at the leaves, ``tabletop.native.puct``), with Dirichlet noise
at the root as AlphaZero's self-play has, so that moves the network does not yet favour
are tried.  :func:`native_mcts_search` (the rollout MCTS's visit counts, the network not
consulted) is the other choice (:attr:`SelfPlayConfig.teacher_sims`), expert iteration's
expert (Anthony et al., 2017); in Medina its visits turned out flat even over 30,000
simulations (``docs/bots.md``, "Why those runs stalled"), so runs use it little.

Games are tasks of :mod:`tabletop.compute.batch` (local worker processes or Ray):
:func:`play_selfplay_game` is deterministic by its index, and returns plain arrays.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from tabletop.ai.agent import ask, make_agent
from tabletop.arena.sprt import placings
from tabletop.arena.tournament import derived_seed
from tabletop.core.network import NetworkMeta, PolicyValueNetwork, relative_values
from tabletop.core.network_file import load_network
from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make
from tabletop.native.mcts import LEVELS, NativeSearchConfig, level_config, search_options
from tabletop.native.puct import default_leaf_rollout, puct_search
from tabletop.native.puct import load_network as load_native_network

MAX_GAME_ACTIONS: Final = 5_000
"""A self-play game longer than this is cut off (no game of either ruleset comes near)."""


class Search(Protocol):
    """A search that makes the training targets: a weight for each of the root's actions."""

    def __call__(self, state: State, seed: int) -> tuple[dict[int, float], int]:
        """The target's weight of each root action id searched (its visits, or the
        improved policy of :func:`completed_q_policy`), and the action it would play."""
        ...


@dataclass(frozen=True, slots=True)
class SelfPlayConfig:
    """One generation's self-play.

    Attributes:
        game: the game id.
        players: seats.
        ruleset: the ruleset preset.
        network: the network file the search uses (and whose input is recorded).
        simulations: simulations of the search per move.
        seed: the master seed (each game's deal and search seeds derive from it).
        generation: the generation number (part of every seed).
        sampled_moves: moves drawn in proportion to the visits at the start of a game.
        dirichlet_alpha: the concentration of the root's Dirichlet noise (AlphaZero: 0.3
            for chess's ~35 moves, 0.03 for Go's ~250; these games have 20-200).
        dirichlet_fraction: the noise's share of the root's prior (AlphaZero: 0.25).
        leaf_mix: the share of a leaf's value taken from the game's own leaf value (a
            playout, then the evaluation: ``tabletop.native.puct``); 0: the network alone.
        policy_target: ``"visits"``: the root's visit shares (AlphaZero); ``"completed-q"``:
            the prior improved by the root's values (:func:`completed_q_policy`).
        teacher_sims: 0: the network's search plays and makes the targets; N: the
            rollout MCTS of the game's native levels with N simulations a move does.
        sparring: the bot spec that plays one seat of the games :func:`sparring_seat`
            names (``None``: none); its moves are played, not learned from.
        sparring_share: the share of the games with a sparring seat.
    """

    game: str
    players: int
    ruleset: str
    network: str
    simulations: int
    seed: int = 0
    generation: int = 0
    sampled_moves: int = 30
    dirichlet_alpha: float = 0.3
    dirichlet_fraction: float = 0.25
    leaf_mix: float = 0.0
    policy_target: str = "visits"
    teacher_sims: int = 0
    sparring: str | None = None
    sparring_share: float = 0.0


def sparring_seat(config: SelfPlayConfig, index: int) -> int | None:
    """The seat the sparring bot plays in game ``index`` of a generation, or ``None``:
    games with one are spread evenly (game ``i`` has one where ``floor((i + 1) * share)``
    passes a whole number), and the seat goes round, so each seat meets it as often."""
    share = config.sparring_share if config.sparring is not None else 0.0
    if math.floor((index + 1) * share) == math.floor(index * share):
        return None
    return math.floor(index * share) % config.players


POLICY_TARGETS: Final = ("visits", "completed-q")
"""What the policy head learns from a self-play move (:attr:`SelfPlayConfig.policy_target`)."""

COMPLETED_Q_VISITS: Final = 50.0
COMPLETED_Q_SCALE: Final = 0.1
"""Gumbel MuZero's ``c_visit`` and ``c_scale`` (Danihelka et al. 2022; mctx's defaults)."""


def completed_q_policy(children: Sequence[tuple[int, int, float, float]], root_value: float) -> dict[int, float]:
    """The root's prior improved by its values: ``softmax(log prior + sigma(q))`` over the
    root's actions (``children``: ``(action, visits, mean value, prior)``), ``q`` the
    mean value where visited and ``root_value`` where not, rescaled to [0, 1] over the
    actions, ``sigma(q) = (c_visit + max visits) * c_scale * q`` (Gumbel MuZero's
    "completed Q-values"; Danihelka et al., ICLR 2022).

    With a few hundred simulations over 30-60 legal moves the visit shares are nearly
    flat (a few visits each), and a policy learned from them learns that spread; the
    values the search found sharpen the prior even where visits could not.
    """
    if not children:
        return {}
    visits = np.asarray([c[1] for c in children], np.float64)
    q = np.where(visits > 0, np.asarray([c[2] for c in children], np.float64), root_value)
    low, high = float(q.min()), float(q.max())
    scaled = (q - low) / (high - low) if high > low else np.zeros_like(q)
    sigma = (COMPLETED_Q_VISITS + visits.max()) * COMPLETED_Q_SCALE * scaled
    logits = np.log(np.maximum(np.asarray([c[3] for c in children], np.float64), 1e-12)) + sigma
    weights = np.exp(logits - logits.max())
    weights /= weights.sum()
    return {int(c[0]): float(w) for c, w in zip(children, weights, strict=True)}


def native_mcts_search(game_id: str, simulations: int) -> Search:
    """The native MCTS of the game's level settings with ``simulations`` a move."""
    level = min(LEVELS)
    settings: NativeSearchConfig = dataclasses.replace(level_config(str(level), game_id)[0], simulations=simulations)

    def search(state: State, seed: int) -> tuple[dict[int, float], int]:
        native: Any = state
        found = native.native.search(**search_options(settings, game_id, seed))
        visits: dict[int, float] = {int(action): int(count) for action, count, _ in found["children"]}
        return visits, int(found["action"])

    return search


def network_search(config: SelfPlayConfig) -> Search:
    """PUCT with the network file of ``config`` at ``config.simulations`` a move, Dirichlet
    noise at the root (``dirichlet_alpha``, ``dirichlet_fraction``), leaves valued with
    ``config.leaf_mix`` of the game's own leaf value; the targets by
    ``config.policy_target``."""
    network = load_native_network(config.network)
    mixing: dict[str, Any] = (
        {"leaf_mix": config.leaf_mix, "leaf_rollout": default_leaf_rollout(config.game)} if config.leaf_mix else {}
    )

    def search(state: State, seed: int) -> tuple[dict[int, float], int]:
        found = puct_search(
            state,
            network,
            simulations=config.simulations,
            seed=seed,
            dirichlet_alpha=config.dirichlet_alpha,
            dirichlet_fraction=config.dirichlet_fraction,
            **mixing,
        )
        action = int(found["action"])
        if config.policy_target == "completed-q":
            root_value = float(found["value"][state.current_player])
            return completed_q_policy(found["children"], root_value), action
        visits: dict[int, float] = {int(a): int(count) for a, count in found["visits"] if count}
        return visits, action

    return search


def make_search(config: SelfPlayConfig, network: PolicyValueNetwork) -> Search:
    """The search self-play runs (the one place to choose it: see the module docstring)."""
    del network  # the Rust search reads the file itself (once per process)
    if config.teacher_sims:
        return native_mcts_search(config.game, config.teacher_sims)
    return network_search(config)


@dataclass(frozen=True, slots=True)
class GameSamples:
    """The positions of one game of self-play.

    Attributes:
        x: ``(n, I)`` float32, the network's input at each move.
        seats: ``(n,)``, the seat to act.
        offsets: ``(n + 1,)``: move ``i``'s legal actions are ``legal[offsets[i]:offsets[i + 1]]``.
        legal: the legal action ids of every move, ascending per move.
        target: the visit distribution over those actions (0 where not visited).
        returns: the value target of every seat (absolute order): :func:`value_targets`.
    """

    x: npt.NDArray[np.float32]
    seats: npt.NDArray[np.int16]
    offsets: npt.NDArray[np.int64]
    legal: npt.NDArray[np.int32]
    target: npt.NDArray[np.float32]
    returns: tuple[float, ...]

    def __len__(self) -> int:
        return len(self.seats)


def play_selfplay_game(config: SelfPlayConfig, index: int) -> GameSamples:
    """Plays self-play game ``index`` of the generation (deterministic by index).

    Raises:
        ConfigError: if the game has no native engine or the network does not fit it.
    """
    network = load_network(config.network)
    search = make_search(config, network)
    seed = derived_seed(config.seed, "selfplay", config.generation, index)
    rival_seat = sparring_seat(config, index)
    rival = (
        make_agent(config.sparring, seed=derived_seed(seed, "sparring"))
        if rival_seat is not None and config.sparring is not None
        else None
    )
    game = make(config.game, engine="native")
    state = game.new_initial_state(GameConfig(num_players=config.players, ruleset=config.ruleset, seed=seed))
    encoding = network.encoding_for(state)
    rng = random.Random(seed)
    xs: list[npt.NDArray[np.float32]] = []
    seats: list[int] = []
    offsets = [0]
    legal: list[int] = []
    target: list[float] = []
    moves = 0
    while not state.is_terminal() and moves < MAX_GAME_ACTIONS:
        if rival is not None and state.current_player == rival_seat:
            state = state.apply(ask(rival, state))
            moves += 1
            continue
        actions = encoding.legal_actions(state)
        visits, best = search(state, rng.getrandbits(64))
        total = sum(visits.values())
        if total <= 0:  # a search that visited nothing: its choice is the target
            visits, total = {best: 1}, 1
        xs.append(network.input_of(state))
        seats.append(state.current_player)
        legal += actions
        target += [visits.get(a, 0) / total for a in actions]
        offsets.append(len(legal))
        if moves < config.sampled_moves:
            searched = sorted(visits)
            action = rng.choices(searched, weights=[visits[a] for a in searched])[0]
        else:
            action = best
        native: Any = state
        state = native.apply_action(action)
        moves += 1
    # A game cut off is no one's: equal shares.
    returns = value_targets(network.meta, state) if state.is_terminal() else (1.0 / config.players,) * config.players
    return GameSamples(
        x=np.stack(xs) if xs else np.zeros((0, network.meta.input_size), np.float32),
        seats=np.asarray(seats, np.int16),
        offsets=np.asarray(offsets, np.int64),
        legal=np.asarray(legal, np.int32),
        target=np.asarray(target, np.float32),
        returns=returns,
    )


def value_targets(meta: NetworkMeta, state: State) -> tuple[float, ...]:
    """What the value head of a network of ``meta`` learns from the finished ``state``
    (absolute seats, summing to 1 as its softmax does): the win shares, or the placings
    divided by ``NetworkMeta.value_scale``."""
    if meta.value == "placing":
        return tuple(p / meta.value_scale for p in placings([float(s) for s in state.scores()]))
    return tuple(float(r) for r in state.returns())


class ReplayBuffer:
    """The most recent positions of self-play, at most ``capacity`` of them, oldest dropped
    first; stored as arrays (the legal actions and targets packed, one run per position).

    The inputs are kept as float16 while that is exact (both games' observations are
    small whole numbers and halves), which halves the buffer's memory: 20,000 Medina
    positions take 275 MB so; the first input that float16 would round turns the whole
    buffer to float32.

    Attributes:
        capacity: the most positions kept.
    """

    def __init__(self, capacity: int, input_size: int, players: int) -> None:
        if capacity < 1:
            raise ValueError(f"the replay buffer needs room for at least one position, got {capacity}")
        self.capacity = capacity
        self._x: npt.NDArray[np.floating[Any]] = np.zeros((0, input_size), np.float16)
        self._value = np.zeros((0, players), np.float32)
        self._lengths = np.zeros(0, np.int64)
        self._legal = np.zeros(0, np.int32)
        self._target = np.zeros(0, np.float32)

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, games: Sequence[GameSamples]) -> None:
        """Adds the positions of ``games``, each with its value target: the game's win
        shares in seat order from the position's seat to act."""
        if not games:
            return
        values = [
            np.asarray([relative_values(g.returns, int(seat)) for seat in g.seats], np.float32).reshape(len(g), -1)
            for g in games
        ]
        added = np.concatenate([g.x for g in games])
        if self._x.dtype == np.float16 and not np.array_equal(added.astype(np.float16), added):
            self._x = self._x.astype(np.float32)
        self._x = np.concatenate([self._x, added.astype(self._x.dtype)])
        self._value = np.concatenate([self._value, *values])
        self._lengths = np.concatenate([self._lengths, *(np.diff(g.offsets) for g in games)])
        self._legal = np.concatenate([self._legal, *(g.legal for g in games)])
        self._target = np.concatenate([self._target, *(g.target for g in games)])
        self._drop_oldest()

    def resize(self, capacity: int) -> None:
        """Keeps at most ``capacity`` positions from now on (the oldest dropped now if need be)."""
        if capacity < 1:
            raise ValueError(f"the replay buffer needs room for at least one position, got {capacity}")
        self.capacity = capacity
        self._drop_oldest()

    def _drop_oldest(self) -> None:
        extra = len(self) - self.capacity
        if extra <= 0:
            return
        packed = int(self._lengths[:extra].sum())
        self._x = self._x[extra:].copy()
        self._value = self._value[extra:].copy()
        self._lengths = self._lengths[extra:].copy()
        self._legal = self._legal[packed:].copy()
        self._target = self._target[packed:].copy()

    def batch(
        self, rng: np.random.Generator, size: int, num_actions: int, newest: int | None = None
    ) -> dict[str, npt.NDArray[Any]]:
        """``size`` positions drawn at random (with replacement), from the ``newest`` last
        added where given: ``x``, ``legal`` (a mask ``(size, A)``), ``policy`` (the targets
        spread over ``A``) and ``value``."""
        if not len(self):
            raise ValueError("the replay buffer is empty")
        low = 0 if newest is None else max(0, len(self) - newest)
        chosen = rng.integers(low, len(self), size)
        starts = np.concatenate([[0], np.cumsum(self._lengths)])
        legal = np.zeros((size, num_actions), bool)
        policy = np.zeros((size, num_actions), np.float32)
        for row, i in enumerate(chosen):
            run = slice(int(starts[i]), int(starts[i + 1]))
            legal[row, self._legal[run]] = True
            policy[row, self._legal[run]] = self._target[run]
        return {"x": self._x[chosen].astype(np.float32), "legal": legal, "policy": policy, "value": self._value[chosen]}

    def save(self, path: Path) -> None:
        """Writes the buffer (compressed ``.npz``), under a temporary name then renamed."""
        temporary = path.with_name(path.name + ".part")
        with temporary.open("wb") as stream:
            np.savez_compressed(
                stream,
                capacity=np.array(self.capacity),
                x=self._x,
                value=self._value,
                lengths=self._lengths,
                legal=self._legal,
                target=self._target,
            )
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path, input_size: int, players: int) -> ReplayBuffer:
        """Reads a buffer written by :meth:`save` (for inputs of ``input_size`` and ``players`` seats).

        Raises:
            ValueError: if the file does not hold such a buffer.
        """
        with np.load(path, allow_pickle=False) as data:
            buffer = cls(int(data["capacity"]), input_size, players)
            x, value, lengths = data["x"], data["value"], data["lengths"]
            legal, target = data["legal"], data["target"]
        if (
            x.shape[1:] != (input_size,)
            or value.shape != (len(x), players)
            or lengths.shape != (len(x),)
            or legal.shape != target.shape
            or int(lengths.sum()) != len(legal)
        ):
            raise ValueError(f"{path} is not a replay buffer of this network's positions")
        if x.dtype not in (np.float16, np.float32):
            raise ValueError(f"{path} is not a replay buffer of this network's positions")
        buffer._x, buffer._value, buffer._lengths = x, value.astype(np.float32), lengths
        buffer._legal, buffer._target = legal.astype(np.int32), target.astype(np.float32)
        return buffer

    def equals(self, other: ReplayBuffer) -> bool:
        """Whether both hold the same positions and targets."""
        mine: tuple[npt.NDArray[Any], ...] = (self._x, self._value, self._lengths, self._legal, self._target)
        theirs: tuple[npt.NDArray[Any], ...] = (other._x, other._value, other._lengths, other._legal, other._target)
        return self.capacity == other.capacity and all(np.array_equal(a, b) for a, b in zip(mine, theirs, strict=True))
