"""The floor under bench/bets.py's confirm ratio: the confirm's HTTP request answered by gunicorn with no framework
at all, doing only what no confirm can skip.

``bench/bets.py --floor`` serves this WSGI callable with the same gunicorn, workers and clients as the API, next
to the API and the raw psycopg baseline in the same run. Per request it reads the body, looks the token up (one
query), then runs the baseline's transaction (``RAW_BET``: the same row locks and inserts, with the request's own
amounts) and answers 201 with a small JSON body. No Django, no validation of the bets, no limits, no idempotency
check, no events: what is left between this and the raw transaction is HTTP, gunicorn and one read. So its ratio to
the baseline is the most any confirm served over HTTP by gunicorn could reach on this machine, and what the API
lacks of it is the cost of the framework and of the checks a real confirm makes.

Not part of the product; only bench/bets.py starts it, on loopback, against its scratch database.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

import psycopg

from bench.bets import RAW_BET

_TOKEN = "SELECT t.user_id, w.id FROM authtoken_token t JOIN wallets_wallet w ON w.user_id = t.user_id WHERE t.key = %s"
_HOUSE = "SELECT id FROM wallets_wallet WHERE kind = 'house'"
# RAW_BET's entries and bets with the request's amounts instead of its fixed 3.00.
_ENTRIES = (
    "INSERT INTO wallets_ledgerentry (transaction_id, wallet_id, amount, balance_after, created_at) VALUES"
    " (%(txn)s, %(wallet)s, %(minus)s, %(after)s, now()), (%(txn)s, %(house)s, %(total)s, NULL, now())"
)
_BETS = (
    "INSERT INTO tables_bet (round_id, user_id, placement_id, type, amount, mode, placed_at)"
    " SELECT %(round)s, %(user)s, %(placement)s, v.type, v.amount, 'traditional', now()"
    " FROM unnest(%(types)s::varchar[], %(amounts)s::numeric[]) AS v(type, amount)"
)

_state: dict[str, Any] = {}


def _connection() -> tuple[psycopg.Connection, int]:
    if "conn" not in _state:
        conn = psycopg.connect(os.environ["DATABASE_URL"])
        _state["conn"] = conn
        _state["house"] = conn.execute(_HOUSE).fetchone()[0]
        conn.commit()
    return _state["conn"], _state["house"]


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    conn, house = _connection()
    body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
    round_id = int(environ["PATH_INFO"].strip("/").split("/")[2])  # /api/rounds/<id>/bets/
    token = environ.get("HTTP_AUTHORIZATION", "").removeprefix("Token ")
    types = [bet["type"] for bet in body["bets"]]
    amounts = [Decimal(bet["amount"]) for bet in body["bets"]]
    total = sum(amounts, Decimal(0))
    with conn.transaction():
        user_id, wallet_id = conn.execute(_TOKEN, [token]).fetchone()
        p: dict[str, Any] = {"round": round_id, "user": user_id, "wallet": wallet_id, "house": house}
        conn.execute(RAW_BET[0], p)
        balance = conn.execute(RAW_BET[1], p).fetchone()[0]
        p.update(after=balance - total, minus=-total, total=total, types=types, amounts=amounts)
        p["txn"] = conn.execute(RAW_BET[2], p).fetchone()[0]
        conn.execute(_ENTRIES, p)
        conn.execute(RAW_BET[4], p)
        p["key"] = environ.get("HTTP_IDEMPOTENCY_KEY", "")
        p["placement"] = conn.execute(RAW_BET[5], p).fetchone()[0]
        conn.execute(_BETS, p)
    answer = json.dumps({"balance": str(p["after"])}).encode()
    start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(answer)))])
    return [answer]
