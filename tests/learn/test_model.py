"""The network in JAX (tabletop.learn.model): the same function as the NumPy definition,
the loss as documented, Adam's state on disk, and training that learns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.learn.conftest import NO_JAX, NO_NUMPY

np = pytest.importorskip("numpy", reason=NO_NUMPY)
jax = pytest.importorskip("jax", reason=NO_JAX)

from tabletop import GameConfig  # noqa: E402
from tabletop.core.network import PolicyValueNetwork, softmax  # noqa: E402
from tabletop.learn.model import AdamState, Batch, Hyper, Trainer, loss, params_of, predict  # noqa: E402


@pytest.fixture(scope="module", params=["dense", "cells"])
def network(request: pytest.FixtureRequest) -> PolicyValueNetwork:
    if request.param == "cells":  # layers shared by the cells of Terra Nova's board
        return PolicyValueNetwork.random(
            "terranova", GameConfig(num_players=2), (8, 8, 8), seed=4, architecture="cells", value_hidden=16
        )
    return PolicyValueNetwork.random("medina", GameConfig(num_players=3), (32, 16), seed=4)


def _batch(network: PolicyValueNetwork, size: int, seed: int) -> Batch:
    rng = np.random.default_rng(seed)
    meta = network.meta
    x = rng.random((size, meta.input_size), dtype=np.float32)
    legal = rng.random((size, meta.num_actions)) < 0.05
    legal[:, 0] = True
    policy = np.where(legal, rng.random((size, meta.num_actions)), 0.0).astype(np.float32)
    policy /= policy.sum(axis=1, keepdims=True)
    value = rng.dirichlet(np.ones(meta.num_players), size).astype(np.float32)
    return Batch(x, legal, policy, value)


def test_jax_forward_equals_the_numpy_definition(network: PolicyValueNetwork) -> None:
    x = np.random.default_rng(0).random((5, network.meta.input_size), dtype=np.float32)
    logits, values = predict(params_of(network), x, network.meta)
    expected_logits, expected_values = network.forward(x)
    np.testing.assert_allclose(np.asarray(logits), expected_logits, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(values), expected_values, rtol=1e-4, atol=1e-6)


def test_loss_is_the_documented_cross_entropies(network: PolicyValueNetwork) -> None:
    batch = _batch(network, 6, seed=1)
    l2 = 0.01
    total, (policy_loss, value_loss) = loss(params_of(network), batch, network.meta, l2)
    logits, values = network.forward(batch.x)
    expected_policy = 0.0
    for row in range(6):
        legal = np.flatnonzero(batch.legal[row])
        log_p = np.log(softmax(logits[row, legal].astype(np.float64)))
        expected_policy -= float(batch.policy[row, legal] @ log_p) / 6
    expected_value = -float(np.mean(np.sum(batch.value * np.log(values.astype(np.float64)), axis=1)))
    weights = sum(float(np.sum(v.astype(np.float64) ** 2)) for k, v in network.params.items() if "w" in k)
    assert float(policy_loss) == pytest.approx(expected_policy, rel=1e-4)
    assert float(value_loss) == pytest.approx(expected_value, rel=1e-4)
    assert float(total) == pytest.approx(expected_policy + expected_value + l2 * weights, rel=1e-4)


def test_evaluate_is_the_loss_without_learning(network: PolicyValueNetwork) -> None:
    batch = _batch(network, 6, seed=3)
    trainer = Trainer(network, Hyper(learning_rate=3e-3, l2=0.5))
    before = {k: np.asarray(v).copy() for k, v in trainer.params.items()}
    policy_loss, value_loss = trainer.evaluate(batch)
    _, (expected_policy, expected_value) = loss(params_of(network), batch, network.meta, 0.0)
    assert policy_loss == pytest.approx(float(expected_policy), rel=1e-5)
    assert value_loss == pytest.approx(float(expected_value), rel=1e-5)
    assert all(np.array_equal(np.asarray(trainer.params[k]), v) for k, v in before.items())
    assert trainer.state.step == 0
    # After a step on the batch its loss is lower: evaluate reads the current weights.
    trainer.step(batch)
    assert sum(trainer.evaluate(batch)) < policy_loss + value_loss


def test_training_fits_a_fixed_batch(network: PolicyValueNetwork) -> None:
    batch = _batch(network, 16, seed=2)
    # The least a cross-entropy can be is the targets' own entropy.
    visited = batch.policy[batch.policy > 0]
    floor = -float(np.sum(visited * np.log(visited))) / len(batch.policy)
    floor -= np.mean(np.sum(batch.value * np.log(batch.value), axis=1))
    trainer = Trainer(network, Hyper(learning_rate=3e-3, l2=0.0))
    first = trainer.step(batch)[0]
    for _ in range(60):
        last = trainer.step(batch)[0]
    assert last - floor < 0.5 * (first - floor)
    trained = trainer.trained("test")
    assert trained.meta.made_by == "test" and trained.meta.hidden == network.meta.hidden
    assert not np.array_equal(trained.params["w0"], network.params["w0"])
    # The trained weights in the file compute what the JAX model computes.
    logits, _ = predict(trainer.params, batch.x, trainer.network.meta)
    np.testing.assert_allclose(trained.forward(batch.x)[0], np.asarray(logits), rtol=1e-4, atol=1e-5)


def test_illegal_actions_get_no_gradient() -> None:
    # A dense network's bias per action id shows it (a cells network's biases are per
    # action class, shared by legal and illegal actions).
    network = PolicyValueNetwork.random("medina", GameConfig(num_players=3), (32, 16), seed=4)
    batch = _batch(network, 4, seed=3)
    grads = jax.grad(lambda p: loss(p, batch, network.meta, 0.0)[1][0])(params_of(network))
    never_legal = ~batch.legal.any(axis=0)
    assert np.all(np.asarray(grads["policy_b"])[never_legal] == 0.0)
    assert np.any(np.asarray(grads["policy_b"])[~never_legal] != 0.0)


def test_optimizer_state_round_trip(network: PolicyValueNetwork, tmp_path: Path) -> None:
    trainer = Trainer(network, Hyper())
    trainer.step(_batch(network, 4, seed=5))
    trainer.state.save(tmp_path / "adam.npz")
    loaded = AdamState.load(tmp_path / "adam.npz", trainer.params)
    assert loaded.step == 1
    for name in trainer.params:
        np.testing.assert_array_equal(np.asarray(loaded.first[name]), np.asarray(trainer.state.first[name]))
        np.testing.assert_array_equal(np.asarray(loaded.second[name]), np.asarray(trainer.state.second[name]))
    other = PolicyValueNetwork.random("medina", GameConfig(num_players=3), (8,), seed=0)
    with pytest.raises(ValueError, match="does not match"):
        AdamState.load(tmp_path / "adam.npz", params_of(other))
