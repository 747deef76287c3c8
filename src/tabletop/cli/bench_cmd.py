"""``tabletop bench engine|search|env|server|batch``: every benchmark behind one command.

Each prints its figures as a table; ``docs/benchmarks.md`` records results with the
commands that produced them (as ratios against a yardstick run in the same session).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Column, Table

from tabletop.cli.checks import check_players, check_seconds, load_game
from tabletop.cli.output import console, fail, say_err
from tabletop.core.errors import ConfigError
from tabletop.core.protocol import Game

bench_app = typer.Typer(
    help="Benchmarks: engine speed (random games), search speed (MCTS, alpha-beta depth), research environments, "
    "the web server, batches of games (local processes against Ray).",
    no_args_is_help=True,
    add_completion=False,
)

GameArg = Annotated[str, typer.Argument(help="A game id (terranova, medina).", show_default=False)]
PlayersOpt = Annotated[
    list[int] | None, typer.Option("--players", "-n", help="Player counts (default: the game's bench counts).")
]
SecondsOpt = Annotated[float, typer.Option("--seconds", help="Time per measurement (seconds, above 0).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed for configs and moves.")]


def _game_and_counts(
    game_id: str, players: list[int] | None, seconds: float, ruleset: str = "default"
) -> tuple[Game, list[int]]:
    """The game and the player counts to measure, after checking the options (one-line errors)."""
    check_seconds(seconds, "--seconds")
    game = load_game(game_id)
    return game, [check_players(game, n, ruleset) for n in players or game.bench_player_counts]


def _rulesets_and_counts(
    game_id: str, players: list[int] | None, seconds: float, ruleset: str | None
) -> tuple[Game, list[tuple[str, list[int]]]]:
    """The game and the (ruleset, player counts) to measure: ``ruleset`` if given, else
    the game's ``bench_rulesets`` (an optional hook: Medina's two editions) or its
    default ruleset; ``players`` if given (every ruleset must seat them), else each
    ruleset's own counts.  One-line errors for bad options."""
    check_seconds(seconds, "--seconds")
    game = load_game(game_id)
    listed: dict[str, tuple[int, ...]] = dict(
        getattr(game, "bench_rulesets", None) or {"default": game.bench_player_counts}
    )
    if ruleset is not None:
        listed = {ruleset: listed.get(ruleset, game.bench_player_counts)}
    return game, [(name, [check_players(game, n, name) for n in players or counts]) for name, counts in listed.items()]


@bench_app.callback()
def bench_group() -> None:
    """Benchmarks of the engines, the search and the server."""


EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine", help="python (the readable engine), native (Rust, `make native`) or auto (native where built)."
    ),
]


@bench_app.command()
def engine(
    game_id: GameArg,
    players: PlayersOpt = None,
    seconds: SecondsOpt = 5.0,
    seed: SeedOpt = 0,
    engine: EngineOpt = "python",
    yardstick: Annotated[
        bool, typer.Option("--yardstick/--no-yardstick", help="Also time OpenSpiel's C++ Amazons (rl extra).")
    ] = True,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset", help="Only this ruleset (default: the game's bench rulesets, e.g. both Medina editions)."
        ),
    ] = None,
) -> None:
    """Complete kind-first random games on one core: games/s, actions/s, how games ended,
    a row per ruleset (Medina: the first edition and the second) and player count.

    With ``--engine native``: whole games in Rust, a Python loop over action ids and the
    protocol loop (uniform as OpenSpiel's loop, and kind-first), in CPU seconds, each as a
    ratio to OpenSpiel's C++ Amazons timed in turn with it, slice by slice
    (``docs/benchmarks.md``).
    """
    from tabletop.bench.engine import bench_playouts

    game, runs = _rulesets_and_counts(game_id, players, seconds, ruleset)
    game = _engine(game_id, engine)  # the engine asked for, whatever TABLETOP_ENGINE says
    if getattr(game, "engine", "python") == "native":
        _native_engine_table(game, runs, seconds, seed, yardstick)
        return
    ruleset_column, title = _ruleset_column(runs)
    table = Table(
        *ruleset_column,
        "players",
        "games",
        "games/s",
        "actions/s",
        "actions/game",
        "ended by",
        title=f"{game.name} playouts{title}",
    )
    for name, counts in runs:
        for count in counts:
            result = bench_playouts(game, count, seconds=seconds, seed=seed, ruleset=name)
            ends = ", ".join(f"{k} {v / result.games:.0%}" for k, v in result.terminations.most_common())
            table.add_row(
                *([name] if ruleset_column else []),
                str(count),
                str(result.games),
                f"{result.games_per_second:,.1f}",
                f"{result.actions_per_second:,.0f}",
                f"{result.mean_actions:.1f}",
                ends,
            )
    console.print(table)


