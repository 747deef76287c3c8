"""Self-play games and the replay buffer (tabletop.learn.selfplay): no JAX needed."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from tests.learn.conftest import NO_NUMPY, need_native

np = pytest.importorskip("numpy", reason=NO_NUMPY)

from tabletop import GameConfig, make  # noqa: E402
from tabletop.ai.agent import make_agent  # noqa: E402
from tabletop.core.encoding import encoding_of  # noqa: E402
from tabletop.core.errors import ConfigError  # noqa: E402
from tabletop.core.network import PolicyValueNetwork, relative_values  # noqa: E402
from tabletop.learn.selfplay import GameSamples, ReplayBuffer, SelfPlayConfig, play_selfplay_game  # noqa: E402


def _game(network: Path, index: int = 0, sampled: int = 4) -> GameSamples:
    need_native()
    config = SelfPlayConfig("medina", 3, "default", str(network), simulations=8, seed=3, sampled_moves=sampled)
    return play_selfplay_game(config, index)


def test_a_selfplay_game_records_every_move(tiny_network: Path) -> None:
    samples = _game(tiny_network)
    network = PolicyValueNetwork.load(tiny_network)
    n = len(samples)
    assert n > 20
    assert samples.x.shape == (n, network.meta.input_size) and samples.x.dtype == np.float32
    assert samples.offsets.shape == (n + 1,) and samples.offsets[0] == 0 and samples.offsets[-1] == len(samples.legal)
    assert sum(samples.returns) == pytest.approx(1.0) and len(samples.returns) == 3
    # Replaying the recorded game: each move's inputs, legal actions and seat are the position's.
    state = make("medina").new_initial_state(GameConfig(num_players=3, seed=0))
    encoding = encoding_of(state.game, state.config)
    first = slice(int(samples.offsets[0]), int(samples.offsets[1]))
    assert list(samples.legal[first]) == encoding.legal_actions(state)
    for i in range(n):
        run = slice(int(samples.offsets[i]), int(samples.offsets[i + 1]))
        target = samples.target[run]
        assert target.sum() == pytest.approx(1.0, abs=1e-5) and (target >= 0).all()
        assert list(samples.legal[run]) == sorted(samples.legal[run])


def test_selfplay_is_deterministic_by_index(tiny_network: Path) -> None:
    a, b, c = _game(tiny_network, 0), _game(tiny_network, 0), _game(tiny_network, 1)
    np.testing.assert_array_equal(a.x, b.x)
    np.testing.assert_array_equal(a.target, b.target)
    assert not (len(a) == len(c) and np.array_equal(a.legal, c.legal))


def _samples(rng: np.random.Generator, moves: int, seed_returns: tuple[float, ...]) -> GameSamples:
    lengths = rng.integers(1, 5, moves)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    legal = np.concatenate([np.sort(rng.choice(20, k, replace=False)) for k in lengths]).astype(np.int32)
    target = np.concatenate([rng.dirichlet(np.ones(k)) for k in lengths]).astype(np.float32)
    return GameSamples(
        x=rng.random((moves, 6), dtype=np.float32),
        seats=(np.arange(moves) % 3).astype(np.int16),
        offsets=offsets,
        legal=legal,
        target=target,
        returns=seed_returns,
    )


def test_buffer_keeps_the_newest_and_targets_in_relative_seat_order(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    first, second = _samples(rng, 5, (1.0, 0.0, 0.0)), _samples(rng, 4, (0.0, 0.5, 0.5))
    buffer = ReplayBuffer(6, input_size=6, players=3)
    buffer.add([first])
    buffer.add([second])
    assert len(buffer) == 6  # the oldest 3 of the 9 dropped
    batch = buffer.batch(np.random.default_rng(1), 64, num_actions=20)
    assert batch["x"].shape == (64, 6) and batch["legal"].shape == (64, 20)
    np.testing.assert_allclose(batch["policy"].sum(axis=1), 1.0, rtol=1e-5)
    assert not batch["policy"][~batch["legal"]].any()
    kept_x = np.concatenate([first.x[3:], second.x])
    kept_values = [relative_values(first.returns, s) for s in first.seats[3:]]
    kept_values += [relative_values(second.returns, s) for s in second.seats]
    for x, value in zip(batch["x"], batch["value"], strict=True):
        row = int(np.flatnonzero((kept_x == x).all(axis=1))[0])
        np.testing.assert_allclose(value, kept_values[row])
    # The third kept position is seat 0 of the first game: its legal actions and targets.
    row = next(i for i, x in enumerate(batch["x"]) if (x == first.x[3]).all())
    run = slice(int(first.offsets[3]), int(first.offsets[4]))
    assert np.flatnonzero(batch["legal"][row]).tolist() == first.legal[run].tolist()
    np.testing.assert_allclose(batch["policy"][row][first.legal[run]], first.target[run])
    # Drawn from the newest only: the second game's positions (what a fresh loss scores).
    newest = buffer.batch(np.random.default_rng(2), 64, num_actions=20, newest=len(second))
    assert all((second.x == x).all(axis=1).any() for x in newest["x"])


def test_buffer_round_trip_and_resize(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    buffer = ReplayBuffer(100, input_size=6, players=3)
    buffer.add([_samples(rng, 7, (0.0, 1.0, 0.0)), _samples(rng, 3, (0.5, 0.0, 0.5))])
    buffer.save(tmp_path / "replay.npz")
    loaded = ReplayBuffer.load(tmp_path / "replay.npz", input_size=6, players=3)
    assert loaded.equals(buffer) and len(loaded) == 10
    with pytest.raises(ValueError, match="not a replay buffer"):
        ReplayBuffer.load(tmp_path / "replay.npz", input_size=7, players=3)
    loaded.resize(4)
    assert len(loaded) == 4 and not loaded.equals(buffer)
    a = loaded.batch(np.random.default_rng(0), 50, 20)
    np.testing.assert_allclose(a["policy"].sum(axis=1), 1.0, rtol=1e-5)


def test_policy_bot_plays_the_most_probable_legal_move(tiny_network: Path) -> None:
    import tabletop.ai.policy_agent  # noqa: F401  (registers the kind: it is no built-in one)

    agent = make_agent(f"policy:{tiny_network}", seed=0)
    state = make("medina").new_initial_state(GameConfig(num_players=3, seed=2))
    network = PolicyValueNetwork.load(tiny_network)
    policy = network.policy(state)
    best = max(policy, key=lambda a: policy[a])
    move = agent.choose_move(state)
    assert encoding_of(state.game, state.config).encode(move) == best
    with pytest.raises(ConfigError, match="needs a network file"):
        make_agent("policy")
    with pytest.raises(ConfigError, match="cannot read the network"):
        make_agent(f"policy:{tiny_network}.missing")


def test_buffer_inputs_are_float16_while_exact(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    whole = _samples(rng, 4, (1.0, 0.0, 0.0))
    whole = dataclasses.replace(whole, x=np.round(whole.x * 20) / 2)
    buffer = ReplayBuffer(100, input_size=6, players=3)
    buffer.add([whole])
    buffer.save(tmp_path / "half.npz")
    with np.load(tmp_path / "half.npz") as data:
        assert data["x"].dtype == np.float16
    thirds = _samples(rng, 3, (0.0, 1.0, 0.0))
    buffer.add([thirds])
    buffer.save(tmp_path / "full.npz")
    with np.load(tmp_path / "full.npz") as data:
        assert data["x"].dtype == np.float32
        np.testing.assert_array_equal(data["x"], np.concatenate([whole.x, thirds.x]))
    batch = buffer.batch(np.random.default_rng(0), 20, 20)
    assert batch["x"].dtype == np.float32


def test_the_native_search_gives_root_visits_over_legal_actions() -> None:
    need_native()
    from tabletop.learn.selfplay import native_mcts_search

    state = make("medina", engine="native").new_initial_state(GameConfig(num_players=3, seed=6))
    state = state.apply(state.legal_moves()[0])
    visits, action = native_mcts_search("medina", 40)(state, 1)
    legal = set(encoding_of(state.game, state.config).legal_actions(state))
    assert set(visits) <= legal and len(visits) > 1
    assert 39 <= sum(visits.values()) <= 40
    assert visits[action] == max(visits.values())
    assert native_mcts_search("medina", 40)(state, 1) == (visits, action)


def test_the_policy_bot_is_not_a_builtin_kind(tmp_path: Path) -> None:
    # Its spec names a file: the web app, which builds bots from specs it is sent, must not
    # know it.  A fresh process, because importing tabletop.learn registers it here.
    code = (
        "from tabletop.ai.agent import agent_kinds, make_agent\n"
        "from tabletop.core.errors import ConfigError\n"
        "assert 'policy' not in agent_kinds(), agent_kinds()\n"
        "try:\n"
        f"    make_agent('policy:{tmp_path}/x.npz')\n"
        "except ConfigError as exc:\n"
        "    assert 'unknown agent' in str(exc), exc\n"
        "else:\n"
        "    raise SystemExit('made a policy bot')\n"
        "import tabletop.ai.policy_agent\n"
        "assert 'policy' in agent_kinds()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_value_targets_are_win_shares_or_placings_by_the_network(tiny_network: Path) -> None:
    from tabletop.arena.sprt import placings
    from tabletop.learn.selfplay import value_targets

    assert placings([1, 2, 3]) == (0.0, 0.5, 1.0)
    assert placings([3, 5, 5]) == (0.0, 0.75, 0.75)
    assert placings([4, 4]) == (0.5, 0.5)
    win = PolicyValueNetwork.load(tiny_network).meta
    placing = dataclasses.replace(win, value="placing")
    state = make("medina").new_initial_state(GameConfig(num_players=3, seed=1))
    while not state.is_terminal():
        state = state.apply(state.legal_moves()[0])
    assert value_targets(win, state) == pytest.approx(state.returns())
    expected = [p / 1.5 for p in placings(state.scores())]
    assert value_targets(placing, state) == pytest.approx(expected)
    assert sum(value_targets(placing, state)) == pytest.approx(1.0)


def test_the_completed_q_policy_sharpens_the_prior_by_the_values() -> None:
    from tabletop.learn.selfplay import completed_q_policy

    # Equal priors, one action valued best: it takes most of the target. Unvisited actions
    # count at the root's value.
    children = [(3, 2, 0.2, 0.25), (5, 2, 0.6, 0.25), (7, 0, 0.0, 0.25), (9, 1, 0.4, 0.25)]
    policy = completed_q_policy(children, root_value=0.4)
    assert sum(policy.values()) == pytest.approx(1.0)
    assert max(policy, key=policy.__getitem__) == 5
    assert policy[7] == pytest.approx(policy[9])  # unvisited: the root's value, as 9's
    assert policy[3] < policy[9] < policy[5]
    # sigma = (50 + 2) * 0.1 * q scaled to [0, 1]: 5.2 logits between worst and best.
    assert policy[5] / policy[3] == pytest.approx(np.exp(5.2))
    # Equal values leave the prior as it was.
    flat = completed_q_policy([(1, 3, 0.5, 0.7), (2, 3, 0.5, 0.3)], root_value=0.5)
    assert flat == pytest.approx({1: 0.7, 2: 0.3})
    assert completed_q_policy([], 0.5) == {}


def test_a_completed_q_self_play_game_learns_the_improved_policy(tiny_network: Path) -> None:
    need_native()
    from tabletop.learn.selfplay import network_search
    from tabletop.native.puct import load_network as load_native_network
    from tabletop.native.puct import puct_search

    config = SelfPlayConfig(
        "medina", 3, "default", str(tiny_network), simulations=30, seed=3, policy_target="completed-q"
    )
    state = make("medina", engine="native").new_initial_state(GameConfig(num_players=3, seed=6))
    weights, action = network_search(config)(state, 9)
    assert sum(weights.values()) == pytest.approx(1.0)
    legal = encoding_of(state.game, state.config).legal_actions(state)
    assert sorted(weights) == legal  # every legal action gets a share, visited or not
    found = puct_search(
        state, load_native_network(tiny_network), simulations=30, seed=9, dirichlet_alpha=0.3, dirichlet_fraction=0.25
    )
    assert action == found["action"]
    # The children's priors are the network's own, before the root's noise.
    priors = PolicyValueNetwork.load(tiny_network).policy(state)
    for child_action, _, _, prior in found["children"]:
        assert prior == pytest.approx(priors[child_action], rel=1e-4)
    assert [(a, n) for a, n, _, _ in found["children"]] == [tuple(v) for v in found["visits"]]


def test_a_teacher_plays_self_play_by_the_rollout_search(tiny_network: Path) -> None:
    need_native()
    from tabletop.learn.selfplay import make_search, native_mcts_search

    config = SelfPlayConfig("medina", 3, "default", str(tiny_network), simulations=8, seed=3, teacher_sims=60)
    network = PolicyValueNetwork.load(tiny_network)
    state = make("medina", engine="native").new_initial_state(GameConfig(num_players=3, seed=6))
    # The teacher's visits, not the network's: 60 simulations where the network's search has 8.
    visits, action = make_search(config, network)(state, 5)
    assert (visits, action) == native_mcts_search("medina", 60)(state, 5)
    assert sum(visits.values()) >= 59
    own, _ = make_search(dataclasses.replace(config, teacher_sims=0), network)(state, 5)
    assert sum(own.values()) <= 8
    # A whole game by the teacher: its targets are the teacher's visit shares.
    samples = play_selfplay_game(dataclasses.replace(config, sampled_moves=0), 0)
    shares = samples.target[int(samples.offsets[0]) : int(samples.offsets[1])]
    assert len(samples) > 20 and shares.sum() == pytest.approx(1.0)
    # 60 simulations over a few dozen moves: shares in 60ths, not the network's 8ths.
    assert np.allclose(shares * 60, np.round(shares * 60), atol=1e-3) or np.allclose(
        shares * 59, np.round(shares * 59), atol=1e-3
    )


def test_sparring_games_are_spread_evenly_and_the_seat_goes_round(tiny_network: Path) -> None:
    from tabletop.learn.selfplay import sparring_seat

    config = SelfPlayConfig("medina", 3, "default", str(tiny_network), simulations=8, sparring="casual")
    seats = [sparring_seat(dataclasses.replace(config, sparring_share=0.5), i) for i in range(8)]
    assert seats == [None, 0, None, 1, None, 2, None, 0]
    assert [sparring_seat(dataclasses.replace(config, sparring_share=1.0), i) for i in range(4)] == [0, 1, 2, 0]
    assert all(sparring_seat(config, i) is None for i in range(6))  # share 0
    unnamed = dataclasses.replace(config, sparring=None, sparring_share=1.0)
    assert all(sparring_seat(unnamed, i) is None for i in range(6))


def test_a_sparring_seat_plays_but_is_not_learned_from(tiny_network: Path) -> None:
    need_native()
    config = SelfPlayConfig(
        "medina", 3, "default", str(tiny_network), simulations=8, seed=3, sampled_moves=0, sparring="random"
    )
    alone = play_selfplay_game(config, 1)
    sparred = play_selfplay_game(dataclasses.replace(config, sparring_share=1.0), 1)  # game 1: seat 1
    assert set(alone.seats.tolist()) == {0, 1, 2}
    assert set(sparred.seats.tolist()) == {0, 2}
    assert len(sparred) < len(alone) and sum(sparred.returns) == pytest.approx(1.0)
    again = play_selfplay_game(dataclasses.replace(config, sparring_share=1.0), 1)
    np.testing.assert_array_equal(sparred.x, again.x)
    np.testing.assert_array_equal(sparred.target, again.target)
