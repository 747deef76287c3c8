"""The consoles every command prints to, and the one way a command fails on bad input."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

try:  # Typer 0.2x runs on its own copy of Click, whose exceptions are these
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - an older Typer runs on Click itself
    import click.exceptions as click_errors  # type: ignore[no-redef]

console = Console()
err_console = Console(stderr=True)


def say_err(message: str, label: str = "", style: str = "") -> None:
    """Prints one line to stderr, after an optional coloured ``label`` such as ``note:``.

    The message is plain text, so a path or a bot spec with brackets in it is printed
    as typed instead of being read as rich markup, and the line is never wrapped, so
    a log file or a pipe gets it whole.
    """
    line = Text.assemble((label, style), " " if label else "", message)
    err_console.print(line, soft_wrap=True, highlight=False)


def note(message: str) -> None:
    """Prints a ``note:`` line to stderr (something worth knowing, not an error)."""
    say_err(message, "note:", "yellow")


def fail(message: str, code: int = 2) -> NoReturn:
    """Prints a one-line error to stderr and exits with ``code``."""
    say_err(message, "error:", "bold red")
    raise typer.Exit(code)


class OneLineErrors(TyperGroup):
    """The ``tabletop`` command group, reporting a usage error in one line like :func:`fail`.

    Typer draws a usage error (an unknown option, a value out of an option's range, a
    missing argument) as the usage, a hint and a box: five lines or more.  Here it is
    ``error: MESSAGE; try 'tabletop CMD --help'`` on stderr, exit code 2, like every
    other bad input.  Help, ``--help``, Ctrl-C (exit 130, no traceback) and a closed
    pipe (exit 1) work as before.
    """

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        args = with_optional_values(sys.argv[1:] if args is None else list(args))
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, windows_expand_args, **extra)
        try:
            # Not standalone: Click errors come here instead of being drawn; an exit
            # (typer.Exit, --help, Ctrl-C as 130) comes back as its exit code.
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except click_errors.NoArgsIsHelpError as exc:  # the help is printed already
            sys.exit(exc.exit_code)
        except click_errors.ClickException as exc:
            say_err(usage_error_line(exc), "error:", "bold red")
            sys.exit(exc.exit_code)
        except typer.Abort:  # end of input at a prompt
            say_err("aborted", "error:", "bold red")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


OPTIONAL_VALUES = {"--ray": "local"}
"""Options whose value may be left out, and the value they then take: ``--ray`` alone
starts Ray here, ``--ray ADDRESS`` joins a cluster (Typer has no optional option values)."""


def with_optional_values(args: list[str]) -> list[str]:
    """``args`` with the left-out value of each :data:`OPTIONAL_VALUES` option filled in.

    >>> with_optional_values(["arena", "medina", "--ray", "--jobs", "2"])
    ['arena', 'medina', '--ray', 'local', '--jobs', '2']
    >>> with_optional_values(["arena", "medina", "--ray", "10.0.0.5:6379"])
    ['arena', 'medina', '--ray', '10.0.0.5:6379']
    """
    filled: list[str] = []
    for position, arg in enumerate(args):
        filled.append(arg)
        following = args[position + 1] if position + 1 < len(args) else None
        if arg in OPTIONAL_VALUES and (following is None or following.startswith("-")):
            filled.append(OPTIONAL_VALUES[arg])
    return filled


def usage_error_line(exc: click_errors.ClickException) -> str:
    """A Click error's message on one line, with the command's ``--help`` to try."""
    message = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)
    if ctx is None or message.endswith("?"):  # "No such command 'bnch'. Did you mean 'bench'?"
        return message
    return f"{message.rstrip('.')}; try '{ctx.command_path} --help'"
