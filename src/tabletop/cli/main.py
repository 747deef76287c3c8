"""The ``tabletop`` command: play, selfplay, replay, render, bench and the tools.

Every command reaches a game only through the registry and the protocol.
"""

from __future__ import annotations

import os
import random
import sys
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from tabletop.ai.agent import Agent, agent_kinds, make_agent
from tabletop.ai.ladder import DEFAULT_LEVEL, SCALES, installed_ladder
from tabletop.arena.selfplay import SelfplayConfig, play_selfplay_game
from tabletop.cli.analyse_cmd import analyse
from tabletop.cli.arena_cmd import arena, sprt
from tabletop.cli.batch_opts import JobsOpt, PluginOpt, RayOpt, batch_progress, check_plugins, open_batch, replaying
from tabletop.cli.bench_cmd import bench_app
from tabletop.cli.checks import check_players, load_game
from tabletop.cli.map_cmd import map_app
from tabletop.cli.output import OneLineErrors, console, fail, note, say_err
from tabletop.cli.serve_cmd import serve
from tabletop.cli.terminal import TerminalGame
from tabletop.cli.train_cmd import train
from tabletop.core.errors import TabletopError
from tabletop.core.protocol import Game, GameConfig, Move, OptionValue, State
from tabletop.core.record import GameRecord, PlayerInfo, iter_replay, replay
from tabletop.core.registry import available_games, make, player_counts
from tabletop.server.replay import replay_board

app = typer.Typer(
    cls=OneLineErrors,
    help="Terra Nova and Medina: play in the terminal, replay and render records, benchmark the engines.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

GameArg = Annotated[str, typer.Argument(help="Game id: terranova or medina.", show_default=False)]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-n", help="Number of players (default: the minimum).")]
RulesetOpt = Annotated[str, typer.Option("--ruleset", help="Ruleset preset, e.g. default or english.")]
VariantOpt = Annotated[
    list[str] | None,
    typer.Option("--variant", "-V", help="Variant flag NAME=VALUE (repeatable), e.g. return_rule=strict."),
]
MapOpt = Annotated[str | None, typer.Option("--map", help="Map id or map file (games with maps).")]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="Seed for the game's own random choices and the bots.")]


def parse_variants(items: list[str] | None) -> dict[str, OptionValue]:
    """Reads ``NAME=VALUE`` flags; values true/false/null and integers get their types."""
    variants: dict[str, OptionValue] = {}
    for item in items or []:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            fail(f"variant {item!r} must look like NAME=VALUE")
        lowered = raw.strip().lower()
        value: OptionValue
        if lowered in ("true", "yes", "on"):
            value = True
        elif lowered in ("false", "no", "off"):
            value = False
        elif lowered in ("null", "none"):
            value = None
        else:
            try:
                value = int(raw)
            except ValueError:
                value = raw.strip()
        variants[name.strip()] = value
    return variants


def record_directory(out: Path) -> Path:
    """Makes ``out`` (and its parents) a directory records can be written to, or fails in one line."""
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file; it must be a directory for the records")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"cannot create the directory {out}: {exc.strerror or exc}")
    if not os.access(out, os.W_OK | os.X_OK):
        fail(f"cannot write to the directory {out}: permission denied")
    return out


