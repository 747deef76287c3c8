"""The consoles every command prints to, and the one way a command fails on bad input."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.text import Text

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