def _ruleset_column(runs: list[tuple[str, list[int]]]) -> tuple[list[Column], str]:
    """A ``ruleset`` column where several rulesets are measured; else none, and the one
    ruleset (unless the default) for the title."""
    if len(runs) > 1:
        return [Column("ruleset", no_wrap=True)], ""
    name = runs[0][0]
    return [], f" ({name})" if name != "default" else ""


def _engine(game_id: str, engine: str) -> Game:
    """``make(game_id, engine=engine)``, or a one-line error (unknown engine, not built)."""
    from tabletop.core.errors import TabletopError
    from tabletop.core.registry import make

    try:
        return make(game_id, engine=engine)
    except TabletopError as exc:
        fail(str(exc))


def _native_engine_table(
    game: Game, runs: list[tuple[str, list[int]]], seconds: float, seed: int, yardstick: bool
) -> None:
    from tabletop.bench.engine import (
        PlayoutBench,
        alternated,
        bench_action_loop,
        bench_native_playouts,
        bench_protocol_cpu,
        bench_protocol_loop,
        openspiel,
        openspiel_cpp_loop,
        openspiel_python_loop,
    )

    if yardstick and openspiel() is None:
        say_err("OpenSpiel is not installed (the rl extra): no yardstick, no ratios")
        yardstick = False
    ruleset_column, ruleset_title = _ruleset_column(runs)
    table = Table(
        *ruleset_column,
        "players",
        "loop",
        "games",
        "actions/s (CPU)",
        "actions/game",
        "yardstick actions/s",
        "ratio",
        title=f"{game.name}, native engine, one core{ruleset_title}",
    )
    # Each row alternates with its yardstick (`alternated`): OpenSpiel's Amazons whole
    # games in C++ for the loop in Rust, OpenSpiel's Python loop for the Python loops.
    loops = (
        ("whole games in Rust", bench_native_playouts, openspiel_cpp_loop),
        ("Python loop, action ids", bench_action_loop, openspiel_python_loop),
        ("Python loop, protocol (uniform, OpenSpiel's loop)", bench_protocol_loop, openspiel_python_loop),
        ("Python loop, protocol (kind-first)", bench_protocol_cpu, openspiel_python_loop),
    )
    rounds = max(4, round(seconds / 0.5))  # half-second slices: the shorter, the less drift between
    for name, count in ((name, count) for name, counts in runs for count in counts):
        for label, bench, stick in loops:

            def ours(
                slice_seconds: float,
                slice_seed: int,
                bench: Callable[..., PlayoutBench] = bench,
                count: int = count,
                name: str = name,
            ) -> PlayoutBench:
                return bench(game, count, seconds=slice_seconds, seed=slice_seed, ruleset=name)

            result, reference = alternated(ours, stick if yardstick else _no_yardstick, seconds, seed, rounds)
            rate = reference.per_second if reference is not None else None
            table.add_row(
                *([name] if ruleset_column else []),
                str(count),
                label,
                str(result.games),
                f"{result.actions_per_second:,.0f}",
                f"{result.mean_actions:.1f}",
                f"{rate:,.0f}" if rate else "-",
                f"{result.actions_per_second / rate:.2f}" if rate else "-",
            )
    console.print(table)


def _no_yardstick(seconds: float, seed: int) -> None:
    return None


