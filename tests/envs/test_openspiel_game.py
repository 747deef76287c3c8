"""OpenSpiel's own ``random_sim_test`` (with serialization) on both games at every player
count (``tabletop.envs.register_openspiel``)."""

from __future__ import annotations

import pytest

from tests.envs.cases import CASES, IDS, need

need("pyspiel")

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402

from tabletop.envs import register_openspiel  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def registered() -> None:
    register_openspiel()


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_random_sim_test_with_serialization(game_id: str, players: int) -> None:
    game = pyspiel.load_game(f"python_tabletop_{game_id}(players={players})")
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_game_facts_and_observation() -> None:
    game = pyspiel.load_game("python_tabletop_medina", {"players": 4, "utility": "score"})
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert (game.num_distinct_actions(), game.num_players()) == (2107, 4)
    state = game.new_initial_state()
    assert state.observation_tensor(0) == pytest.approx(np.asarray(state.observation_tensor(0)))
    assert len(state.observation_tensor(0)) == 29 * 13 * 18 + 90
    state.apply_action(state.legal_actions()[0])
    text = pyspiel.serialize_game_and_state(game, state)
    _, state2 = pyspiel.deserialize_game_and_state(text)
    assert state2.history() == state.history()
    assert state2.legal_actions() == state.legal_actions()


def test_an_openspiel_algorithm_runs() -> None:
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_tabletop_medina(players=3)")
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    action = bot.step(state)
    assert action in state.legal_actions()


@pytest.mark.parametrize("game_id", ["terranova", "medina"])
def test_the_moves_so_far_in_notation_and_through_serialization(game_id: str) -> None:
    from tabletop.core.registry import make

    game = pyspiel.load_game(f"python_tabletop_{game_id}")
    state = game.new_initial_state()
    assert str(state).endswith("moves: ")
    rng = np.random.RandomState(3)
    texts = []
    for step in range(60):
        tabletop_state = state.tabletop_state
        action = int(rng.choice(state.legal_actions()))
        texts.append(tabletop_state.move_to_str(make(game_id).encoding(tabletop_state.config).decode(action)))
        state.apply_action(action)
        if step in (0, 7, 59):  # asked now and then: each answer is every move so far
            assert str(state).endswith("moves: " + " ".join(texts))
    branch = state.clone()
    branch.apply_action(branch.legal_actions()[0])
    assert str(state).endswith(" ".join(texts))  # a clone's moves are its own
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert again.history() == state.history() and str(again) == str(state)


@pytest.mark.parametrize(("game_id", "players"), CASES, ids=IDS)
def test_python_calls_answer_as_pyspiel_does(game_id: str, players: int) -> None:
    """``legal_actions`` and ``observation_tensor`` called from Python are answered by the
    adapter itself (a NumPy array, not pyspiel's list); pyspiel's own methods, which C++
    callers such as ``random_sim_test`` use, give the same values, and the same errors."""
    game = pyspiel.load_game(f"python_tabletop_{game_id}(players={players})")
    state = game.new_initial_state()
    rng = np.random.default_rng(players)
    for _ in range(30):
        for player in range(players):
            tensor = state.observation_tensor(player)
            assert isinstance(tensor, np.ndarray) and tensor.dtype == np.float32
            assert tensor.tolist() == pyspiel.State.observation_tensor(state, player)
            assert state.legal_actions(player) == pyspiel.State.legal_actions(state, player)
        assert np.array_equal(state.observation_tensor(), state.observation_tensor(state.current_player()))
        legal = state.legal_actions()
        assert legal == pyspiel.State.legal_actions(state) and legal == sorted(legal)
        state.apply_action(int(rng.choice(legal)))
    for bad in (-3, players):
        with pytest.raises(pyspiel.SpielError):
            state.observation_tensor(bad)
    with pytest.raises(pyspiel.SpielError, match="pseudo-player"):
        state.legal_actions(-2)


def test_a_finished_game_has_no_actions_and_no_default_observation() -> None:
    game = pyspiel.load_game("python_tabletop_medina(players=3)")
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.legal_actions() == state.legal_actions(0) == pyspiel.State.legal_actions(state) == []
    assert state.observation_tensor(1).tolist() == pyspiel.State.observation_tensor(state, 1)
    with pytest.raises(pyspiel.SpielError):
        state.observation_tensor()
