"""The native Medina engine (``tabletop._native.MedinaState``) against the Python engine.

Random games over every player count (2 to 4), every preset of both editions and every
variant flag (the first edition's, ``obligation_recheck`` and the other flags the second
edition added, each on and off), compared at every step: the legal actions in order, the
legal kinds and the moves of each kind, the seat to move, ply and turn, scores, returns,
the outcome and the exported fields (``export()`` against the Python ``State``'s fields
of the same names).  Half the games pick moves kind-first (as the bots' rollouts do),
half uniformly among all moves, which reaches other positions.  The 10,000-game run is
``python -m tabletop.native.check medina`` (``docs/native.md``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabletop.ai.agent import random_move
from tabletop.core.protocol import GameConfig, Move, OptionValue
from tabletop.core.registry import make
from tabletop.games.medina import MedinaGame, State
from tabletop.games.medina.encoding import NUM_ACTIONS, NUM_ACTIONS_2E, PASS_ACTION, PASS_ACTION_2E, TEA_ACTION
from tabletop.games.medina.moves import placement_sources
from tabletop.native import has_native
from tests.native import needs_native

pytestmark = needs_native("medina")
if has_native("medina"):
    import tabletop._native as native

GAME = MedinaGame()

FLAG_VALUES: list[tuple[str, OptionValue]] = [
    ("abandoned_palace_claimable", True),
    ("new_chain_may_touch_one", True),
    ("tower_reconnect_per_run", True),
    ("last_player_by_supply", True),
    ("dome_obligation_lookahead", False),
    ("start_merchant_anywhere", True),
    ("start_merchant", "random"),
    ("stable_adjacency_scores", False),
    ("hide_supplies", False),
    ("tower_values", "A1:7,R1:0,A13:12,R13:3"),
    ("obligation_recheck", True),
    ("last_player_dome_obligation", False),
    ("tie_break", "largest_palace"),
]
"""Every first-edition flag set to its non-default value (``ruleset.OPTIONS``), one at a time."""

SECOND_EDITION_FLAGS: list[tuple[str, OptionValue]] = [
    ("obligation_recheck", True),
    ("last_player_dome_obligation", False),
    ("tie_break", "largest_palace"),
    ("well", "none"),
    ("well", "F6"),
    ("neutral_domes", "2:3,3:2,4:1"),
    ("neutral_claims_tiles", False),
    ("neutral_dome_any_unowned", True),
    ("well_bonus_squares", "plaza_ring"),
    ("tea_spend_when_stuck", True),
    ("tea_usable_turn_received", False),
    ("tower_events_claim_only", True),
    ("neutral_dome_satisfies_obligation", True),
    ("start_square", "E5"),
    ("start_merchant", "player"),
    ("abandoned_palace_claimable", True),
    ("new_chain_may_touch_one", True),
    ("tower_reconnect_per_run", True),
    ("last_player_by_supply", True),
    ("dome_obligation_lookahead", False),
    ("stable_adjacency_scores", False),
    ("start_merchant_anywhere", True),
    ("tower_values", "A1:7,P1:0,A12:12,P12:3"),
]
"""Flags of the second edition's games, each given a value that differs from the default
(``second_edition``) or from ``boardspace_v2`` where that preset sets it the other way:
played under both presets, every flag is seen on and off."""

FIRST_EDITION_PRESETS = [p for p in GAME.rulesets if GAME.ruleset(GameConfig(num_players=3, ruleset=p)).edition == 1]
SECOND_EDITION_PRESETS = [p for p in GAME.rulesets if p not in FIRST_EDITION_PRESETS]


def flipped(ruleset: str, name: str, value: OptionValue) -> dict[str, OptionValue]:
    """``{name: value}``, or the preset's opposite where ``ruleset`` already sets ``value``
    (a boolean flag: so that every flag is played both ways)."""
    preset = GAME.ruleset(GameConfig(num_players=3, ruleset=ruleset))
    if isinstance(value, bool) and getattr(preset, name) == value:
        return {name: not value}
    return {name: value}


CONFIGS: list[dict[str, Any]] = [
    *({"ruleset": preset} for preset in FIRST_EDITION_PRESETS),
    *({"variants": {name: value}} for name, value in FLAG_VALUES),
    {"ruleset": "boardspace", "variants": {"start_merchant": "random", "last_player_by_supply": True}},
    {"ruleset": "boardspace", "variants": {"obligation_recheck": False}},
]
"""First-edition configs (3 and 4 players)."""

SECOND_EDITION_CONFIGS: list[dict[str, Any]] = [
    *({"ruleset": preset} for preset in SECOND_EDITION_PRESETS),
    *(
        {"ruleset": preset, "variants": flipped(preset, name, value)}
        for preset in SECOND_EDITION_PRESETS
        for name, value in SECOND_EDITION_FLAGS
    ),
]
"""Second-edition configs (2, 3 and 4 players)."""

Policy = Callable[[State, random.Random], Move]


def uniform_move(state: State, rng: random.Random) -> Move:
    """A move drawn uniformly from every legal move."""
    return rng.choice(state.legal_moves())


def native_state(config: GameConfig) -> tuple[State, Any]:
    """The Python initial state and the native one built from it (the adapter's setup JSON)."""
    state = GAME.new_initial_state(config)
    assert isinstance(state, State)
    setup = {"config": GAME.canonical_config(config).to_json(), "initial": state.to_json()}
    return state, native.MedinaState(json.dumps(setup))


def plain(value: object) -> object:
    """Tuples (and named tuples) as lists, for comparing Python fields with ``export()``."""
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    return value


def assert_same(state: State, nat: Any, step: int) -> None:
    """Everything the protocol shows of a position is the same in both engines."""
    encode = GAME.encoding(state.config).encode
    where = f"step {step}"
    assert [encode(m) for m in state.legal_moves()] == nat.legal_actions(), where
    assert tuple(state.legal_kinds()) == nat.legal_kinds(), where
    for kind in (*state.legal_kinds(), "no_such_kind"):
        assert [encode(m) for m in state.legal_moves_of_kind(kind)] == nat.legal_actions_of_kind(kind), where
    assert (state.current_player, state.ply, state.turn) == (nat.current_player, nat.ply, nat.turn), where
    assert list(state.scores()) == nat.scores(), where
    assert list(state.returns()) == nat.returns(), where
    assert state.is_terminal() == nat.is_terminal(), where
    outcome = state.outcome()
    assert (list(outcome.winners) if outcome else []) == nat.winners(), where
    assert (outcome.termination if outcome else None) == nat.termination(), where
    for name, value in nat.export().items():
        assert plain(getattr(state, name)) == plain(value), f"{where}: field {name}"


def play_both(config: GameConfig, seed: int, policy: Policy, visit: Callable[[State], None] | None = None) -> int:
    """Plays one game in both engines, comparing every position (each also passed to
    ``visit``); returns its length."""
    state, nat = native_state(config)
    encode = GAME.encoding(config).encode
    rng = random.Random(seed)
    step = 0
    while True:
        assert_same(state, nat, step)
        if visit is not None:
            visit(state)
        if state.is_terminal():
            return step
        move = policy(state, rng)
        assert nat.is_legal(encode(move))
        state = state.apply(move)
        nat = nat.apply(encode(move))
        step += 1


@pytest.mark.parametrize("num_players", [3, 4])
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: json.dumps(c, sort_keys=True))
@pytest.mark.parametrize("seed", range(6))
def test_random_games_match_the_python_engine(num_players: int, config: dict[str, Any], seed: int) -> None:
    game_config = GameConfig(num_players=num_players, seed=seed, start_player=seed % num_players, **config)
    policy = random_move if seed % 2 else uniform_move
    assert play_both(game_config, 1000 * seed + num_players, policy) > 40


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("config", SECOND_EDITION_CONFIGS, ids=lambda c: json.dumps(c, sort_keys=True))
@pytest.mark.parametrize("seed", range(2))
def test_second_edition_games_match_the_python_engine(num_players: int, config: dict[str, Any], seed: int) -> None:
    game_config = GameConfig(num_players=num_players, seed=seed, start_player=seed % num_players, **config)
    policy = random_move if seed % 2 else uniform_move
    assert play_both(game_config, 1000 * seed + num_players, policy) > 20