def check_record_file(path: Path) -> None:
    """Fails in one line, before a game is played, if the record could not be saved at ``path``."""
    if path.is_dir():
        fail(f"--out {path} is a directory; it must name the record file")
    parent = path.parent
    if not parent.is_dir():
        problem = "is not a directory" if parent.exists() else "does not exist"
        fail(f"cannot save the record to {path}: {parent} {problem}")
    if not os.access(parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        fail(f"cannot save the record to {path}: permission denied")


def write_atomically(path: Path, text: str) -> None:
    """Writes ``text`` to ``path`` whole or not at all (a temporary file beside it, then a rename)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temp.open("x", encoding="utf-8") as file:
            file.write(text)
        temp.replace(path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def new_state(
    game: Game, players: int | None, ruleset: str, variants: list[str] | None, map_: str | None, seed: int | None
) -> State:
    """Creates the initial state from command-line options, failing cleanly on bad config."""
    config = GameConfig(
        num_players=players or (player_counts(game, ruleset) or [game.min_players])[0],
        ruleset=ruleset,
        variants=parse_variants(variants),
        map=map_option(game, map_),
        seed=seed,
    )
    try:
        return game.new_initial_state(game.canonical_config(config))
    except TabletopError as exc:
        fail(str(exc))


def map_option(game: Game, value: str | None) -> str | dict[str, Any] | None:
    """``--map``: a built-in map id as given, anything else read as a map file.

    The command line is the only place that reads map files (configs from records and
    over HTTP never name files): the file's map object goes into the config inline.  A
    game without map files (no ``read_map_file`` hook) judges the value itself.
    """
    reader = getattr(game, "read_map_file", None)
    if value is None or reader is None or value in getattr(game, "maps", ()):
        return value
    try:
        data: dict[str, Any] = reader(Path(value))
    except TabletopError as exc:
        fail(str(exc))
    return data


def load_record(path: Path) -> GameRecord:
    """Reads a record file, failing cleanly if it is missing or corrupt."""
    try:
        return GameRecord.read_file(path)
    except TabletopError as exc:
        message = str(exc)
        fail(message if message.startswith(("cannot read", str(path))) else f"{path}: {message}")


def make_agents(specs: list[str], seed: int | None) -> list[Agent | None]:
    """Builds one agent per seat spec (``None`` for ``human``)."""
    base = seed if seed is not None else random.randrange(2**31)
    agents: list[Agent | None] = []
    for i, spec in enumerate(specs):
        if spec == "human":
            agents.append(None)
            continue
        try:
            agents.append(make_agent(spec, seed=base + 1000 * (i + 1)))
        except TabletopError as exc:
            fail(str(exc))
    return agents


@app.command()
def play(
    game_id: GameArg,
    players: PlayersOpt = None,
    seats: Annotated[
        str, typer.Option("--seats", help="Comma-separated seat kinds in turn order: human, random, ...")
    ] = "human,random",
    names: Annotated[str | None, typer.Option("--names", help="Comma-separated player names.")] = None,
    ruleset: RulesetOpt = "default",
    variant: VariantOpt = None,
    map_: MapOpt = None,
    seed: SeedOpt = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Save the record here when the game ends.")] = None,
    color: Annotated[bool | None, typer.Option("--color/--no-color", help="ANSI colours (default: if a tty).")] = None,
) -> None:
    """Play a game in the terminal: any mix of humans and bots, 'help' at the prompt lists commands."""
    game = load_game(game_id)
    seat_specs = [s.strip() for s in seats.split(",") if s.strip()]
    num_players = len(seat_specs) if players is None else check_players(game, players, ruleset)
    if len(seat_specs) != num_players:
        fail(f"--seats lists {len(seat_specs)} seats but --players is {num_players}")
    state = new_state(game, num_players, ruleset, variant, map_, seed)
    agents = make_agents(seat_specs, seed)
    name_list = [n.strip() for n in names.split(",")] if names else []
    if name_list and len(name_list) != num_players:
        fail(f"--names lists {len(name_list)} names for {num_players} players")
    if out is not None:
        check_record_file(out)
    infos = [
        PlayerInfo(name_list[i] if name_list else f"{'Player' if spec == 'human' else 'Bot'} {i + 1}", spec)
        for i, spec in enumerate(seat_specs)
    ]
    session = TerminalGame(state, agents, infos, color=sys.stdout.isatty() if color is None else color)
    finished = session.play()
    target = out
    if target is None and sys.stdin.isatty():
        answer = typer.prompt("Save the record to (empty: don't save)", default="", show_default=False)
        target = Path(answer) if answer.strip() else None
    if target is not None:
        try:
            write_atomically(target, session.record().dumps())
        except OSError as exc:
            fail(f"cannot save the record to {target}: {exc.strerror or exc}")
        console.print(f"Record saved to {target}", markup=False)
    if not finished:
        raise typer.Exit(1)


@app.command()
def selfplay(
    game_id: GameArg,
    players: PlayersOpt = None,
    bots: Annotated[str, typer.Option("--bots", help="Comma-separated agents, one per seat.")] = "random",
    games: Annotated[int, typer.Option("--games", "-g", min=1, help="How many games.")] = 1,
    ruleset: RulesetOpt = "default",
    variant: VariantOpt = None,
    map_: MapOpt = None,
    seed: Annotated[int, typer.Option("--seed", help="First seed; game i uses seed + i.")] = 0,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory for the game records.")] = None,
    jobs: JobsOpt = None,
    ray: RayOpt = None,
    plugin: PluginOpt = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Play only the games whose records are not in --out yet.")
    ] = False,
) -> None:
    """Let bots play each other and write the records (one bot spec repeats for every seat).

    Game i depends on --seed + i alone, so the records are the same on any backend
    (--jobs, --ray); with --out each record is written as its game ends.
    """
    plugins = check_plugins(plugin)
    game = load_game(game_id)
    specs = [s.strip() for s in bots.split(",") if s.strip()]
    if players is not None:
        num_players = check_players(game, players, ruleset)
    else:
        num_players = len(specs) if len(specs) > 1 else (player_counts(game, ruleset) or [game.min_players])[0]
    if len(specs) == 1:
        specs *= num_players
    if len(specs) != num_players or "human" in specs:
        fail(f"--bots needs one bot per seat ({num_players}) or a single bot for all seats")
    new_state(game, num_players, ruleset, variant, map_, seed)  # bad options fail before anything is made
    make_agents(specs, seed)
    config = SelfplayConfig(game.id, tuple(specs), ruleset, parse_variants(variant), map_option(game, map_), seed)
    if resume and out is None:
        fail("--resume needs --out: the directory of the records to continue")
    records: dict[int, GameRecord] = {}
    if out is not None:
        record_directory(out)
        if resume:
            records = saved_selfplay_records(out, config, games)
    backend = open_batch(ray, jobs, plugins)
    progress = batch_progress()
    todo = [i for i in range(games) if i not in records]
    try:
        with progress:
            task = progress.add_task(f"{game.id} self-play", total=games, completed=len(records))
            for finished in backend.run(partial(play_selfplay_game, config), todo, on_lost=replaying):
                records[finished.index] = finished.value
                if out is not None:
                    path = out / selfplay_record_name(config, finished.index)
                    try:
                        write_atomically(path, finished.value.dumps())
                    except OSError as exc:
                        fail(f"cannot write {path}: {exc.strerror or exc}")
                progress.advance(task)
                progress.refresh()
    except TabletopError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        saved_in = f"the finished records are in {out}: add --resume to continue" if out is not None else ""
        say_err(saved_in, "interrupted:" if saved_in else "interrupted", "bold red")
        raise typer.Exit(130) from None
    finally:
        settings = backend.settings
        backend.close()
    table = Table("game", "seed", "actions", "scores", "winners", "end")
    for i in range(games):
        record = records[i]
        outcome = record.result
        assert outcome is not None
        table.add_row(
            str(i + 1),
            str(seed + i),
            str(len(record.actions)),
            " ".join(map(str, outcome.scores)),
            " ".join(str(w + 1) for w in outcome.winners),
            outcome.termination,
        )
    console.print(table)
    console.print(f"Run: {settings.describe()}", markup=False, highlight=False)
    if out is not None:
        console.print(f"{games} record(s) written to {out}", markup=False)


def selfplay_record_name(config: SelfplayConfig, index: int) -> str:
    """The file name of self-play game ``index`` (named by its seed)."""
    return f"{config.game}-{config.seed + index:06d}.json"


def saved_selfplay_records(out: Path, config: SelfplayConfig, games: int) -> dict[int, GameRecord]:
    """The records of this run already in ``out`` (``--resume``), each replayed and checked;
    any other is played again, with a note saying why."""
    found: dict[int, GameRecord] = {}
    for index in range(games):
        path = out / selfplay_record_name(config, index)
        if not path.exists():
            continue
        try:
            record = GameRecord.read_file(path)
            replay(record)
        except TabletopError as exc:
            note(f"playing again: {path}: {exc}")
            continue
        agents = tuple(p.agent for p in record.players)
        if record.result is None or agents != config.specs or record.config.seed != config.seed + index:
            note(f"playing again: {path} is not game {index} of this run (other bots or seed, or unfinished)")
            continue
        found[index] = record
    if found:
        say_err(f"resuming: {len(found)} of {games} records already in {out}")
    return found


def _state_at(record: GameRecord, ply: int | None) -> State:
    """The state after ``ply`` actions of ``record`` (all of them if ``None``)."""
    if ply is not None and not 0 <= ply <= len(record.actions):
        fail(f"--ply must be between 0 and {len(record.actions)}")
    try:
        if ply is None:
            return replay(record)
        for index, state in enumerate(iter_replay(record)):
            if index == ply:
                return state
    except TabletopError as exc:
        fail(str(exc))
    raise AssertionError("unreachable")


@app.command("replay")
def replay_cmd(
    record_path: Annotated[Path, typer.Argument(help="A game record (JSON).", show_default=False)],
    ply: Annotated[int | None, typer.Option("--ply", help="Stop after this many actions.")] = None,
    color: Annotated[bool | None, typer.Option("--color/--no-color", help="ANSI colours (default: if a tty).")] = None,
) -> None:
    """Replay a record, check every action and the stored result, print the position and scores."""
    record = load_record(record_path)
    state = _state_at(record, ply)
    game = state.game
    use_color = sys.stdout.isatty() if color is None else color
    print(game.render_text(state, color=use_color))
    print(game.describe_score(state))
    outcome = state.outcome()
    shown = len(record.actions) if ply is None else ply
    status = "finished" if outcome is not None else "not finished"
    print(f"{shown} of {len(record.actions)} actions replayed and valid; game {status}.")
    if outcome is not None:
        winners = ", ".join(record.players[w].name for w in outcome.winners)
        print(f"Scores: {' '.join(map(str, outcome.scores))}; winners: {winners}")


@app.command()
def render(
    record_path: Annotated[Path, typer.Argument(help="A game record (JSON).", show_default=False)],
    output: Annotated[Path, typer.Option("--output", "-o", help="SVG file to write.")] = Path("board.svg"),
    ply: Annotated[int | None, typer.Option("--ply", help="Draw the position after this many actions.")] = None,
    board: Annotated[
        bool, typer.Option("--board", help="Only the board, as the web page draws it (each seat's last turn marked).")
    ] = False,
) -> None:
    """Draw a position of a record as SVG."""
    record = load_record(record_path)
    state = _state_at(record, ply)
    last: list[Move] = []
    if state.ply:
        previous = _state_at(record, state.ply - 1)
        last = [previous.parse_move(record.actions[state.ply - 1])]
    if board:
        # The replay page's own function: the file is the very drawing the page shows.
        drawn = replay_board(record, state.ply if ply is not None else len(record.actions))
        if drawn is None:
            fail(f"{record.game} has no board drawing; leave out --board")
        svg = str(drawn)
    else:
        svg = state.game.render_svg(state, last_moves=last)
    try:
        output.write_text(svg, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror or exc}")
    console.print(f"Wrote {output} (ply {state.ply} of {len(record.actions)})", markup=False)


@app.command("games")
def games_cmd() -> None:
    """List the games, their player counts, rulesets and variant flags, and the bot levels."""
    for game_id in available_games():
        game = make(game_id)
        console.print(f"[bold]{game.id}[/]: {game.name}, {game.min_players}-{game.max_players} players")
        console.print(f"  rulesets: {', '.join(game.rulesets)}")
        for option in game.options:
            console.print(f"  {option.name} (default {option.default!r}): {option.help}", highlight=False)
    console.print(
        f"[bold]bot levels[/] (Elo: random = 0 on each scale: game, players, edition; seconds per move on one"
        f" core; lobby default: {DEFAULT_LEVEL})"
    )
    for level in installed_ladder():
        elos = ", ".join(f"{s.key} {level.elo[s.key]:+d}" if s.key in level.elo else f"{s.key} ?" for s in SCALES)
        seconds = ", ".join(f"{key} {t:.2g}" for key, t in level.seconds_per_move.items())
        specs = ", ".join(f"{g} {level.spec(g)}" for g in available_games() if g in level.specs)
        console.print(f"  {level.name} ({level.key}) = {specs}: {level.description}", highlight=False)
        console.print(f"    Elo {elos}; s/move {seconds or '?'}", highlight=False)
    if "native" in agent_kinds() and _builds("native"):  # where built and games run on it
        console.print(
            "[bold]native levels[/] (the native engine's MCTS in Rust; docs/bots.md): native:1 .. native:5 "
            "(1,000 to 100,000 simulations a move), native:N@0.5s on a clock, native:N@0.5cpu on CPU time",
            highlight=False,
        )


def _builds(spec: str) -> bool:
    try:
        make_agent(spec)
    except TabletopError:
        return False
    return True


app.command("serve")(serve)
app.command("arena")(arena)
app.command("analyse")(analyse)
app.command("sprt")(sprt)
app.command("train")(train)
app.add_typer(map_app, name="map")
app.add_typer(bench_app, name="bench")


def main() -> None:
    """Entry point of the ``tabletop`` script."""
    app()


if __name__ == "__main__":
    main()
