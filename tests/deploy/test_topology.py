"""The shipped topology, tested: nginx (deploy/nginx/baccarat.conf) in front of two daphne and two gunicorn processes,
two Celery workers and two beats, each started as its systemd unit in deploy/systemd/ says, with deploy/env.example
as its environment (production: TLS at nginx, SECURE_PROXY_SSL_HEADER, ...). Only the per-machine values change:
loopback ports, this test's database, Redis, channel prefix and Celery queue, a self-signed certificate.

Players bet through nginx on a fast table (over their sockets and over REST), viewers watch through nginx; in the
middle of a round one daphne, one worker and one beat are killed (SIGKILL, never restarted). Every confirmed bet
settles exactly once, the wallets reconcile, rounds go on, every viewer keeps receiving (reconnecting through
nginx to the surviving daphne), and with two beats ticking at once no round step happened twice.

Clients through the same nginx are told apart by their own addresses (nginx's X-Forwarded-For, believed from
nginx only: TRUSTED_PROXIES): two clients on different loopback addresses (127.0.0.2, 127.0.0.3) are locked out
of sign-in separately and counted separately by the socket caps, and neither a client's own X-Forwarded-For sent
to nginx nor one sent straight to gunicorn lets it out of its lockout or puts another client in it.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import shutil
import ssl
import subprocess
import time
import uuid
from collections import Counter, defaultdict
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import websockets
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.hashers import Argon2PasswordHasher
from django.db.models import Sum
from django.test import Client
from rest_framework.authtoken.models import Token

from baccarat_site.accounts.models import SignIn
from baccarat_site.redis_client import redis_client
from tables.models import Bet, Round
from tables.selectors.bets import casino_reconciliation
from tests.deploy.topology import (
    Processes,
    nginx_command,
    nginx_main_conf,
    render_env_file,
    render_nginx_site,
    self_signed_certificate,
    unit_process,
)
from tests.processes import BIN, ROOT, free_port, process_env
from tests.tables.services.rounds_kit import fast_table, make_player, paid_twice
from wallets.models import Wallet
from wallets.selectors import house_balance

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SOCKET_PLAYERS, REST_PLAYERS, VIEWERS = 3, 3, 4
# Rounds every player bets on: the kill comes at the first card of the second, two more follow it.
ROUNDS, KILL_IN = 4, 2
STAKE = Decimal("10.00")
PASSWORD = "topology-pass-123"
SPOOFED = "203.0.113.7"  # what a client claims to be in X-Forwarded-For / X-Real-IP; nginx must overwrite it
RETRY_CODES = {"server_error", "throttled"}  # not an answer: the same key again (as bench/chaos.py)
ERRORS = (OSError, TimeoutError, websockets.WebSocketException)


class Topology:
    """Every process of the shipped topology, on loopback; addresses and helpers for the clients."""

    def __init__(self, tmp_path: Path, procs: Processes) -> None:
        self.tmp_path, self.procs = tmp_path, procs
        self.daphne_ports = {"daphne_a": free_port(), "daphne_b": free_port()}
        self.gunicorn_ports = {"gunicorn_a": free_port(), "gunicorn_b": free_port()}
        self.http_port, self.https_port = free_port(), free_port()
        self.static_root = tmp_path / "static"
        self.ssl = ssl.create_default_context()
        self.ssl.check_hostname = False
        self.ssl.verify_mode = ssl.CERT_NONE

    @property
    def origin(self) -> str:
        return f"https://127.0.0.1:{self.https_port}"

    def table_url(self, table_id: int) -> str:
        return f"wss://127.0.0.1:{self.https_port}/ws/tables/{table_id}/"

    def start(self, *, celery: bool = True) -> None:
        """Every process (``celery=False``: only nginx, daphne and gunicorn, for what needs no round to run)."""
        base = process_env(CELERY_QUEUE=self.procs.queue, TICK_SECONDS="0.2", LOG_LEVEL="INFO")
        env_file = render_env_file(
            self.tmp_path,
            DATABASE_URL=base["DATABASE_URL"],
            REDIS_URL=base["REDIS_URL"],
            SECRET_KEY=settings.SECRET_KEY,
            ALLOWED_HOSTS="127.0.0.1",
            # Empty: a socket's origin is then accepted only as the same scheme, host and port it was opened to,
            # which over nginx takes its X-Forwarded-Proto and its Host with the port (not a trusted-origin list).
            CSRF_TRUSTED_ORIGINS="",
            STATIC_ROOT=str(self.static_root),
            BIND_ADDRESS="127.0.0.1",
            # nginx reaches the upstreams from loopback's first address; the clients use others (127.0.0.2 …).
            TRUSTED_PROXIES="127.0.0.1",
            GUNICORN_WORKERS="2",
            WORKER_CONCURRENCY="2",
        )

        def unit(unit: str, **kwargs: Any) -> tuple[list[str], dict[str, str]]:
            return unit_process(unit, env_file=env_file, base_env=base, **kwargs)

        # collectstatic, as a release does, beside the processes' start
        _command, env = unit("baccarat-gunicorn@.service", instance="0")
        collect = subprocess.Popen(
            [str(BIN / "python"), "manage.py", "collectstatic", "--noinput", "-v0"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for name, port in self.daphne_ports.items():
            self.procs.start(name, *unit("baccarat-daphne@.service", instance=str(port)))
        for name, port in self.gunicorn_ports.items():
            self.procs.start(name, *unit("baccarat-gunicorn@.service", instance=str(port)))
        for name in ("worker_a", "worker_b") if celery else ():
            self.procs.start(name, *unit("baccarat-worker@.service", instance=f"{name}-{self.procs.queue}"))
        for name in ("beat_a", "beat_b") if celery else ():  # two machines' beats: each its own state directory
            state = self.tmp_path / f"state-{name}"
            (state / "baccarat").mkdir(parents=True)
            self.procs.start(name, *unit("baccarat-beat.service", state_dir=state))

        certificate, key = self_signed_certificate(self.tmp_path)
        site = render_nginx_site(
            self.tmp_path,
            daphne_ports=list(self.daphne_ports.values()),
            gunicorn_ports=list(self.gunicorn_ports.values()),
            http_port=self.http_port,
            https_port=self.https_port,
            certificate=certificate,
            key=key,
            static_root=self.static_root,
        )
        self.procs.start("nginx", nginx_command(NGINX, nginx_main_conf(self.tmp_path, site)), base)
        self.procs.wait_listening("nginx", self.https_port)
        for name, port in {**self.daphne_ports, **self.gunicorn_ports}.items():
            self.procs.wait_listening(name, port, timeout=90)
        output, _ = collect.communicate(timeout=120)
        assert collect.returncode == 0, output.decode(errors="replace")
        for name, line in (
            [
                ("worker_a", "ready."),
                ("worker_b", "ready."),
                ("beat_a", "Sending due task"),
                ("beat_b", "Sending due task"),
            ]
            if celery
            else []
        ):
            wait_until(lambda n=name, w=line: w in self.procs.log(n), 90, f"{name}: {line}", self.procs)

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        headers: dict[str, str] | None = None,
        port: int | None = None,
        tls: bool = True,
        source: str | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        """One HTTP request (HTTPS to nginx by default) from ``source`` (a loopback address; the system's
        choice, 127.0.0.1, by default); status, headers, body."""
        port = port or self.https_port
        bind = (source, 0) if source else None
        if tls:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                "127.0.0.1", port, timeout=15, context=self.ssl, source_address=bind
            )
        else:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=bind)
        try:
            data = json.dumps(body).encode() if body is not None else None
            sent = {"Content-Type": "application/json"} if data is not None else {}
            conn.request(method, path, body=data, headers={**sent, **(headers or {})})
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()


def wait_until(predicate, timeout: float, what: str, procs: Processes) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{procs.logs_text()}")
        time.sleep(0.1)


class Viewer:
    """An anonymous socket on the table through nginx, reconnecting like the page; every frame with its
    connection's number."""

    def __init__(self, topology: Topology, table_id: int, headers: dict[str, str] | None = None) -> None:
        self.topology, self.table_id, self.headers = topology, table_id, headers
        self.connections = 0
        self.frames: list[tuple[int, dict[str, Any]]] = []

    def connect(self) -> Any:
        return websockets.connect(
            self.topology.table_url(self.table_id),
            origin=self.topology.origin,
            ssl=self.topology.ssl,
            additional_headers=self.headers,
            open_timeout=10,
        )

    def on_frame(self, frame: dict[str, Any]) -> None:
        self.frames.append((self.connections, frame))

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                async with self.connect() as ws:
                    self.connections += 1
                    await self.connected(ws)
                    while not stop.is_set():
                        try:
                            self.on_frame(json.loads(await asyncio.wait_for(ws.recv(), 0.5)))
                        except TimeoutError:
                            continue
            except ERRORS:
                pass
            finally:
                await self.dropped()
            await asyncio.sleep(0.3)

    async def connected(self, ws: Any) -> None:
        pass

    async def dropped(self) -> None:
        pass

    def kinds(self, kind: str, round_id: int) -> list[dict[str, Any]]:
        return [f for _, f in self.frames if f["type"] == kind and f.get("round_id") == round_id]