def kinds_seen(config: GameConfig, seeds: range) -> set[str]:
    """The move kinds legal somewhere in random games of ``config`` (both engines compared)."""
    seen: set[str] = set()
    for seed in seeds:
        play_both(replace(config, seed=seed), seed, random_move, lambda s: seen.update(s.legal_kinds()))
    return seen


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_second_edition_games_reach_neutral_domes_and_tea(num_players: int) -> None:
    # The kinds only the second edition has are played, and compared, in these games.
    config = GameConfig(num_players=num_players, ruleset="second_edition", variants={"neutral_domes": "2:2,3:2,4:2"})
    assert {"neutral", "tea"} <= kinds_seen(config, range(4))


OBLIGATION_GAMES = [(4, 685, 2), (3, 748, 2), (4, 923, 2), (4, 1311, 2), (4, 85, 1), (4, 327, 1)]
"""Kind-first games (players, seed, placements left) in which the last-player dome
obligation (§5.2) removes placements: the first ones by its lookahead (A8, with 2 left) or
all but the domes (1 left).  Rare in random play: found by searching 3,000 games."""


def obligation_filters(state: State) -> bool:
    """Whether the dome obligation removes some of the placements of ``state``."""
    if not state.obligation:
        return False
    sources = placement_sources(state, state.current_player)
    placements = sum(mask.bit_count() for kind in sources.values() for _, mask in kind)
    return placements != len(state.legal_moves())


