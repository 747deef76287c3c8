"""``tabletop arena`` and ``tabletop sprt``: matches between bots; ``tabletop bench GAME --mcts``'s printer.

``main.py`` registers :func:`arena` as a command; this module does not import it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tabletop.ai.clock import CPU
from tabletop.arena.archive import ArenaArchive
from tabletop.arena.ratings import rate
from tabletop.arena.report import write_outputs, write_sprt_outputs
from tabletop.arena.sprt import SprtConfig, SprtResult, SprtState, check_sprt, estimate_elo, run_sprt, sprt_bounds
from tabletop.arena.tournament import (
    ArenaGame,
    TournamentConfig,
    check_tournament,
    head_to_head,
    rating_inputs,
    results_table,
    run_tournament,
)
from tabletop.cli.batch_opts import JobsOpt, PluginOpt, RayOpt, batch_progress, check_plugins, open_batch, replaying
from tabletop.cli.output import console, err_console, fail, note, say_err
from tabletop.core.errors import TabletopError


def arena(
    game_id: Annotated[str, typer.Argument(help="Game id: terranova or medina.", show_default=False)],
    bots: Annotated[
        str,
        typer.Option(
            "--bots", help="Comma-separated bot entries, e.g. mcts:3,greedy,random (repeat one to fill seats)."
        ),
    ] = "greedy,random",
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="Number of games.")] = 20,
    players: Annotated[
        int | None, typer.Option("--players", "-n", help="Seats per game (default: one per bot entry).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Master seed: the same seed gives the same games.")] = 0,
    jobs: JobsOpt = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Directory for records, results and the ratings plot.")
    ] = None,
    move_time: Annotated[
        float | None, typer.Option("--move-time", help="Seconds per move for searching bots (overrides budgets).")
    ] = None,
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset preset.")] = "default",
    bootstrap: Annotated[int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples for Elo CIs.")] = 200,
    resume: Annotated[
        bool,
        typer.Option("--resume", help="Continue the arena saved in --out: play only the games it does not hold yet."),
    ] = False,
    ray: RayOpt = None,
    plugin: PluginOpt = None,
) -> None:
    """Play bots against each other with seats rotated fairly; print results and Elo ratings.

    With --out, every game is saved as soon as it finishes, so an interrupted
    arena loses nothing: run the same command with --resume to play the rest
    (or a larger --games to extend it), on either backend.
    """
    plugins = check_plugins(plugin)
    entries = tuple(b.strip() for b in bots.split(",") if b.strip())
    config = TournamentConfig(
        game=game_id,
        bots=entries,
        games=games,
        players=players,
        seed=seed,
        move_time=move_time,
        ruleset=ruleset,
    )
    try:
        cycle = len(check_tournament(config))
    except TabletopError as exc:
        fail(str(exc))
    if games % cycle:
        note(
            f"the seatings repeat every {cycle} games; {games} games leave the last cycle "
            "incomplete, so seats are not perfectly balanced"
        )
    if resume and out is None:
        fail("--resume needs --out: the directory of the arena to continue")
    archive: ArenaArchive | None = None
    saved: list[ArenaGame] = []
    if out is not None:
        try:
            archive = ArenaArchive(out, config, resume=resume)
            saved = archive.load()
        except TabletopError as exc:
            fail(str(exc))
        except OSError as exc:
            fail(f"cannot write to {out}: {exc.strerror or exc}")
        for reason in archive.skipped:
            note(f"playing again: {reason}")
        if saved:
            say_err(f"resuming: {len(saved)} of {games} games already played in {out}")
        if archive.beyond:
            note(
                f"{out} also holds {len(archive.beyond)} games past the first {games}; "
                f"they stay saved but these results leave them out (pass --games {max(archive.beyond) + 1} "
                "to include them)"
            )
    done = {game.index for game in saved}
    backend = open_batch(ray, jobs, plugins)
    settings = backend.settings
    say_err(f"playing on {settings.describe()}")
    progress = batch_progress(time_remaining=True)
    try:
        with progress:
            task = progress.add_task(f"{game_id} arena", total=games, completed=len(saved))
            started = time.monotonic()
            played_now = 0

            def advance(game: ArenaGame) -> None:
                nonlocal played_now
                if archive is not None:
                    archive.save(game)
                played_now += 1
                progress.advance(task)
                progress.refresh()
                if not err_console.is_terminal:
                    # A bar drawn into a log file shows nothing until the end, and an
                    # arena left running for hours should say how far it got.
                    finished = len(saved) + played_now
                    elapsed = time.monotonic() - started
                    say_err(game_log_line(game, finished, games, played_now, elapsed))

            played = run_tournament(config, backend=backend, on_game=advance, skip=done, on_lost=replaying)
    except TabletopError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        saved_in = f"the finished games are saved in {out}: add --resume to continue" if out is not None else ""
        say_err(saved_in, "interrupted:" if saved_in else "interrupted", "bold red")
        raise typer.Exit(130) from None
    finally:
        backend.close()
    played = sorted([*saved, *played], key=lambda g: g.index)
    stats = results_table(played)
    anchor = "random" if "random" in entries else None
    ratings = rate(rating_inputs(played), anchor=anchor, bootstrap=bootstrap, seed=seed)
    table = Table(
        "bot", "seats", "wins", "shared", "win share", "mean score", "s/move", title=f"{game_id}: {games} games"
    )
    for s in stats:
        table.add_row(
            s.bot,
            str(s.seats),
            str(s.wins),
            str(s.shared_wins),
            f"{s.win_share:.1%} ± {s.win_share_ci:.1%}",
            f"{s.mean_score:.1f} ± {s.score_ci:.1f}",
            f"{s.seconds_per_move:.3f}",
        )
    console.print(table)
    pairs = Table("bot", "against", "score rate", "pairs", title="Head to head (pairs of seats: higher score wins)")
    for (a, b), (rate_ab, n) in sorted(head_to_head(played).items()):
        pairs.add_row(a, b, f"{rate_ab:.1%}", f"{n:g}")
    console.print(pairs)
    elo = Table("bot", "Elo", "95 % interval", title="Elo" + (" (random = 0)" if anchor else " (mean = 0)"))
    for r in ratings:
        elo.add_row(r.bot, f"{r.elo:+.0f}", f"{r.low:+.0f} .. {r.high:+.0f}")
    console.print(elo)
    console.print(f"Run: {settings.describe()}", markup=False, highlight=False)
    if out is not None:
        try:
            # The archive saved every record as its game ended.
            written = write_outputs(
                out,
                config,
                played,
                stats,
                ratings,
                write_records=False,
                run=settings.to_json(),
                run_text=settings.describe(),
            )
        except OSError as exc:
            fail(f"cannot write to {out}: {exc.strerror or exc}")
        console.print(f"{games} records in {out / 'games'}; " + ", ".join(str(p) for p in written), markup=False)


def game_log_line(game: ArenaGame, finished: int, total: int, played_now: int, elapsed: float) -> str:
    """One plain line for a finished game: its result, the count so far and the time left.

    Args:
        game: the game that just finished.
        finished: games finished so far, saved ones from an earlier run included.
        total: games in the arena.
        played_now: games this run has played (they set the pace).
        elapsed: seconds since this run started.
    """
    if game.record.result is None:
        result = "cut off by the move cap"
    else:
        result = ", ".join(f"{bot} {score}" for bot, score in zip(game.lineup, game.scores, strict=True))
    left = (total - finished) * elapsed / played_now
    return (
        f"[{finished}/{total}] game {game.index}: {result}; "
        f"{played_now} played in {_duration(elapsed)}, about {_duration(left)} left"
    )


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def sprt(
    candidate: Annotated[str, typer.Argument(help="The bot under test, e.g. mcts:4.", show_default=False)],
    baseline: Annotated[str, typer.Argument(help="The bot it is held against, e.g. mcts:3.", show_default=False)],
    game_id: Annotated[str, typer.Option("--game", help="Game id: terranova or medina.")] = "terranova",
    players: Annotated[
        int,
        typer.Option("--players", "-n", min=2, help="Seats per game: the candidate in one, the baseline in the rest."),
    ] = 2,
    elo0: Annotated[float, typer.Option("--elo0", help="H0: the candidate is at most this much stronger.")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", help="H1: the candidate is at least this much stronger.")] = 50.0,
    alpha: Annotated[float, typer.Option("--alpha", help="Chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="Chance of accepting H0 when H1 holds.")] = 0.05,
    max_games: Annotated[
        int, typer.Option("--max-games", "-g", min=1, help="Stop undecided after this many games.")
    ] = 400,
    seed: Annotated[int, typer.Option("--seed", help="Master seed: the same seed gives the same deals.")] = 0,
    jobs: JobsOpt = None,
    move_time: Annotated[
        float | None, typer.Option("--move-time", help="Seconds per move for searching bots (overrides budgets).")
    ] = None,
    ruleset: Annotated[str, typer.Option("--ruleset", help="Ruleset preset.")] = "default",
    clock: Annotated[
        str,
        typer.Option(
            "--clock",
            help="What the bots' own budgets (mcts:4@0.5s) and the seconds per move measure: "
            "wall (default) or cpu (each bot's CPU time, not biased by the machine's load).",
        ),
    ] = "wall",
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Directory for the counted games' records and the result (sprt.json)."),
    ] = None,
    ray: RayOpt = None,
    plugin: PluginOpt = None,
) -> None:
    """Sequential test (SPRT): play CANDIDATE against BASELINE until the result is decided.

    H1: the candidate is at least ELO1 Elo stronger; H0: at most ELO0.  Each round is
    one deal played from every seat; the candidate's score in a game is the share of
    baseline seats it finished ahead of.  The match stops as soon as the log-likelihood
    ratio leaves Wald's bounds (docs/bots.md, "SPRT").
    """
    plugins = check_plugins(plugin)
    config = SprtConfig(
        game=game_id,
        candidate=candidate,
        baseline=baseline,
        players=players,
        elo0=elo0,
        elo1=elo1,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        seed=seed,
        move_time=move_time,
        ruleset=ruleset,
        clock=clock,
    )
    try:
        check_sprt(config)
    except TabletopError as exc:
        fail(str(exc))
    if out is not None and out.exists() and (not out.is_dir() or any(out.iterdir())):
        fail(f"--out {out} must be a new or empty directory")
    lower, upper = sprt_bounds(alpha, beta)
    say_err(
        f"SPRT {candidate} vs {baseline}, {game_id} {players}p: elo0={elo0:g} elo1={elo1:g} "
        f"alpha={alpha:g} beta={beta:g}, LLR bounds {lower:.2f} .. {upper:.2f}, {clock} clock"
    )
    started = time.monotonic()

    def progress(state: SprtState) -> None:
        estimate = estimate_elo(state.round_counts)
        say_err(
            f"round {state.rounds}: {len(state.games)} games, LLR {state.llr():+.2f} "
            f"({lower:.2f} .. {upper:.2f}), Elo {estimate.elo:+.0f}, {_duration(time.monotonic() - started)}"
        )

    backend = open_batch(ray, jobs, plugins)
    settings = backend.settings
    say_err(f"playing on {settings.describe()}")
    # A bar of the games played against the cap, on a terminal (the round lines are the log).
    bar = batch_progress(transient=True, terminal_only=True)
    rounds = -(-max_games // players)
    try:
        with bar:
            games_bar = bar.add_task("SPRT games (at most)", total=rounds * players)

            def game_done(_game: ArenaGame) -> None:
                bar.advance(games_bar)
                bar.refresh()

            result = run_sprt(config, backend=backend, on_round=progress, on_game=game_done, on_lost=replaying)
    except TabletopError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        say_err("nothing is saved: an SPRT match restarts from the beginning", "interrupted:", "bold red")
        raise typer.Exit(130) from None
    finally:
        backend.close()
    console.print(sprt_report(result), markup=False, highlight=False)
    console.print(f"Run: {settings.describe()}", markup=False, highlight=False)
    if out is not None:
        try:
            written = write_sprt_outputs(out, result, run=settings.to_json())
        except OSError as exc:
            fail(f"cannot write to {out}: {exc.strerror or exc}")
        console.print(f"{len(result.games)} records in {out / 'games'}; {written}", markup=False)


def sprt_report(result: SprtResult) -> str:
    """The few lines that sum up an SPRT match."""
    config = result.config
    verdict = {
        "H1": f"H1 accepted: {config.candidate} is stronger than {config.baseline} (by at least {config.elo1:g} Elo)",
        "H0": f"H0 accepted: {config.candidate} is not {config.elo1:g} Elo stronger (at most {config.elo0:g})",
        "undecided": f"undecided after {config.max_games} games",
    }[result.decision]
    won, drawn, lost = result.wins
    elo = result.elo
    return "\n".join(
        [
            verdict,
            f"LLR {result.llr:+.2f} (bounds {result.bounds[0]:.2f} .. {result.bounds[1]:.2f}), "
            f"{len(result.games)} games in {result.rounds} rounds",
            f"Elo {elo.elo:+.0f} (95 % {elo.low:+.0f} .. {elo.high:+.0f}), score {elo.score:.1%}; "
            f"pairs won {won:g}, drawn {drawn:g}, lost {lost:g}",
            f"mean score {result.mean_scores[0]:.1f} to {result.mean_scores[1]:.1f}; "
            f"{'CPU ' if config.clock == CPU else ''}seconds per move "
            f"{result.seconds_per_move[0]:.3f} to {result.seconds_per_move[1]:.3f}",
        ]
    )