class SocketPlayer(Viewer):
    """A signed-in socket (session cookie) that bets over it, sending the same key again until answered."""

    def __init__(self, topology: Topology, table_id: int, cookie: str) -> None:
        super().__init__(topology, table_id, {"Cookie": f"sessionid={cookie}"})
        self.ws: Any = None
        self.ready = asyncio.Event()
        self.answer: asyncio.Future[dict[str, Any]] | None = None

    async def connected(self, ws: Any) -> None:
        self.ws = ws
        self.ready.set()

    async def dropped(self) -> None:
        self.ws = None
        self.ready.clear()
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(ConnectionError("socket dropped"))

    def on_frame(self, frame: dict[str, Any]) -> None:
        super().on_frame(frame)
        if frame["type"] in {"bets.confirmed", "error"} and self.answer is not None and not self.answer.done():
            self.answer.set_result(frame)

    async def bet(self, round_id: int, bet: dict[str, str]) -> dict[str, Any]:
        frame = {"type": "place_bets", "round_id": round_id, "mode": "traditional", "bets": [bet]}
        frame["idempotency_key"] = str(uuid.uuid4())
        for _attempt in range(40):
            try:
                await asyncio.wait_for(self.ready.wait(), 10)
                self.answer = asyncio.get_running_loop().create_future()
                await self.ws.send(json.dumps(frame))
                answer = await asyncio.wait_for(self.answer, 10)
            except (*ERRORS, ConnectionError, AttributeError):
                await asyncio.sleep(0.3)
                continue
            if answer.get("code") not in RETRY_CODES:
                return answer
            await asyncio.sleep(0.3)
        raise AssertionError(f"no answer to {frame}")


