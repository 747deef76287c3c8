"""The layers of docs/architecture.md, enforced over the package's import graph.

Every ``import tabletop.x`` / ``from tabletop.x import ...`` in ``src/tabletop`` (at any
depth of a module, not only at the top), and every import by name
(``importlib.import_module("tabletop.x")``, ``import_module(f"tabletop.x.{name}")``,
``__import__("tabletop.x")``: the name's constant beginning), must go to a layer the
importing layer may use.
"""

from __future__ import annotations

import ast
import sys
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
    "compute": {"core", "compute"},  # batches of games on local processes or Ray (docs/cluster.md)
    "arena": {"core", "render", "ai", "arena", "compute"},
    "server": {"core", "ai", "server"},
    "envs": {"core", "ai", "native", "envs", "compute"},  # the vector env steps the native engines (envs/vector.py)
    # bench/batch.py: arenas per backend; bench/server.py: the simulated players in Rust
    "bench": {"core", "ai", "server", "envs", "arena", "compute", "native", "bench"},
    "cli": {"core", "render", "ai", "arena", "server", "testing", "bench", "cli", "compute", "learn"},
    # self-play on the native engine, training, gates and ladder matches (tabletop train)
    "learn": {"core", "render", "ai", "arena", "compute", "native", "learn"},
    "native": {"core", "native"},  # the native engines' adapter (docs/native.md)
    # tabletop/__init__.py: the public API re-exports core, and composes the engines: it
    # imports the native engines, which register themselves as an engine provider of core.
    "": {"core", "native"},
}
"""Which top-level packages each layer may import."""

DISCOVERY = {("core", "tabletop.games")}
"""The registry imports the ``tabletop.games`` package itself to find the games in it
(and, by name, ``tabletop.games.<id>``: the name's constant part is ``tabletop.games``)."""

LAYER_OF_MODULE = {"_native": "native"}
"""Modules of ``tabletop`` that belong to a layer of another name: the native engines'
extension module is part of the native layer."""

DYNAMIC_IMPORTERS = {"import_module", "__import__"}
"""The functions that import a module named by a string (``importlib.import_module``,
the builtin ``__import__``)."""


def _constant_prefix(node: ast.expr) -> str | None:
    """The text a module-name expression surely begins with: a string constant, the
    leading constant of an f-string, or the left side of a ``+``; ``None`` otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        prefix = ""
        for part in node.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            prefix += part.value
        return prefix
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _constant_prefix(node.left)
    return None


def _dynamic_import(node: ast.Call) -> str | None:
    """The module name (its constant beginning, without a dangling dot) that a call
    imports by name, if it is such a call with a name that begins with a constant."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name not in DYNAMIC_IMPORTERS or not node.args:
        return None
    prefix = _constant_prefix(node.args[0])
    return prefix.rstrip(".") if prefix else None


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Call) and (dynamic := _dynamic_import(node)) is not None:
            found.append(dynamic)
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
        target = LAYER_OF_MODULE.get(target, target)
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


def test_the_checker_sees_imports_by_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import importlib\n"
        "from importlib import import_module\n"
        "def f(name):\n"
        "    importlib.import_module('tabletop.native')\n"
        "    import_module(f'tabletop.ai.{name}')\n"
        "    __import__('tabletop.server.app')\n"
        "    importlib.import_module('tabletop.games.' + name)\n"
        "    importlib.import_module(name)\n"  # no constant part: nothing to check
        "    importlib.import_module('json')\n"
    )
    assert imports_of(bad) == ["tabletop.native", "tabletop.ai", "tabletop.server.app", "tabletop.games"]


def test_an_import_by_name_of_an_upper_layer_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``core.registry`` once did to find the native engines: the check must fail on it."""
    fake_src = tmp_path / "tabletop"
    (fake_src / "core").mkdir(parents=True)
    lower = fake_src / "core" / "registry.py"
    lower.write_text("import importlib\n\ndef find():\n    return importlib.import_module('tabletop.native')\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake_src)
    with pytest.raises(AssertionError, match=r"core/registry.py \(core\) may not import \['tabletop.native'\]"):
        test_imports_respect_the_layers(lower)
