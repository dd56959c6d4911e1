"""The Spark tier on a real standalone cluster (issue 48): a master and two workers, each its own process started
through PySpark's own ``bin/spark-class`` on 127.0.0.1, a driver in a process of its own, and the answer equal to
the engine's. The tasks report the process that ran them: executors launched by the workers, not the driver.
Stopped after, whatever happens. Slow (a cluster starts in tens of seconds); skips without PySpark or Java."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import kgtoolkit
from kgtoolkit import KnowledgeGraph, analysis, io

pyspark = pytest.importorskip("pyspark", reason="kgtoolkit[spark] is not installed")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java 17 (Debian: openjdk-17-jre-headless)", allow_module_level=True)

pytestmark = [pytest.mark.spark, pytest.mark.slow]

HOME = Path(pyspark.__file__).resolve().parent
SPARK_CLASS = HOME / "bin" / "spark-class"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SPARK_HOME": str(HOME), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1"}
    with log.open("wb") as out:
        return subprocess.Popen(
            [str(SPARK_CLASS), *args], env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop one process this test started, and its children (its own session: ``spark-class`` runs java)."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[str]:
    """A standalone master and two workers (one core, 1 GB each) on 127.0.0.1: the master's URL."""
    port, ui = _free_port(), _free_port()
    started = [
        _start(
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(ui),
            ],
            tmp_path / "master.log",
        )
    ]
    master = f"spark://127.0.0.1:{port}"
    try:
        for n in range(2):
            started.append(
                _start(
                    [
                        "org.apache.spark.deploy.worker.Worker",
                        "--host",
                        "127.0.0.1",
                        "--cores",
                        "1",
                        "--memory",
                        "1g",
                        "--webui-port",
                        str(_free_port()),
                        "--work-dir",
                        str(tmp_path / f"work{n}"),
                        master,
                    ],
                    tmp_path / f"worker{n}.log",
                )
            )
        deadline = time.monotonic() + 180
        alive = 0
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as answer:
                    state = json.load(answer)
                alive = sum(1 for w in state.get("workers", []) if w.get("state") == "ALIVE")
            except OSError:
                alive = 0
            if alive == 2:
                break
            if any(p.poll() is not None for p in started):
                break
            time.sleep(1)
        if alive != 2:
            logs = "\n".join(p.read_text(errors="replace")[-2000:] for p in sorted(tmp_path.glob("*.log")))
            pytest.fail(f"the standalone cluster did not come up with two workers:\n{logs}")
        yield master
    finally:
        for process in reversed(started):
            _stop(process)


DRIVER = r"""
import json, os, sys
from kgtoolkit import spark as ks

def executor_of(_):
    # The JVM that runs this task's Python worker: up the parents to the first java process.
    pid = os.getpid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        if "java" in cmd.split(" ")[0]:
            return [(pid, "CoarseGrainedExecutorBackend" in cmd)]
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    return [(0, False)]

master, folder, out = sys.argv[1:4]
session = ks.session(master, shuffle_partitions=4, **{"spark.executor.memory": "512m", "spark.cores.max": "2"})
facts = ks.read_facts(session, folder)
churn = ks.to_polars(ks.churn(facts))
events = ks.to_polars(ks.events(facts, by="predicate"))
ran = session.sparkContext.parallelize(range(8), 8).mapPartitions(executor_of).collect()
executors = session.sparkContext._jsc.sc().getExecutorIds().size()
churn.write_parquet(out + ".churn.parquet")
events.write_parquet(out + ".events.parquet")
json.dump({"ran": ran, "executors": executors, "driver": os.getpid()}, open(out, "w"))
session.stop()
"""


def test_the_analyses_run_in_executors_of_a_standalone_cluster(cluster: str, tmp_path: Path) -> None:
    kg: KnowledgeGraph
    with kgtoolkit.open(tmp_path / "g.sqlite3") as kg:
        for month in range(1, 13):
            day = f"2024-{month:02}-03"
            kg.add("china", "criticize", "japan", valid_from=day, valid_to=day)
            kg.add(f"svc{month}", "uses", "redis", valid_from=day)
            if month % 3 == 0:
                kg.supersede(f"svc{month}", "uses", "redis", "sqlite", at=f"2024-{month:02}-20")
        io.export_partitioned(kg, tmp_path / "export", by="month")
        want_churn, want_events = analysis.churn(kg), analysis.events(kg, by="predicate")
    out = tmp_path / "answer.json"
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, cluster, str(tmp_path / "export"), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "SPARK_HOME": str(HOME), "SPARK_LOCAL_IP": "127.0.0.1"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(out.read_text())
    assert answer["executors"] == 2  # one executor on each worker
    jvms = {pid for pid, _ in answer["ran"]}
    assert all(is_executor for _, is_executor in answer["ran"]), answer["ran"]
    assert len(jvms) == 2, answer["ran"]  # the tasks ran in two executor processes, neither of them the driver
    assert_frame_equal(pl.read_parquet(f"{out}.churn.parquet"), want_churn)
    assert_frame_equal(pl.read_parquet(f"{out}.events.parquet"), want_events)
