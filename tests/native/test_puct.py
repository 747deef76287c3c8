"""The network inside the search (issue #40): ``tabletop._native.Network`` against a NumPy
forward written from the contract (``docs/bots.md``, "The network in the search"), its
input the research encoding's observation of the seat to act, and ``puct_search`` on
real positions: only legal moves, the returns of finished games over the network's
prior, one search per seed, and a network of another game or size refused."""

from __future__ import annotations

import itertools
import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tabletop.ai.agent import make_agent, random_move
from tabletop.core.encoding import encoding_of
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import GameConfig, State
from tabletop.core.registry import make
from tabletop.native import native_module
from tabletop.native.mcts import level_config, search_options, to_native
from tabletop.native.puct import policy_order, puct_search
from tests.native import midgame, needs_native

np = pytest.importorskip("numpy")

pytestmark = needs_native("terranova", "medina")

HIDDEN = (32, 16)


def module() -> Any:
    """The extension (``needs_native`` made sure it is built)."""
    found = native_module()
    assert found is not None
    return found


def random_arrays(input_size: int, num_actions: int, players: int, seed: int) -> dict[str, Any]:
    """Random float32 weights of the contract's shapes (large enough that the policy and
    values differ from uniform)."""
    rng = np.random.default_rng(seed)
    arrays: dict[str, Any] = {}
    inputs = input_size
    for i, width in enumerate(HIDDEN):
        arrays[f"w{i}"] = rng.normal(0, 1 / np.sqrt(inputs), (inputs, width)).astype(np.float32)
        arrays[f"b{i}"] = rng.normal(0, 0.1, width).astype(np.float32)
        inputs = width
    arrays["policy_w"] = rng.normal(0, 1.0, (inputs, num_actions)).astype(np.float32)
    arrays["policy_b"] = rng.normal(0, 0.5, num_actions).astype(np.float32)
    arrays["value_w"] = rng.normal(0, 1.0, (inputs, players)).astype(np.float32)
    arrays["value_b"] = rng.normal(0, 0.5, players).astype(np.float32)
    return arrays


def meta(game_id: str, players: int, input_size: int, num_actions: int) -> str:
    return json.dumps(
        {
            "format": "tabletop-pv-1",
            "game": game_id,
            "num_players": players,
            "ruleset": "default",
            "input_size": input_size,
            "num_actions": num_actions,
            "hidden": list(HIDDEN),
            "made_by": "tests/native/test_puct.py",
        }
    )


def numpy_forward(arrays: dict[str, Any], x: Any) -> tuple[Any, Any]:
    """The contract's network: ReLU trunk, policy logits, softmax values (relative seats)."""
    h = np.asarray(x, dtype=np.float64)
    for i in range(len(HIDDEN)):
        h = np.maximum(h @ arrays[f"w{i}"] + arrays[f"b{i}"], 0.0)
    logits = h @ arrays["policy_w"] + arrays["policy_b"]
    z = h @ arrays["value_w"] + arrays["value_b"]
    z = np.exp(z - z.max(axis=-1, keepdims=True))
    return logits, z / z.sum(axis=-1, keepdims=True)


def game_sizes(state: State) -> tuple[int, int]:
    encoding = encoding_of(state.game, state.config)
    planes, vector = encoding.observe(state, 0)
    return len(planes) + len(vector), encoding.num_distinct_actions


def network_for(state: State, seed: int = 1) -> tuple[Any, dict[str, Any]]:
    input_size, num_actions = game_sizes(state)
    arrays = random_arrays(input_size, num_actions, state.num_players, seed)
    network = module().Network.from_arrays(meta(state.game.id, state.num_players, input_size, num_actions), arrays)
    return network, arrays


POSITIONS = [("medina", 3, 25), ("terranova", 2, 30), ("medina", 4, 60)]


