"""The policy and value network: its definition, its file, and its evaluation in NumPy.

One network per game, player count and ruleset.  Its input is the research encoding of
a position from the view of the seat to act (``tabletop.core.encoding``): the planes
flattened in C order (channel, row, column), then the vector of global numbers.  A trunk
of fully connected layers with ReLU feeds two heads:

* the **policy**: one logit per action id of the encoding; the policy of a position is
  the softmax over its legal actions only;
* the **value**: a softmax over the seats in turn order *from the seat to act* (index 0
  is the seat to act, 1 the next seat, ...), each the predicted final win share of that
  seat (``State.returns()``: 1 for a sole winner, ``1/k`` each for ``k`` tied winners).

This module is the readable definition and the test oracle of the network: the Rust
inference of the search (``docs/bots.md``, "Learned bot") and the JAX model that trains
it (``tabletop.learn``) compute exactly :meth:`PolicyValueNetwork.forward`.

**The file** is a NumPy ``.npz`` (``numpy.savez``, no pickle) with float32 (or, in a
file written with ``half=True``, float16: half the size, widened exactly on reading) arrays ``w0,
b0, w1, b1, ...`` (``w{i}`` of shape ``[in, out]``), ``policy_w [H, A]``, ``policy_b
[A]``, ``value_w [H, P]``, ``value_b [P]`` and ``meta``, a 0-d string array holding
JSON (:class:`NetworkMeta`, its ``format`` :data:`FORMAT`).  A file is input like any
other: :meth:`PolicyValueNetwork.load` refuses, with a :class:`NetworkFileError` that
says why, a file over :data:`MAX_FILE_BYTES`, one that is not such an archive, has
arrays missing, extra, of another type or shape than its meta says, or values that are
not finite.

NumPy comes with the ``rl`` extra: import this module only where NumPy is needed.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import os
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from tabletop.core.cells import NO_CELL, CellGeometry, cell_geometry_of
from tabletop.core.encoding import Encoding, encoding_of
from tabletop.core.errors import TabletopError
from tabletop.core.protocol import Game, GameConfig, PlayerId, State
from tabletop.core.registry import make

FORMAT: Final = "tabletop-pv-1"
"""The ``format`` of the meta of the files this module reads and writes."""

MAX_FILE_BYTES: Final = 256 * 1024 * 1024
"""The largest network file :meth:`PolicyValueNetwork.load` reads (and the largest sum of
its arrays' uncompressed sizes): a shipped network is a few MB, a big experiment's tens."""

MAX_META_BYTES: Final = 64 * 1024
"""The largest ``meta`` JSON text accepted."""

ARCHITECTURES: Final = ("dense", "cells")
"""How the trunk is built (:attr:`NetworkMeta.architecture`)."""

MAX_VALUE_HIDDEN: Final = 4096
"""The widest hidden layer of a cells network's value head."""

VALUE_KINDS: Final = ("win", "placing")
"""What a value head may estimate (:attr:`NetworkMeta.value`)."""

MAX_LAYERS: Final = 16
"""The most hidden layers a network file may declare."""

Array = npt.NDArray[np.float32]


class NetworkFileError(TabletopError, ValueError):
    """A network file that cannot be read, or does not hold a network of this format."""


@dataclass(frozen=True, slots=True)
class NetworkMeta:
    """What a network is for, and where it came from.

    Attributes:
        game: the game id.
        num_players: seats (the value head has one entry per seat).
        ruleset: the ruleset preset of the games it learned from.
        input_size: length of the input vector (the encoding's planes and vector).
        num_actions: the encoding's ``num_distinct_actions`` (the policy head's size).
        hidden: the widths of the hidden layers, first to last.
        made_by: the command, seed and hours that made it (free text, for people).
        value: what the value head's softmax estimates: ``"win"`` (each seat's final win
            share; files that do not say) or ``"placing"`` (each seat's share of the rivals
            it finishes ahead of, ties half, divided by ``num_players / 2`` so the seats'
            values sum to 1: :meth:`value_scale` undoes that).
        architecture: ``"dense"`` (files that do not say: fully connected layers over
            the whole input) or ``"cells"`` (layers shared by every cell of the board,
            each reading its neighbours: the module docstring).
        value_hidden: a cells network's value head's hidden width (0 for a dense one).
    """

    game: str
    num_players: int
    ruleset: str
    input_size: int
    num_actions: int
    hidden: tuple[int, ...]
    made_by: str = ""
    value: str = "win"
    architecture: str = "dense"
    value_hidden: int = 0

    def __post_init__(self) -> None:
        if self.value not in VALUE_KINDS:
            raise NetworkFileError(f"the network's meta: value must be one of {list(VALUE_KINDS)}, got {self.value!r}")
        if self.architecture not in ARCHITECTURES:
            raise NetworkFileError(
                f"the network's meta: architecture must be one of {list(ARCHITECTURES)}, got {self.architecture!r}"
            )
        if self.architecture == "cells":
            if len(set(self.hidden)) != 1:
                raise NetworkFileError(
                    f"the network's meta: a cells network's layers are all one width, got {list(self.hidden)}"
                )
            if not 1 <= self.value_hidden <= MAX_VALUE_HIDDEN:
                raise NetworkFileError(
                    f"the network's meta: value_hidden must be 1..{MAX_VALUE_HIDDEN} for a cells network, "
                    f"got {self.value_hidden!r}"
                )
        elif self.value_hidden != 0:
            raise NetworkFileError("the network's meta: value_hidden is for cells networks only")

    @property
    def value_scale(self) -> float:
        """What the value head's softmax is multiplied by to give :attr:`value`'s values."""
        return self.num_players / 2 if self.value == "placing" else 1.0

    def to_json(self) -> dict[str, Any]:
        """The meta as the file stores it."""
        return {
            "format": FORMAT,
            "game": self.game,
            "num_players": self.num_players,
            "ruleset": self.ruleset,
            "input_size": self.input_size,
            "num_actions": self.num_actions,
            "hidden": list(self.hidden),
            "made_by": self.made_by,
            "value": self.value,
            "architecture": self.architecture,
            "value_hidden": self.value_hidden,
        }

    @classmethod
    def from_json(cls, data: object) -> NetworkMeta:
        """The inverse of :meth:`to_json`, checking every field.

        Raises:
            NetworkFileError: naming the first field that is missing or wrong.
        """
        if not isinstance(data, dict):
            raise NetworkFileError("the network's meta is not a JSON object")
        if data.get("format") != FORMAT:
            raise NetworkFileError(f"the network's format is {data.get('format')!r}, expected {FORMAT!r}")

        def whole(name: str, low: int, high: int) -> int:
            value = data.get(name)
            if type(value) is not int or not low <= value <= high:
                raise NetworkFileError(
                    f"the network's meta: {name} must be a whole number {low}..{high}, got {value!r}"
                )
            return value

        def text(name: str) -> str:
            value = data.get(name)
            if not isinstance(value, str):
                raise NetworkFileError(f"the network's meta: {name} must be a string, got {value!r}")
            return value

        hidden = data.get("hidden")
        if (
            not isinstance(hidden, list)
            or not 1 <= len(hidden) <= MAX_LAYERS
            or any(type(h) is not int or not 1 <= h <= 1 << 16 for h in hidden)
        ):
            raise NetworkFileError(
                f"the network's meta: hidden must be 1..{MAX_LAYERS} layer widths of 1..65536, got {hidden!r}"
            )
        return cls(
            game=text("game"),
            num_players=whole("num_players", 1, 16),
            ruleset=text("ruleset"),
            input_size=whole("input_size", 1, 1 << 24),
            num_actions=whole("num_actions", 1, 1 << 24),
            hidden=tuple(hidden),
            made_by=text("made_by"),
            value=text("value") if "value" in data else "win",
            architecture=text("architecture") if "architecture" in data else "dense",
            value_hidden=whole("value_hidden", 0, MAX_VALUE_HIDDEN) if "value_hidden" in data else 0,
        )

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of every array of the file (but ``meta``), by name.

        Raises:
            ConfigError: for a cells network of a game without a cell geometry.
        """
        if self.architecture == "cells":
            return self._cells_shapes(cell_inputs_of(self))
        widths = [self.input_size, *self.hidden]
        shapes: dict[str, tuple[int, ...]] = {}
        for i, (fan_in, fan_out) in enumerate(itertools.pairwise(widths)):
            shapes[f"w{i}"] = (fan_in, fan_out)
            shapes[f"b{i}"] = (fan_out,)
        last = widths[-1]
        shapes["policy_w"] = (last, self.num_actions)
        shapes["policy_b"] = (self.num_actions,)
        shapes["value_w"] = (last, self.num_players)
        shapes["value_b"] = (self.num_players,)
        return shapes

    def _cells_shapes(self, inputs: CellInputs) -> dict[str, tuple[int, ...]]:
        width, geometry = self.hidden[0], inputs.geometry
        summary = 2 * width + inputs.vector_size
        shapes: dict[str, tuple[int, ...]] = {"w0": (inputs.num_planes + inputs.vector_size, width), "b0": (width,)}
        for i in range(1, len(self.hidden)):
            shapes[f"w{i}"] = ((1 + geometry.num_neighbours) * width, width)
            shapes[f"b{i}"] = (width,)
        shapes["policy_w"] = (width, geometry.num_heads)
        shapes["policy_b"] = (geometry.num_classes,)
        shapes["policy_global_w"] = (summary, geometry.num_classes)
        shapes["value_hidden_w"] = (summary, self.value_hidden)
        shapes["value_hidden_b"] = (self.value_hidden,)
        shapes["value_w"] = (self.value_hidden, self.num_players)
        shapes["value_b"] = (self.num_players,)
        return shapes

    def config(self) -> GameConfig:
        """The game configuration the network plays (the default board of the ruleset)."""
        return GameConfig(num_players=self.num_players, ruleset=self.ruleset)


@dataclass(frozen=True, slots=True)
class CellInputs:
    """What a cells network reads of its game: the cell geometry and the input's parts.

    Attributes:
        geometry: the board's cells and the actions' cells.
        num_planes: planes of the input (each ``plane_size`` values, then the vector).
        plane_size: values of one plane.
        vector_size: entries of the vector after the planes.
    """

    geometry: CellGeometry
    num_planes: int
    plane_size: int
    vector_size: int

    def index_arrays(self) -> dict[str, npt.NDArray[np.int64]]:
        """The geometry as index arrays, every missing cell as ``num_cells`` (a row of
        zeros appended to the cells): ``positions (N,)``, ``gather (N, 1 + K)`` (each
        cell, then its neighbours), ``action_cells (A, 2)``, ``action_heads (A, 2)``,
        ``action_classes (A,)``."""
        g = self.geometry
        n = g.num_cells
        missing = np.int64(n)
        gather = np.concatenate(
            [np.arange(n, dtype=np.int64)[:, None], np.asarray(g.neighbours, np.int64).reshape(n, -1)], axis=1
        )
        cells = np.asarray(g.action_cells, np.int64).reshape(-1, 2)
        return {
            "positions": np.asarray(g.positions, np.int64),
            "gather": np.where(gather == NO_CELL, missing, gather),
            "action_cells": np.where(cells == NO_CELL, missing, cells),
            "action_heads": np.asarray(g.action_heads, np.int64).reshape(-1, 2),
            "action_classes": np.asarray(g.action_classes, np.int64),
        }


_CELL_INPUTS: dict[tuple[str, int, str], CellInputs] = {}


def cell_inputs_of(meta: NetworkMeta) -> CellInputs:
    """The :class:`CellInputs` of the network's game, seats and ruleset (cached).

    Raises:
        ConfigError: if the game has no cell geometry.
        NetworkFileError: if the meta's input size or action count do not fit the game's.
    """
    key = (meta.game, meta.num_players, meta.ruleset)
    found = _CELL_INPUTS.get(key)
    if found is None:
        encoding = encoding_of(make(meta.game), meta.config())
        spec = encoding.spec
        found = CellInputs(cell_geometry_of(encoding), len(spec.planes), spec.plane_size, len(spec.vector))
        if found.num_planes * found.plane_size + found.vector_size != meta.input_size:
            raise NetworkFileError(f"the network's input_size {meta.input_size} is not its game's")
        if len(found.geometry.action_classes) != meta.num_actions:
            raise NetworkFileError(f"the network's num_actions {meta.num_actions} is not its game's")
        _CELL_INPUTS[key] = found
    return found


def squash(vector: Array) -> Array:
    """``v / (1 + |v|)``: how a cells network reads the input's vector (counts and scores
    of any size, into -1 .. 1 without a scale per entry)."""
    out: Array = (vector / (np.float32(1.0) + np.abs(vector))).astype(np.float32)
    return out


def softmax(logits: Array, axis: int = -1) -> Array:
    """The softmax along ``axis`` (``-inf`` logits get probability 0)."""
    shifted = logits - np.max(logits, axis=axis, keepdims=True)
    e = np.exp(shifted)
    out: Array = e / np.sum(e, axis=axis, keepdims=True)
    return out


class PolicyValueNetwork:
    """A policy and value network (see the module docstring): weights and meta.

    Build one with :meth:`load`, :meth:`random` or from its arrays; the arrays are
    float32 and never changed by this class.

    Attributes:
        meta: what the network is for.
        params: the arrays by their file names (``w0``, ``b0``, ..., ``value_b``).
    """

    def __init__(self, meta: NetworkMeta, params: Mapping[str, npt.ArrayLike]) -> None:
        """Raises:
        NetworkFileError: if an array is missing, extra, of the wrong shape, or not finite.
        """
        shapes = meta.shapes()
        missing = [name for name in shapes if name not in params]
        extra = sorted(set(params) - set(shapes))
        if missing or extra:
            raise NetworkFileError(
                f"the network's arrays do not match its meta (hidden {list(meta.hidden)}): "
                f"missing {missing or 'none'}, unexpected {extra or 'none'}"
            )
        checked: dict[str, Array] = {}
        for name, shape in shapes.items():
            array = np.asarray(params[name])
            if array.dtype == np.float16:  # a file stored at half precision: widened exactly
                array = array.astype(np.float32)
            if array.dtype != np.float32:
                raise NetworkFileError(f"the network's array {name} is {array.dtype}, expected float32 or float16")
            if array.shape != shape:
                raise NetworkFileError(f"the network's array {name} has shape {array.shape}, expected {shape}")
            if not np.all(np.isfinite(array)):
                raise NetworkFileError(f"the network's array {name} holds values that are not finite")
            checked[name] = array
        self.meta = meta
        self.params: Mapping[str, Array] = checked
        self._encodings: dict[tuple[int, str], Encoding] = {}

    # -- making, reading and writing ---------------------------------------------------

    @classmethod
    def random(
        cls,
        game: str | Game,
        config: GameConfig,
        hidden: Sequence[int] = (256, 128),
        seed: int = 0,
        *,
        made_by: str = "",
        value: str = "win",
        architecture: str = "dense",
        value_hidden: int = 64,
    ) -> PolicyValueNetwork:
        """A network with fresh weights for ``game`` with ``config``'s seats and ruleset:
        He-normal trunk layers, small output layers (a near-uniform policy and value),
        zero biases.

        Raises:
            ConfigError: if the game has no encoding or the config is bad.
            NetworkFileError: for hidden widths out of range.
        """
        game_obj = make(game) if isinstance(game, str) else game
        encoding = encoding_of(game_obj, config)
        spec = encoding.spec
        meta = NetworkMeta.from_json(
            {
                "format": FORMAT,
                "game": game_obj.id,
                "num_players": config.num_players,
                "ruleset": config.ruleset,
                "input_size": len(spec.planes) * spec.plane_size + len(spec.vector),
                "num_actions": encoding.num_distinct_actions,
                "hidden": list(hidden),
                "made_by": made_by,
                "value": value,
                "architecture": architecture,
                "value_hidden": value_hidden if architecture == "cells" else 0,
            }
        )
        rng = np.random.default_rng(seed)
        params: dict[str, Array] = {}
        for name, shape in meta.shapes().items():
            if name.startswith("b") or name.endswith("_b"):
                params[name] = np.zeros(shape, np.float32)
            elif name.startswith("w") or name == "value_hidden_w":
                params[name] = (rng.standard_normal(shape) * math.sqrt(2.0 / shape[0])).astype(np.float32)
            else:  # an output layer: small, so a new network starts near uniform
                params[name] = (rng.standard_normal(shape) * (0.01 / math.sqrt(shape[0]))).astype(np.float32)
        return cls(meta, params)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PolicyValueNetwork:
        """Reads a network file (see the module docstring).

        Raises:
            NetworkFileError: if the file cannot be read or is not a valid network file.
        """
        path = Path(path)
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise NetworkFileError(f"{path} is bigger than {MAX_FILE_BYTES:,} bytes")
            with zipfile.ZipFile(path) as archive:
                unpacked = sum(info.file_size for info in archive.infolist())
            if unpacked > MAX_FILE_BYTES:
                raise NetworkFileError(f"{path} unpacks to more than {MAX_FILE_BYTES:,} bytes")
            with np.load(path, allow_pickle=False) as data:
                if "meta" not in data.files:
                    raise NetworkFileError(f"{path} has no meta array: not a {FORMAT} network")
                meta = _read_meta(data["meta"])
                params = {name: data[name] for name in data.files if name != "meta"}
            return cls(meta, params)
        except NetworkFileError as exc:
            message = str(exc)
            raise NetworkFileError(message if message.startswith(str(path)) else f"{path}: {message}") from None
        except (OSError, zipfile.BadZipFile, ValueError, EOFError) as exc:
            raise NetworkFileError(f"{path}: not a readable network file ({exc})") from None

    def save(self, path: str | os.PathLike[str], *, half: bool = False) -> None:
        """Writes the network file (uncompressed ``.npz``).

        With ``half`` the arrays are stored as float16, half the size (a network shipped
        in the package); the file then holds :meth:`halved`'s weights.  The file is
        written under a temporary name and then renamed, so a reader never sees half a
        file.

        Raises:
            OSError: if it cannot be written.
            NetworkFileError: with ``half``, for a weight beyond float16's range.
        """
        path = Path(path)
        params = dict(self.halved().params if half else self.params)
        stored = {name: array.astype(np.float16) if half else array for name, array in params.items()}
        temporary = path.with_name(path.name + ".part")
        meta = np.array(json.dumps(self.meta.to_json()))
        with temporary.open("wb") as stream:
            np.savez(stream, meta=meta, **stored)  # type: ignore[arg-type]
        temporary.replace(path)

    def halved(self) -> PolicyValueNetwork:
        """The network with every weight rounded to the nearest float16 (what a file saved
        with ``half=True`` holds).

        Raises:
            NetworkFileError: for a weight beyond float16's range (65,504).
        """
        with np.errstate(over="ignore"):
            rounded = {name: array.astype(np.float16).astype(np.float32) for name, array in self.params.items()}
        return PolicyValueNetwork(self.meta, rounded)

    def with_params(self, params: Mapping[str, npt.ArrayLike], made_by: str | None = None) -> PolicyValueNetwork:
        """The same network (meta) with other weights (and ``made_by``, if given)."""
        meta = self.meta if made_by is None else _replace_made_by(self.meta, made_by)
        return PolicyValueNetwork(meta, {name: np.asarray(value, np.float32) for name, value in params.items()})

    # -- evaluation ----------------------------------------------------------------------

    def forward(self, x: npt.ArrayLike) -> tuple[Array, Array]:
        """The policy logits ``(N, A)`` and the values ``(N, P)`` of a batch of inputs ``(N, I)``
        (one input of shape ``(I,)`` gives ``(A,)`` and ``(P,)``).  Values are in seat
        order relative to the seat to act; logits are over every action id (mask them
        with the legal actions: :meth:`policy`).

        Raises:
            ValueError: if the input's last axis is not ``input_size`` long.
        """
        h: Array = np.asarray(x, np.float32)
        if h.shape[-1:] != (self.meta.input_size,):
            raise ValueError(f"the network takes inputs of length {self.meta.input_size}, got shape {h.shape}")
        p = self.params
        if self.meta.architecture == "cells":
            return self._forward_cells(h)
        for i in range(len(self.meta.hidden)):
            h = np.maximum(h @ p[f"w{i}"] + p[f"b{i}"], np.float32(0.0))
        logits: Array = h @ p["policy_w"] + p["policy_b"]
        values = softmax(h @ p["value_w"] + p["value_b"])
        return logits, values

    def _forward_cells(self, x: Array) -> tuple[Array, Array]:
        """The cells network (see the module docstring) of inputs ``(..., I)``."""
        p = self.params
        inputs = cell_inputs_of(self.meta)
        index = inputs.index_arrays()
        batch = x.reshape(-1, self.meta.input_size)
        b = batch.shape[0]
        width = self.meta.hidden[0]
        split = inputs.num_planes * inputs.plane_size
        planes = batch[:, :split].reshape(b, inputs.num_planes, inputs.plane_size)[:, :, index["positions"]]
        vector = squash(batch[:, split:])
        n = planes.shape[2]
        cell_in = np.concatenate(
            [planes.transpose(0, 2, 1), np.broadcast_to(vector[:, None, :], (b, n, inputs.vector_size))], axis=2
        )
        h = np.maximum(cell_in @ p["w0"] + p["b0"], np.float32(0.0))
        zero_row = np.zeros((b, 1, width), np.float32)
        for i in range(1, len(self.meta.hidden)):
            around = np.concatenate([h, zero_row], axis=1)[:, index["gather"], :].reshape(b, n, -1)
            h = h + np.maximum(around @ p[f"w{i}"] + p[f"b{i}"], np.float32(0.0))
        summary = np.concatenate([h.mean(axis=1), h.max(axis=1), vector], axis=1)
        heads = np.concatenate([h @ p["policy_w"], np.zeros((b, 1, p["policy_w"].shape[1]), np.float32)], axis=1)
        cells, read, classes = index["action_cells"], index["action_heads"], index["action_classes"]
        rows = np.arange(b)[:, None]
        logits: Array = (
            heads[rows, cells[None, :, 0], read[None, :, 0]]
            + heads[rows, cells[None, :, 1], read[None, :, 1]]
            + p["policy_b"][classes]
            + (summary @ p["policy_global_w"])[:, classes]
        )
        hidden = np.maximum(summary @ p["value_hidden_w"] + p["value_hidden_b"], np.float32(0.0))
        values = softmax(hidden @ p["value_w"] + p["value_b"])
        shape = x.shape[:-1]
        return logits.reshape(*shape, -1), values.reshape(*shape, -1)

    def encoding_for(self, state: State) -> Encoding:
        """The encoding of ``state``'s game and configuration (a native state's is the
        native encoder's: the same values, written by Rust).

        Raises:
            ValueError: if ``state`` is not a position of the network's game, seats and ruleset.
        """
        config = state.config
        game = state.game
        if game.id != self.meta.game or config.num_players != self.meta.num_players:
            raise ValueError(
                f"the network plays {self.meta.game} with {self.meta.num_players} players, "
                f"not {game.id} with {config.num_players}"
            )
        if config.ruleset != self.meta.ruleset:
            raise ValueError(f"the network plays the ruleset {self.meta.ruleset!r}, not {config.ruleset!r}")
        key = (id(game), json.dumps({**config.to_json(), "seed": None, "start_player": None}, sort_keys=True))
        encoding = self._encodings.get(key)
        if encoding is None:
            encoding = self._encodings[key] = encoding_of(game, config)
            if encoding.num_distinct_actions != self.meta.num_actions:
                raise ValueError(
                    f"the position's encoding has {encoding.num_distinct_actions} actions, "
                    f"the network {self.meta.num_actions}"
                )
        return encoding

    def input_of(self, state: State) -> Array:
        """The network's input for ``state``, from the view of the seat to act: the
        planes flattened in C order, then the vector (float32, length ``input_size``).

        Raises:
            ValueError: if ``state`` is not a position of the network's game.
        """
        planes, vector = self.encoding_for(state).observe(state, state.current_player)
        x = np.concatenate([np.frombuffer(planes, np.float32), np.frombuffer(vector, np.float32)])
        if x.shape != (self.meta.input_size,):
            raise ValueError(f"the position's input has length {x.shape[0]}, the network takes {self.meta.input_size}")
        return x

    def policy(self, state: State) -> dict[int, float]:
        """The network's policy in ``state``: each legal action id's probability (the
        softmax of the logits over the legal actions only; they sum to 1).

        Raises:
            ValueError: if the game is over or ``state`` is not of the network's game.
        """
        legal = self.encoding_for(state).legal_actions(state)
        if not legal:
            raise ValueError("no legal actions: the game is over")
        logits, _ = self.forward(self.input_of(state))
        probabilities = softmax(logits[np.asarray(legal)])
        return {action: float(p) for action, p in zip(legal, probabilities, strict=True)}

    def values(self, state: State) -> tuple[float, ...]:
        """The predicted final win share or placing (:attr:`NetworkMeta.value`) of every
        seat, in absolute seat order (seat 0 first).

        Raises:
            ValueError: if ``state`` is not of the network's game.
        """
        _, relative = self.forward(self.input_of(state))
        return absolute_values((relative * self.meta.value_scale).tolist(), state.current_player)


def absolute_values(relative: Sequence[float], to_act: PlayerId) -> tuple[float, ...]:
    """Values in seat order from the seat to act (``relative[0]`` is ``to_act``'s) as
    values in absolute seat order."""
    n = len(relative)
    return tuple(relative[(seat - to_act) % n] for seat in range(n))


def relative_values(absolute: Sequence[float], to_act: PlayerId) -> tuple[float, ...]:
    """The inverse of :func:`absolute_values`: index 0 is ``to_act``'s value, 1 the next seat's."""
    n = len(absolute)
    return tuple(absolute[(to_act + i) % n] for i in range(n))


def _read_meta(raw: npt.NDArray[Any]) -> NetworkMeta:
    if raw.shape != () or raw.dtype.kind != "U":
        raise NetworkFileError("the network's meta must be a 0-d string array holding JSON")
    text = str(raw[()])
    if len(text) > MAX_META_BYTES:
        raise NetworkFileError(f"the network's meta is longer than {MAX_META_BYTES:,} characters")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise NetworkFileError(f"the network's meta is not JSON ({exc})") from None
    return NetworkMeta.from_json(data)


def _replace_made_by(meta: NetworkMeta, made_by: str) -> NetworkMeta:
    return dataclasses.replace(meta, made_by=made_by)
