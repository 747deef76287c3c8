"""CPU time of other processes, from Linux's ``/proc`` (the benches' servers, PostgreSQL, the proxy)."""

from __future__ import annotations

import os
from pathlib import Path


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process, from /proc (None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float | None:
    """CPU time of ``root``, its live descendants and the children each has reaped (Linux
    ``/proc``; None elsewhere or once ``root`` is gone)."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(f) for f in fields[11:15]) / tick
    if root not in times:
        return None
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid in parents.items() if ppid == parent]
        tree.update(children)
        frontier.extend(children)
    return sum(times[pid] for pid in tree)
