"""An arena's output directory, written as games finish and read back to resume.

A long arena (hundreds of games with searching bots) can take hours; a crash, a
Ctrl-C or a machine going away must not lose the games already played.  So each game
is saved the moment it finishes, and ``tabletop arena ... --out DIR --resume`` plays
only the games ``DIR`` does not hold yet (or more of them, with a larger ``--games``).
Game ``i`` depends only on ``(--seed, i)``, so a resumed arena gives the same games as
one that never stopped (time budgets excepted).

Layout of ``DIR``::

    arena.json              what is played: the TournamentConfig without the game count
    games.jsonl             one line per finished game: index, record file, lineup,
                            seed, seconds and moves per seat, the node that played it
                            (appended, fsynced; written by the driver alone, whichever
                            backend played the game, so a game is saved once)
    games/GAME-NNNN.json    the game's record (written to a temporary name, then renamed)
    results.json, results.md, ratings.svg
                            the summary, rewritten at the end of every run
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tabletop.arena.tournament import ArenaGame, TournamentConfig, derived_seed, lineups
from tabletop.core.errors import ConfigError, TabletopError
from tabletop.core.record import GameRecord, replay

ARENA_FILE = "arena.json"
INDEX_FILE = "games.jsonl"
RECORDS_DIR = "games"


def record_name(config: TournamentConfig, index: int) -> str:
    """The file name of game ``index``'s record (zero-padded so names sort by index)."""
    width = max(4, len(str(config.games - 1)))
    return f"{config.game}-{index:0{width}d}.json"


def _identity(config: TournamentConfig) -> dict[str, Any]:
    """What must match for two runs to be parts of one arena (everything but ``games``)."""
    data = asdict(config)
    del data["games"]
    data["bots"] = list(config.bots)
    return data


@dataclass
class ArenaArchive:
    """The output directory of one arena.

    Args:
        out: the directory (created if missing).
        config: the arena being played.
        resume: continue the arena already in ``out``; without it, a directory that
            already holds an arena is refused rather than mixed with a new one.

    Raises:
        ConfigError: if ``out`` holds another arena, or an arena and ``resume`` is off.
        OSError: if the directory cannot be created or written.
    """

    out: Path
    config: TournamentConfig
    resume: bool = False
    skipped: list[str] = field(default_factory=list)
    """Why saved games could not be used (they are played again)."""
    beyond: set[int] = field(default_factory=set)
    """Indices of saved games past ``config.games`` (kept on disk, left out of the results)."""

    def __post_init__(self) -> None:
        arena_file = self.out / ARENA_FILE
        if arena_file.exists():
            if not self.resume:
                raise ConfigError(
                    f"{self.out} already holds an arena; pass --resume to continue it, or choose another --out"
                )
            try:
                saved = json.loads(arena_file.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ConfigError(f"cannot read {arena_file}: {exc}") from None
            wanted = _identity(self.config)
            for key, value in wanted.items():
                if saved.get(key) != value:
                    raise ConfigError(
                        f"{self.out} holds an arena with {key} = {saved.get(key)!r}, not {value!r}: "
                        "--resume needs the same game, bots, players, seed, move time and ruleset"
                    )
        (self.out / RECORDS_DIR).mkdir(parents=True, exist_ok=True)
        _write_atomically(arena_file, json.dumps(_identity(self.config), indent=2) + "\n")

    def load(self) -> list[ArenaGame]:
        """The saved games that belong to this arena, by index (each replayed and checked).

        A game whose record is missing, does not replay, or does not match its index's
        seating and seed is left out (and noted in :attr:`skipped`), so it is played again.
        """
        index_file = self.out / INDEX_FILE
        if not index_file.exists():
            return []
        seatings = lineups(self.config.bots, self.config.num_players)
        found: dict[int, ArenaGame] = {}
        for number, line in enumerate(index_file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                index = int(entry["index"])
                name = str(entry["record"])
                think = tuple(float(t) for t in entry["think_seconds"])
                moves = tuple(int(m) for m in entry["moves_by_seat"])
                node = str(entry.get("node", ""))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                # A line cut short by a crash while it was being appended.
                self.skipped.append(f"{INDEX_FILE} line {number} is damaged")
                continue
            if index >= self.config.games:
                self.beyond.add(index)
                continue
            if index < 0 or index in found:
                continue
            lineup = seatings[index % len(seatings)]
            checked = self._check(index, name, lineup)
            if isinstance(checked, str):
                self.skipped.append(f"game {index}: {checked}")
                continue
            seed = derived_seed(self.config.seed, index)
            found[index] = ArenaGame(index, lineup, seed, checked, think, moves, node)
        return [found[i] for i in sorted(found)]

    def _check(self, index: int, name: str, lineup: tuple[str, ...]) -> GameRecord | str:
        """The record of game ``index`` if it is that game, finished and legal; else why not."""
        path = self.out / RECORDS_DIR / Path(name).name
        try:
            record = GameRecord.loads(path.read_text(encoding="utf-8"))
            replay(record)
        except OSError as exc:
            return f"cannot read {path}: {exc.strerror or exc}"
        except TabletopError as exc:
            return f"{path} does not replay: {exc}"
        if record.result is None:
            return f"{path} holds an unfinished game"
        if tuple(p.agent for p in record.players) != lineup or record.config.seed != derived_seed(
            self.config.seed, index
        ):
            return f"{path} is not game {index} of this arena (other seating or seed)"
        return record

    def save(self, game: ArenaGame) -> None:
        """Saves one finished game: its record, then its line in the index."""
        name = record_name(self.config, game.index)
        _write_atomically(self.out / RECORDS_DIR / name, game.record.dumps())
        entry = {
            "index": game.index,
            "record": name,
            "lineup": list(game.lineup),
            "seed": game.seed,
            "think_seconds": [round(t, 4) for t in game.think_seconds],
            "moves_by_seat": list(game.moves_by_seat),
            "node": game.node,
        }
        with open(self.out / INDEX_FILE, "a", encoding="utf-8") as index_file:
            index_file.write(json.dumps(entry) + "\n")
            index_file.flush()
            os.fsync(index_file.fileno())


def _write_atomically(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` so that a crash leaves either the old file or the new one."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
