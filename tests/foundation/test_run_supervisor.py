"""`make run` beyond the happy path: a dying component is restarted and the log says so; "ready" waits for the page
to answer; a public bind answers only to this machine's names and loads no demo accounts unless asked."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from baccarat_site import run
from tests import processes


@pytest.mark.slow  # real processes, and the restart pauses of 1 s then 2 s are waited out
def test_a_component_that_dies_is_restarted_with_a_growing_pause_and_the_others_keep_running():
    lines: list[str] = []
    supervisor = run.Supervisor(
        {
            "dies": [sys.executable, "-c", "import sys; sys.exit(3)"],
            "lives": [sys.executable, "-c", "import time; time.sleep(60)"],
        },
        log=lambda prefix, line: lines.append(line),
    )
    supervisor.start_all()
    lives = supervisor.procs["lives"]
    try:
        deadline = time.monotonic() + 15
        while supervisor.restarts["dies"] < 2 and time.monotonic() < deadline:
            supervisor.check()
            time.sleep(0.1)
        assert supervisor.restarts["dies"] >= 2
        assert supervisor.restarts["lives"] == 0
        assert supervisor.procs["lives"] is lives
        assert lives.poll() is None
        assert any(line.startswith("dies exited with 3") and "restarting it in 1s" in line for line in lines)
        assert any("restarting it in 2s" in line for line in lines), lines
        assert "dies restarted (restart 1)" in lines
    finally:
        supervisor.stop(timeout=5)
    assert lives.poll() is not None


def test_a_public_bind_answers_to_this_machines_names_never_to_any_host():
    hosts = run.own_hosts("0.0.0.0")
    assert "*" not in hosts
    assert {"127.0.0.1", "localhost", socket.gethostname()} <= set(hosts)
    assert "192.0.2.10" in run.own_hosts("192.0.2.10")


def test_demo_accounts_load_on_loopback_and_beyond_it_only_when_asked():
    assert run.demo_wanted("127.0.0.1", no_demo=False, demo=False)
    assert not run.demo_wanted("127.0.0.1", no_demo=True, demo=False)
    assert not run.demo_wanted("0.0.0.0", no_demo=False, demo=False)
    assert run.demo_wanted("0.0.0.0", no_demo=False, demo=True)


def _server_after(delay: float, port: int, tmp_path) -> subprocess.Popen[str]:
    """A web server that starts listening on ``port`` only ``delay`` seconds after it was started."""
    code = (
        "import http.server, time\n"
        f"time.sleep({delay})\n"
        f"http.server.HTTPServer(('127.0.0.1', {port}), http.server.SimpleHTTPRequestHandler).serve_forever()\n"
    )
    return subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, text=True)


def test_ready_is_said_only_once_the_page_answers(tmp_path):
    port = processes.free_port()
    url = f"http://127.0.0.1:{port}/"
    web = _server_after(0.5, port, tmp_path)
    try:
        assert run.answers(url) is None  # started, not listening yet
        start = time.monotonic()
        assert run.wait_until_answering(url, lambda: web, timeout=20) is None
        assert run.answers(url) == 200  # right after "ready", a request succeeds
        assert time.monotonic() - start >= 0.3
    finally:
        web.kill()
        web.wait()


def test_a_web_server_that_dies_or_stays_silent_is_reported_not_called_ready(tmp_path):
    url = f"http://127.0.0.1:{processes.free_port()}/"
    dead = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(3)"], text=True)
    assert "exited with 3" in run.wait_until_answering(url, lambda: dead, timeout=20)

    silent = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], text=True)
    try:
        problem = run.wait_until_answering(url, lambda: silent, timeout=0.5)
    finally:
        silent.kill()
        silent.wait()
    assert problem.startswith(f"{url} did not answer within")
    assert "nothing answered" in problem


LEADER_WITH_A_CHILD = """
import pathlib, signal, subprocess, sys, time
marks = pathlib.Path(sys.argv[1])
child = subprocess.Popen([sys.executable, "-c", '''
import pathlib, signal, sys, time
marks = pathlib.Path(sys.argv[1])
signal.signal(signal.SIGTERM, lambda *a: (marks.open("a").write("child got SIGTERM\\\\n"), sys.exit(0)))
marks.open("a").write("child up\\\\n")
time.sleep(60)
''', str(marks)])
def finish(*a):
    marks.open("a").write("leader got SIGTERM\\n")
    child.kill()  # the leader stops its own children, as Celery's worker stops its pool
    child.wait()
    sys.exit(0)
signal.signal(signal.SIGTERM, finish)
time.sleep(60)
"""


def test_stop_asks_each_component_to_stop_and_leaves_its_children_to_it(tmp_path):
    """Celery's worker finishes its pool's running tasks when *it* gets SIGTERM; a SIGTERM sent to the whole process
    group killed the pool's children mid-task (``WorkerLostError`` when a Ctrl-C came while a task ran)."""
    marks = tmp_path / "marks"
    leader = [sys.executable, "-c", LEADER_WITH_A_CHILD, str(marks)]
    supervisor = run.Supervisor({"leader": leader}, log=lambda *a: None)
    supervisor.start_all()
    deadline = time.monotonic() + 15
    while "child up" not in (marks.read_text() if marks.exists() else ""):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    supervisor.stop(timeout=10)
    assert marks.read_text().splitlines() == ["child up", "leader got SIGTERM"]
