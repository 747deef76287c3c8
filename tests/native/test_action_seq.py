"""``tabletop._native.ActionSeq``: the lazy legal-action sequence both Rust states return.

It must behave as the list it replaces (and, with a move table, as the Python engine's
``legal_moves_of_kind``): length, indexing, slicing, iteration, ``in``, equality with
lists and tuples, ``index`` and ``count``.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Sequence

import pytest

from tabletop.core.protocol import GameConfig
from tabletop.core.registry import make
from tabletop.native import has_native, python_state
from tests.native import needs_native

GAMES = [(g, n) for g, n in (("terranova", 2), ("medina", 3)) if has_native(g)]
pytestmark = needs_native("terranova", "medina")


def mid_game(game_id: str, players: int, plies: int) -> object:
    game = make(game_id, engine="native")
    state = game.new_initial_state(GameConfig(num_players=players, seed=3))
    rng = random.Random(3)
    for _ in range(plies):
        state = state.apply(rng.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize(("game_id", "players"), GAMES)
@pytest.mark.parametrize("plies", [0, 7, 30])
def test_actions_behave_as_the_list_of_them(game_id: str, players: int, plies: int) -> None:
    state = mid_game(game_id, players, plies)
    core = state.native  # type: ignore[attr-defined]
    seq = core.legal_actions()
    listed = list(seq)
    assert isinstance(seq, Sequence)
    assert len(seq) == len(listed) > 0
    assert all(type(a) is int for a in listed)
    assert seq == listed and seq == tuple(listed) and listed == seq
    assert seq != listed[:-1] and seq != [*listed, listed[0]]
    assert [seq[i] for i in range(len(seq))] == listed
    assert seq[-1] == listed[-1] and seq[-len(seq)] == listed[0]
    assert seq[1:4] == tuple(listed[1:4]) and seq[::-1] == tuple(reversed(listed))
    assert list(reversed(seq)) == listed[::-1]
    assert listed[-1] in seq and -5 not in seq and "x" not in seq
    assert seq.index(listed[-1]) == listed.index(listed[-1]) and seq.count(listed[0]) == 1
    with pytest.raises(IndexError):
        seq[len(seq)]
    with pytest.raises(IndexError):
        seq[-len(seq) - 1]
    with pytest.raises(TypeError):
        seq["0"]
    with pytest.raises(ValueError):
        seq.index(-5)
    # start and stop as list.index takes them, negative ones from the end
    for start, stop in ((1, None), (0, 2), (-3, None), (2, -1), (5, 2)):
        in_list = (
            listed.index(listed[1], start, *(() if stop is None else (stop,)))
            if listed[1] in listed[start:stop]
            else None
        )
        if in_list is None:
            with pytest.raises(ValueError):
                seq.index(listed[1], start, stop)
        else:
            assert seq.index(listed[1], start, stop) == in_list
    assert repr(seq) == f"ActionSeq({listed!r})"
    assert copy.copy(seq) == seq == pickle.loads(pickle.dumps(seq)) == copy.deepcopy(seq)
    with pytest.raises(TypeError):
        hash(seq)
    for kind in core.legal_kinds():
        assert list(core.legal_actions_of_kind(kind)) == [
            a for a in listed if a in set(core.legal_actions_of_kind(kind))
        ]
    assert core.legal_actions_of_kind("no_such_kind") == []


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_moves_of_a_kind_are_the_python_engines_moves(game_id: str, players: int) -> None:
    state = mid_game(game_id, players, 12)
    python = python_state(state)  # type: ignore[arg-type]
    assert state.legal_kinds() == python.legal_kinds()  # type: ignore[attr-defined]
    for kind in python.legal_kinds():
        moves = state.legal_moves_of_kind(kind)  # type: ignore[attr-defined]
        expected = list(python.legal_moves_of_kind(kind))
        assert isinstance(moves, Sequence)
        assert moves == expected and expected == moves and moves == python.legal_moves_of_kind(kind)
        assert list(moves) == expected and moves[len(moves) - 1] == expected[-1]
        assert expected[0] in moves
        chosen = random.Random(0).choice(moves)
        assert python_state(state.apply(chosen)) == python.apply(chosen)  # type: ignore[attr-defined]
    assert list(state.legal_moves()) == list(python.legal_moves())  # type: ignore[attr-defined]


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_the_native_encoding_reads_masks_and_actions_from_rust_equal_to_python(game_id: str, players: int) -> None:
    game = make(game_id, engine="native")
    rng = random.Random(5)
    for seed in range(3):
        state = game.new_initial_state(GameConfig(num_players=players, seed=seed))
        native_encoding = game.encoding(state.config)  # type: ignore[attr-defined]
        python_encoding = make(game_id, engine="python").encoding(state.config)  # type: ignore[attr-defined]
        while not state.is_terminal():
            python = python_state(state)
            assert native_encoding.action_mask(state) == python_encoding.action_mask(python)
            assert native_encoding.legal_actions(state) == python_encoding.legal_actions(python)
            state = state.apply(rng.choice(list(state.legal_moves())))


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_the_native_encoding_decodes_to_the_moves_its_states_hand_out(game_id: str, players: int) -> None:
    game = make(game_id, engine="native")
    state = game.new_initial_state(GameConfig(num_players=players, seed=2))
    native_encoding = game.encoding(state.config)  # type: ignore[attr-defined]
    python_encoding = make(game_id, engine="python").encoding(state.config)  # type: ignore[attr-defined]
    for move in state.legal_moves():
        action = native_encoding.encode(move)
        assert action == python_encoding.encode(move)
        assert native_encoding.decode(action) is move  # the same object: `apply` finds it at once
    # Anything that is not an action id is answered as the Python engine's encoding answers it.
    size = native_encoding.num_distinct_actions
    for odd in (-1, size, size + 10**12, True, 2.0, "3", None):
        answers = []
        for encoding in (native_encoding, python_encoding):
            try:
                answers.append(encoding.decode(odd))
            except Exception as error:  # the kind of error is what is compared
                answers.append(type(error))
        assert answers[0] == answers[1], odd


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_ascending_ids_are_the_sorted_action_ids_whatever_the_items(game_id: str, players: int) -> None:
    for plies in (0, 5, 40):
        state = mid_game(game_id, players, plies)
        ids = state.native.legal_actions()  # type: ignore[attr-defined]
        moves = state.legal_moves()  # type: ignore[attr-defined]
        encoding = make(game_id).encoding(state.config)  # type: ignore[attr-defined]
        assert ids.ascending_ids() == sorted(ids)
        assert moves.ascending_ids() == sorted(encoding.encode(m) for m in moves)


@pytest.mark.parametrize(("game_id", "players"), GAMES)
def test_stepping_a_batch_equals_stepping_each_game(game_id: str, players: int) -> None:
    from tabletop.native import step_batch

    game = make(game_id, engine="native")
    states = [game.new_initial_state(GameConfig(num_players=players, seed=seed)) for seed in range(6)]
    rng = random.Random(11)
    size = states[0].native.num_distinct_actions  # type: ignore[attr-defined]
    for _ in range(400):
        live = [s for s in states if not s.is_terminal()]
        if not live:
            break
        actions = [rng.choice(s.native.legal_actions()) for s in live]  # type: ignore[attr-defined]
        actions[0] = size + 5 if rng.random() < 0.1 else actions[0]  # now and then an illegal one
        batch = step_batch(live, actions)  # type: ignore[arg-type]
        for i, (state, action) in enumerate(zip(live, actions, strict=True)):
            after = batch.states[i]
            if action >= size:
                assert after is None and batch.returns[i] == ()
                continue
            one = state.apply_action(action)  # type: ignore[attr-defined]
            assert after is not None and python_state(after) == python_state(one)
            assert batch.terminal[i] == one.is_terminal() and batch.returns[i] == one.returns()
            assert batch.masks[i * size : (i + 1) * size] == game.encoding(state.config).action_mask(one)  # type: ignore[attr-defined]
        done = [s for s in states if s.is_terminal()]
        states = [a if a is not None else b for a, b in zip(batch.states, live, strict=True)] + done
    with pytest.raises(ValueError, match="2 states but 1 actions"):
        step_batch(states[:2], [0])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="native states"):
        step_batch([python_state(states[0])], [0])  # type: ignore[list-item]