class RestPlayer:
    """A player betting over REST through nginx (an API token), the same Idempotency-Key until answered."""

    def __init__(self, topology: Topology, token: str) -> None:
        self.topology, self.token = topology, token

    async def bet(self, round_id: int, bet: dict[str, str]) -> dict[str, Any]:
        headers = {"Authorization": f"Token {self.token}", "Idempotency-Key": str(uuid.uuid4())}
        body = {"mode": "traditional", "bets": [bet]}
        for _attempt in range(40):
            try:
                status, _, raw = await asyncio.to_thread(
                    self.topology.request, "POST", f"/api/rounds/{round_id}/bets/", body=body, headers=headers
                )
            except (OSError, http.client.HTTPException):
                await asyncio.sleep(0.3)
                continue
            answer = json.loads(raw) if raw.startswith(b"{") else {}
            if status >= 500 or answer.get("code") in RETRY_CODES:  # nginx's 502 while a daphne/gunicorn is gone
                await asyncio.sleep(0.3)
                continue
            return {"type": "bets.confirmed", **answer} if status == 201 else {"type": "error", **answer}
        raise AssertionError(f"no answer to a bet on {round_id}")


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def log_offsets(procs: Processes) -> dict[str, int]:
    return {name: len(procs.log(name)) for name in procs.logs}


