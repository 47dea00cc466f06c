"""The dealer's console presence socket, ``ws/dealer/tables/<id>/`` (docs/api.md, "Dealer's console").

The console page keeps this socket open while it is on screen: it tells the server a dealer is attending the
table. Only the table's dealer on shift, or a supervisor (``tables.services.dealing.may_attend``), gets in;
anyone else (a dealer of another table, or one who has not taken the shift) is refused at the handshake (close
4403), so no one else's socket can make the table "attended" or, by closing, pause its round. Connecting calls
``console_connected``, closing calls ``console_disconnected`` (a round being dealt is paused, and the supervisor
called, if no console comes back within the grace period). Client frames: ``ping`` every 2 s (answered ``pong``;
it marks the table attended again, so one of two consoles closing does not pause a round the other still deals);
anything else gets an ``error`` frame. The guard of every socket of ours (``GuardedJsonConsumer``: rate, size,
JSON) applies."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from baccarat_site.clock import server_time
from tables.consumers import GuardedJsonConsumer
from tables.services.dealing import console_connected, console_disconnected, may_attend

CLOSE_NOT_DEALER = 4403


class DealerConsoleConsumer(GuardedJsonConsumer):
    table_id: int
    attending = False

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        user = self.scope.get("user")
        if not await database_sync_to_async(may_attend)(user, self.table_id):
            await self.close(code=CLOSE_NOT_DEALER)
            return
        self.start_guard()
        await self.accept()
        await database_sync_to_async(console_connected)(table_id=self.table_id)
        self.attending = True
        await self.send_json({"type": "hello", "table_id": self.table_id, "server_time": server_time()})

    async def disconnect(self, code: int) -> None:
        if self.attending:
            self.attending = False
            await database_sync_to_async(console_disconnected)(table_id=self.table_id)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if content.get("type") == "ping":  # a heartbeat: this console still attends (another may have closed)
            await database_sync_to_async(console_connected)(table_id=self.table_id)
            await self.send_json({"type": "pong", "server_time": server_time()})
            return
        await self.send_error("unknown_frame", "The console's socket answers ping only.")
