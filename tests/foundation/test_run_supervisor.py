"""`make run` beyond the happy path: a dying component is restarted and the log says so; a public bind
answers only to this machine's names and loads no demo accounts unless asked."""

from __future__ import annotations

import socket
import sys
import time

from baccarat_site import run


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
