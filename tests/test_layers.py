"""The layers of docs/architecture.md, enforced over the package's import graph.

Every ``import tabletop.x`` / ``from tabletop.x import ...`` in ``src/tabletop`` (at any
depth of a module, not only at the top) must go to a layer the importing layer may use.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "tabletop"

ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "grid": {"core", "grid"},
    "render": {"core", "render"},
    "games": {"core", "grid", "render"},  # a game imports only itself besides these (below)
    "ai": {"core", "ai"},
    "testing": {"core", "ai", "testing"},
    "arena": {"core", "render", "ai", "arena"},
    "server": {"core", "ai", "server"},
    "envs": {"core", "ai", "native", "envs"},  # the vector env steps the native engines (envs/vector.py)
    "bench": {"core", "ai", "server", "envs", "bench"},
    "cli": {"core", "render", "ai", "arena", "server", "testing", "bench", "cli"},
    "native": {"core", "native"},  # the native engines' adapter (docs/native.md)
    "": {"core"},  # tabletop/__init__.py: the public API re-exports core
}
"""Which top-level packages each layer may import."""

DISCOVERY = {("core", "tabletop.games")}
"""The registry imports the ``tabletop.games`` package itself to find the games in it."""


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return [name for name in found if name == "tabletop" or name.startswith("tabletop.")]


def layer_of(path: Path) -> tuple[str, str | None]:
    """The layer of a module, and the game it belongs to (for modules under games/)."""
    parts = path.relative_to(SRC).parts
    if len(parts) == 1:
        return "", None
    if parts[0] == "games" and len(parts) > 2:
        return "games", parts[1]
    return parts[0], None


MODULES = sorted(SRC.rglob("*.py"))


def test_every_package_has_a_layer() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(ALLOWED), packages - set(ALLOWED)


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(SRC)) for p in MODULES])
def test_imports_respect_the_layers(path: Path) -> None:
    layer, game = layer_of(path)
    wrong = []
    for name in imports_of(path):
        parts = name.split(".")
        target = parts[1] if len(parts) > 1 else ""
        if (layer, name) in DISCOVERY:
            continue
        if target == "games" and layer == "games" and len(parts) > 2 and parts[2] == game:
            continue  # a game's own modules
        if target not in ALLOWED[layer]:
            wrong.append(name)
    assert not wrong, (
        f"{path.relative_to(SRC)} ({layer or 'tabletop'}) may not import {wrong}; see docs/architecture.md"
    )


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from tabletop.games.terranova.board import Board\n")
    assert imports_of(bad) == ["tabletop.games.terranova.board"]
