"""Differential check: the native engine against the Python engine, move by move.

Each game is played with random moves (kind-first, as ``ai.agent.random_move``, or
uniform over every legal move, alternately) on both engines at once.  At every step the
two must agree on everything the protocol shows: the legal moves (the same ``Move``
objects in the same order), the legal kinds and the moves of each kind, the seat to
act, ``ply``, ``turn``, scores, returns, whether the game is over and its outcome; and
every field the Rust state exports (``export()``) must equal the Python state's field of
that name (``num_<field>`` is compared with ``len(<field>)``).

The configurations cover every player count, every preset, every value of every flag
(a flag without a list of choices keeps its default) and random combinations of flags::

    python -m tabletop.native.check terranova --games 10000
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Game, GameConfig, OptionValue, State
from tabletop.core.registry import make
from tabletop.native import NativeState, native_game

_OTHER_KINDS = ("place", "move", "stone", "pass")
"""Kinds whose move lists must be empty when they are not among the legal kinds."""


class Mismatch(AssertionError):
    """The engines disagree (the message says where and how)."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What :func:`check_games` compared."""

    games: int
    steps: int
    seconds: float


def variant_configs(game: Game) -> Iterator[tuple[str, Mapping[str, OptionValue]]]:
    """``(ruleset, variants)``: every preset, then every value of every flag alone."""
    for ruleset in game.rulesets:
        yield ruleset, {}
    for spec in game.options:
        for value in spec.choices or ():
            if value != spec.default:
                yield "default", {spec.name: value}


def random_variants(game: Game, rng: random.Random) -> dict[str, OptionValue]:
    """A random value for every flag that has a list of choices."""
    return {spec.name: rng.choice(spec.choices) for spec in game.options if spec.choices}