def test_the_shipped_topology_survives_losing_a_daphne_a_worker_and_a_beat(tmp_path, settings):
    if not Path(NGINX).exists():
        pytest.fail(f"nginx not found at {NGINX}: apt-get install nginx (Debian's package)")
    # One key for the processes (SECRET_KEY in their env file) and this one, which signs the players' sessions.
    settings.SECRET_KEY = f"topology-test-{uuid.uuid4().hex}{uuid.uuid4().hex}"
    table = fast_table("Topology", betting_seconds=5, deal_interval_ms=150, result_seconds=1)
    socket_users = [make_player(f"ws{n}", "1000.00") for n in range(SOCKET_PLAYERS)]
    rest_users = [make_player(f"rest{n}", "1000.00") for n in range(REST_PLAYERS)]
    # The first signs in through nginx: a password hashed as production hashes it (the tests use a fast hasher).
    hasher = Argon2PasswordHasher()
    rest_users[0].password = hasher.encode(PASSWORD, hasher.salt())
    rest_users[0].save(update_fields=["password"])
    money_before = sum(Wallet.objects.filter(kind=Wallet.Kind.PLAYER).values_list("balance", flat=True))
    cookies = [session_cookie(user) for user in socket_users]

    with Processes(tmp_path, f"test-{uuid.uuid4().hex[:12]}") as procs:
        topology = Topology(tmp_path, procs)
        topology.start()

        # Sign-in through nginx: the address recorded is the connection's, not the one the client claims.
        status, _, raw = topology.request(
            "POST",
            "/api/auth/token/",
            body={"username": "rest0", "password": PASSWORD},
            headers={"X-Real-IP": SPOOFED, "X-Forwarded-For": SPOOFED},
        )
        assert status in {200, 201}, raw
        tokens = [json.loads(raw)["token"]] + [Token.objects.create(user=u).key for u in rest_users[1:]]
        check_http_edges(topology)

        async def scenario() -> dict[str, Any]:
            stop = asyncio.Event()
            viewers = [
                Viewer(topology, table.pk, {"X-Forwarded-For": SPOOFED, "X-Real-IP": SPOOFED} if n == 0 else None)
                for n in range(VIEWERS)
            ]
            socket_players = [SocketPlayer(topology, table.pk, cookie) for cookie in cookies]
            rest_players = [RestPlayer(topology, token) for token in tokens]
            tasks: list[asyncio.Future[None]] = []
            try:
                # One at a time: nginx's least_conn then alternates them over the two daphnes, so each holds
                # viewers (those on the killed one must reconnect; those on the other see every round whole).
                for client in (*viewers, *socket_players):
                    tasks.append(asyncio.ensure_future(client.run(stop)))
                    async with asyncio.timeout(30):
                        while not client.connections:
                            await asyncio.sleep(0.05)
                connects = {name: procs.log(name).count('"WSCONNECT ') for name in topology.daphne_ports}
                addresses = sorted(key.decode() for key in redis_client().keys("*:sockets:addr:*"))

                answers: dict[int, list[dict[str, Any]]] = {}
                kill_offsets: dict[str, int] = {}
                last_seen = 0
                while len(answers) < ROUNDS:
                    round_id = await next_opened(viewers, after=last_seen)
                    last_seen = round_id
                    players = [*socket_players, *rest_players]
                    bets = [
                        {"type": ("player", "banker")[n % 2], "amount": f"{STAKE + n:.2f}"} for n in range(len(players))
                    ]
                    answers[round_id] = await asyncio.gather(
                        *(player.bet(round_id, bet) for player, bet in zip(players, bets, strict=True))
                    )
                    # A definite no is an answer, not a lost bet: only "too late" (a slow machine) is expected.
                    codes = {a.get("code") for a in answers[round_id] if a["type"] != "bets.confirmed"}
                    assert codes <= {"betting_closed"}, answers[round_id]
                    if len(answers) == KILL_IN:
                        async with asyncio.timeout(30):  # mid-round: the first card is on the table
                            while not any(v.kinds("card.dealt", round_id) for v in viewers):
                                await asyncio.sleep(0.02)
                        kill_offsets = log_offsets(procs)
                        for name in ("daphne_a", "worker_a", "beat_a"):
                            procs.kill(name)
                last_round = max(answers)
                async with asyncio.timeout(60):  # every viewer sees the last round's result
                    while not all(v.kinds("round.result", last_round) for v in viewers):
                        await asyncio.sleep(0.1)
                async with asyncio.timeout(30):  # and every socket player its settlement
                    while not all(p.kinds("round.settled", last_round) for p in socket_players):
                        await asyncio.sleep(0.1)
            finally:
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)
            return {
                "answers": answers,
                "viewers": viewers,
                "socket_players": socket_players,
                "connects": connects,
                "addresses": addresses,
                "kill_offsets": kill_offsets,
            }

        try:
            outcome = asyncio.run(scenario())
        except BaseException:
            print(procs.logs_text())
            raise
        logs = {name: procs.log(name) for name in procs.logs}

    # The sockets were spread over both daphnes, and counted under the connection's address, not the claimed one.
    assert sorted(outcome["connects"].values()) == [3, 4], outcome["connects"]
    assert any(key.endswith(":sockets:addr:127.0.0.1") for key in outcome["addresses"]), outcome["addresses"]
    assert not any(SPOOFED in key for key in outcome["addresses"]), outcome["addresses"]
    signed_in = SignIn.objects.filter(method=SignIn.Method.API_TOKEN).values_list("ip_address", flat=True)
    assert [str(ip) for ip in signed_in] == ["127.0.0.1"]

    # Both beats and both workers were at work before the kill; the survivors went on alone.
    offsets = outcome["kill_offsets"]
    for name in ("beat_a", "beat_b"):
        assert "Sending due task" in logs[name][: offsets[name]], name
    assert "Sending due task" in logs["beat_b"][offsets["beat_b"] :]
    assert "succeeded" in logs["worker_b"][offsets["worker_b"] :]
    assert '"WSCONNECT ' in logs["daphne_b"][offsets["daphne_b"] :]

    check_bets_settled_once(outcome["answers"], money_before)
    check_rounds_intact(table.pk, outcome["answers"])
    check_viewers(outcome["viewers"], outcome["answers"])
    check_socket_players(outcome["socket_players"], outcome["answers"])


