"""`make run`: one command from a fresh clone to a playing casino.

Starts the embedded PostgreSQL and Redis when no URLs are set, migrates, loads
the demo data, then runs daphne, a Celery worker and Celery beat with prefixed
logs, and says the casino is ready only once its page answers (if the web server
dies or stays silent first, it says so and stops). A component that dies is restarted (with a growing pause if it keeps
dying) and the log says so; the others keep running. Ctrl-C (SIGINT) or SIGTERM
stops every process it started, including the embedded servers if this command
started them.

Bound to anything but loopback (``HOST=0.0.0.0``), it answers only to this
machine's own names and addresses (not ``ALLOWED_HOSTS=*``), and loads no demo
accounts with their published passwords unless ``--demo`` asks for them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from baccarat_site import daphne_server, embedded

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
COLOURS = {"web": "\033[36m", "worker": "\033[33m", "beat": "\033[35m", "run": "\033[32m"}
RESET = "\033[0m"


def say(prefix: str, line: str) -> None:
    colour = COLOURS.get(prefix, "") if sys.stdout.isatty() else ""
    end = RESET if colour else ""
    sys.stdout.write(f"{colour}[{prefix:>6}]{end} {line}\n")
    sys.stdout.flush()


def _pump(prefix: str, proc: subprocess.Popen[str], seen: Callable[[str], None] = lambda line: None) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        say(prefix, line.rstrip("\n"))
        seen(line)


#: How each Celery component says it has started (its INFO line): the worker once it consumes, beat once it schedules.
STARTED_LINES: dict[str, Callable[[str], bool]] = {
    "worker": lambda line: line.rstrip().endswith(" ready."),
    "beat": lambda line: "beat: Starting..." in line,
}


def ensure_services() -> list[str]:
    """Start the embedded servers where no URL is configured (development, which ``make run`` is); return
    which ones this call started. Their URLs go into the environment every component inherits."""

    return embedded.ensure_services()


LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def is_loopback(host: str) -> bool:
    return host in LOOPBACK


def own_hosts(bind: str) -> list[str]:
    """What a browser may call this machine when the casino listens on ``bind``: loopback, the host name,
    its fully qualified name and its addresses (never ``*``)."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    hostname = socket.gethostname()
    names += [hostname, socket.getfqdn()]
    with contextlib.suppress(OSError):  # a host name that does not resolve: loopback and the name still work
        names += socket.gethostbyname_ex(hostname)[2]
    if bind not in {"0.0.0.0", "::"}:  # noqa: S104 - compared, not bound
        names.append(f"[{bind}]" if ":" in bind else bind)
    return list(dict.fromkeys(n for n in names if n))


def demo_wanted(host: str, *, no_demo: bool, demo: bool) -> bool:
    """Load the demo data (with accounts whose passwords the README publishes)? Never beyond loopback unless
    asked for with ``--demo``."""
    return not no_demo and (is_loopback(host) or demo)


