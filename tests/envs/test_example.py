"""The worked example of docs/research.md in its short form (a few seconds):
``examples/train_masked_pg.py --quick``.  The full run is the same script without ``--quick``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.envs.cases import need

need("gymnasium")

import pytest  # noqa: E402

from tabletop.native import has_native  # noqa: E402

pytestmark = pytest.mark.skipif(not has_native("medina"), reason="the example trains in the vector env (make native)")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "train_masked_pg.py"


def test_quick_run_writes_its_curve_weights_and_results(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("train_masked_pg", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = module.main(["--quick", "--out", str(tmp_path)])
    assert results["training_games"] >= 1 and results["batch"] == 8
    assert {"random", "greedy"} == set(results["arena_after"])
    assert json.loads((tmp_path / "results.json").read_text()) == results
    svg = (tmp_path / "learning_curve.svg").read_text()
    assert svg.startswith("<svg") and "polyline" in svg
    assert (tmp_path / "policy.npz").stat().st_size > 0
