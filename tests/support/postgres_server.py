"""A throwaway PostgreSQL server for the tests, started from the system's binaries and stopped after.

``initdb`` and ``pg_ctl`` are found through ``pg_config --bindir``, ``/usr/lib/postgresql/*/bin`` or
``PATH``. The cluster lives in a new temporary folder, listens on 127.0.0.1 (a free port) and on a
Unix socket in that folder, never fsyncs, and is removed when the server stops. ``initdb`` refuses
to run as root, so as root the server runs as the ``postgres`` system user (``runuser``).

Host connections need a password (SCRAM), so the tests can check what a wrong one does; the URL
of :class:`Server` carries it. ``python tests/support/postgres_server.py`` starts one and prints its URL.
"""

from __future__ import annotations

import atexit
import glob
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = (
    "PostgreSQL's server binaries (initdb, pg_ctl) were not found: install them "
    "(Debian/Ubuntu: sudo apt-get install -y postgresql) to run the PostgreSQL cases"
)
USER = "kgtest"


@dataclass
class Server:
    folder: Path
    port: int
    password: str
    bindir: Path
    run_as: list[str]

    @property
    def url(self) -> str:
        """A superuser URL for the ``postgres`` database, over TCP on 127.0.0.1."""
        return self.url_for("postgres")

    def url_for(self, database: str, *, password: str | None = None, port: int | None = None) -> str:
        return f"postgresql://{USER}:{password or self.password}@127.0.0.1:{port or self.port}/{database}"

    def new_schema(self, database: str = "kg") -> str:
        """A URL naming a new, empty schema of ``database``: a graph of its own."""
        import psycopg

        name = f"g{secrets.token_hex(6)}"
        with psycopg.connect(self.url_for(database), autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        return f"{self.url_for(database)}?options=-csearch_path%3D{name}"

    def stop(self) -> None:
        """Stop the server and remove its folder; again (as at exit, after the fixture did) it does nothing."""
        if not self.folder.exists():
            return
        subprocess.run(
            [
                *self.run_as,
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.folder / "data"),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(self.folder, ignore_errors=True)


def find_bindir() -> Path | None:
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        done = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        if done.returncode == 0:
            candidates.append(Path(done.stdout.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start() -> Server:
    """Start a server; raises RuntimeError (with the server's log) if it does not come up."""
    bindir = find_bindir()
    if bindir is None:
        raise FileNotFoundError(INSTALL_HINT)
    run_as: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="kgtoolkit-pg-"))
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        if runuser is None:
            raise FileNotFoundError("running as root, and runuser is missing: cannot start PostgreSQL as postgres")
        run_as = [runuser, "-u", "postgres", "--"]
        shutil.chown(folder, user="postgres")
    folder.chmod(0o700)
    password = secrets.token_hex(12)
    pwfile = folder / "pw"
    pwfile.write_text(password + "\n")
    if run_as:
        shutil.chown(pwfile, user="postgres")
    data = folder / "data"
    init = subprocess.run(
        [
            *run_as,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            USER,
            "--pwfile",
            str(pwfile),
            "-A",
            "scram-sha-256",
            "--auth-local=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    pwfile.unlink()
    if init.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
    for attempt in range(5):
        port = _free_port()
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={folder} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 "
            "-c shared_buffers=128MB"
        )
        started = subprocess.run(
            [
                *run_as,
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(folder / "log"),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if started.returncode == 0:
            server = Server(folder, port, password, bindir, run_as)
            # Stopped by the fixture; at exit too, when an interrupted run (pytest -x under xdist, Ctrl-C) skips it.
            atexit.register(server.stop)
            return server
        time.sleep(0.2 * (attempt + 1))  # the port was taken meanwhile: try another
    log = (folder / "log").read_text(errors="replace") if (folder / "log").exists() else ""
    shutil.rmtree(folder, ignore_errors=True)
    raise RuntimeError(f"PostgreSQL did not start: {started.stderr.strip()}\n{log[-2000:]}")


if __name__ == "__main__":
    server = start()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
