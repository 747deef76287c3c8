"""Shared set-up of the training tests: a tiny network file of Medina, 3 players.

Every test module here skips itself without NumPy (the ``rl`` extra), and the tests of the
JAX model and of training runs without JAX (the ``train`` extra), with :data:`NO_NUMPY` or
:data:`NO_JAX` as the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop import GameConfig
from tabletop.native import has_native

NO_NUMPY = "NumPy is not installed (pip install 'tabletop[rl]')"
NO_NATIVE = "self-play runs on the native engine (make native)"
NO_JAX = "JAX is not installed (pip install 'tabletop[train]')"


@pytest.fixture
def tiny_network(tmp_path: Path) -> Path:
    """A random Medina 3p network of one hidden layer of 8 units, saved in ``tmp_path``."""
    from tabletop.core.network import PolicyValueNetwork

    path = tmp_path / "tiny.npz"
    PolicyValueNetwork.random("medina", GameConfig(num_players=3), (8,), seed=1).save(path)
    return path


def need_native() -> None:
    if not has_native("medina"):
        pytest.skip(NO_NATIVE)
