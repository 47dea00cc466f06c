"""Events to browsers, through the Channels layer, sent after the transaction that made them commits.

An event is a dict whose ``type`` is the docs/api.md frame type (``round.opened`` …). Where it goes:

- a table's events (``table_event``) to ``table_<id>``, each stamped with ``server_time`` and the table's next
  ``epoch`` / ``seq`` (``tables.sequence``); the consumers' ``tables.hub.TableHub`` writes them to its sockets;
- the table chat (``table_chat_event``: ``chat.message``, ``chat.deleted``) to the same group, with no ``seq``:
  it is not part of the round's state;
- a small ``lobby.table`` note to the ``lobby`` group for the table events a lobby tile shows (tables/lobby.py);
- personal events to ``user_<id>``: ``round.settled``, many at once (``user_events_send``: only to groups with
  a socket in them), and ``wallet.changed`` after a confirm (``wallet_changed``).

Synchronous code (services, Celery) sends on one long-lived event loop per process (``run_async``, shared with the
accounts in ``baccarat_site.events``), so the layer's Redis connections are made once. ``bets.totals`` is throttled
per round: the first change after a quiet period is broadcast at once (leading edge; under WSGI right after the
confirm's response, ``baccarat_site.after_response``), later ones within ``TOTALS_INTERVAL_MS`` only mark the round
dirty, and the tick (``tables.tasks.tables_sweep``) flushes dirty rounds (trailing edge). So a table sees at most a
few totals a second and the last change is never lost.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from baccarat_site import events as shared
from baccarat_site.after_response import after_response
from baccarat_site.events import run_async, stamped, user_group
from baccarat_site.redis_client import redis_client
from tables.selectors.tables import round_bet_totals
from tables.sequence import seq_next

logger = logging.getLogger(__name__)

TOTALS_INTERVAL_MS = 250
DIRTY_TTL_SECONDS = 3600


TABLE_GROUP_PREFIX = "table_"


def table_group(table_id: int) -> str:
    return f"{TABLE_GROUP_PREFIX}{table_id}"


# ── sending from synchronous code (the loop and the stamp: baccarat_site.events) ──


def send_now(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` (a dict with ``type``) to ``group`` immediately, stamped with ``server_time``; a table's
    events also take the table's next ``seq`` (tables.sequence)."""
    if not group.startswith(TABLE_GROUP_PREFIX):
        shared.send_now(group, event)
        return
    layer = get_channel_layer()
    if layer is not None:
        event = stamped(event)
        event["epoch"], event["seq"] = seq_next(int(group.removeprefix(TABLE_GROUP_PREFIX)))
        run_async(layer.group_send(group, event))


def send_on_commit(group: str, event: dict[str, Any]) -> None:
    """Send ``event`` to ``group`` once the surrounding transaction commits (at once outside one).

    Best effort: the state is committed whatever happens to its announcement, so a failed send is
    logged and never turns into a fault of the step that committed (browsers resync from the next
    snapshot).
    """
    transaction.on_commit(lambda: send_now(group, event), robust=True)


def table_event(table_id: int, event: dict[str, Any]) -> None:
    send_on_commit(table_group(table_id), event)
    if _lobby_worthy(event):
        send_on_commit(LOBBY_GROUP, {"type": "lobby.table", "table_id": table_id, "event": event["type"]})


def table_chat_event(table_id: int, event: dict[str, Any]) -> None:
    """A chat frame (``chat.message``, ``chat.deleted``) to the table after commit. Chat takes no ``seq``: it is
    not part of the round's state, a snapshot does not contain it, and a browser applies it whenever it comes."""
    transaction.on_commit(lambda: _chat_send_now(table_id, event), robust=True)


