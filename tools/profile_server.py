"""``tabletop bench server`` with its server under cProfile, counting the event loop's CPU time.

    .venv/bin/python tools/profile_server.py /tmp/server.prof --games 200 --seconds 30
    PROFILE_FROM_S=20 .venv/bin/python tools/profile_server.py ...   # play only, not the set-up
    .venv/bin/python -c "import pstats; pstats.Stats('/tmp/server.prof').sort_stats('tottime').print_stats(40)"

The server's main thread (the event loop) is profiled with ``time.thread_time`` as the
timer, so waiting in ``epoll`` costs nothing and the figures are CPU time of that thread;
other threads are not profiled.  The profile covers the whole run (matches made and
sockets opened included) unless ``PROFILE_FROM_S`` says how many seconds after the
server's start it begins (the set-up of 200 games takes about 15 s here).  The profile
is written when the bench stops the server (SIGTERM, a clean exit); the server the bench
starts again afterwards, to count lost actions, is not profiled.
"""

from __future__ import annotations

import cProfile
import os
import signal
import subprocess
import sys
import time
from typing import Any

import tabletop.bench.server as bench
from tabletop.cli.main import main

PROFILE_ENV = "TABLETOP_PROFILE_TO"


def serve_profiled(path: str) -> None:
    """Runs ``tabletop serve`` (arguments from ``sys.argv``) under the profiler."""
    from tabletop.cli.serve_cmd import main as serve

    if os.path.exists(path):  # the bench's check after the run, not the run
        serve()
        return
    # uvicorn raises the SIGTERM it caught again once it has shut down: let that be an
    # exit this function sees, so the profile is written.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
    profile = cProfile.Profile(time.thread_time)
    delay = float(os.environ.get("PROFILE_FROM_S", "0"))
    if delay > 0:  # the alarm's handler runs on the main thread, the event loop's
        signal.signal(signal.SIGALRM, lambda _signum, _frame: profile.enable())
        signal.setitimer(signal.ITIMER_REAL, delay)
    else:
        profile.enable()
    try:
        serve()
    except SystemExit:
        pass
    finally:
        profile.disable()
        profile.dump_stats(path)


def with_profiled_server(path: str) -> None:
    """Makes the bench start its server under :func:`serve_profiled`."""
    start = bench.start_server  # type: ignore[attr-defined]

    def start_server(cmd: list[str], port: int, **options: Any) -> subprocess.Popen[bytes]:
        env = {**options.pop("env", os.environ), PROFILE_ENV: path}
        module = cmd.index("-m")
        profiled = [*cmd[:module], os.path.abspath(__file__), *cmd[module + 2 :]]
        return start(profiled, port, env=env, **options)

    bench.start_server = start_server  # type: ignore[attr-defined]


if __name__ == "__main__":
    if PROFILE_ENV in os.environ:  # the server process
        serve_profiled(os.environ.pop(PROFILE_ENV))
    else:
        target = os.path.abspath(sys.argv[1])
        if os.path.exists(target):
            os.remove(target)
        with_profiled_server(target)
        sys.argv = ["tabletop", "bench", "server", *sys.argv[2:]]
        main()
