"""Writing a tournament's outputs: every record, the results table, the ratings and their plot."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tabletop.arena.archive import record_name
from tabletop.arena.plot import ratings_svg
from tabletop.arena.ratings import Rating
from tabletop.arena.sprt import SprtResult
from tabletop.arena.tournament import ArenaGame, BotStats, TournamentConfig, head_to_head


def results_markdown(
    config: TournamentConfig,
    stats: Sequence[BotStats],
    ratings: Sequence[Rating],
    pairs: Mapping[tuple[str, str], tuple[float, float]],
    run: str | None = None,
) -> str:
    """The results, head-to-head rates and ratings as Markdown tables (``results.md``).

    Args:
        run: where the games of this run were played (``RunSettings.describe()``).
    """
    lines = [
        f"# Arena: {config.game}, {config.num_players} players, {config.games} games, seed {config.seed}",
        "",
        f"Bots: {', '.join(config.bots)}"
        + (f"; {config.move_time:g} s per move" if config.move_time is not None else ""),
        "",
        *([f"Run: {run}", ""] if run else []),
        "| bot | seats | wins | shared wins | win share (95 % CI) | mean score (95 % CI) | s/move |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in stats:
        lines.append(
            f"| {s.bot} | {s.seats} | {s.wins} | {s.shared_wins} | {s.win_share:.1%} ± {s.win_share_ci:.1%} "
            f"| {s.mean_score:.1f} ± {s.score_ci:.1f} | {s.seconds_per_move:.3f} |"
        )
    lines += ["", "| bot | against | score rate | pairs |", "|---|---|---:|---:|"]
    for (a, b), (rate, n) in sorted(pairs.items()):
        lines.append(f"| {a} | {b} | {rate:.1%} | {n:g} |")
    lines += ["", "| bot | Elo | 95 % interval |", "|---|---:|---:|"]
    for r in ratings:
        lines.append(f"| {r.bot} | {r.elo:+.0f} | {r.low:+.0f} .. {r.high:+.0f} |")
    return "\n".join(lines) + "\n"


def write_outputs(
    out: Path,
    config: TournamentConfig,
    games: Sequence[ArenaGame],
    stats: Sequence[BotStats],
    ratings: Sequence[Rating],
    *,
    write_records: bool = True,
    run: Mapping[str, Any] | None = None,
    run_text: str | None = None,
) -> list[Path]:
    """Writes ``games/NNNN.json`` records, ``results.json``, ``results.md`` and ``ratings.svg``.

    Args:
        write_records: ``False`` when the records are already saved (an
            :class:`~tabletop.arena.archive.ArenaArchive` saves each as its game ends).
        run: where this run's games were played (``RunSettings.to_json()``: backend,
            address, nodes, cores), kept in ``results.json`` as ``run``.
        run_text: the same for people (``RunSettings.describe()``), a line of ``results.md``.

    Returns:
        The summary files written (not the records).
    """
    pairs = head_to_head(games)
    out.mkdir(parents=True, exist_ok=True)
    if write_records:
        records = out / "games"
        records.mkdir(parents=True, exist_ok=True)
        for game in games:
            (records / record_name(config, game.index)).write_text(game.record.dumps(), encoding="utf-8")
    summary: dict[str, Any] = {
        "config": asdict(config),
        "games": [
            {
                "index": g.index,
                "seed": g.seed,
                "lineup": list(g.lineup),
                "scores": list(g.scores),
                "winners": list(g.winners),
                "think_seconds": [round(t, 4) for t in g.think_seconds],
            }
            for g in games
        ],
        "results": [asdict(s) for s in stats],
        "head_to_head": [
            {"bot": a, "opponent": b, "score_rate": rate, "pairs": n} for (a, b), (rate, n) in sorted(pairs.items())
        ],
        "ratings": [asdict(r) for r in ratings],
    }
    if run is not None:
        summary["run"] = dict(run)
    written = [out / "results.json", out / "results.md", out / "ratings.svg"]
    written[0].write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    written[1].write_text(results_markdown(config, stats, ratings, pairs, run_text), encoding="utf-8")
    written[2].write_text(ratings_svg(ratings), encoding="utf-8")
    return written


def write_sprt_outputs(out: Path, result: SprtResult, *, run: Mapping[str, Any] | None = None) -> Path:
    """Writes an SPRT match's counted games (``games/GAME-NNNN.json``, by game index) and
    ``sprt.json`` (the config, the decision, the LLR, the Elo estimate, every game's
    seating, seed, scores and node, and ``run``: where it was played).

    Returns:
        The path of ``sprt.json``.
    """
    config = result.config
    records = out / "games"
    records.mkdir(parents=True, exist_ok=True)
    width = max(4, len(str(config.max_games)))
    games = []
    for game in result.games:
        name = f"{config.game}-{game.index:0{width}d}.json"
        (records / name).write_text(game.record.dumps(), encoding="utf-8")
        games.append(
            {
                "index": game.index,
                "record": name,
                "seed": game.seed,
                "lineup": list(game.lineup),
                "scores": list(game.scores),
                "node": game.node,
            }
        )
    summary: dict[str, Any] = {
        "config": asdict(config),
        "decision": result.decision,
        "llr": result.llr,
        "bounds": list(result.bounds),
        "rounds": result.rounds,
        "elo": asdict(result.elo),
        "pairs_won_drawn_lost": list(result.wins),
        "mean_scores": list(result.mean_scores),
        "games": games,
    }
    if run is not None:
        summary["run"] = dict(run)
    path = out / "sprt.json"
    path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return path
