"""The policy and value network in JAX: forward, loss and the Adam step (the ``train`` extra).

:func:`forward` computes exactly ``tabletop.core.network.PolicyValueNetwork.forward`` (the
definition, dense or cells by the meta's ``architecture``; ``tests/learn/test_model.py``
holds them equal for both), on the same arrays by the same names, so a network goes to
training and back by :func:`params_of` and :func:`network_with`.

**The loss** of a batch of positions, each from the view of its seat to act:

- policy: the cross-entropy of the network's policy (softmax of the logits over the
  position's legal actions) against the search's visit distribution at that position;
- value: the cross-entropy of the value head (a softmax over the seats, relative to the
  seat to act) against the game's final win shares in that order;
- L2: ``l2`` times the sum of the squared weights (not the biases).

**Adam** is written out here (:func:`adam_step`, Kingma & Ba's update with bias
correction) rather than taken from optax: it is a dozen lines, its state is three plain
arrays per weight that a checkpoint stores in the same ``.npz`` form as the network
(optax's state is a tree of named tuples that would need pickling or its own
serialisation), and the extra stays JAX alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import jax
import jax.numpy as jnp
import numpy as np

from tabletop.core.network import NetworkMeta, PolicyValueNetwork, cell_inputs_of

Params = dict[str, jax.Array]

MASKED_LOGIT: Final = -1e30
"""The logit given to illegal actions in the loss (finite, so no ``inf - inf``)."""


@dataclass(frozen=True, slots=True)
class Hyper:
    """The training settings.

    Attributes:
        learning_rate: Adam's step size.
        l2: the weight of the L2 penalty on the weights.
        beta1: Adam's first-moment decay.
        beta2: Adam's second-moment decay.
        epsilon: Adam's denominator guard.
    """

    learning_rate: float = 1e-3
    l2: float = 1e-4
    beta1: float = 0.9
    beta2: float = 0.999
    epsilon: float = 1e-8


@dataclass(frozen=True, slots=True)
class AdamState:
    """Adam's state: the step count and the two moment estimates of every array."""

    step: int
    first: Params
    second: Params

    @classmethod
    def zeros(cls, params: Mapping[str, jax.Array]) -> AdamState:
        """The state before the first step."""
        zeros = {k: jnp.zeros_like(v) for k, v in params.items()}
        return cls(0, zeros, dict(zeros))

    def save(self, path: Path) -> None:
        """Writes the state as an ``.npz`` (``step``, ``first_<name>``, ``second_<name>``)."""
        arrays: dict[str, Any] = {"step": np.array(self.step, np.int64)}
        arrays |= {f"first_{k}": np.asarray(v) for k, v in self.first.items()}
        arrays |= {f"second_{k}": np.asarray(v) for k, v in self.second.items()}
        temporary = path.with_name(path.name + ".part")
        with temporary.open("wb") as stream:
            np.savez(stream, **arrays)
        temporary.replace(path)

    @classmethod
    def load(cls, path: Path, params: Mapping[str, jax.Array]) -> AdamState:
        """Reads a state written by :meth:`save` for arrays shaped as ``params``.

        Raises:
            ValueError: if the file does not match ``params``.
        """
        with np.load(path, allow_pickle=False) as data:
            first: Params = {}
            second: Params = {}
            for name, value in params.items():
                for kind, into in (("first", first), ("second", second)):
                    key = f"{kind}_{name}"
                    if key not in data.files or data[key].shape != value.shape:
                        raise ValueError(f"{path}: the optimizer state does not match the network ({key})")
                    into[name] = jnp.asarray(data[key], jnp.float32)
            step = int(data["step"])
        return cls(step, first, second)


def params_of(network: PolicyValueNetwork) -> Params:
    """The network's arrays as JAX arrays."""
    return {name: jnp.asarray(value) for name, value in network.params.items()}


def network_with(network: PolicyValueNetwork, params: Mapping[str, jax.Array], made_by: str) -> PolicyValueNetwork:
    """``network`` (its meta) with the trained arrays ``params``."""
    return network.with_params({name: np.asarray(value, np.float32) for name, value in params.items()}, made_by)


def forward(params: Mapping[str, jax.Array], x: jax.Array, meta: NetworkMeta) -> tuple[jax.Array, jax.Array]:
    """The policy logits and the value logits (before their softmax) of a batch ``x`` of
    the network ``meta`` describes (dense or cells)."""
    if meta.architecture == "cells":
        return _forward_cells(params, x, meta)
    h = x
    for i in range(len(meta.hidden)):
        h = jax.nn.relu(h @ params[f"w{i}"] + params[f"b{i}"])
    return h @ params["policy_w"] + params["policy_b"], h @ params["value_w"] + params["value_b"]


