"""No silent wait: what a build will cost (:class:`BuildEstimate`), and a build run in the background.

A caller that will not wait (``find(..., wait=False)``, the CLI's ``find``) gets a lexical answer at once when the
semantic index needs more than :data:`BACKGROUND_TEXTS` texts embedded, and the build starts in a process of its
own (:func:`start_build`: ``python -m kgtoolkit index`` on the same graph, detached, its output in
``build.log`` of the index folder). One builder at a time per index folder: the builder holds ``.build.lock``
(an exclusive ``flock``) for its whole life; a second one finds it held and leaves. A later search reads the
folder as soon as the builder has written it (``manifest.json`` last, each file renamed into place) and catches up
with whatever was written meanwhile from the watermark, as any reader of a folder that lags does. Nothing starts
for a graph open read-only, an in-memory graph or a folder that cannot be written: those answer lexically and say
how to build the index (``kgtoolkit index``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from .._private import private_file
from .._records import _Record
from ..graph import KnowledgeGraph

__all__ = ["BACKGROUND_TEXTS", "BuildEstimate"]

BACKGROUND_TEXTS = 2000
"""A search that will not wait answers lexically, and builds in the background, when more texts than this need
the model (at a few hundred texts a second on two cores, about ten seconds)."""
_LOCK = ".build.lock"
_LOG = "build.log"
_HELD_ENV = "KGTOOLKIT_SEARCH_BUILD_LOCK"  # set for a builder started here: the folder whose lock it holds
_SAMPLE = 64  # texts embedded to measure the rate of an estimate (they are cached: not wasted)


@dataclasses.dataclass(frozen=True, slots=True)
class BuildEstimate(_Record):
    """What bringing the index in step will cost: ``texts`` to embed, ``rate`` (texts a second, measured on a sample
    of them here and now; None when nothing was measured) and ``seconds`` (about; 0 when nothing is to embed)."""

    texts: int
    rate: float | None
    seconds: float

    def describe(self) -> str:
        """``154,210 texts to embed, about 9 min (290 texts/s)``, or ``nothing to embed``."""
        if not self.texts:
            return "nothing to embed"
        rate = f" ({self.rate:,.0f} texts/s here now)" if self.rate else ""
        return f"{self.texts:,} texts to embed, about {_duration(self.seconds)}{rate}"


def _duration(seconds: float) -> str:
    """``40 s``, ``9 min``, ``1.5 h``.

    >>> _duration(40.2), _duration(540), _duration(5400)
    ('40 s', '9 min', '1.5 h')
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400 - 1:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def building(directory: Path | None) -> bool:
    """Whether a builder holds this index folder's build lock now (creates nothing)."""
    if directory is None or not (directory / _LOCK).exists():
        return False
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return False
    try:
        with (directory / _LOCK).open("r") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(handle, fcntl.LOCK_UN)
    except OSError:
        return False
    return False


@contextlib.contextmanager
def build_lock(directory: Path | None) -> Iterator[None]:
    """Hold the folder's build lock for the block, waiting for a builder that holds it (a process started by
    :func:`start_build` already holds it: :data:`_HELD_ENV`). No folder: nothing to hold."""
    if directory is None or os.environ.get(_HELD_ENV) == str(directory):
        yield
        return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    path = directory / _LOCK
    if not path.exists():
        private_file(path)
    with path.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def start_build(kg: KnowledgeGraph, directory: Path, model_source: str | None) -> bool:
    """Start ``python -m kgtoolkit index`` on ``kg`` in a process of its own (detached: it outlives this one) that
    holds the folder's build lock from the start (this process takes it and hands it over), unless a builder holds
    it already. True when a builder runs now; False when none can (not POSIX, a folder that cannot be written)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return False
    location = kg.location
    target = location.url if location.kind == "postgresql" else str(location.path or "")
    if not target:
        return False
    try:
        path = directory / _LOCK
        if not path.exists():
            private_file(path)
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True  # a builder runs
        env = dict(os.environ)
        env["KGTOOLKIT_DB"] = target  # in the environment, not the command line: a URL's password stays out of `ps`
        env[_HELD_ENV] = str(directory)
        if model_source:
            env["KGTOOLKIT_SEARCH_MODEL"] = model_source
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # the same kgtoolkit as this process
        log = private_file(directory / _LOG)
        with log.open("ab") as out:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S")
            out.write(f"{stamp} building the search index of {location} in the background\n".encode())
            out.flush()
            subprocess.Popen(
                [sys.executable, "-m", "kgtoolkit", "index"],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(fd,),  # the lock goes with it: held until the builder exits, however it ends
            )
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # the builder's copy keeps the lock
