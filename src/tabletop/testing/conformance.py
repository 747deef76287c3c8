"""The protocol contract every game must satisfy, checked over random games.

Modelled on OpenSpiel's ``random_sim_test`` and Pgx's ``api_test``: a game's test suite
calls ``check_game(make("terranova"))`` and gets an ``AssertionError`` naming the first
broken promise of :mod:`tabletop.core.protocol`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from tabletop.ai.agent import random_move
from tabletop.core import registry
from tabletop.core.errors import IllegalMoveError, InvalidMoveError
from tabletop.core.protocol import TERMINAL, Game, GameConfig, Move, State
from tabletop.core.record import GameRecord, PlayerInfo, replay


def check_game(
    game: Game,
    *,
    n_games: int = 2,
    seed: int = 0,
    player_counts: Sequence[int] | None = None,
    check_every: int = 1,
) -> None:
    """Plays seeded kind-first random games and checks the protocol on every step.

    Args:
        game: the game under test.
        n_games: games per player count.
        seed: seed for configs and move choices.
        player_counts: defaults to every count from ``min_players`` to ``max_players`` that
            the default ruleset accepts (``core.registry.player_counts``).
        check_every: run the expensive per-state checks on every k-th state only.

    Raises:
        AssertionError: naming the first violated promise.
    """
    _check_metadata(game)
    counts = player_counts or registry.player_counts(game)
    rng = random.Random(seed)
    for num_players in counts:
        for i in range(n_games):
            config = GameConfig(num_players=num_players, seed=seed + i)
            _check_one_game(game, game.new_initial_state(config), rng, check_every)


def _check_metadata(game: Game) -> None:
    assert game.id and game.name, "a game needs an id and a name"
    assert 1 <= game.min_players <= game.max_players, "bad player range"
    assert "default" in game.rulesets, "every game has a 'default' ruleset"
    names = [o.name for o in game.options]
    assert len(names) == len(set(names)), f"duplicate option names in {names}"
    for preset, flags in game.rulesets.items():
        unknown = set(flags) - set(names)
        assert not unknown, f"ruleset {preset!r} sets unknown flags {sorted(unknown)}"
    for count in game.bench_player_counts:
        assert game.min_players <= count <= game.max_players, f"bench count {count} out of range"


def _check_one_game(game: Game, initial: State, rng: random.Random, check_every: int) -> None:
    assert not initial.is_terminal(), "the initial state must not be terminal"
    assert initial.ply == 0, "the initial state has ply 0"
    assert initial.returns() == (0.0,) * initial.num_players, "returns are zero before the end"
    state = initial
    moves: list[Move] = []
    seen_moves: list[Move] = []
    while not state.is_terminal():
        legal = state.legal_moves()
        assert legal, f"ply {state.ply}: a non-terminal state has no legal move"
        assert 0 <= state.current_player < state.num_players, f"ply {state.ply}: bad current_player"
        assert len(state.scores()) == state.num_players, "one score per seat"
        if state.ply % check_every == 0:
            _check_state(state, legal, seen_moves, rng)
        move = random_move(state, rng)
        before = json.dumps(state.to_json(), sort_keys=True)
        following = state.apply(move)
        assert json.dumps(state.to_json(), sort_keys=True) == before, f"ply {state.ply}: apply mutated the old state"
        assert following.ply == state.ply + 1, "apply advances ply by one"
        assert following.turn >= state.turn, "turn never decreases"
        if following.turn == state.turn and not following.is_terminal():
            assert following.current_player == state.current_player, "a turn belongs to one player"
        seen_moves.append(move)
        moves.append(move)
        state = following
    _check_terminal(state)
    record = GameRecord.from_states(initial, moves, [PlayerInfo(f"p{i}", "random") for i in range(state.num_players)])
    again = replay(GameRecord.loads(record.dumps()))
    assert again.outcome() == state.outcome(), "a record must replay to the same outcome"


def _check_state(state: State, legal: Sequence[Move], seen: list[Move], rng: random.Random) -> None:
    kinds = state.legal_kinds()
    assert len(set(kinds)) == len(kinds), f"ply {state.ply}: duplicate kinds {kinds}"
    assert set(kinds) == {m.kind for m in legal}, f"ply {state.ply}: legal_kinds disagrees with legal_moves"
    by_kind = [m for kind in kinds for m in state.legal_moves_of_kind(kind)]
    assert sorted(map(str, by_kind)) == sorted(map(str, legal)), f"ply {state.ply}: moves by kind differ"
    assert len(set(legal)) == len(legal), f"ply {state.ply}: duplicate legal moves"
    for move in legal:
        assert state.is_legal(move), f"ply {state.ply}: legal move {move} reported illegal"
        text = state.move_to_str(move)
        assert state.parse_move(text) == move, f"ply {state.ply}: {text!r} does not round-trip"
        assert state.game.parse_move(text) == move, f"ply {state.ply}: {text!r} is not context-free"
    legal_set = set(legal)
    illegal = [m for m in seen[-50:] if m not in legal_set]
    if illegal:
        move = rng.choice(illegal)
        assert not state.is_legal(move), f"ply {state.ply}: is_legal accepts {move}"
        before = json.dumps(state.to_json(), sort_keys=True)
        try:
            state.apply(move)
        except IllegalMoveError:
            pass
        else:
            raise AssertionError(f"ply {state.ply}: illegal move {move} was accepted")
        assert json.dumps(state.to_json(), sort_keys=True) == before, "a rejected move changed the state"
    try:
        state.parse_move("\x00 not a move \x00")
    except InvalidMoveError:
        pass
    else:
        raise AssertionError("garbage text parsed as a move")


def _check_terminal(state: State) -> None:
    assert state.current_player == TERMINAL, "a terminal state has current_player TERMINAL"
    assert not state.legal_moves(), "a terminal state has no legal moves"
    outcome = state.outcome()
    assert outcome is not None, "a terminal state has an outcome"
    assert outcome.scores == state.scores(), "outcome scores equal scores()"
    top = max(outcome.scores)
    assert set(outcome.winners) == {i for i, s in enumerate(outcome.scores) if s == top}, "winners share the top"
    assert abs(sum(state.returns()) - 1.0) < 1e-9, "returns of a finished game sum to 1"