@pytest.mark.parametrize(("num_players", "seed", "placements_left"), OBLIGATION_GAMES)
@pytest.mark.parametrize("last_player_by_supply", [False, True])
def test_the_dome_obligation_matches(
    num_players: int, seed: int, placements_left: int, last_player_by_supply: bool
) -> None:
    config = GameConfig(num_players=num_players, seed=seed, variants={"last_player_by_supply": last_player_by_supply})
    filtered: list[int] = []
    play_both(
        config, seed, random_move, lambda s: filtered.append(s.placements_left) if obligation_filters(s) else None
    )
    assert placements_left in filtered


@pytest.mark.parametrize(("num_players", "seed", "placements_left"), OBLIGATION_GAMES[:4])
def test_the_obligation_without_lookahead_matches(num_players: int, seed: int, placements_left: int) -> None:
    config = GameConfig(num_players=num_players, seed=seed, variants={"dome_obligation_lookahead": False})
    play_both(config, seed, random_move)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.sampled_from([3, 4]),
    flags=st.fixed_dictionaries({name: st.sampled_from([value, None]) for name, value in FLAG_VALUES}),
    ruleset=st.sampled_from(sorted(FIRST_EDITION_PRESETS)),
    seed=st.integers(0, 2**32),
)
def test_any_mix_of_flags_matches(num_players: int, flags: dict[str, Any], ruleset: str, seed: int) -> None:
    variants = {name: value for name, value in flags.items() if value is not None}
    config = GameConfig(num_players=num_players, ruleset=ruleset, variants=variants, seed=seed)
    play_both(config, seed, random_move if seed % 2 else uniform_move)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.sampled_from([2, 3, 4]),
    flags=st.fixed_dictionaries(
        {name: st.sampled_from([value, None]) for name, value in dict(SECOND_EDITION_FLAGS).items()}
    ),
    ruleset=st.sampled_from(sorted(SECOND_EDITION_PRESETS)),
    seed=st.integers(0, 2**32),
)
def test_any_mix_of_second_edition_flags_matches(
    num_players: int, flags: dict[str, Any], ruleset: str, seed: int
) -> None:
    variants = {name: value for name, value in flags.items() if value is not None}
    config = GameConfig(num_players=num_players, ruleset=ruleset, variants=variants, seed=seed)
    play_both(config, seed, random_move if seed % 2 else uniform_move)


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("ruleset", ["second_edition", "boardspace_v2"])
def test_the_native_engine_plays_the_second_edition(num_players: int, ruleset: str) -> None:
    # Through the registry: the native engine's own state, its Python state the same game.
    native_medina: Any = make("medina", engine="native")
    state: Any = native_medina.new_initial_state(GameConfig(num_players=num_players, ruleset=ruleset, seed=5))
    assert state.native.num_distinct_actions == 2342
    rng = random.Random(num_players)
    while not state.is_terminal():
        state = state.apply(random_move(state, rng))
    python = state.python_state()
    assert (state.scores(), state.outcome()) == (python.scores(), python.outcome())
    loaded: Any = native_medina.load_state(python)  # load() takes every reached position
    assert loaded.native.export() == state.native.export()


