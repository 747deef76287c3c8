"""The policy and value network (tabletop.core.network): shapes, masking, seat order, its file."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'tabletop[rl]')")

from tabletop import GameConfig, make  # noqa: E402
from tabletop.core.encoding import encoding_of  # noqa: E402
from tabletop.core.network import (  # noqa: E402
    FORMAT,
    NetworkFileError,
    NetworkMeta,
    PolicyValueNetwork,
    absolute_values,
    relative_values,
)

HIDDEN = (16, 8)


@pytest.fixture(scope="module")
def medina() -> PolicyValueNetwork:
    return PolicyValueNetwork.random("medina", GameConfig(num_players=3), HIDDEN, seed=5)


def test_forward_shapes_for_a_batch_and_one_input(medina: PolicyValueNetwork) -> None:
    meta = medina.meta
    x = np.random.default_rng(0).random((4, meta.input_size), dtype=np.float32)
    logits, values = medina.forward(x)
    assert logits.shape == (4, meta.num_actions) and values.shape == (4, 3)
    assert logits.dtype == np.float32 and values.dtype == np.float32
    np.testing.assert_allclose(values.sum(axis=1), 1.0, rtol=1e-6)
    one_logits, one_values = medina.forward(x[1])
    np.testing.assert_allclose(one_logits, logits[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(one_values, values[1], rtol=1e-5)
    with pytest.raises(ValueError, match="inputs of length"):
        medina.forward(x[:, :-1])


def test_forward_is_the_documented_layers(medina: PolicyValueNetwork) -> None:
    x = np.random.default_rng(1).random((2, medina.meta.input_size), dtype=np.float32)
    p = medina.params
    h = x
    for i in range(len(HIDDEN)):
        h = np.maximum(h @ p[f"w{i}"] + p[f"b{i}"], 0)
    value_logits = h @ p["value_w"] + p["value_b"]
    expected_values = np.exp(value_logits) / np.exp(value_logits).sum(axis=1, keepdims=True)
    logits, values = medina.forward(x)
    np.testing.assert_allclose(logits, h @ p["policy_w"] + p["policy_b"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(values, expected_values, rtol=1e-5)


@pytest.mark.parametrize(("game_id", "players"), [("medina", 3), ("terranova", 2)])
def test_policy_is_over_the_legal_actions_only(game_id: str, players: int) -> None:
    net = PolicyValueNetwork.random(game_id, GameConfig(num_players=players), HIDDEN, seed=2)
    # Big policy biases on actions that are not legal at the start must not leak into it.
    state = make(game_id).new_initial_state(GameConfig(num_players=players, seed=4))
    encoding = encoding_of(state.game, state.config)
    legal = encoding.legal_actions(state)
    illegal = sorted(set(range(net.meta.num_actions)) - set(legal))[:50]
    params = dict(net.params)
    bias = params["policy_b"].copy()
    bias[illegal] = 50.0
    net = net.with_params(params | {"policy_b": bias})
    policy = net.policy(state)
    assert sorted(policy) == legal
    assert sum(policy.values()) == pytest.approx(1.0, abs=1e-6)
    assert all(p > 0 for p in policy.values())
    logits, _ = net.forward(net.input_of(state))
    best = max(legal, key=lambda a: logits[a])
    assert max(policy, key=lambda a: policy[a]) == best


def test_input_is_planes_then_vector_from_the_seat_to_act(medina: PolicyValueNetwork) -> None:
    state = make("medina").new_initial_state(GameConfig(num_players=3, seed=9))
    state = state.apply(state.legal_moves()[0])
    encoding = encoding_of(state.game, state.config)
    planes, vector = encoding.observe(state, state.current_player)
    x = medina.input_of(state)
    assert x.shape == (medina.meta.input_size,) and x.dtype == np.float32
    np.testing.assert_array_equal(x, np.concatenate([np.asarray(planes), np.asarray(vector)]))


def test_native_and_python_states_give_the_same_input(medina: PolicyValueNetwork) -> None:
    from tabletop.native import has_native

    if not has_native("medina"):
        pytest.skip("the native extension is not built")
    config = GameConfig(num_players=3, seed=11)
    python = make("medina").new_initial_state(config)
    native = make("medina", engine="native").new_initial_state(config)
    for _ in range(5):
        move = python.legal_moves()[0]
        python, native = python.apply(move), native.apply(move)
    np.testing.assert_array_equal(medina.input_of(python), medina.input_of(native))
    assert medina.policy(python) == pytest.approx(medina.policy(native))


def test_values_are_in_absolute_seat_order(medina: PolicyValueNetwork) -> None:
    state = make("medina").new_initial_state(GameConfig(num_players=3, seed=3))
    while state.current_player == 0:
        state = state.apply(state.legal_moves()[0])
    _, relative = medina.forward(medina.input_of(state))
    absolute = medina.values(state)
    to_act = state.current_player
    assert absolute[to_act] == pytest.approx(float(relative[0]))
    assert absolute[(to_act + 1) % 3] == pytest.approx(float(relative[1]))
    assert relative_values(absolute_values([0.5, 0.3, 0.2], 2), 2) == (0.5, 0.3, 0.2)
    assert absolute_values([0.5, 0.3, 0.2], 2) == (0.3, 0.2, 0.5)


def test_a_network_refuses_positions_of_another_game(medina: PolicyValueNetwork) -> None:
    other = make("medina").new_initial_state(GameConfig(num_players=4, seed=1))
    with pytest.raises(ValueError, match="3 players"):
        medina.input_of(other)


def test_save_and_load_round_trip(medina: PolicyValueNetwork, tmp_path: Path) -> None:
    path = tmp_path / "net.npz"
    medina.save(path)
    loaded = PolicyValueNetwork.load(path)
    assert loaded.meta == medina.meta
    assert set(loaded.params) == set(medina.params)
    for name, array in medina.params.items():
        np.testing.assert_array_equal(loaded.params[name], array)
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"][()]))
    assert meta["format"] == FORMAT and meta["hidden"] == list(HIDDEN) and meta["num_actions"] == 2107
    assert not list(tmp_path.glob("*.part"))


def test_a_half_precision_file_is_half_the_size_and_holds_the_rounded_weights(
    medina: PolicyValueNetwork, tmp_path: Path
) -> None:
    full, half = tmp_path / "full.npz", tmp_path / "half.npz"
    medina.save(full)
    medina.save(half, half=True)
    assert half.stat().st_size < 0.55 * full.stat().st_size
    loaded = PolicyValueNetwork.load(half)
    rounded = medina.halved()
    for name, array in medina.params.items():
        assert loaded.params[name].dtype == np.float32
        np.testing.assert_array_equal(loaded.params[name], rounded.params[name])
        np.testing.assert_allclose(loaded.params[name], array, rtol=1e-3, atol=1e-7)
    x = np.random.default_rng(1).random((4, medina.meta.input_size), dtype=np.float32)
    np.testing.assert_allclose(loaded.forward(x)[0], medina.forward(x)[0], rtol=1e-2, atol=1e-3)
    # A weight float16 cannot hold is refused, not stored as infinity.
    huge = medina.with_params({**medina.params, "b0": np.full_like(medina.params["b0"], 1e6)})
    with pytest.raises(NetworkFileError, match="not finite"):
        huge.save(tmp_path / "huge.npz", half=True)


def _write(path: Path, meta: object, params: dict[str, object]) -> Path:
    np.savez(path, meta=np.array(json.dumps(meta)), **params)
    return path


def test_bad_files_are_refused_clearly(
    medina: PolicyValueNetwork, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    meta = medina.meta.to_json()
    params = dict(medina.params)

    def refused(path: Path, match: str) -> None:
        with pytest.raises(NetworkFileError, match=match):
            PolicyValueNetwork.load(path)

    refused(tmp_path / "missing.npz", "not a readable network file")
    (tmp_path / "text.npz").write_text("hello")
    refused(tmp_path / "text.npz", "not a readable network file")
    refused(_write(tmp_path / "format.npz", meta | {"format": "other"}, params), "format is 'other'")
    refused(_write(tmp_path / "players.npz", meta | {"num_players": "3"}, params), "num_players")
    refused(_write(tmp_path / "hidden.npz", meta | {"hidden": []}, params), "hidden")
    short = {k: v for k, v in params.items() if k != "value_b"}
    refused(_write(tmp_path / "short.npz", meta, short), r"missing \['value_b'\]")
    refused(_write(tmp_path / "extra.npz", meta, params | {"w9": params["b0"]}), r"unexpected \['w9'\]")
    wide = params | {"w1": np.zeros((HIDDEN[0], HIDDEN[1] + 1), np.float32)}
    refused(_write(tmp_path / "shape.npz", meta, wide), "w1 has shape")
    double = params | {"b0": params["b0"].astype(np.float64)}
    refused(_write(tmp_path / "dtype.npz", meta, double), "float64, expected float32")
    nan = params | {"b1": np.full(HIDDEN[1], np.nan, np.float32)}
    refused(_write(tmp_path / "nan.npz", meta, nan), "not finite")
    np.savez(tmp_path / "nometa.npz", **params)
    refused(tmp_path / "nometa.npz", "no meta")
    np.savez(tmp_path / "pickled.npz", meta=np.array([{"a": 1}], dtype=object))
    refused(tmp_path / "pickled.npz", "not a readable network file")
    monkeypatch.setattr("tabletop.core.network.MAX_FILE_BYTES", 1 << 20)
    with zipfile.ZipFile(tmp_path / "bomb.npz", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.npy", b"\0" * (2 << 20))
    refused(tmp_path / "bomb.npz", "unpacks to more than")
    refused(_write(tmp_path / "big.npz", meta, params | {"w0": np.zeros((1 << 20,), np.float32)}), "bigger than")


def test_meta_round_trips_and_checks(medina: PolicyValueNetwork) -> None:
    assert NetworkMeta.from_json(medina.meta.to_json()) == medina.meta
    with pytest.raises(NetworkFileError, match="not a JSON object"):
        NetworkMeta.from_json([1])


def test_a_placing_network_says_so_in_its_file_and_scales_its_values(
    medina: PolicyValueNetwork, tmp_path: Path
) -> None:
    placing = PolicyValueNetwork.random("medina", GameConfig(num_players=3), HIDDEN, seed=5, value="placing")
    assert medina.meta.value == "win" and placing.meta.value == "placing"
    assert placing.meta.value_scale == 1.5 and medina.meta.value_scale == 1.0
    placing.save(tmp_path / "placing.npz")
    assert PolicyValueNetwork.load(tmp_path / "placing.npz").meta.value == "placing"
    # A file from before the field is a win-share network.
    old = medina.meta.to_json()
    del old["value"]
    assert NetworkMeta.from_json(old).value == "win"
    with pytest.raises(NetworkFileError, match="value must be one of"):
        NetworkMeta.from_json({**old, "value": "rank"})
    # The same weights read as placings: the softmax times 3/2 (the seats' placings sum to 1.5).
    state = make("medina").new_initial_state(GameConfig(num_players=3, seed=3))
    assert sum(placing.values(state)) == pytest.approx(1.5)
    assert placing.values(state) == pytest.approx([1.5 * v for v in medina.values(state)])