@bench_app.command()
def search(
    game_id: GameArg,
    players: PlayersOpt = None,
    seconds: SecondsOpt = 5.0,
    seed: SeedOpt = 0,
    level: Annotated[int, typer.Option("--level", min=1, max=5, help="The MCTS level whose settings are timed.")] = 3,
    engine: EngineOpt = "python",
    simulations: Annotated[
        list[int] | None,
        typer.Option("--simulations", help="Native engine: simulations per search (default 1000, 10000)."),
    ] = None,
    widening: Annotated[
        float, typer.Option("--widening", min=0.0, help="Native engine: progressive widening (0: none, as the bot).")
    ] = 0.0,
    rollout_limit: Annotated[
        int | None,
        typer.Option("--rollout-limit", min=0, help="Native engine: rollouts of N actions, then the evaluation."),
    ] = None,
) -> None:
    """MCTS simulations per second from a fixed mid-game position, on one core.

    With ``--engine native``: the MCTS in Rust (the ``native`` bot's search) from the
    initial and a mid-game position, against OpenSpiel's C++ ``MCTSBot`` on Amazons in the
    same run (CPU seconds), with the tree's bytes per node and per simulation.
    """
    from tabletop.bench.search import bench_mcts

    game, counts = _game_and_counts(game_id, players, seconds)
    game = _engine(game_id, engine)  # the engine asked for, whatever TABLETOP_ENGINE says
    if getattr(game, "engine", "python") == "native":
        _native_search_table(game, counts, simulations or [1000, 10000], seed, widening, rollout_limit)
        return
    table = Table("players", "search", "position ply", "simulations", "sims/s", title=f"{game.name} MCTS, one core")
    for count in counts:
        for result in bench_mcts(game, count, level=level, seconds=seconds, seed=seed):
            table.add_row(
                str(count), result.label, str(result.ply), str(result.simulations), f"{result.per_second:,.0f}"
            )
    console.print(table)


@bench_app.command()
def alphabeta(
    game_id: GameArg,
    players: PlayersOpt = None,
    cpu_seconds: Annotated[float, typer.Option("--cpu-seconds", help="CPU seconds a search (above 0).")] = 1.0,
    ply: Annotated[int, typer.Option("--ply", min=0, help="Random moves before the measured position.")] = 30,
    positions: Annotated[int, typer.Option("--positions", min=1, help="Positions (seeds) per player count.")] = 3,
    widths: Annotated[
        list[int] | None,
        typer.Option("--width", help="Widths to time (0: every action; default: the bot's width for the game)."),
    ] = None,
    seed: SeedOpt = 0,
) -> None:
    """How deep the native alpha-beta (``native-ab``) gets in a CPU budget, from mid-game
    positions (the native engine: `make native`)."""
    from tabletop.bench.engine import bench_native_alphabeta

    game, counts = _game_and_counts(game_id, players, cpu_seconds)
    game = _engine(game_id, "native")
    table = Table(
        "players", "seed", "ply", "actions", "width", "depth", "nodes", "CPU s", title=f"{game.name} alpha-beta"
    )
    for count in counts:
        for position in range(positions):
            chosen: list[int | None] = list(widths) if widths else [None]
            for width in chosen:
                try:
                    found = bench_native_alphabeta(game, count, cpu_seconds, ply=ply, seed=seed + position, width=width)
                except ConfigError as exc:
                    fail(str(exc))
                table.add_row(
                    str(count),
                    str(seed + position),
                    str(found.ply),
                    str(found.actions),
                    str(found.width),
                    str(found.depth),
                    f"{found.nodes:,}",
                    f"{found.cpu_seconds:.2f}",
                )
    console.print(table)


def _native_search_table(
    game: Game, counts: list[int], simulations: list[int], seed: int, widening: float, rollout_limit: int | None
) -> None:
    from tabletop.bench.engine import bench_native_mcts, openspiel_mcts_yardstick

    table = Table(
        "players",
        "search",
        "simulations",
        "sims/s (CPU)",
        "nodes",
        "bytes/node",
        "tree bytes/sim",
        "ratio",
        title=f"{game.name} MCTS",
    )
    for sims in simulations:
        stick = openspiel_mcts_yardstick(sims, seed)
        if stick is not None:
            table.add_row("-", stick.label, str(sims), f"{stick.per_second:,.0f}", "-", "-", "-", "-")
        for count in counts:
            for ply in (0, 60):
                rate = bench_native_mcts(
                    game, count, sims, ply=ply, seed=seed, widening=widening, rollout_limit=rollout_limit
                )
                ratio = f"{rate.per_second / stick.per_second:.2f}" if stick is not None else "-"
                table.add_row(
                    str(count),
                    rate.label,
                    str(sims),
                    f"{rate.per_second:,.0f}",
                    f"{rate.nodes:,}",
                    str(rate.bytes_per_node),
                    f"{rate.bytes_per_simulation:.1f}",
                    ratio,
                )
    console.print(table)