CLIENT_A, CLIENT_B, CLIENT_C = "127.0.0.2", "127.0.0.3", "127.0.0.4"  # three clients, one nginx


def test_two_clients_behind_the_real_nginx_are_locked_out_apart_and_a_spoofed_header_is_ignored(tmp_path, settings):
    """Five wrong passwords from client A lock A out, not B (nginx's X-Forwarded-For, believed from nginx only).
    A claiming B's address or any other in its own X-Forwarded-For (to nginx, or straight to gunicorn) stays
    locked out; C claiming A's is not locked out by A. Sockets through nginx count under each client's own
    address, not nginx's nor a claimed one."""
    if not Path(NGINX).exists():
        pytest.fail(f"nginx not found at {NGINX}: apt-get install nginx (Debian's package)")
    settings.SECRET_KEY = f"topology-test-{uuid.uuid4().hex}{uuid.uuid4().hex}"
    table = fast_table("Addresses", betting_seconds=5, deal_interval_ms=150, result_seconds=1)
    vera = make_player("vera", "1000.00")
    hasher = Argon2PasswordHasher()
    vera.password = hasher.encode(PASSWORD, hasher.salt())
    vera.save(update_fields=["password"])

    with Processes(tmp_path, f"test-{uuid.uuid4().hex[:12]}") as procs:
        topology = Topology(tmp_path, procs)
        topology.start(celery=False)

        def sign_in(source: str, password: str, claims: str | None = None, port: int | None = None) -> int:
            headers = {"X-Forwarded-For": claims, "X-Real-IP": claims} if claims else {}
            if port is not None:  # straight to gunicorn: as nginx would mark it, so it is not redirected
                headers["X-Forwarded-Proto"] = "https"
            status, _, raw = topology.request(
                "POST",
                "/api/auth/token/",
                body={"username": "vera", "password": password},
                headers=headers,
                source=source,
                port=port,
                tls=port is None,
            )
            assert status in {200, 400, 429}, (status, raw)
            return status

        try:
            # A guesses five times, each time claiming another address: locked out at the fifth.
            statuses = [sign_in(CLIENT_A, "guess", claims=f"198.51.100.{n}") for n in range(5)]
            assert statuses == [400, 400, 400, 400, 429], statuses
            assert sign_in(CLIENT_A, PASSWORD) == 429
            # B, through the same nginx, is not locked out by A.
            assert sign_in(CLIENT_B, PASSWORD) == 200
            # A claiming to be B, to nginx and straight to gunicorn, is still A.
            assert sign_in(CLIENT_A, PASSWORD, claims=CLIENT_B) == 429
            gunicorn = next(iter(topology.gunicorn_ports.values()))
            assert sign_in(CLIENT_A, PASSWORD, claims=CLIENT_B, port=gunicorn) == 429
            # C claiming to be A is not put in A's lockout.
            assert sign_in(CLIENT_C, PASSWORD, claims=CLIENT_A) == 200

            def socket_counts() -> Counter[str]:
                keys = redis_client().keys("*:sockets:addr:*")
                return Counter({key.decode().rsplit(":", 1)[1]: redis_client().zcard(key) for key in keys})

            async def sockets() -> Counter[str]:
                """What the three sockets added to each address's count (an earlier test's may be expiring)."""
                before = socket_counts()
                opened = []
                try:
                    for source, claims in ((CLIENT_A, CLIENT_B), (CLIENT_B, None), (CLIENT_B, SPOOFED)):
                        ws = await websockets.connect(
                            topology.table_url(table.pk),
                            origin=topology.origin,
                            ssl=topology.ssl,
                            additional_headers={"X-Forwarded-For": claims, "X-Real-IP": claims} if claims else None,
                            open_timeout=10,
                            local_addr=(source, 0),
                        )
                        opened.append(ws)
                        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "snapshot"
                    return socket_counts() - before
                finally:
                    for ws in opened:
                        await ws.close()

            counted = asyncio.run(sockets())
        except BaseException:
            print(procs.logs_text())
            raise

    # The lockout counted A alone; the sign-ins were recorded under B's and C's own addresses.
    attempts = list(AccessAttempt.objects.values_list("ip_address", "failures_since_start"))
    assert [ip for ip, _ in attempts] == [CLIENT_A], attempts
    assert attempts[0][1] >= 5, attempts
    recorded = sorted(str(ip) for ip in SignIn.objects.filter(user=vera).values_list("ip_address", flat=True))
    assert recorded == [CLIENT_B, CLIENT_C]
    # The socket caps: A's one socket and B's two under their own addresses, none under nginx's or a claimed one.
    assert counted == Counter({CLIENT_A: 1, CLIENT_B: 2}), counted


