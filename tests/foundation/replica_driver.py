"""The casino against a primary and its streaming replica, for tests/foundation/test_replica_streaming.py.

Run as ``python -m tests.foundation.replica_driver`` with ``DATABASE_URL`` (the primary) and
``DATABASE_REPLICA_URL``: it reads one command a line on stdin and answers each with one JSON line.

- ``setup``: a funded player and a fast table;
- ``settle``: one round at that table with a Banker bet from the player, to its settlement (on the primary);
- ``record``: the player's bet record page and its CSV, with the queries each alias ran for them;
- ``pages``: the lobby and the reports (as an operator), and where their reads went.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "baccarat_site.settings")
django.setup()

from django.db import connections  # noqa: E402 - after django.setup()
from django.test import Client  # noqa: E402

from baccarat_site import db_router  # noqa: E402
from tables.models import Bet, Round  # noqa: E402
from tests.factories import make_user  # noqa: E402
from tests.tables.services.rounds_kit import Clock, drive_to_state, fast_table, make_player, place  # noqa: E402

state: dict[str, Any] = {}


def setup() -> dict[str, Any]:
    state["player"] = make_player("replica-reader", balance="1000.00")
    state["table"] = fast_table("Replica")
    state["clock"] = Clock()
    return {"player": state["player"].pk, "table": state["table"].pk}


def settle() -> dict[str, Any]:
    table, clock = state["table"], state["clock"]
    round_ = drive_to_state(table, clock, Round.State.BETTING)
    place(state["player"], round_.pk, ("banker", "10.00"), now=clock.now)
    drive_to_state(table, clock, Round.State.SETTLED)
    bet = Bet.objects.get(round=round_)
    return {"round": round_.pk, "number": round_.number, "bet": bet.pk, "status": bet.status}


def _queries(run: Callable[[], Any]) -> tuple[Any, dict[str, list[str]]]:
    """``run()``'s result and the SQL each alias executed for it (in this thread: the test client's)."""
    seen: dict[str, list[str]] = {"default": [], db_router.REPLICA: []}

    def recorder(alias: str) -> Callable[..., Any]:
        def record(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
            seen[alias].append(sql)
            return execute(sql, params, many, context)

        return record

    with contextlib.ExitStack() as stack:
        for alias in seen:
            stack.enter_context(connections[alias].execute_wrapper(recorder(alias)))
        result = run()
    return result, seen


def record() -> dict[str, Any]:
    client = Client()
    client.force_login(state["player"])

    def fetch() -> tuple[Any, Any]:
        page = client.get("/bets/")
        export = client.get("/bets/export.csv")
        try:
            return page, b"".join(export.streaming_content).decode()
        finally:
            export.close()  # as a server does once the file is sent: request_finished closes the connections

    (page, text), queries = _queries(fetch)
    rows = list(csv.DictReader(io.StringIO(text)))
    html = page.content.decode()
    return {
        "status": page.status_code,
        "rounds_on_page": sorted(int(part.split('"')[0]) for part in html.split('data-round-id="')[1:]),
        "csv": [{"round": int(row["round"]), "result": row["result"]} for row in rows],
        # Queries by the table they read from (a join to another table does not count).
        "tables_reads": {alias: sum('FROM "tables_' in sql for sql in sqls) for alias, sqls in queries.items()},
        "auth_reads": {
            alias: sum('FROM "auth_user"' in sql or 'FROM "django_session"' in sql for sql in sqls)
            for alias, sqls in queries.items()
        },
        "lag": db_router.guard.lag,
        "fresh": db_router.guard.fresh,
    }


def pages() -> dict[str, Any]:
    """The lobby and the two reports: each page's status, where its reads of the tables and the ledger went, and
    where the header's balance was read (the wallet: always the primary)."""
    if "operator" not in state:
        state["operator"] = make_user("replica-operator", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(state["operator"])
    answers = {}
    for path in ("/", "/admin/floor/reports/tables/", "/admin/floor/reports/players/"):
        page, queries = _queries(lambda path=path: client.get(path))
        answers[path] = {
            "status": page.status_code,
            "reads": {
                alias: sum('FROM "tables_' in sql or 'FROM "wallets_ledger' in sql for sql in sqls)
                for alias, sqls in queries.items()
            },
            "balance_reads": {
                alias: sum('FROM "wallets_wallet"' in sql for sql in sqls) for alias, sqls in queries.items()
            },
        }
    return answers


COMMANDS = {"setup": setup, "settle": settle, "record": record, "pages": pages}

if __name__ == "__main__":
    for line in sys.stdin:
        try:
            answer = COMMANDS[line.strip()]()
        except Exception as error:
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer, default=str), flush=True)