class Supervisor:
    """Keeps named commands running: a command that exits is started again after a pause that doubles
    (1 s, 2 s, 4 s … up to ``max_pause``) while it keeps dying within a minute of its start."""

    def __init__(
        self,
        commands: dict[str, list[str]],
        *,
        max_pause: float = 30.0,
        log: Callable[[str, str], None] = say,
        started_lines: dict[str, Callable[[str], bool]] | None = None,
        env: dict[str, dict[str, str]] | None = None,
    ) -> None:
        self.commands = commands
        self.max_pause = max_pause
        self.log = log
        self.started_lines = started_lines or {}
        self.env = env or {}
        #: Set once a component has printed its started line (``started_lines``); reset when it is restarted.
        self.started: dict[str, threading.Event] = {name: threading.Event() for name in commands}
        self.last_line_at = time.monotonic()
        self.procs: dict[str, subprocess.Popen[str]] = {}
        self.started_at: dict[str, float] = {}
        self.pause: dict[str, float] = {}
        self.due: dict[str, float] = {}
        self.restarts: dict[str, int] = dict.fromkeys(commands, 0)

    def start(self, name: str) -> None:
        self.started[name].clear()
        proc = subprocess.Popen(
            self.commands[name],
            cwd=ROOT,
            env={**os.environ, **self.env[name]} if name in self.env else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.procs[name] = proc
        self.started_at[name] = time.monotonic()

        def seen(line: str) -> None:
            self.last_line_at = time.monotonic()
            if self.started_lines.get(name, lambda line: False)(line):
                self.started[name].set()

        threading.Thread(target=_pump, args=(name, proc, seen), daemon=True).start()

    def start_all(self) -> None:
        for name in self.commands:
            self.start(name)

    def check(self) -> None:
        """Notice components that exited and restart those whose pause is over."""
        now = time.monotonic()
        for name, proc in self.procs.items():
            if proc.poll() is not None and name not in self.due:
                ran = now - self.started_at[name]
                pause = 1.0 if ran > 60 else min(self.max_pause, self.pause.get(name, 0.5) * 2)
                self.pause[name] = pause
                self.due[name] = now + pause
                self.log("run", f"{name} exited with {proc.returncode} after {ran:.1f}s; restarting it in {pause:.0f}s")
        for name, when in list(self.due.items()):
            if now >= when:
                del self.due[name]
                self.restarts[name] += 1
                self.start(name)
                self.log("run", f"{name} restarted (restart {self.restarts[name]})")

    def wait_started(self, names: list[str], *, timeout: float, stopping: threading.Event) -> list[str]:
        """Wait until each of ``names`` has printed its started line (restarting any that die meanwhile), then until
        every component has been silent for half a second (at most 3 s more), so that the lines a start prints come
        before whatever is said next. Returns the components that did not say they had started within ``timeout``."""
        deadline = time.monotonic() + timeout
        while not stopping.is_set() and time.monotonic() < deadline:
            if all(self.started[name].is_set() for name in names):
                break
            self.check()
            stopping.wait(0.1)
        quiet_by = time.monotonic() + 3.0
        while not stopping.is_set() and time.monotonic() < quiet_by and time.monotonic() - self.last_line_at < 0.5:
            stopping.wait(0.1)
        return [name for name in names if not self.started[name].is_set()]

    def stop(self, timeout: float = 10) -> None:
        """Ask each component to stop, then kill what is left of it after ``timeout``.

        The polite SIGTERM goes to the component's own process only: Celery's worker then finishes the tasks its pool
        is running (a warm shutdown). Sent to the whole group, it killed the pool's children mid-task as well
        (``WorkerLostError``). The SIGKILL after the timeout goes to the group, so that nothing is left behind."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in self.procs.values():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


#: How long the web server may take to answer its first request before ``make run`` gives up.
READY_TIMEOUT_SECONDS = 60.0


def answers(url: str, timeout: float = 2.0) -> int | None:
    """The HTTP status ``url`` answers with, or None when nothing answers (refused, reset, timed out)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - our own http:// URL
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)
    except (OSError, ValueError):  # URLError, refused, reset, timeout; a half-written status line
        return None


def wait_until_answering(
    url: str,
    web: Callable[[], subprocess.Popen[str]],
    *,
    timeout: float = READY_TIMEOUT_SECONDS,
    stopping: threading.Event | None = None,
) -> str | None:
    """Poll ``url`` until a GET of it gets an HTTP answer (any status below 500). Returns None then; otherwise why
    not: the web process (``web()``, the current one) exited first, the deadline passed, or a stop was asked for."""
    deadline = time.monotonic() + timeout
    status = None
    while True:
        proc = web()
        if proc.poll() is not None:
            return f"the web server exited with {proc.returncode} before {url} answered"
        status = answers(url)
        if status is not None and status < 500:
            return None
        if stopping is not None and stopping.is_set():
            return "stopped before the casino was ready"
        if time.monotonic() >= deadline:
            last = f"its last answer was HTTP {status}" if status is not None else "nothing answered"
            return f"{url} did not answer within {timeout:.0f}s ({last})"
        if stopping is not None:
            stopping.wait(0.2)
        else:
            time.sleep(0.2)


def verbose_logs() -> bool:
    """LOG_LEVEL=DEBUG or LOG_TICKS=1: Celery's banners and a line per tick, as Celery prints them by default."""
    ticks = os.environ.get("LOG_TICKS", "").strip().lower() in {"1", "true", "yes", "on"}
    return ticks or os.environ.get("LOG_LEVEL", "").strip().upper() == "DEBUG"


#: Celery's warning to a worker started as root (a container, a CI box), by the start of its message.
ROOT_WARNING = "You're running the worker with superuser privileges"


#: The worker keeps its database connection between tasks (unless the environment says otherwise): Celery's Django
#: fixup closes it after every task when ``CONN_MAX_AGE`` is 0, and a new PostgreSQL session per task doubled each
#: advance's time (bench/RESULTS.md, tables_per_worker). deploy/'s worker unit sets the same.
WORKER_CONN_MAX_AGE = "600"