def test_the_rust_forward_is_the_contract_s_forward() -> None:
    network, arrays = network_for(midgame("medina", 3, 10))
    rng = np.random.default_rng(3)
    # Mostly zeros, as observations are (the first layer skips them).
    x = (rng.random((6, network.input_size)) < 0.05) * rng.normal(0, 1, (6, network.input_size))
    logits, values = network.forward(x.astype(np.float32))
    expected_logits, expected_values = numpy_forward(arrays, x.astype(np.float32))
    np.testing.assert_allclose(np.array(logits), expected_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.array(values), expected_values, rtol=1e-4, atol=1e-5)
    one_logits, _ = network.forward(x[2].astype(np.float32))
    np.testing.assert_allclose(np.array(one_logits[0]), expected_logits[2], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(("game_id", "players", "plies"), POSITIONS)
def test_evaluate_reads_the_seat_to_act_s_observation_and_masks_the_policy(
    game_id: str, players: int, plies: int
) -> None:
    state = midgame(game_id, players, plies)
    network, arrays = network_for(state)
    seat = state.current_player
    planes, vector = encoding_of(state.game, state.config).observe(state, seat)
    logits, relative = numpy_forward(arrays, np.concatenate([np.asarray(planes), np.asarray(vector)]))
    priors, values = network.evaluate(state)
    legal = sorted(a for a, _ in priors)
    mask = encoding_of(state.game, state.config).action_mask(state)
    assert legal == [a for a, bit in enumerate(mask) if bit]
    masked = np.exp(logits[legal] - logits[legal].max())
    expected = dict(zip(legal, masked / masked.sum(), strict=True))
    for action, prior in priors:
        assert prior == pytest.approx(expected[action], rel=1e-3, abs=1e-6)
    # The value head's seats are relative to the seat to act; `evaluate` says absolute.
    for rel in range(players):
        assert values[(seat + rel) % players] == pytest.approx(relative[rel], rel=1e-4, abs=1e-6)


@pytest.mark.parametrize(("game_id", "players", "plies"), POSITIONS)
def test_the_search_s_first_layer_values_the_root_as_the_network_does(game_id: str, players: int, plies: int) -> None:
    # The search's first layer adds the board's fixed planes and the one-value planes
    # (scores, ...) as precomputed sums: one simulation values the root alone.
    state = midgame(game_id, players, plies)
    network, _ = network_for(state)
    found = module().puct_search(state, network, simulations=1)
    assert found["value"] == pytest.approx(network.evaluate(state)[1], abs=1e-5)


def test_the_search_visits_legal_moves_only() -> None:
    state = midgame("terranova", 2, 12)
    network, _ = network_for(state)
    found = module().puct_search(state, network, simulations=300, seed=1)
    legal = set(state.native.legal_actions())  # type: ignore[attr-defined]
    assert {a for a, _ in found["visits"]} == legal
    assert found["action"] in legal
    assert sum(v for _, v in found["visits"]) == found["simulations"] - 1 == 299
    assert sum(found["value"]) == pytest.approx(1.0, abs=1e-4)


def last_decision(game_id: str, players: int) -> State:
    """A position where every legal move ends the game and at most half of them give the
    mover its best return: only the finished games say which."""
    for seed in range(300):
        state: State = make(game_id, engine="native").new_initial_state(GameConfig(num_players=players, seed=seed))
        rng = random.Random(seed)
        history = [state]
        while not state.is_terminal():
            state = state.apply(random_move(state, rng))
            history.append(state)
        for position in reversed(history[:-1]):
            seat = position.current_player
            outcomes = [position.apply(move).returns()[seat] for move in position.legal_moves()]
            if not all(position.apply(move).is_terminal() for move in position.legal_moves()):
                break
            if 2 * outcomes.count(max(outcomes)) <= len(outcomes):
                return position
    raise AssertionError(f"no last decision in 300 {game_id} games")


@pytest.mark.parametrize(("game_id", "players"), [("medina", 3), ("medina", 4)])
def test_the_returns_of_finished_games_overrule_the_prior(game_id: str, players: int) -> None:
    state = last_decision(game_id, players)
    seat = state.current_player
    native = state.native  # type: ignore[attr-defined]
    returns = {a: native.apply(a).returns()[seat] for a in native.legal_actions()}
    best = max(returns.values())
    input_size, num_actions = game_sizes(state)
    for seed in range(3):
        arrays = random_arrays(input_size, num_actions, players, seed)
        # The prior points away from the best moves (98 % or more on the others) and the
        # values say nothing (each seat 1 / players).
        arrays["value_w"][:] = 0.0
        arrays["value_b"][:] = 0.0
        for action, value in returns.items():
            if value < best:
                arrays["policy_b"][action] += 6.0
        network = module().Network.from_arrays(meta(game_id, players, input_size, num_actions), arrays)
        on_best = sum(p for a, p in network.evaluate(state)[0] if returns[a] == best)
        assert on_best < 0.02
        found = module().puct_search(state, network, simulations=400, seed=seed)
        assert returns[found["action"]] == best, (seed, found["visits"])
        assert found["value"][seat] == pytest.approx(best, abs=0.15)


def test_a_seed_gives_one_search_and_noise_follows_the_seed() -> None:
    state = midgame("medina", 3, 20)
    network, _ = network_for(state)
    search = module().puct_search
    noisy = {"simulations": 200, "dirichlet_alpha": 0.3, "dirichlet_fraction": 0.25, "batch_size": 8}
    assert search(state, network, seed=4, **noisy) == search(state, network, seed=4, **noisy)
    others = [search(state, network, seed=seed, **noisy)["visits"] for seed in range(5, 9)]
    assert any(v != search(state, network, seed=4, **noisy)["visits"] for v in others)


def test_a_network_of_another_game_or_size_is_refused() -> None:
    medina = midgame("medina", 3, 5)
    network, arrays = network_for(medina)
    search = module().puct_search
    with pytest.raises(ValueError, match=r"does not fit.*\"medina\", not \"terranova\""):
        search(midgame("terranova", 2, 5), network, simulations=10)
    with pytest.raises(ValueError, match=r"it is for 3 players, not 4$"):
        search(midgame("medina", 4, 5), network, simulations=10)
    second = make("medina", engine="native").new_initial_state(
        GameConfig(num_players=3, ruleset="second_edition", seed=0)
    )
    with pytest.raises(ValueError, match=r"reads \d+ inputs, the position's observation has \d+; it has \d+ actions"):
        search(second, network, simulations=10)
    input_size, num_actions = game_sizes(medina)
    wrong = dict(arrays, w0=arrays["w0"][:-1])
    with pytest.raises(ValueError, match=r"w0 has shape \[\d+, 32\], \[\d+, 32\] expected"):
        module().Network.from_arrays(meta("medina", 3, input_size, num_actions), wrong)
    with pytest.raises(ValueError, match="float32"):
        module().Network.from_arrays(
            meta("medina", 3, input_size, num_actions), dict(arrays, b0=arrays["b0"].astype(np.float64))
        )
    with pytest.raises(ValueError, match="needs a budget"):
        search(medina, network)


def save(path: Path, state: State, seed: int = 1) -> Path:
    input_size, num_actions = game_sizes(state)
    arrays = random_arrays(input_size, num_actions, state.num_players, seed)
    np.savez(path, meta=np.array(meta(state.game.id, state.num_players, input_size, num_actions)), **arrays)
    return path


def test_the_agent_plays_from_a_file_and_a_seed_gives_its_moves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    state = midgame("medina", 3, 8, engine="python")
    save(tmp_path / "medina-3p.npz", state)
    agent = make_agent("puct:medina-3p,sims=60,batch=4", seed=7)
    move = agent.choose_move(state)
    assert move in state.legal_moves()
    assert make_agent("puct:medina-3p.npz,sims=60,batch=4", seed=7).choose_move(state) == move
    assert agent.name == "puct:medina-3p,sims=60,batch=4"
    timed = make_agent("puct:medina-3p@0.05cpu", seed=1)
    assert timed.choose_move(midgame("medina", 3, 8)) in state.legal_moves()


@pytest.mark.parametrize(("game_id", "players"), [("terranova", 2), ("medina", 3)])
def test_a_mixed_leaf_value_consults_the_game_s_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game_id: str, players: int
) -> None:
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    state = midgame(game_id, players, 12)
    save(tmp_path / "net.npz", state)
    plain = make_agent("puct:net,sims=80,batch=4", seed=3)
    mixed = make_agent("puct:net,sims=80,batch=4,mix=1", seed=3)
    assert mixed.config.leaf_mix == 1.0 and mixed.config.leaf_rollout is None
    for agent in (plain, mixed):
        assert agent.choose_move(state) in state.legal_moves()
    # At mix 1 every leaf is the game's value, not the network's: the root's values differ.
    assert plain.last_stats is not None and mixed.last_stats is not None
    assert plain.last_stats.value != mixed.last_stats.value
    cut = make_agent("puct:net,sims=80,mix=0.5,rollout=3", seed=3)
    assert (cut.config.leaf_mix, cut.config.leaf_rollout) == (0.5, 3)
    assert cut.choose_move(state) in state.legal_moves()
    for bad in ("mix=1.5", "mix=-0.1", "rollout=-1", "rollout=2.5"):
        with pytest.raises(ConfigError, match=r"leaf|rollout"):
            make_agent(f"puct:net,{bad}")