def configs(game: Game, count: int, seed: int = 0) -> Iterator[GameConfig]:
    """``count`` configs cycling through player counts, the variant list and random mixes
    (those the native engine plays: see :func:`native_plays`)."""
    rng = random.Random(seed)
    listed = [(r, v) for r, v in variant_configs(game) if native_plays(game, GameConfig(game.max_players, r, dict(v)))]
    players = list(range(game.min_players, game.max_players + 1))
    made = i = 0
    while made < count:
        n = players[i % len(players)]
        if i % 2 == 0:
            ruleset, variants = listed[(i // 2) % len(listed)]
        else:
            ruleset, variants = rng.choice(list(game.rulesets)), random_variants(game, rng)
        config = GameConfig(num_players=n, ruleset=ruleset, variants=dict(variants), seed=seed + i)
        i += 1
        if native_plays(game, config):
            made += 1
            yield config


def native_plays(game: Game, config: GameConfig) -> bool:
    """Whether ``config`` is valid and the native engine plays it (the game's optional
    ``native_refusal`` hook, for a config a game's native engine does not play)."""
    try:
        game.canonical_config(config)
        refusal = getattr(game, "native_refusal", None)
        return refusal is None or refusal(config) is None
    except ConfigError:
        return False


def _plain(value: Any) -> Any:
    """``value`` as the native export gives it: sequences as lists, a dataclass (Terra
    Nova's ``ScoredArea``) as the list of its fields in order."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [_plain(getattr(value, f.name)) for f in dataclasses.fields(value)]
    return value


def compare(python: State, native: NativeState, where: str, *, full: bool = True) -> None:
    """Raises :class:`Mismatch` unless the two states agree on everything compared.

    ``full=False`` compares the number of moves of each kind instead of the moves, and
    skips the exported fields: the cheap check for the steps between full ones.
    """

    def check(what: str, a: object, b: object) -> None:
        if a != b:
            raise Mismatch(f"{where}: {what} differs: python {a!r} != native {b!r}")

    kinds = tuple(python.legal_kinds())
    check("legal kinds", kinds, native.legal_kinds())
    # legal_moves() is the moves of each legal kind in turn (both engines build it so):
    # compare those lists, and the native engine's legal_moves() with their concatenation.
    listed: list[object] = []
    if not full:
        for kind in kinds:
            check(
                f"number of moves of kind {kind!r}",
                len(python.legal_moves_of_kind(kind)),
                len(native.legal_moves_of_kind(kind)),
            )
        _compare_results(python, native, check)
        return
    for kind in kinds:
        of_kind = list(native.legal_moves_of_kind(kind))
        check(f"moves of kind {kind!r}", list(python.legal_moves_of_kind(kind)), of_kind)
        listed += of_kind
    check("legal moves", listed, native.legal_moves())
    for kind in _OTHER_KINDS:
        if kind not in kinds:
            check(f"moves of kind {kind!r} (not a legal kind)", [], list(native.legal_moves_of_kind(kind)))
    _compare_results(python, native, check)
    for key, value in native.native.export().items():
        if hasattr(python, key):
            check(f"field {key}", _plain(getattr(python, key)), _plain(value))
        elif key.startswith("num_") and hasattr(python, key[4:]):
            check(f"len({key[4:]})", len(getattr(python, key[4:])), value)
        else:
            raise Mismatch(f"{where}: the native state exports {key!r}, which the Python state lacks")


def _compare_results(python: State, native: NativeState, check: Callable[[str, object, object], None]) -> None:
    check("current player", python.current_player, native.current_player)
    check("ply", python.ply, native.ply)
    check("turn", python.turn, native.turn)
    check("scores", python.scores(), native.scores())
    check("returns", python.returns(), native.returns())
    check("terminal", python.is_terminal(), native.is_terminal())
    check("outcome", python.outcome(), native.outcome())


def play_both(
    python_game: Game, config: GameConfig, seed: int, *, full_every: int = 1, max_steps: int = 100_000
) -> int:
    """Plays one random game on both engines, comparing every step; returns the steps.

    Every ``full_every``-th step (and the last) is compared in full, the others by move
    counts (:func:`compare`).  Odd seeds let the native engine choose the moves, which
    the Python engine then checks as it applies them.

    Raises:
        Mismatch: at the first difference.
    """
    rng = random.Random(seed)
    native = native_game(python_game).new_initial_state(config)
    python = python_game.new_initial_state(native.config)
    kind_first = seed % 2 == 0
    steps = 0
    while True:
        where = f"{python_game.id} {config} seed {seed} step {steps}"
        compare(python, native, where, full=steps % full_every == 0 or python.is_terminal())
        if python.is_terminal() or steps >= max_steps:
            return steps
        chooser: State = native if seed % 4 >= 2 else python
        moves = chooser.legal_moves_of_kind(rng.choice(chooser.legal_kinds())) if kind_first else chooser.legal_moves()
        move = rng.choice(moves)
        python = python.apply(move)
        native = native.apply(move)
        steps += 1


def check_games(game_id: str, games: int, seed: int = 0, *, full_every: int = 1, progress: bool = False) -> CheckResult:
    """Plays ``games`` random games on both engines (configs from :func:`configs`).

    Raises:
        Mismatch: at the first difference.
    """
    python_game = make(game_id, engine="python")
    start = time.perf_counter()
    steps = 0
    for i, config in enumerate(configs(python_game, games, seed)):
        steps += play_both(python_game, config, seed + i, full_every=full_every)
        if progress and (i + 1) % 500 == 0:
            print(f"  {i + 1} games, {steps} steps, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return CheckResult(games, steps, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabletop.native.check", description=__doc__.split("\n")[0])
    parser.add_argument("game", help="game id")
    parser.add_argument("--games", type=int, default=1000, help="random games to compare (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument(
        "--full-every", type=int, default=1, help="compare whole move lists and fields every K-th step (default 1)"
    )
    args = parser.parse_args(argv)
    try:
        result = check_games(args.game, args.games, args.seed, full_every=args.full_every, progress=True)
    except Mismatch as exc:
        print(f"MISMATCH: {exc}")
        return 1
    print(
        f"{args.game}: {result.games} games, {result.steps} steps compared (in full every {args.full_every}), "
        f"no difference ({result.seconds:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
