"""Peak memory of a process tree, sampled from ``/proc`` (Linux): for servers and JVMs that outlive no one call.

A process's own peak is ``VmHWM`` (``/proc/PID/status``), but a tree's peak is not the sum of its members' peaks
(they peak at different times, and a PostgreSQL backend ends with its connection). :class:`TreePeak` samples the
tree in a thread and keeps the largest sum of proportional set sizes (``Pss``: shared pages split between the
processes that map them, so a server's shared buffers count once).
"""

from __future__ import annotations

import threading
from pathlib import Path


def peak_kb(pid: int | str) -> int:
    """A process's peak resident set (``VmHWM``) in KiB; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def descendants(pid: int) -> list[int]:
    """Every living descendant of ``pid``."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            out.append(int(child))
            out.extend(descendants(int(child)))
    return out


def pss_kb(pid: int) -> int:
    """A process's proportional set size in KiB; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            return next((int(line.split()[1]) for line in rollup if line.startswith("Pss:")), 0)
    except OSError:
        return 0


class TreePeak:
    """Sample the tree under ``root`` every ``interval`` seconds until :meth:`stop`; ``peak_mib`` is its largest Pss."""

    def __init__(self, root: int, interval: float = 0.5) -> None:
        self.root, self.interval = root, interval
        self.peak_kb = 0
        self.processes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            tree = [self.root, *descendants(self.root)]
            self.processes = max(self.processes, len(tree))
            self.peak_kb = max(self.peak_kb, sum(pss_kb(pid) for pid in tree))
            self._stop.wait(self.interval)

    def start(self) -> TreePeak:
        self._thread.start()
        return self

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_mib

    @property
    def peak_mib(self) -> float:
        return round(self.peak_kb / 1024, 1)
