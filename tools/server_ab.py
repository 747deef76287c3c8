"""``tabletop bench server`` against another version of the server: the A/B of docs/benchmarks.md.

    git archive BASE src | tar -x -C /tmp/base
    .venv/bin/python tools/server_ab.py /tmp/base/src --games 200 --seconds 30   # base
    .venv/bin/tabletop bench server --games 200 --seconds 30                     # this tree

The bench's clients, its measurement and its check are this tree's; only the server
processes import the code under SRC (their ``PYTHONPATH``), so both sides are measured alike.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import tabletop.bench.server as bench
from tabletop.cli.main import main


def with_server_code(src: str) -> None:
    """Makes the bench start its servers on the code under ``src``."""
    start = bench.start_server

    def start_server(cmd: list[str], port: int, **options: Any) -> subprocess.Popen[bytes]:
        env = {**options.pop("env", os.environ), "PYTHONPATH": src}
        return start(cmd, port, env=env, **options)

    bench.start_server = start_server


if __name__ == "__main__":
    with_server_code(os.path.abspath(sys.argv[1]))
    sys.argv = ["tabletop", "bench", "server", *sys.argv[2:]]
    main()
