"""Peak memory and CPU time of a process tree, from ``/proc`` (Linux): for servers and JVMs that outlive no one call.

A process's own peak is ``VmHWM`` (``/proc/PID/status``), but a tree's peak is not the sum of its members' peaks
(they peak at different times, and a PostgreSQL backend ends with its connection). :class:`TreePeak` samples the
tree in a thread and keeps the largest sum of proportional set sizes (``Pss``: shared pages split between the
processes that map them, so a server's shared buffers count once).

CPU time is not sampled: a process that ends between two samples would lose its last interval, and one that lives
less than an interval would be missed. The kernel keeps the count instead. A process's ``utime + stime``
(``/proc/PID/stat``) holds its own CPU; its ``cutime + cstime`` holds that of its children which ended and which it
waited for (and theirs, transitively). So :func:`tree_cpu_seconds` (the calling process, what it reaped, and each
living descendant with what that one reaped) is the whole tree's CPU at that moment, whoever has ended.
:func:`run_counted` gives the exact figure for a whole command: it makes the caller a child subreaper, so that
processes orphaned by their parent (pyspark's JVM outlives its Python driver by a moment) are reparented to it
and reaped, and reads ``getrusage(RUSAGE_CHILDREN)`` before and after.
"""

from __future__ import annotations

import ctypes
import os
import resource
import subprocess
import threading
import time
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
TICKS = os.sysconf("SC_CLK_TCK")


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


def cpu_ticks(pid: int | str) -> tuple[int, int]:
    """A process's own CPU (``utime + stime``) and its reaped children's (``cutime + cstime``), in clock ticks."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0, 0
    return int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def _rusage_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def tree_cpu_seconds() -> float:
    """CPU seconds (user + system) of the calling process and every process under it, living or ended."""
    own = _rusage_seconds(resource.RUSAGE_SELF) + _rusage_seconds(resource.RUSAGE_CHILDREN)
    return own + sum(sum(cpu_ticks(pid)) for pid in descendants(os.getpid())) / TICKS


def subtree_cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds of ``pid`` itself, and of every process under it (living, or ended and reaped within the tree)."""
    own, reaped = cpu_ticks(pid)
    below = reaped + sum(sum(cpu_ticks(child)) for child in descendants(pid))
    return own / TICKS, below / TICKS


def children(pid: int) -> set[int]:
    """The direct children of ``pid``, zombies included (ended and not yet waited for)."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out.update(int(child) for child in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def run_counted(command: list[str], orphan_timeout: float = 600.0) -> tuple[float, float]:
    """Run ``command`` and wait for every process it started; its wall seconds and its tree's CPU seconds.

    The caller becomes a child subreaper, so orphans of the tree are reparented to it; after the command ends they
    are waited for (up to ``orphan_timeout`` seconds; children the caller had before are left alone), and
    ``RUSAGE_CHILDREN`` then counts every process of the tree. The wall time ends with the command, not with its
    orphans. Raises ``CalledProcessError`` as ``subprocess.run``, ``TimeoutError`` when an orphan outlives the wait.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
    me = os.getpid()
    had = children(me)
    before = _rusage_seconds(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True)
    wall = time.perf_counter() - started
    deadline = time.monotonic() + orphan_timeout
    while orphans := children(me) - had:
        for pid in orphans:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                continue
        if time.monotonic() > deadline:
            raise TimeoutError(f"orphans {sorted(orphans)} of {command[0]} still running after {orphan_timeout} s")
        time.sleep(0.1)
    return wall, _rusage_seconds(resource.RUSAGE_CHILDREN) - before