def worker_env() -> dict[str, str]:
    """The worker's environment: persistent database connections (``WORKER_CONN_MAX_AGE``), and as root, without
    Celery's warning against root. That warning is about a worker that accepts pickle (it would run code from anyone
    who can write to the broker, as root); this one accepts JSON only (settings.CELERY_ACCEPT_CONTENT), and `make
    run` is development, its Redis on loopback or a socket under var/. A production worker runs as its own user
    (docs/deployment.md), where Celery still warns."""
    env = {"DB_CONN_MAX_AGE": os.environ.get("DB_CONN_MAX_AGE", WORKER_CONN_MAX_AGE)}
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return env
    earlier = os.environ.get("PYTHONWARNINGS", "")
    return env | {"PYTHONWARNINGS": ",".join(filter(None, [earlier, f"ignore:{ROOT_WARNING}"]))}


def manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--no-demo", action="store_true", help="skip loading the demo data")
    parser.add_argument(
        "--demo", action="store_true", help="load the demo accounts even when listening beyond this machine"
    )
    args = parser.parse_args(argv)

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
    os.environ.setdefault("BACCARAT_DEV", "1")  # the embedded servers and a development key: this is development
    public = not is_loopback(args.host)
    if public and "ALLOWED_HOSTS" not in os.environ:
        os.environ["ALLOWED_HOSTS"] = ",".join(own_hosts(args.host))
        say(
            "run", f"listening on {args.host}: answering to {os.environ['ALLOWED_HOSTS']} (set ALLOWED_HOSTS to change)"
        )
    load_demo = demo_wanted(args.host, no_demo=args.no_demo, demo=args.demo)
    t0 = time.monotonic()
    started = ensure_services()
    say("run", f"database and redis ready ({'started ' + ', '.join(started) if started else 'already running'})")
    manage("migrate", "--noinput", "-v", "0")
    if load_demo:
        manage("load_demo")
    elif public and not args.no_demo:
        say("run", "no demo accounts on a public address (their passwords are published): add --demo to load them")

    var = ROOT / "var"
    var.mkdir(exist_ok=True)
    # Quiet by default: each component's start and every warning, not Celery's banners or a line per tick
    # (settings.LOG_TICKS, baccarat_site.celery); LOG_LEVEL=DEBUG or LOG_TICKS=1 shows everything.
    verbose = verbose_logs()
    level = "debug" if os.environ.get("LOG_LEVEL", "").strip().upper() == "DEBUG" else "info"
    celery = [str(BIN / "celery"), "-A", "baccarat_site", *([] if verbose else ["--quiet"])]
    commands = {
        "web": daphne_server.command(args.host, args.port, python=BIN / "python"),
        "worker": [
            *celery,
            "worker",
            "-l",
            level,
            "--concurrency",
            "2",
            "-n",
            f"worker-{args.port}@%h",
        ],
        "beat": [
            *celery,
            "beat",
            "-l",
            level,
            "-s",
            str(var / f"celerybeat-schedule-{args.port}"),
        ],
    }
    supervisor = Supervisor(commands, started_lines=STARTED_LINES, env={"worker": worker_env()})
    stopping = threading.Event()

    def _stop(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    supervisor.start_all()

    host = "127.0.0.1" if args.host in {"0.0.0.0", "::"} else args.host  # noqa: S104 - shown, not bound
    url = f"http://{f'[{host}]' if ':' in host else host}:{args.port}/"
    # "Ready" means the page answers, not that the processes were started: daphne takes seconds to listen.
    problem = wait_until_answering(url, lambda: supervisor.procs["web"], stopping=stopping)
    if problem is None:
        # The worker and beat log their start too; "ready" and the logins come after them, as the last lines.
        for name in supervisor.wait_started(["worker", "beat"], timeout=READY_TIMEOUT_SECONDS, stopping=stopping):
            say("run", f"{name} has not said it started within {READY_TIMEOUT_SECONDS:.0f}s (its lines above say why)")
    if problem is None and not stopping.is_set():
        say("run", f"casino ready in {time.monotonic() - t0:.1f}s at {url}")
        if load_demo:
            say("run", "players: demo1 / demo2 / demo3, password demo-pass-123")
            say("run", "staff at /admin/: operator, cashier, supervisor, auditor, password <name>-pass-123")
        say("run", "Ctrl-C stops everything")
        while not stopping.is_set():
            supervisor.check()
            stopping.wait(0.5)
    elif not stopping.is_set():
        say("run", f"not ready: {problem}; stopping (the [web] lines above say why)")

    say("run", "stopping…")
    supervisor.stop()
    if started:
        embedded.stop(only=started)
        say("run", f"stopped embedded {', '.join(started)}")
    say("run", "bye")
    return 1 if problem is not None and not stopping.is_set() else 0


if __name__ == "__main__":
    sys.exit(main())
