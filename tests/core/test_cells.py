"""The cells network (tabletop.core.cells, the ``cells`` architecture of
tabletop.core.network): Terra Nova's cell geometry against its encoding, the forward
pass against a cell-by-cell reading of docs/bots.md ("The cells network"), its meta and
its file."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'tabletop[rl]')")

from tabletop import GameConfig, make  # noqa: E402
from tabletop.core.cells import NO_CELL, cell_geometry_of  # noqa: E402
from tabletop.core.encoding import encoding_of  # noqa: E402
from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.core.network import NetworkFileError, NetworkMeta, PolicyValueNetwork, cell_inputs_of  # noqa: E402
from tabletop.games.terranova.moves import Pass, Place, Slide, Stone  # noqa: E402

TERRA_NOVA = GameConfig(num_players=2)


@pytest.fixture(scope="module")
def cells() -> PolicyValueNetwork:
    network = PolicyValueNetwork.random(
        "terranova", TERRA_NOVA, (8, 8, 8), seed=3, architecture="cells", value_hidden=6, value="placing"
    )
    # Larger output weights than a new network's, so logits and values differ clearly.
    rng = np.random.default_rng(1)
    bigger = {
        name: (array + rng.normal(0, 0.5, array.shape)).astype(np.float32) for name, array in network.params.items()
    }
    return network.with_params(bigger)


def test_terra_nova_s_geometry_is_its_board_and_its_actions() -> None:
    encoding = encoding_of(make("terranova"), TERRA_NOVA)
    geometry = cell_geometry_of(encoding)
    board = encoding.board  # type: ignore[attr-defined]
    n = board.num_cells
    assert geometry.num_cells == n and geometry.num_neighbours == 6
    for cell, around in enumerate(geometry.neighbours):
        for direction, other in enumerate(around):
            if other != NO_CELL:  # a neighbour's neighbour the other way round is the cell
                assert geometry.neighbours[other][(direction + 3) % 6] == cell
    assert len(geometry.action_classes) == encoding.num_distinct_actions
    for action in range(encoding.num_distinct_actions):
        first, second = geometry.action_cells[action]
        try:
            move = encoding.decode(action)
        except ValueError:  # a slide off the board: never legal, its end reads nothing
            assert second == NO_CELL
            continue
        if isinstance(move, Place | Stone):
            assert (first, second) == (move.cell, NO_CELL)
            assert geometry.action_heads[action][0] == (0 if isinstance(move, Place) else 1)
        elif isinstance(move, Slide):
            assert (first, second) == (move.src, move.dst)
            assert geometry.action_heads[action][1] == geometry.action_heads[action][0] + 6
        else:
            assert isinstance(move, Pass) and (first, second) == (NO_CELL, NO_CELL)


def _cell_by_cell(network: PolicyValueNetwork, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """docs/bots.md's cells network, one cell and one action at a time, in float64."""
    p = {name: array.astype(np.float64) for name, array in network.params.items()}
    inputs = cell_inputs_of(network.meta)
    g = inputs.geometry
    split = inputs.num_planes * inputs.plane_size
    vector = x[split:].astype(np.float64)
    squashed = vector / (1 + np.abs(vector))
    planes = x[:split].astype(np.float64).reshape(inputs.num_planes, inputs.plane_size)
    h = [
        np.maximum(np.concatenate([planes[:, g.positions[c]], squashed]) @ p["w0"] + p["b0"], 0)
        for c in range(g.num_cells)
    ]
    width = network.meta.hidden[0]
    for layer in range(1, len(network.meta.hidden)):
        read = [
            np.concatenate([h[c], *[h[j] if j != NO_CELL else np.zeros(width) for j in g.neighbours[c]]])
            for c in range(g.num_cells)
        ]
        h = [h[c] + np.maximum(read[c] @ p[f"w{layer}"] + p[f"b{layer}"], 0) for c in range(g.num_cells)]
    summary = np.concatenate([np.mean(h, axis=0), np.max(h, axis=0), squashed])
    logits = []
    for action, klass in enumerate(g.action_classes):
        logit = p["policy_b"][klass] + summary @ p["policy_global_w"][:, klass]
        for cell, head in zip(g.action_cells[action], g.action_heads[action], strict=True):
            if cell != NO_CELL:
                logit += h[cell] @ p["policy_w"][:, head]
        logits.append(logit)
    z = np.maximum(summary @ p["value_hidden_w"] + p["value_hidden_b"], 0) @ p["value_w"] + p["value_b"]
    return np.array(logits), np.exp(z) / np.exp(z).sum()


def test_the_forward_pass_is_the_documented_one_cell_by_cell(cells: PolicyValueNetwork) -> None:
    game = make("terranova")
    state = game.new_initial_state(GameConfig(num_players=2, seed=4))
    for _ in range(40):
        state = state.apply(state.legal_moves()[len(state.legal_moves()) // 2])
    x = cells.input_of(state)
    expected_logits, expected_values = _cell_by_cell(cells, x)
    logits, values = cells.forward(x)
    assert np.std(expected_logits) > 0.5
    np.testing.assert_allclose(logits, expected_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(values, expected_values, rtol=1e-4, atol=1e-6)
    batch_logits, _ = cells.forward(np.stack([x, x * 0]))
    np.testing.assert_allclose(batch_logits[0], logits, rtol=1e-5, atol=1e-5)
    policy = cells.policy(state)
    assert set(policy) == set(encoding_of(game, state.config).legal_actions(state))
    assert sum(policy.values()) == pytest.approx(1.0)


def test_a_cells_network_round_trips_through_its_file(cells: PolicyValueNetwork, tmp_path: Path) -> None:
    cells.save(tmp_path / "cells.npz")
    loaded = PolicyValueNetwork.load(tmp_path / "cells.npz")
    assert loaded.meta == cells.meta and loaded.meta.architecture == "cells" and loaded.meta.value_hidden == 6
    for name, array in cells.params.items():
        np.testing.assert_array_equal(loaded.params[name], array)
    # A file missing a cells array says which.
    arrays = dict(cells.params)
    del arrays["policy_global_w"]
    with pytest.raises(NetworkFileError, match="policy_global_w"):
        PolicyValueNetwork(cells.meta, arrays)


def test_the_meta_of_a_cells_network_is_checked(cells: PolicyValueNetwork) -> None:
    data = cells.meta.to_json()
    for change, message in [
        ({"architecture": "conv"}, "architecture must be one of"),
        ({"hidden": [8, 4]}, "all one width"),
        ({"value_hidden": 0}, "value_hidden must be"),
        ({"value_hidden": 1 << 20}, "value_hidden must be"),
        ({"architecture": "dense"}, "value_hidden is for cells networks only"),
    ]:
        with pytest.raises(NetworkFileError, match=message):
            NetworkMeta.from_json({**data, **change})
    older = {key: value for key, value in data.items() if key not in ("architecture", "value_hidden")}
    assert NetworkMeta.from_json(older).architecture == "dense"
    with pytest.raises(ConfigError, match="no cell geometry"):
        PolicyValueNetwork.random("medina", GameConfig(num_players=3), (8,), architecture="cells")