@bench_app.command()
def env(
    game_id: GameArg,
    players: PlayersOpt = None,
    seconds: SecondsOpt = 5.0,
    seed: SeedOpt = 0,
    adapters: Annotated[
        str,
        typer.Option(
            "--adapters",
            help="Comma-separated: engine, encoding, pettingzoo, pettingzoo-parallel, gymnasium, openspiel, "
            "native-steps, native-batch (64 native games stepped one by one, or in one call), "
            "vector-1, vector-64, vector-1024 (-t2: two threads), amazons-obs, pgx-64, pgx-1024.",
        ),
    ] = "engine,encoding,pettingzoo,gymnasium,openspiel",
    pgx_python: Annotated[
        str | None,
        typer.Option(
            "--pgx-python",
            help="A Python with pgx and jax (e.g. /tmp/pgx-venv/bin/python) for the pgx-64 and pgx-1024 yardsticks.",
        ),
    ] = None,
) -> None:
    """Steps per second through each research environment against the raw engine, on one core.

    Uniformly random legal actions; the ratio columns are each adapter's speed over the
    engine's in the same run, per second of CPU time and of wall time.  Further adapters:
    vector-1, vector-64, vector-1024 (the vector env; -t2: two threads) and the
    yardsticks amazons-obs (OpenSpiel's C++ Amazons with observations through Python),
    pgx-64 and pgx-1024 (Pgx Othello on CPU, with --pgx-python).  The library adapters
    need the rl extra, the vector env the native extension.
    """
    from tabletop.bench.env import ADAPTERS, EnvBench, bench_env, read_against

    game, counts = _game_and_counts(game_id, players, seconds)
    chosen = [a.strip() for a in adapters.split(",") if a.strip()]
    unknown = [a for a in chosen if a not in ADAPTERS]
    if unknown or not chosen:
        fail(f"--adapters: unknown {', '.join(unknown) or 'empty list'} (known: {', '.join(ADAPTERS)})")
    table = Table(
        "players",
        "adapter",
        "games",
        "steps",
        "steps/CPU s",
        "vs engine (CPU)",
        "steps/s (wall)",
        "vs engine (wall)",
        "read against",
        title=f"{game.name} environments",
    )
    for count in counts:
        results: dict[str, EnvBench] = {}
        for adapter in chosen:
            try:
                results[adapter] = bench_env(game, count, adapter, seconds=seconds, seed=seed, pgx_python=pgx_python)
            except ImportError as exc:
                say_err(f"bench env: {adapter} left out: {exc}")
        engine = results.get("engine")
        for adapter, result in results.items():
            against = read_against(adapter, results)
            table.add_row(
                str(count),
                adapter,
                str(result.games),
                str(result.steps),
                f"{result.steps_per_cpu_second:,.0f}",
                f"{result.steps_per_cpu_second / engine.steps_per_cpu_second:.3f}" if engine else "-",
                f"{result.steps_per_second:,.0f}",
                f"{result.steps_per_second / engine.steps_per_second:.3f}" if engine else "-",
                f"{against[0]:.3f}× {against[1]} ({against[2]})" if against else "",
            )
    console.print(table)


