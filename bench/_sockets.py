"""The benchmarks' WebSocket client (bench/fanout.py, bench/chat.py): a minimal RFC 6455 client over asyncio.

The load generator must cost far less than the servers it measures, so no general-purpose library per frame: the
handshake, frame headers parsed in place, pings answered, and each text frame handed to ``text_frame`` with the
time its bytes arrived (stamped before any parsing)."""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import time
from collections.abc import Callable
from typing import Any, TypeVar

C = TypeVar("C", bound="RawClient")


class RawClient(asyncio.Protocol):
    """One WebSocket: ``upgraded`` resolves once the server answered 101 (or fails with ``ConnectionError``).
    Subclasses read text frames in ``text_frame``."""

    def __init__(self, host: str, path: str, cookie: str | None = None) -> None:
        headers = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
            "Sec-WebSocket-Version: 13",
            f"Origin: http://{host}",
        ]
        if cookie:
            headers.append(f"Cookie: sessionid={cookie}")
        self.request = ("\r\n".join(headers) + "\r\n\r\n").encode()
        self.buffer = bytearray()
        self.upgraded = asyncio.get_running_loop().create_future()
        self.transport: Any = None

    def text_frame(self, now: float, buf: bytearray, body: int, length: int) -> None:
        """A text frame arrived at ``now``: its payload is ``buf[body : body + length]`` (read it in place)."""

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.upgraded.done():
            self.upgraded.set_exception(ConnectionError("closed during the handshake"))
            self.upgraded.exception()  # retrieved: the opener retries

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.buffer += data
        if not self.upgraded.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buffer.startswith(b"HTTP/1.1 101"):
                self.upgraded.set_exception(ConnectionError(bytes(self.buffer[:80]).decode(errors="replace")))
                self.transport.close()
                return
            del self.buffer[: end + 4]
            self.upgraded.set_result(True)
        buf, start = self.buffer, 0
        while len(buf) - start >= 2:
            opcode, length, head = buf[start] & 0x0F, buf[start + 1] & 0x7F, 2
            if length == 126:
                if len(buf) - start < 4:
                    break
                length, head = int.from_bytes(buf[start + 2 : start + 4], "big"), 4
            elif length == 127:
                if len(buf) - start < 10:
                    break
                length, head = int.from_bytes(buf[start + 2 : start + 10], "big"), 10
            if len(buf) - start < head + length:
                break
            body = start + head
            if opcode == 0x1:
                self.text_frame(now, buf, body, length)
            elif opcode == 0x9:  # ping → masked pong with the same payload
                self.write(bytes(buf[body : body + length]), opcode=0xA)
            start = body + length
        del buf[:start]

    def write(self, payload: bytes, opcode: int = 0x1) -> None:
        """One masked frame (text by default)."""
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.transport.write(head + mask + masked)

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(bytes([0x88, 0x80]) + os.urandom(4))  # masked close, no payload
            self.transport.close()


async def open_client(factory: Callable[[], C], host: str, port: int, *, timeout: float, attempts: int = 5) -> C:
    """Connect and wait for the upgrade; a loaded daphne may drop a handshake, so try again (as a browser would),
    waiting 0.5 s, 1 s, … between attempts."""
    loop = asyncio.get_running_loop()
    for attempt in range(attempts):
        try:
            _, client = await loop.create_connection(factory, host, port)
            await asyncio.wait_for(client.upgraded, timeout)
            return client
        except (OSError, ConnectionError, TimeoutError):
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(0.5 * (attempt + 1))
    raise AssertionError("unreachable")