async def next_opened(viewers: list[Viewer], *, after: int) -> int:
    """The next round a viewer sees open (newer than ``after``) with time left to bet: on a busy machine a frame
    can come late, and a round announced a second before it closes is skipped."""
    async with asyncio.timeout(60):
        while True:
            opened = [f for v in viewers for _, f in v.frames if f["type"] == "round.opened" and f["round_id"] > after]
            if opened:
                frame = min(opened, key=lambda f: f["round_id"])
                left = datetime.fromisoformat(frame["closes_at"]) - datetime.now(UTC)
                if left.total_seconds() > 2:
                    return frame["round_id"]
                after = frame["round_id"]
            await asyncio.sleep(0.02)


def check_http_edges(topology: Topology) -> None:
    """Plain HTTP is redirected to HTTPS; gunicorn itself, asked without nginx's X-Forwarded-Proto, redirects too
    (so the 2xx answers through nginx are its doing); /static/ comes from the collected files, read by nginx."""
    status, headers, _ = topology.request("GET", "/api/tables/", port=topology.http_port, tls=False)
    assert (status, headers["location"].split(":")[0]) == (301, "https")
    gunicorn = next(iter(topology.gunicorn_ports.values()))
    status, headers, _ = topology.request("GET", "/api/tables/", port=gunicorn, tls=False)
    assert (status, headers["location"].split(":")[0]) == (301, "https"), headers
    assert topology.request("GET", "/api/tables/")[0] == 200

    shipped = next(path for path in sorted((ROOT / "static" / "casino").rglob("*.js")))
    relative = shipped.relative_to(ROOT / "static")
    status, _, body = topology.request("GET", f"/static/{relative}")
    assert (status, body) == (200, shipped.read_bytes())
    # Written after every process started: only a server reading the directory as it is now can serve it.
    (topology.static_root / "topology-probe.txt").write_text("served by nginx\n")
    status, headers, body = topology.request("GET", "/static/topology-probe.txt")
    assert (status, body) == (200, b"served by nginx\n"), (status, body)
    assert headers.get("cache-control") == "max-age=60"


def check_bets_settled_once(answers: dict[int, list[dict[str, Any]]], money_before: Decimal) -> None:
    confirmed = [bet["id"] for batch in answers.values() for answer in batch for bet in answer.get("bets", [])]
    assert len(confirmed) == len(set(confirmed))
    for round_id, batch in answers.items():  # every round was played with bets, before the kill and after it
        assert any(answer["type"] == "bets.confirmed" for answer in batch), (round_id, batch)
    statuses = dict(Bet.objects.filter(pk__in=confirmed).values_list("pk", "outcome__status"))
    assert set(statuses) == set(confirmed), "a confirmed bet is missing"
    assert set(statuses.values()) <= {"won", "lost", "push"}, Counter(statuses.values())
    assert paid_twice() == []
    report = casino_reconciliation()
    assert report.ok, report.problems
    players = Wallet.objects.filter(kind=Wallet.Kind.PLAYER).aggregate(total=Sum("balance"))["total"]
    assert players + house_balance() == 0
    bets = list(Bet.objects.filter(pk__in=confirmed))
    staked, paid = sum(bet.amount for bet in bets), sum(bet.payout for bet in bets)
    assert players == money_before - staked + paid