@bench_app.command()
def server(
    game_id: Annotated[str, typer.Option("--game", help="The game the simulated players play.")] = "terranova",
    players: Annotated[int, typer.Option("--players", "-n", help="Players per game.")] = 2,
    games: Annotated[int, typer.Option("--games", min=1, help="Simultaneous games.")] = 200,
    think: Annotated[float, typer.Option("--think", help="Mean think time per action (seconds, above 0).")] = 1.0,
    seconds: Annotated[float, typer.Option("--seconds", help="Length of the run (seconds, at least 30).")] = 60.0,
    seed: SeedOpt = 0,
    clock: Annotated[
        str | None,
        typer.Option(
            "--clock",
            help="Clocked games from the lobby: 'realtime:BASE+INCREMENT' or 'turn:SECONDS'; checks clock drift too.",
        ),
    ] = None,
    processes: Annotated[
        int, typer.Option("--processes", min=1, help="Server processes on one database (more than 1: PostgreSQL).")
    ] = 1,
    db: Annotated[
        str | None,
        typer.Option("--db", help="Database URL the servers share (default: a fresh SQLite file)."),
    ] = None,
    proxy: Annotated[
        str | None,
        typer.Option("--proxy", help="Base URL of a proxy in front of the processes; every client goes through it."),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", min=1, max=65535, help="First server port (the processes take the next ones); for --proxy."
        ),
    ] = None,
    spread: Annotated[
        str,
        typer.Option(
            "--spread", help="'socket': each socket to the next process in turn; 'match': a match's sockets to one."
        ),
    ] = "socket",
    cpu_of: Annotated[
        list[int] | None,
        typer.Option(
            "--cpu-of",
            help="A process (with its children) whose CPU over the play is reported per action, e.g. PostgreSQL's"
            " postmaster or the proxy; repeatable.",
        ),
    ] = None,
    client: Annotated[
        str | None,
        typer.Option(
            "--client",
            help="The simulated players: 'native' (Rust, a thread each; the default where the extension is built)"
            " or 'python' (one event loop).",
        ),
    ] = None,
) -> None:
    """Simulated players against server processes on loopback: round trips, errors, lost actions, CPU.

    The bar: p99 round trip under 100 ms, no error, no lost action (with --clock: and no
    clock drift beyond 1 s).
    """
    from tabletop.bench.server import (
        CLIENT_NATIVE,
        CLIENT_PYTHON,
        SPREAD_MATCHES,
        SPREAD_SOCKETS,
        default_client,
        parse_clock,
        run_bench,
    )
    from tabletop.server.bus import is_postgres

    check_seconds(seconds, "--seconds")
    check_seconds(think, "--think")
    check_players(load_game(game_id), players)
    if seconds < 30:
        fail("--seconds must be at least 30 for the server to reach a steady state")
    if clock is not None:
        try:
            parse_clock(clock)
        except ValueError as exc:
            fail(str(exc))
    if spread not in (SPREAD_SOCKETS, SPREAD_MATCHES):
        fail(f"--spread is {SPREAD_SOCKETS!r} or {SPREAD_MATCHES!r}, not {spread!r}")
    try:
        postgres = db is not None and is_postgres(db)
    except Exception:  # not a URL at all
        fail(f"--db {db!r} is not a database URL, e.g. postgresql+psycopg://user:password@127.0.0.1/bench")
    if processes > 1 and not postgres:
        fail("--processes above 1 needs a PostgreSQL --db: on SQLite one process cannot hear another's actions")
    if client is None:
        client = default_client()
    elif client not in (CLIENT_NATIVE, CLIENT_PYTHON):
        fail(f"--client is {CLIENT_NATIVE!r} or {CLIENT_PYTHON!r}, not {client!r}")
    elif client == CLIENT_NATIVE and default_client() != CLIENT_NATIVE:
        fail("--client native needs the native extension, which this install lacks ('make native'; docs/native.md)")
    if proxy is not None and port is None:
        fail("--proxy needs --port: the first port the processes listen on, where the proxy sends clients")
    for pid in cpu_of or ():
        if not Path(f"/proc/{pid}/stat").exists():
            fail(f"--cpu-of {pid}: no such process (its CPU is read from /proc)")
    console.print(
        f"bench server: {games} {game_id} games of {players}, think time {think:g} s, {seconds:g} s, "
        f"{processes} server process{'es' if processes > 1 else ''}, {client} players ..."
    )
    try:
        result = run_bench(
            game=game_id,
            players=players,
            games=games,
            seconds=seconds,
            think_s=think,
            seed=seed,
            clock=clock,
            db_url=db,
            processes=processes,
            proxy=proxy,
            first_port=port,
            spread=spread,
            watch=cpu_of or (),
            client=client,
        )
    except KeyboardInterrupt:
        say_err("bench server: interrupted; the server process is stopped, nothing was measured")
        raise typer.Exit(130) from None
    except RuntimeError as exc:
        say_err(f"bench server: {exc}")
        raise typer.Exit(1) from None
    console.print(result.summary(), markup=False)
    ok = result.errors == 0 and result.lost == 0 and result.percentile(99) < 100
    bar = "p99 < 100 ms, no error, no lost action"
    if clock is not None:
        bar += ", clock drift <= 1 s"
        ok = ok and max(result.clock_drift_ms or 0.0, result.wall_drift_ms or 0.0) <= 1000
    console.print(f"bar ({bar}): " + ("met" if ok else "NOT met"), markup=False)