def _forward_cells(params: Mapping[str, jax.Array], x: jax.Array, meta: NetworkMeta) -> tuple[jax.Array, jax.Array]:
    """``PolicyValueNetwork._forward_cells`` in JAX, before the value's softmax."""
    inputs = cell_inputs_of(meta)
    index = inputs.index_arrays()
    b = x.shape[0]
    width = meta.hidden[0]
    split = inputs.num_planes * inputs.plane_size
    planes = x[:, :split].reshape(b, inputs.num_planes, inputs.plane_size)[:, :, index["positions"]]
    raw = x[:, split:]
    vector = raw / (1.0 + jnp.abs(raw))
    n = planes.shape[2]
    cell_in = jnp.concatenate(
        [planes.transpose(0, 2, 1), jnp.broadcast_to(vector[:, None, :], (b, n, inputs.vector_size))], axis=2
    )
    h = jax.nn.relu(cell_in @ params["w0"] + params["b0"])
    zero_row = jnp.zeros((b, 1, width), h.dtype)
    for i in range(1, len(meta.hidden)):
        around = jnp.concatenate([h, zero_row], axis=1)[:, index["gather"], :].reshape(b, n, -1)
        h = h + jax.nn.relu(around @ params[f"w{i}"] + params[f"b{i}"])
    summary = jnp.concatenate([h.mean(axis=1), h.max(axis=1), vector], axis=1)
    heads = h @ params["policy_w"]
    heads = jnp.concatenate([heads, jnp.zeros((b, 1, heads.shape[2]), heads.dtype)], axis=1)
    cells, read, classes = index["action_cells"], index["action_heads"], index["action_classes"]
    logits = (
        heads[:, cells[:, 0], read[:, 0]]
        + heads[:, cells[:, 1], read[:, 1]]
        + params["policy_b"][classes]
        + (summary @ params["policy_global_w"])[:, classes]
    )
    hidden = jax.nn.relu(summary @ params["value_hidden_w"] + params["value_hidden_b"])
    return logits, hidden @ params["value_w"] + params["value_b"]


def predict(params: Mapping[str, jax.Array], x: jax.Array, meta: NetworkMeta) -> tuple[jax.Array, jax.Array]:
    """What ``PolicyValueNetwork.forward`` returns: the policy logits and the values."""
    logits, value_logits = forward(params, x, meta)
    return logits, jax.nn.softmax(value_logits, axis=-1)


@dataclass(frozen=True, slots=True)
class Batch:
    """Positions to learn from, each from the view of its seat to act.

    Attributes:
        x: the network inputs ``(B, I)``.
        legal: ``(B, A)``, true at each legal action.
        policy: ``(B, A)``, the search's visit distribution (0 off the legal actions).
        value: ``(B, P)``, the final win shares, seat order relative to the seat to act.
    """

    x: Any
    legal: Any
    policy: Any
    value: Any


def loss(
    params: Mapping[str, jax.Array], batch: Batch, meta: NetworkMeta, l2: float
) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
    """The mean loss of the batch (see the module docstring), with its policy and value parts."""
    logits, value_logits = forward(params, batch.x, meta)
    masked = jnp.where(batch.legal, logits, MASKED_LOGIT)
    policy_loss = -jnp.mean(jnp.sum(batch.policy * jax.nn.log_softmax(masked, axis=-1), axis=-1))
    value_loss = -jnp.mean(jnp.sum(batch.value * jax.nn.log_softmax(value_logits, axis=-1), axis=-1))
    penalty = sum(jnp.sum(jnp.square(v)) for k, v in params.items() if k.startswith("w") or k.endswith("_w"))
    return policy_loss + value_loss + l2 * penalty, (policy_loss, value_loss)


def adam_step(
    params: Mapping[str, jax.Array],
    grads: Mapping[str, jax.Array],
    first: Mapping[str, jax.Array],
    second: Mapping[str, jax.Array],
    step: jax.Array | int,
    hyper: Hyper,
) -> tuple[Params, Params, Params]:
    """One Adam update, the ``step``-th (counted from 1): the new params and moments."""
    new_first = {k: hyper.beta1 * first[k] + (1 - hyper.beta1) * g for k, g in grads.items()}
    new_second = {k: hyper.beta2 * second[k] + (1 - hyper.beta2) * g * g for k, g in grads.items()}
    scale1 = 1.0 / (1 - hyper.beta1**step)
    scale2 = 1.0 / (1 - hyper.beta2**step)
    updated = {
        k: p - hyper.learning_rate * (new_first[k] * scale1) / (jnp.sqrt(new_second[k] * scale2) + hyper.epsilon)
        for k, p in params.items()
    }
    return updated, new_first, new_second


class Trainer:
    """Trains one network: :func:`loss`'s gradient and :func:`adam_step`, jitted as one step."""

    def __init__(self, network: PolicyValueNetwork, hyper: Hyper, state: AdamState | None = None) -> None:
        self.network = network
        self.hyper = hyper
        self.params = params_of(network)
        self.state = state if state is not None else AdamState.zeros(self.params)
        meta = network.meta

        def update(
            params: Params, first: Params, second: Params, step: jax.Array, batch: Batch
        ) -> tuple[Params, Params, Params, jax.Array, jax.Array, jax.Array]:
            (total, (policy_loss, value_loss)), grads = jax.value_and_grad(loss, has_aux=True)(
                params, batch, meta, hyper.l2
            )
            params, first, second = adam_step(params, grads, first, second, step, hyper)
            return params, first, second, total, policy_loss, value_loss

        self._update = jax.jit(update)
        self._loss = jax.jit(lambda params, batch: loss(params, batch, meta, 0.0)[1])

    def step(self, batch: Batch) -> tuple[float, float, float]:
        """One update on ``batch``; returns the total, policy and value loss before it."""
        state = self.state
        step = state.step + 1
        params, first, second, total, policy_loss, value_loss = self._update(
            self.params, state.first, state.second, jnp.asarray(step, jnp.float32), batch
        )
        self.params, self.state = params, AdamState(step, first, second)
        return float(total), float(policy_loss), float(value_loss)

    def evaluate(self, batch: Batch) -> tuple[float, float]:
        """The policy and value loss of ``batch`` under the weights so far, learning nothing from it."""
        policy_loss, value_loss = self._loss(self.params, batch)
        return float(policy_loss), float(value_loss)

    def trained(self, made_by: str) -> PolicyValueNetwork:
        """The network with the weights trained so far."""
        return network_with(self.network, self.params, made_by)


jax.tree_util.register_dataclass(Batch, data_fields=["x", "legal", "policy", "value"], meta_fields=[])