def _chat_send_now(table_id: int, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        run_async(layer.group_send(table_group(table_id), stamped(event)))


# ── the lobby (tables/lobby.py, docs/lobby.md) ──────────────────────────────

#: The lobby's group: one tiny message per table event that changes a lobby tile (not every card, not totals).
LOBBY_GROUP = "lobby"
LOBBY_EVENTS = frozenset(
    {
        "round.opened",
        "round.closed",
        "round.result",
        "round.cancelled",
        "table.paused",
        "table.resumed",
        "table.closing",
        "table.closed",
        "table.reopened",
        "table.retired",
        "shoe.shuffled",
    }
)


def _lobby_worthy(event: dict[str, Any]) -> bool:
    """A table event the lobby shows: the round's steps, pauses, a new shoe; of the cards only the first
    (the round is being dealt)."""
    kind = event.get("type")
    return kind in LOBBY_EVENTS or (kind == "card.dealt" and event.get("position") == 1)


def user_events_send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send many personal events (``(user group, event)``) now, concurrently on this process's sender loop:
    a settlement's thousands must not take seconds. Only groups with a socket in them are sent to (one
    Redis pipeline per shard asks), since most players of a big round are not watching."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def listening(batch: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
        if not all(hasattr(layer, name) for name in ("_group_key", "connection", "consistent_hash")):
            return batch
        shards: dict[int, list[int]] = {}
        for index, (group, _event) in enumerate(batch):
            shards.setdefault(layer.consistent_hash(group), []).append(index)
        keep: set[int] = set()
        for shard, indexes in shards.items():
            pipe = layer.connection(shard).pipeline(transaction=False)
            for index in indexes:
                pipe.zcard(layer._group_key(batch[index][0]))
            counts = await pipe.execute()
            keep.update(index for index, count in zip(indexes, counts, strict=True) if count)
        return [batch[index] for index in sorted(keep)]

    async def send_all() -> None:
        targets = await listening(messages)
        limit = asyncio.Semaphore(64)

        async def send(group: str, event: dict[str, Any]) -> None:
            async with limit:
                await layer.group_send(group, event)

        results = await asyncio.gather(*(send(g, stamped(e)) for g, e in targets), return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        if failures:
            logger.warning("%d of %d personal events not sent: %r", len(failures), len(targets), failures[0])

    run_async(send_all())


# ── bets.totals, throttled ──────────────────────────────────────────────────


def _key(name: str) -> str:
    # The channel-layer prefix keeps test runs and deployments sharing one Redis apart.
    prefix = settings.CHANNEL_LAYERS["default"].get("CONFIG", {}).get("prefix", "asgi")
    return f"{prefix}:tables:{name}"


def bets_totals_send(*, table_id: int, round_id: int) -> None:
    """Read the round's totals now and broadcast ``bets.totals`` to the table."""
    send_now(
        table_group(table_id),
        {"type": "bets.totals", "table_id": table_id, "round_id": round_id} | round_bet_totals(round_id),
    )


# One round trip per confirm: 1 when this change opens a quiet period (send now), else 0 after
# marking the round dirty for the tick's flush.
_THROTTLE_SCRIPT = """
if redis.call('SET', KEYS[1], 1, 'NX', 'PX', ARGV[1]) then return 1 end
redis.call('SADD', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 0
"""
_scripts: dict[int, Any] = {}  # id(client) → the registered script (one client per process and URL)


def _throttle(client: Any) -> Any:
    script = _scripts.get(id(client))
    if script is None:
        script = _scripts[id(client)] = client.register_script(_THROTTLE_SCRIPT)
    return script


def _bets_changed_now(table_id: int, round_id: int) -> None:
    client = redis_client()
    try:
        leading = _throttle(client)(
            keys=[_key(f"totals-throttle:{round_id}"), _key("totals-dirty")],
            args=[TOTALS_INTERVAL_MS, f"{table_id}:{round_id}", DIRTY_TTL_SECONDS],
        )
        if not leading:
            return
    except Exception:  # Redis down: never fail a bet over a display; send unthrottled.
        logger.warning("bets.totals throttle unavailable; sending unthrottled", exc_info=True)
    bets_totals_send(table_id=table_id, round_id=round_id)


def bets_changed(*, table_id: int, round_id: int) -> None:
    """Bets on ``round_id`` changed (called by ``bet_place``): broadcast ``bets.totals`` after commit, throttled.
    Best effort, as every announcement (``send_on_commit``): the bets are committed, so a failed broadcast (Redis
    unreachable for the frame sequence or the channel layer) is logged and never answers the confirm with an error."""
    # After the commit, and under WSGI after the confirm's response has gone out: the player does not wait
    # for the throttle's round trip, nor for the totals a leading edge reads and sends.
    transaction.on_commit(lambda: after_response(lambda: _bets_changed_now(table_id, round_id)), robust=True)


def wallet_changed(*, user_id: int, table_id: int, round_id: int, idempotency_key: str) -> None:
    """The player's bets at ``table_id`` just took chips from their wallet (called by ``bet_place``): tell the
    player's other pages (another device, another table's tab) with a personal ``wallet.changed`` on
    ``user_<id>``, after commit and under WSGI after the confirm's response. It carries no balance: a page that
    did not send ``idempotency_key`` itself asks for a snapshot, so the balance it shows is read after this
    commit and two such events arriving out of order cannot leave an older balance on screen."""
    event = {"type": "wallet.changed", "table_id": table_id, "round_id": round_id, "idempotency_key": idempotency_key}
    transaction.on_commit(lambda: after_response(lambda: send_now(user_group(user_id), event)), robust=True)


def bets_totals_flush() -> int:
    """Trailing edge: broadcast the totals of every round marked dirty since the last flush. Returns how many."""
    client = redis_client()
    members = client.spop(_key("totals-dirty"), 1000) or []
    for member in members:
        table_id, round_id = (int(part) for part in member.decode().split(":"))
        bets_totals_send(table_id=table_id, round_id=round_id)
    return len(members)
