"""Shared set-up of the training tests: a tiny network file of Medina, 3 players."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the rl extra is not installed (pip install 'tabletop[rl]')")

from tabletop import GameConfig
from tabletop.ai.network import PolicyValueNetwork
from tabletop.native import has_native

NO_NATIVE = "self-play runs on the native engine (make native)"
NO_JAX = "JAX is not installed (pip install 'tabletop[train]')"


@pytest.fixture
def tiny_network(tmp_path: Path) -> Path:
    """A random Medina 3p network of one hidden layer of 8 units, saved in ``tmp_path``."""
    path = tmp_path / "tiny.npz"
    PolicyValueNetwork.random("medina", GameConfig(num_players=3), (8,), seed=1).save(path)
    return path


def need_native() -> None:
    if not has_native("medina"):
        pytest.skip(NO_NATIVE)
