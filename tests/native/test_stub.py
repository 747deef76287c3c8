"""``src/tabletop/_native.pyi`` says what the built extension has: every public class and
method of the one is in the other, so mypy checks the callers against the real module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.native import needs_native

pytestmark = needs_native("terranova", "medina")

STUB = Path(__file__).resolve().parents[2] / "src" / "tabletop" / "_native.pyi"


def stub_classes() -> dict[str, set[str]]:
    """The stub's public classes and the members each declares, its bases' included."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    own: dict[str, set[str]] = {}
    bases: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            own[node.name] = {
                item.name for item in node.body if isinstance(item, ast.FunctionDef) and not item.name.startswith("_")
            }
            bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]

    def members(name: str) -> set[str]:
        found = set(own[name])
        for base in bases[name]:
            if base in own:
                found |= members(base)
        return found

    return {name: members(name) for name in own if not name.startswith("_")}


def test_the_stub_names_every_class_and_method_of_the_extension() -> None:
    import tabletop._native as native

    declared = stub_classes()
    built = {name for name in dir(native) if not name.startswith("_") and isinstance(getattr(native, name), type)}
    assert built == set(declared)
    for name, members in declared.items():
        cls = getattr(native, name)
        public = {m for m in vars(cls) if not m.startswith("_")}
        only_built, only_stub = sorted(public - members), sorted(members - public)
        assert public == members, f"{name}: only built {only_built}, only in the stub {only_stub}"


def test_the_checker_sees_a_missing_method(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = tmp_path / "_native.pyi"
    stub.write_text("class SearchStop:\n    def set(self) -> None: ...\n")
    monkeypatch.setattr(f"{__name__}.STUB", stub)
    with pytest.raises(AssertionError):
        test_the_stub_names_every_class_and_method_of_the_extension()


def stub_parameters() -> dict[tuple[str, str], list[str]]:
    """The parameter names of each method the stub declares (``self`` left out), by
    (class, method); ``__init__`` stands for the constructor."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    found: dict[tuple[str, str], list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    names = [a.arg for a in (*item.args.posonlyargs, *item.args.args, *item.args.kwonlyargs)]
                    found[(node.name, item.name)] = [n for n in names if n not in ("self", "cls")]
    return found


def built_parameters(text_signature: str) -> list[str]:
    """The parameter names of a PyO3 ``__text_signature__`` such as ``($self, state, seat=0)``;
    a positional-only one (before ``/``, as in ``__getitem__``) by its place, since no caller names it."""
    parts = [part.strip().split("=")[0].strip() for part in text_signature.strip("()").split(",")]
    parts = [p for p in parts if p and p not in ("$self", "$cls", "*")]
    positional_only = parts.index("/") if "/" in parts else 0
    return [f"#{i}" if i < positional_only else p.lstrip("*") for i, p in enumerate(x for x in parts if x != "/")]


def test_the_stub_gives_each_method_the_parameters_of_the_extension() -> None:
    import tabletop._native as native

    checked = 0
    for (name, method), declared in stub_parameters().items():
        cls = getattr(native, name, None)
        target = cls if method == "__init__" else getattr(cls, method, None)
        signature = getattr(target, "__text_signature__", None)
        if not isinstance(signature, str) or (method == "__init__" and "__init__" not in vars(cls) and not signature):
            continue  # properties and members PyO3 gives no signature
        built = built_parameters(signature)
        stub = [f"#{i}" if shown.startswith("#") else declared[i] for i, shown in enumerate(built)][: len(declared)]
        assert built == stub and len(built) == len(declared), f"{name}.{method}: built {signature}, stub {declared}"
        checked += 1
    assert checked >= 20  # the check reads the signatures, not nothing
