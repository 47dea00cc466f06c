"""Scale-out: two daphne processes, one Celery worker and one beat on one Redis and one PostgreSQL.

A player connected to instance A sees the round the worker deals, the bet totals of bets placed through
instance B (over its WebSocket and its REST API), and the settlement of their own bet placed through B.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from decimal import Decimal
from typing import Any

import pytest
import websockets
from django.test import Client
from rest_framework.authtoken.models import Token

from tables.models import Round
from tests.tables.services.rounds_kit import balance_of, fast_table, make_player
from tests.tables.tasks.stack import Stack

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.timeout(120)]


def session_cookie(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


async def next_frame(socket: Any, kind: str, timeout: float = 20) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while True:
            frame = json.loads(await socket.recv())
            if frame["type"] == kind:
                return frame


async def rest_bet(port: int, token: str, round_id: int, bets: list[dict[str, str]]) -> tuple[int, dict]:
    """POST /api/rounds/{id}/bets/ on one instance, with a plain HTTP/1.1 request."""
    body = json.dumps({"mode": "traditional", "bets": bets}).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"POST /api/rounds/{round_id}/bets/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Token {token}\r\nIdempotency-Key: {uuid.uuid4()}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
    response = await reader.read()
    writer.close()
    status = int(response.split(b" ", 2)[1])
    return status, json.loads(response.split(b"\r\n\r\n", 1)[1] or b"{}")


def test_a_player_on_instance_a_sees_cards_totals_and_settlement_caused_through_instance_b(tmp_path):
    table = fast_table("Scale", betting_seconds=3, deal_interval_ms=150, result_seconds=2)
    alice, bob = make_player("alice", "300.00"), make_player("bob", "300.00")
    alice_cookie = session_cookie(alice)
    bob_token = Token.objects.create(user=bob).key

    with Stack(tmp_path) as stack:
        port_a = stack.daphne("web_a")
        port_b = stack.daphne("web_b")
        stack.worker()
        stack.beat()

        async def scenario() -> dict[str, Any]:
            def url(port: int) -> str:
                return f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/"

            headers = {"Cookie": f"sessionid={alice_cookie}"}
            async with (
                websockets.connect(
                    url(port_a), origin=f"http://127.0.0.1:{port_a}", additional_headers=headers
                ) as on_a,
                websockets.connect(
                    url(port_b), origin=f"http://127.0.0.1:{port_b}", additional_headers=headers
                ) as on_b,
                websockets.connect(url(port_a), origin=f"http://127.0.0.1:{port_a}") as watcher_a,
            ):
                snapshot = await next_frame(on_a, "snapshot")
                assert snapshot["balance"] == "300.00"
                await next_frame(on_b, "snapshot")
                await next_frame(watcher_a, "snapshot")

                opened = await next_frame(on_a, "round.opened", timeout=30)
                round_id = opened["round_id"]
                # alice bets through B's WebSocket, bob through B's REST API
                await on_b.send(
                    json.dumps(
                        {
                            "type": "place_bets",
                            "round_id": round_id,
                            "mode": "traditional",
                            "bets": [{"type": "banker", "amount": "30.00"}],
                            "idempotency_key": str(uuid.uuid4()),
                        }
                    )
                )
                confirmed = await next_frame(on_b, "bets.confirmed")
                status, placed = await rest_bet(port_b, bob_token, round_id, [{"type": "banker", "amount": "12.50"}])
                assert status == 201, placed

                seen: list[dict[str, Any]] = []
                async with asyncio.timeout(30):
                    while not seen or seen[-1]["type"] != "round.settled":
                        seen.append(json.loads(await on_a.recv()))
                watched: list[dict[str, Any]] = []
                async with asyncio.timeout(10):
                    while not watched or watched[-1]["type"] != "round.result":
                        watched.append(json.loads(await watcher_a.recv()))
                return {"round_id": round_id, "confirmed": confirmed, "seen": seen, "watched": watched}

        outcome = asyncio.run(scenario())

    round_ = Round.objects.get(pk=outcome["round_id"])
    seen, watched = outcome["seen"], outcome["watched"]
    totals = [f for f in seen if f["type"] == "bets.totals" and f["round_id"] == round_.pk]
    assert totals[-1]["totals"]["banker"] == {"amount": "42.50", "players": 2}
    assert totals[-1]["players"] == 2
    assert [f for f in watched if f["type"] == "bets.totals"][-1]["totals"]["banker"]["amount"] == "42.50"

    # Her own confirm also comes back as a personal wallet.changed (the page that sent its key skips it).
    assert [f["type"] for f in seen].count("wallet.changed") <= 1
    types = [f["type"] for f in seen if f["type"] not in {"bets.totals", "wallet.changed"}]
    dealt = types.count("card.dealt")
    assert types == ["round.closed", *["card.dealt"] * dealt, "round.result", "round.settled"]
    assert [f["card"] for f in seen if f["type"] == "card.dealt"] == [c["card"] for c in round_.cards]
    after_open = watched[[f.get("round_id") for f in watched].index(round_.pk) + 1 :]
    assert [f["type"] for f in after_open if f["type"] != "bets.totals"] == types[:-1]

    settled = seen[-1]
    [bet] = settled["bets"]
    assert bet["id"] == outcome["confirmed"]["bets"][0]["id"]
    assert settled["balance"] == str(balance_of(alice))
    assert balance_of(alice) == Decimal("270.00") + Decimal(bet["payout"])
