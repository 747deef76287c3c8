"""Golden playthroughs: one seeded kind-first random game per (game, bench player count).

Each file ``tests/golden/<game>/<n>p.json`` is a complete game record (loadable with
:meth:`tabletop.core.record.GameRecord.loads` and ``tabletop replay``) plus a ``golden``
object holding what the replay must reproduce: final scores, winners, termination and
the number of actions.  Any change to a game's rules, move order or notation shows up as
a failing replay; after an intended change, regenerate with::

    python -m tabletop.testing.playthrough --regenerate [--game ID] [--dir tests/golden]

and review the diff.  ``--check`` replays the files instead.  The generic test
``tests/testing/test_playthrough.py`` replays every file and fails when a registered
game lacks one for one of its ``bench_player_counts``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tabletop.ai.agent import RandomAgent
from tabletop.core.errors import RecordError
from tabletop.core.protocol import Game, GameConfig, Move
from tabletop.core.record import GameRecord, PlayerInfo, iter_replay
from tabletop.core.registry import available_games, make

DEFAULT_DIR = Path("tests") / "golden"
GOLDEN_DATE = "2000-01-01T00:00:00+00:00"
"""Fixed record date, so regenerating an unchanged game gives identical files."""
MAX_ACTIONS = 100_000
"""Guard against a game that never ends (it would be a bug: every game must end)."""


def golden_seed(num_players: int) -> int:
    """The seed of the golden game for a player count (config and agent alike)."""
    return 1000 + num_players


def golden_path(directory: Path, game_id: str, num_players: int) -> Path:
    """Where the golden file of ``(game_id, num_players)`` lives."""
    return directory / game_id / f"{num_players}p.json"


def play_golden(game: Game, num_players: int) -> GameRecord:
    """Plays the seeded kind-first random golden game of ``game`` with ``num_players`` seats.

    Raises:
        RuntimeError: if the game does not end within :data:`MAX_ACTIONS` actions.
    """
    seed = golden_seed(num_players)
    initial = game.new_initial_state(GameConfig(num_players=num_players, seed=seed))
    agent = RandomAgent(seed)
    state = initial
    moves: list[Move] = []
    while not state.is_terminal():
        if len(moves) >= MAX_ACTIONS:
            raise RuntimeError(f"{game.id} {num_players}p golden game did not end in {MAX_ACTIONS} actions")
        move = agent.choose_move(state)
        moves.append(move)
        state = state.apply(move)
    players = [PlayerInfo(f"random-{i}", "random") for i in range(num_players)]
    return replace(GameRecord.from_states(initial, moves, players), date=GOLDEN_DATE)


def golden_json(record: GameRecord) -> dict[str, Any]:
    """The golden file content: the record plus the expected result."""
    data = record.to_json()
    result = record.result
    data["golden"] = {
        "scores": list(result.scores) if result else None,
        "winners": list(result.winners) if result else None,
        "termination": result.termination if result else None,
        "num_actions": len(record.actions),
    }
    return data


def regenerate(directory: Path, game_ids: Sequence[str] | None = None) -> list[Path]:
    """Writes the golden files of the given games (all registered games by default).

    Returns:
        The paths written.
    """
    written = []
    for game_id in game_ids or shipped_games():
        game = make(game_id)
        for n in game.bench_player_counts:
            path = golden_path(directory, game_id, n)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(golden_json(play_golden(game, n)), indent=2, ensure_ascii=False) + "\n")
            written.append(path)
    return written


def check_golden_file(path: Path) -> list[str]:
    """Replays one golden file; returns the problems found (empty when it passes)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        record = GameRecord.from_json(data)
    except (OSError, json.JSONDecodeError, RecordError) as exc:
        return [f"{path}: cannot read: {exc}"]
    golden = data.get("golden") or {}
    state = None
    try:
        for state in iter_replay(record):  # noqa: B007 - the last state is wanted
            pass
    except RecordError as exc:
        return [f"{path}: replay failed: {exc}"]
    assert state is not None
    problems = []
    outcome = state.outcome()
    if not state.is_terminal() or outcome is None:
        problems.append(f"{path}: the replayed game is not over after {len(record.actions)} actions")
    else:
        if record.result is not None and outcome != record.result:
            problems.append(f"{path}: result {outcome.to_json()} differs from the record's {record.result.to_json()}")
        if list(outcome.scores) != golden.get("scores"):
            problems.append(f"{path}: final scores {list(outcome.scores)} != golden {golden.get('scores')}")
        if outcome.termination != golden.get("termination"):
            problems.append(f"{path}: termination {outcome.termination!r} != golden {golden.get('termination')!r}")
    if golden.get("num_actions") != len(record.actions):
        problems.append(f"{path}: {len(record.actions)} actions but golden says {golden.get('num_actions')}")
    return problems


def shipped_games() -> tuple[str, ...]:
    """The registered games that ship in ``tabletop.games`` (not test-only toy games)."""
    return tuple(
        g for g in available_games() if type(make(g, engine="python")).__module__.startswith("tabletop.games.")
    )


def missing_golden_files(directory: Path) -> list[str]:
    """``"<game> <n>p"`` for every shipped game and bench player count without a file."""
    missing = []
    for game_id in shipped_games():
        for n in make(game_id).bench_player_counts:
            if not golden_path(directory, game_id, n).is_file():
                missing.append(f"{game_id} {n}p")
    return missing


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``--regenerate`` writes golden files, ``--check`` replays them."""
    parser = argparse.ArgumentParser(prog="python -m tabletop.testing.playthrough", description=__doc__.split("\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--regenerate", action="store_true", help="play and write the golden files")
    action.add_argument("--check", action="store_true", help="replay the golden files and compare")
    parser.add_argument("--game", action="append", help="only this game id (repeatable)")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="golden directory (default tests/golden)")
    args = parser.parse_args(argv)
    if args.regenerate:
        for path in regenerate(args.dir, args.game):
            print(f"wrote {path}")
        return 0
    problems = []
    for game_id in args.game or shipped_games():
        for n in make(game_id).bench_player_counts:
            path = golden_path(args.dir, game_id, n)
            problems += check_golden_file(path) if path.is_file() else [f"{path}: missing"]
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
