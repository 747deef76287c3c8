"""``tabletop train`` where the training extra is missing: one line that says what to install."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tabletop.cli.main import app

runner = CliRunner()


def test_train_without_jax_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tabletop.cli.train_cmd as train_cmd

    real = train_cmd.importlib.util.find_spec
    monkeypatch.setattr(train_cmd.importlib.util, "find_spec", lambda name: None if name == "jax" else real(name))
    result = runner.invoke(app, ["train", "medina", "-n", "3", "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "pip install 'tabletop[train]'" in result.output
    assert not (tmp_path / "run").exists()