def test_illegal_and_out_of_range_actions_are_value_errors() -> None:
    _, nat = native_state(GameConfig(num_players=3))
    for action in (-1, NUM_ACTIONS, 2**40, PASS_ACTION):
        assert not nat.is_legal(action)
        with pytest.raises(ValueError):
            nat.apply(action)
    _, second = native_state(GameConfig(num_players=2, ruleset="second_edition", seed=1))
    # 2106 is the first edition's pass and the second edition's neutral@A1 (a tower: never legal).
    for action in (PASS_ACTION, PASS_ACTION_2E, TEA_ACTION, NUM_ACTIONS_2E):
        assert not second.is_legal(action)
        with pytest.raises(ValueError):
            second.apply(action)
    assert nat.legal_actions_of_kind("wall") == []
    with pytest.raises(ValueError):
        native.MedinaState("{}")
    with pytest.raises(ValueError):
        native.MedinaState("not json")


def test_a_bad_setup_names_the_problem() -> None:
    state = GAME.new_initial_state(GameConfig(num_players=3))
    view = state.to_json()
    view["num_players"] = 5
    with pytest.raises(ValueError, match="3 to 4 players"):
        native.MedinaState(json.dumps({"config": {}, "initial": view}))
    view = state.to_json()
    view["rules"]["tower_values"] = "A1:1"
    with pytest.raises(ValueError, match="tower_values"):
        native.MedinaState(json.dumps({"config": {}, "initial": view}))


def test_playouts_run_whole_games_in_rust() -> None:
    _, nat = native_state(GameConfig(num_players=4, seed=3))
    games, actions = nat.random_playouts(20, 7)
    assert games == 20
    # Every game places the starting merchant and at least a piece per seat and turn.
    assert 20 * 50 < actions < 20 * 400
    assert nat.random_playouts(20, 7) == (games, actions)  # seeded
    assert nat.ply == 0  # the state itself is unchanged


def test_native_playouts_have_the_python_game_lengths() -> None:
    """Kind-first playouts in Rust draw from the same distribution as the Python ones:
    the mean game length agrees (fixed seeds, so the check is deterministic)."""
    config = GameConfig(num_players=3)
    start, nat = native_state(config)
    games, actions = nat.random_playouts(400, 1)
    rng = random.Random(1)
    python_actions = 0
    for _ in range(100):
        state: Any = start
        while not state.is_terminal():
            state = state.apply(random_move(state, rng))
            python_actions += 1
    assert actions / games == pytest.approx(python_actions / 100, rel=0.05)


def test_the_native_tree_search_picks_a_legal_move() -> None:
    _, nat = native_state(GameConfig(num_players=3, seed=2))
    nat = nat.apply(nat.legal_actions()[0])
    found = nat.search(simulations=200, seed=1)
    assert nat.is_legal(found["action"]) and found["nodes"] > 1 and found["node_bytes"] > 0