@bench_app.command()
def bus(
    db: Annotated[str, typer.Option("--db", help="A PostgreSQL URL (the bus is PostgreSQL's LISTEN/NOTIFY).")],
    rate: Annotated[float, typer.Option("--rate", min=1.0, help="Notices sent a second.")] = 1400.0,
    seconds: Annotated[float, typer.Option("--seconds", help="Length of the run (seconds).")] = 20.0,
    hand_over: Annotated[
        bool,
        typer.Option(
            "--hand-over/--held-elsewhere",
            help="Notices of a match this process holds (handed to its loop) or of another process's (not"
            " LISTENed on: never delivered).",
        ),
    ] = True,
    others: Annotated[
        int,
        typer.Option(
            "--others",
            min=0,
            max=64,
            help="More listening sessions, as other server processes holding other matches (what each costs"
            " PostgreSQL: see --cpu-of).",
        ),
    ] = 0,
    cpu_of: Annotated[
        list[int] | None,
        typer.Option(
            "--cpu-of",
            help="A process (with its children) whose CPU over the run is reported per notice, e.g."
            " PostgreSQL's postmaster; repeatable.",
        ),
    ] = None,
) -> None:
    """What hearing one notice of the bus costs a server process: CPU per notice of the
    server's listener on an idle loop, while a child sends notices at --rate."""
    from tabletop.bench.bus import run_bus_bench
    from tabletop.server.bus import is_postgres

    check_seconds(seconds, "--seconds")
    try:
        postgres = is_postgres(db)
    except Exception:  # not a URL at all
        postgres = False
    if not postgres:
        fail(f"--db {db!r} is not a PostgreSQL URL, e.g. postgresql+psycopg://user:password@127.0.0.1/bench")
    for pid in cpu_of or ():
        if not Path(f"/proc/{pid}/stat").exists():
            fail(f"--cpu-of {pid}: no such process (its CPU is read from /proc)")
    try:
        result = run_bus_bench(db, rate, seconds, hand_over=hand_over, others=others, watch=cpu_of or ())
    except RuntimeError as exc:
        say_err(f"bench bus: {exc}")
        raise typer.Exit(1) from None
    console.print(result.summary(), markup=False)


@bench_app.command()
def batch(
    game_id: Annotated[str, typer.Option("--game", help="The game of the arena.")] = "medina",
    bots: Annotated[
        str, typer.Option("--bots", help="Comma-separated bot specs, one per seat (cheap bots show Ray's cost).")
    ] = "random,random,random",
    games: Annotated[int, typer.Option("--games", min=1, help="Games per arena.")] = 200,
    repeat: Annotated[int, typer.Option("--repeat", min=1, help="Rounds over the backends; a row keeps its best.")] = 2,
    seed: Annotated[int, typer.Option("--seed", help="The arena's master seed.")] = 1,
) -> None:
    """One arena on one and two local processes and on Ray with one and two workers.

    Wall-clock and CPU seconds of the arena (worker processes and Ray's own processes
    included), and their ratios to one local process measured in the same run; Ray's
    start and stop are timed apart (once per command, not per game).  Without Ray (the
    cluster extra) the Ray rows are left out.
    """
    from tabletop.arena.tournament import TournamentConfig
    from tabletop.bench.batch import bench_batch, spec_text
    from tabletop.core.errors import TabletopError

    load_game(game_id)
    entries = tuple(b.strip() for b in bots.split(","))
    if len(entries) < 2 or not all(entries):
        fail(f"--bots: at least two comma-separated bot specs, got {bots!r}")
    config = TournamentConfig(game_id, entries, games, seed=seed)
    try:
        result = bench_batch(config, repeat)
    except ConfigError as exc:
        fail(f"bench batch: {exc}")
    except TabletopError as exc:  # Ray could not start
        fail(f"bench batch: {exc}", code=1)
    for note in result.notes:
        say_err(f"bench batch: {note}")
    table = Table(
        "backend",
        "wall s",
        "games/s",
        "x wall",
        "CPU s",
        "x CPU",
        "CPU ms/game",
        title=f"{spec_text(config)}, best of {repeat}; ratios to one local process",
    )
    for row in result.rows:
        table.add_row(
            row.name,
            f"{row.wall_s:.2f}",
            f"{row.games_per_second:,.1f}",
            f"{row.wall_ratio:.2f}",
            f"{row.cpu_s:.2f}",
            f"{row.cpu_ratio:.2f}",
            f"{row.cpu_ms_per_game:.1f}",
        )
    if result.ray_start is not None:
        start = result.ray_start
        table.add_row("starting Ray here (once per command)", f"{start.wall_s:.2f}", "", "", f"{start.cpu_s:.2f}")
    if result.ray_stop_wall_s is not None:
        table.add_row("stopping Ray (once per command)", f"{result.ray_stop_wall_s:.2f}", "", "", "-")
    console.print(table)