def check_rounds_intact(table_id: int, answers: dict[int, list[dict[str, Any]]]) -> None:
    """Every round of the run, in order, each step once: numbers without a gap in each shoe, timestamps in order."""
    rounds = list(Round.objects.filter(table_id=table_id).order_by("pk"))
    by_shoe: dict[int, list[int]] = defaultdict(list)
    for round_ in rounds:
        by_shoe[round_.shoe_id].append(round_.number)
    for numbers in by_shoe.values():
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers
    settled = [r for r in rounds if r.pk <= max(answers)]
    assert all(r.state == Round.State.SETTLED for r in settled), [(r.pk, r.state) for r in settled]
    for r in settled:
        assert r.opens_at <= r.closes_at <= r.closed_at <= r.dealing_started_at <= r.result_at <= r.settled_at, r.pk


def check_viewers(viewers: list[Viewer], answers: dict[int, list[dict[str, Any]]]) -> None:
    """Every viewer saw every round after the kill through; some reconnected to the survivor; on no connection
    was a step seen twice, and a round seen whole is opened, closed, every card once, the result."""
    rounds = {r.pk: r for r in Round.objects.filter(pk__in=answers)}
    assert sum(v.connections >= 2 for v in viewers) >= 2, [v.connections for v in viewers]  # half were on it
    whole: set[int] = set()
    for viewer in viewers:
        connections: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for number, frame in viewer.frames:
            connections[number].append(frame)
        for frames in connections.values():
            assert frames[0]["type"] == "snapshot"
            events = [f for f in frames if "seq" in f and f["type"] != "snapshot"]
            assert {f["epoch"] for f in events} <= {frames[0]["epoch"]}
            # Each event once, after the snapshot. The round's steps come from one runner at a time (the advisory
            # lock), so in order; bets.totals is flushed by any worker's sweep and may overtake one (clients order
            # by seq, docs/api.md).
            seqs = [f["seq"] for f in events]
            assert len(seqs) == len(set(seqs)), [(f["seq"], f["type"]) for f in events]
            assert all(s > frames[0]["seq"] for s in seqs), (frames[0]["seq"], seqs)
            steps = [f["seq"] for f in events if f["type"] != "bets.totals"]
            assert steps == sorted(steps), [(f["seq"], f["type"]) for f in events]
            for round_id, round_ in rounds.items():
                steps = [
                    f["type"] if f["type"] != "card.dealt" else f"card {f['position']} {f['card']}"
                    for f in events
                    if f.get("round_id") == round_id and f["type"] != "bets.totals"
                ]
                assert len(steps) == len(set(steps)), (round_id, steps)
                expected = [
                    "round.opened",
                    "round.closed",
                    *(f"card {n} {c['card']}" for n, c in enumerate(round_.cards, 1)),
                    "round.result",
                ]
                if steps and steps[0] == "round.opened" and steps[-1] == "round.result":
                    assert steps == expected, (round_id, steps, expected)
                    whole.add(round_id)
    assert whole == set(answers), (sorted(whole), sorted(answers))
    after_kill = [rid for rid in sorted(answers) if rid > sorted(answers)[KILL_IN - 1]]
    for viewer in viewers:
        for round_id in after_kill:
            assert viewer.kinds("round.result", round_id), (viewer.connections, round_id)


def check_socket_players(players: list[SocketPlayer], answers: dict[int, list[dict[str, Any]]]) -> None:
    """Each socket player's settlement of a round came at most once per connection, with the bets it confirmed."""
    for index, player in enumerate(players):
        for round_id, batch in answers.items():
            settled = [
                (number, f) for number, f in player.frames if f["type"] == "round.settled" and f["round_id"] == round_id
            ]
            assert all(n == 1 for n in Counter(number for number, _ in settled).values()), (round_id, settled)
            for _, frame in settled:
                assert [b["id"] for b in frame["bets"]] == [b["id"] for b in batch[index].get("bets", [])]
