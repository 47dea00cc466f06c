"""`make run`: one command from a fresh clone to a playing casino.

Starts the embedded PostgreSQL and Redis when no URLs are set, migrates, loads
the demo data, then runs daphne, a Celery worker and Celery beat with prefixed
logs. Ctrl-C (SIGINT) or SIGTERM stops every process it started, including the
embedded servers if this command started them.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
COLOURS = {"web": "\033[36m", "worker": "\033[33m", "beat": "\033[35m", "run": "\033[32m"}
RESET = "\033[0m"


def say(prefix: str, line: str) -> None:
    colour = COLOURS.get(prefix, "") if sys.stdout.isatty() else ""
    end = RESET if colour else ""
    sys.stdout.write(f"{colour}[{prefix:>6}]{end} {line}\n")
    sys.stdout.flush()


def _pump(prefix: str, proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        say(prefix, line.rstrip("\n"))


def ensure_services() -> list[str]:
    """Start the embedded servers where no URL is configured; return which ones this call started."""
    from baccarat_site import embedded

    started = []
    if not os.environ.get("DATABASE_URL"):
        if not embedded.postgres_running():
            started.append("postgres")
        os.environ["DATABASE_URL"] = embedded.ensure_postgres()
    if not os.environ.get("REDIS_URL"):
        if not embedded.redis_running():
            started.append("redis")
        os.environ["REDIS_URL"] = embedded.ensure_redis()
    return started


def manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--no-demo", action="store_true", help="skip loading the demo data")
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
    if args.host not in {"127.0.0.1", "localhost"} and "ALLOWED_HOSTS" not in os.environ:
        os.environ["ALLOWED_HOSTS"] = "*"
    t0 = time.monotonic()
    started = ensure_services()
    say("run", f"database and redis ready ({'started ' + ', '.join(started) if started else 'already running'})")
    manage("migrate", "--noinput", "-v", "0")
    if not args.no_demo:
        manage("load_demo")

    var = ROOT / "var"
    var.mkdir(exist_ok=True)
    commands = {
        "web": [str(BIN / "daphne"), "-b", args.host, "-p", str(args.port), "baccarat_site.asgi:application"],
        "worker": [
            str(BIN / "celery"),
            "-A",
            "baccarat_site",
            "worker",
            "-l",
            "info",
            "--concurrency",
            "2",
            "-n",
            f"worker-{args.port}@%h",
        ],
        "beat": [
            str(BIN / "celery"),
            "-A",
            "baccarat_site",
            "beat",
            "-l",
            "info",
            "-s",
            str(var / f"celerybeat-schedule-{args.port}"),
        ],
    }
    procs: dict[str, subprocess.Popen[str]] = {}
    for name, command in commands.items():
        proc = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )
        procs[name] = proc
        threading.Thread(target=_pump, args=(name, proc), daemon=True).start()

    host = "127.0.0.1" if args.host in {"0.0.0.0", "::"} else args.host  # noqa: S104 - shown, not bound
    say("run", f"casino ready in {time.monotonic() - t0:.1f}s at http://{host}:{args.port}/")
    say(
        "run",
        "players: demo1 / demo2 / demo3, password demo-pass-123 · operator: operator / operator-pass-123 (/admin/)",
    )
    say("run", "Ctrl-C stops everything")

    stopping = threading.Event()

    def _stop(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    exit_code = 0
    while not stopping.is_set():
        for name, proc in procs.items():
            if proc.poll() is not None:
                say("run", f"{name} exited with {proc.returncode}; stopping the rest")
                exit_code = proc.returncode or 1
                stopping.set()
        stopping.wait(0.5)

    say("run", "stopping…")
    for proc in procs.values():
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    for proc in procs.values():
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if started:
        from baccarat_site import embedded

        embedded.stop(only=started)
        say("run", f"stopped embedded {', '.join(started)}")
    say("run", "bye")
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