def test_a_leaf_horizon_plays_the_end_game_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Terra Nova's leaves are valued by the evaluation (no playout); with a horizon, near
    # the end of the game they are played out to the end instead, as Strong's are.
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    rng = random.Random(5)
    state: State = make("terranova", engine="native").new_initial_state(GameConfig(num_players=2, seed=5))
    seen = [state]
    while not state.is_terminal():
        state = state.apply(random_move(state, rng))
        seen.append(state)
    near_end, far_from_end = seen[-6], seen[len(seen) // 3]
    save(tmp_path / "net.npz", near_end)
    evaluated = make_agent("puct:net,sims=60,mix=1", seed=3)
    horizon = make_agent("puct:net,sims=60,mix=1,horizon=400", seed=3)
    assert horizon.config.leaf_horizon == 400
    values = []
    for agent in (evaluated, horizon):
        assert agent.choose_move(near_end) in near_end.legal_moves()
        assert agent.last_stats is not None
        values.append(agent.last_stats.value)
    assert values[0] != values[1]
    short = make_agent("puct:net,sims=60,mix=1,horizon=2", seed=3)
    for agent in (evaluated, short):
        agent.choose_move(far_from_end)
    assert evaluated.last_stats is not None and short.last_stats is not None
    assert evaluated.last_stats.value == short.last_stats.value  # two actions end nothing there
    with pytest.raises(ConfigError, match="horizon"):
        make_agent("puct:net,horizon=-1")


def test_a_guided_search_ranks_its_root_by_the_network_s_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    state = midgame("terranova", 2, 40)
    save(tmp_path / "net.npz", state)
    network = module().Network.from_arrays(*_file_arrays(tmp_path / "net.npz"))
    order = policy_order(network)(to_native(state))
    priors, _ = network.evaluate(to_native(state).native)
    assert sorted(order) == sorted(action for action, _ in priors)
    by_action = dict(priors)
    assert all(by_action[a] >= by_action[b] for a, b in itertools.pairwise(order))
    guided = make_agent("guided:net,1,sims=300", seed=3)
    plain = make_agent("native:1,sims=300", seed=3)
    assert guided.name == "guided:net,1,sims=300"
    moves = [agent.choose_move(state) for agent in (guided, plain)]
    assert all(move in state.legal_moves() for move in moves)
    # Terra Nova's level 1 widens the root slowly, best first: the children searched are
    # the first of the network's order, not the evaluation's best.
    options = search_options(level_config("1,sims=300", "terranova")[0], "terranova", 3)
    native = to_native(state).native
    ordered = {child[0] for child in native.search(root_order=order, **options)["children"]}
    evaluated = {child[0] for child in native.search(**options)["children"]}
    assert ordered == set(order[: len(ordered)]) and ordered != evaluated
    # A position of a game the network does not know is searched as the level searches it.
    medina = midgame("medina", 3, 10)
    assert policy_order(network)(to_native(medina)) is None
    assert guided.choose_move(medina) in medina.legal_moves()
    for bad in ("guided:net", "guided:,1", "guided:net,9", "guided:missing,1"):
        with pytest.raises(ConfigError):
            make_agent(bad)


def _file_arrays(path: Path) -> tuple[str, dict[str, Any]]:
    with np.load(path) as data:
        return str(data["meta"]), {name: data[name] for name in data.files if name != "meta"}


def test_the_first_sampled_plies_vary_with_the_seed_and_the_rest_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search on a simulation budget is deterministic: without sampling every seed
    plays one move; with ``sample=K`` the moves of the first K plies follow the seed
    (drawn from the visited ones), and later plies are the most visited again."""
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    start = make("medina").new_initial_state(GameConfig(num_players=3, seed=1))
    save(tmp_path / "medina-3p.npz", start)

    def moves(spec: str, state: State) -> set[Any]:
        return {make_agent(spec, seed=seed).choose_move(state) for seed in range(12)}

    assert len(moves("puct:medina-3p,sims=40", start)) == 1
    assert len(moves("puct:medina-3p,sims=40,sample=4", start)) > 1
    later = midgame("medina", 3, 8, engine="python")
    assert later.ply >= 4
    assert len(moves("puct:medina-3p,sims=40,sample=4", later)) == 1
    with pytest.raises(ConfigError, match="sampled plies"):
        make_agent("puct:medina-3p,sample=-1")


def test_one_network_serves_searches_on_several_threads(tmp_path: Path) -> None:
    state = midgame("terranova", 2, 20)
    network = module().Network(save(tmp_path / "terranova.npz", state))
    assert module().Network(tmp_path / "terranova.npz").meta == network.meta
    alone = [module().puct_search(state, network, simulations=300, seed=seed) for seed in range(4)]
    with ThreadPoolExecutor(2) as pool:
        together = list(
            pool.map(lambda seed: module().puct_search(state, network, simulations=300, seed=seed), range(4))
        )
    assert together == alone


def test_a_stop_flag_ends_a_search_without_other_budget() -> None:
    state = midgame("medina", 3, 10)
    network, _ = network_for(state)
    stop = module().SearchStop()
    timer = threading.Timer(0.05, stop.set)
    timer.start()
    found = module().puct_search(state, network, stop=stop)
    timer.join()
    assert found["simulations"] > 0 and found["action"] is not None


def test_a_python_engine_state_is_searched_on_the_native_engine() -> None:
    python = midgame("medina", 3, 10, engine="python")
    native = midgame("medina", 3, 10)
    network, _ = network_for(native)
    assert puct_search(python, network, simulations=50, seed=3) == puct_search(native, network, simulations=50, seed=3)


def test_bad_files_and_specs_say_what_is_wrong(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLETOP_NETWORKS", raising=False)
    (tmp_path / "garbage.npz").write_bytes(b"not a zip at all")
    with pytest.raises(ConfigError, match=r"no network 'garbage' in TABLETOP_NETWORKS \(.*networks\)"):
        make_agent("puct:garbage")  # only the packaged networks are looked at
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    with pytest.raises(ConfigError, match="not a readable network file"):
        make_agent("puct:garbage")
    with pytest.raises(ConfigError, match="no network 'missing'"):
        make_agent("puct:missing")
    # A spec names a network in the directories, never a path (specs come from the web).
    for path in (str(tmp_path / "garbage.npz"), "../garbage", "/etc/passwd", "sub/garbage"):
        with pytest.raises(ConfigError, match="named by its file name"):
            make_agent(f"puct:{path}")
    np.savez(tmp_path / "no-meta.npz", w0=np.zeros((2, 2), np.float32))
    with pytest.raises(ConfigError, match="has no meta array"):
        make_agent("puct:no-meta")
    with pytest.raises(ConfigError, match="needs a network"):
        make_agent("puct")
    monkeypatch.setattr("tabletop.core.network.MAX_FILE_BYTES", 1000)
    np.savez_compressed(tmp_path / "bomb.npz", w0=np.zeros((100, 100), np.float32))
    assert (tmp_path / "bomb.npz").stat().st_size < 1000
    with pytest.raises(ConfigError, match="unpacks to more than 1,000 bytes"):
        make_agent("puct:bomb")
    monkeypatch.undo()
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    with pytest.raises(ConfigError, match="bad puct setting"):
        make_agent("puct:garbage,depth=3")
    save(tmp_path / "terranova.npz", midgame("terranova", 2, 3))
    with pytest.raises(ConfigError, match="network is for terranova 2p"):
        make_agent("puct:terranova,sims=5").choose_move(midgame("medina", 3, 3))


def test_the_lobby_offers_no_puct_without_a_network() -> None:
    from tabletop.server.routes.games import bot_specs

    specs = bot_specs()
    assert "native" in specs
    assert not any(spec.startswith("puct") for spec in specs)


# -- the cells network (``PolicyValueNetwork._forward_cells``) --------------------------


def cells_network(seed: int = 1) -> tuple[Any, Any]:
    """A Terra Nova 2p cells network of random weights large enough that its policy and
    values are far from uniform: the readable one and the Rust one."""
    from tabletop.core.network import PolicyValueNetwork
    from tabletop.native.puct import cell_geometry_arrays

    base = PolicyValueNetwork.random(
        "terranova", GameConfig(num_players=2), (32,) * 4, seed, architecture="cells", value_hidden=16
    )
    rng = np.random.default_rng(seed)
    params = {
        name: rng.normal(0, 0.3 if array.ndim == 1 else 1 / np.sqrt(array.shape[0]), array.shape).astype(np.float32)
        for name, array in base.params.items()
    }
    readable = base.with_params(params)
    network = module().Network.from_arrays(
        json.dumps(readable.meta.to_json()), dict(readable.params), geometry=cell_geometry_arrays(readable.meta)
    )
    return readable, network


CELLS_POSITIONS = [("native", 0), ("native", 9), ("native", 40), ("python", 25), ("native", 120)]


def test_the_rust_cells_network_is_the_readable_definition() -> None:
    readable, network = cells_network()
    assert network.architecture == "cells" and network.hidden == [32] * 4
    states = [midgame("terranova", 2, plies, engine=engine, seed=plies) for engine, plies in CELLS_POSITIONS]
    x = np.stack([readable.input_of(state) for state in states])
    logits, values = network.forward(x)
    expected_logits, expected_values = readable.forward(x)
    assert np.std(expected_logits) > 1.0  # far from uniform: the comparison says something
    np.testing.assert_allclose(np.array(logits), expected_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.array(values), expected_values, rtol=1e-4, atol=1e-5)
    for state in states:
        assert not state.is_terminal()
        native = to_native(state)
        priors, absolute = network.evaluate(native)
        expected = readable.policy(state)
        assert sorted(a for a, _ in priors) == sorted(expected)
        for action, prior in priors:
            assert prior == pytest.approx(expected[action], rel=1e-3, abs=1e-6)
        assert absolute == pytest.approx(readable.values(state), rel=1e-4, abs=1e-6)
        # One simulation values the root alone, through the search's own buffers.
        found = module().puct_search(native, network, simulations=1)
        assert found["value"] == pytest.approx(absolute, abs=1e-5)


def test_a_search_with_a_cells_network_file_plays_legal_moves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tabletop.native.puct import load_network

    readable, _ = cells_network(seed=2)
    readable.save(tmp_path / "terranova-cells.npz")
    assert load_network(tmp_path / "terranova-cells.npz").architecture == "cells"
    monkeypatch.setenv("TABLETOP_NETWORKS", str(tmp_path))
    state = midgame("terranova", 2, 12, engine="python")
    agent = make_agent("puct:terranova-cells,sims=80,batch=4", seed=3)
    move = agent.choose_move(state)
    assert move in state.legal_moves()
    assert make_agent("puct:terranova-cells,sims=80,batch=4", seed=3).choose_move(state) == move
    native = midgame("terranova", 2, 12)
    found = module().puct_search(native, load_network(tmp_path / "terranova-cells.npz"), simulations=200, seed=1)
    legal = set(native.native.legal_actions())  # type: ignore[attr-defined]
    assert found["action"] in legal and {a for a, _ in found["visits"]} <= legal
    with pytest.raises(ValueError, match=r"does not fit.*\"terranova\", not \"medina\""):
        module().puct_search(midgame("medina", 3, 5), load_network(tmp_path / "terranova-cells.npz"), simulations=5)


def test_a_bad_cell_geometry_is_refused_with_the_reason() -> None:
    from tabletop.native.puct import cell_geometry_arrays

    readable, _ = cells_network()
    meta_json, arrays = json.dumps(readable.meta.to_json()), dict(readable.params)
    good = cell_geometry_arrays(readable.meta)
    build = module().Network.from_arrays
    cells = good["positions"].shape[0]
    with pytest.raises(ValueError, match="a cells network needs its game's cell geometry"):
        build(meta_json, arrays)
    gather = good["gather"].copy()
    gather[3, 2] = cells + 1
    with pytest.raises(ValueError, match=rf"gather holds {cells + 1}, not an index from 0 to {cells}"):
        build(meta_json, arrays, geometry=dict(good, gather=gather))
    with pytest.raises(ValueError, match=r"action_cells has shape \[\d+, 2\], \[14449, 2\] expected"):
        build(meta_json, arrays, geometry=dict(good, action_cells=good["action_cells"][:-1]))
    with pytest.raises(ValueError, match="positions is not an int64 array"):
        build(meta_json, arrays, geometry=dict(good, positions=good["positions"].astype(np.int32)))
    with pytest.raises(ValueError, match="are not the network's 5423 inputs"):
        build(meta_json, arrays, geometry=dict(good, vector_size=good["vector_size"] + 1))
    with pytest.raises(ValueError, match='has no "num_heads"'):
        build(meta_json, arrays, geometry={k: v for k, v in good.items() if k != "num_heads"})
    with pytest.raises(ValueError, match=r"w1 has shape \[32, 32\], \[224, 32\] expected"):
        build(meta_json, dict(arrays, w1=arrays["w1"][:32]), geometry=good)
    with pytest.raises(ValueError, match='has no array "policy_global_w"'):
        build(meta_json, {k: v for k, v in arrays.items() if k != "policy_global_w"}, geometry=good)
    dense, dense_arrays = network_for(midgame("terranova", 2, 3))
    with pytest.raises(ValueError, match="a dense network takes no cell geometry"):
        build(dense.meta, dense_arrays, geometry=good)
