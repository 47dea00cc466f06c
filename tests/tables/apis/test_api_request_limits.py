"""What the API refuses before doing any work: bodies over the size cap (413 ``body_too_large``, before
parsing) and page numbers written with anything but ASCII digits (400, never a 500)."""

from __future__ import annotations

import json

import pytest
from asgiref.testing import ApplicationCommunicator
from django.test.client import FakePayload
from rest_framework.parsers import JSONParser
from rest_framework.test import APIClient

from baccarat_site.asgi import application

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/bets/", "/api/wallet/ledger/"])
@pytest.mark.parametrize("name", ["page", "page_size"])
@pytest.mark.parametrize("value", ["²", "①", "٣", "１", "1" * 5000, "-1", "1.0", ""])
def test_a_page_or_page_size_that_is_not_ascii_digits_is_400_with_code_and_detail(
    player, client_for, path, name, value
):
    response = client_for(player("alice")).get(path, {name: value})
    assert response.status_code == 400, response.content[:200]
    body = response.json()
    assert body["code"] == "invalid_request"
    assert name in body["detail"]


def test_ascii_page_numbers_still_work(player, client_for):
    client = client_for(player("alice"))
    assert client.get("/api/wallet/ledger/", {"page": "1", "page_size": "200"}).status_code == 200
    assert client.get("/api/bets/", {"page": "000000000000000001"}).status_code == 200


BIG_LIST = json.dumps(["x" * 10] * 172_000).encode()  # 2.4 MB of JSON list


def test_a_2_4_mb_json_body_to_the_token_endpoint_is_413_at_once_without_being_read_or_parsed(monkeypatch):
    """A 413 "at once" is what the server does, not how long it takes (timings are bench/'s): not a byte of the body is
    read, and the JSON parser never sees it."""

    def never(*args, **kwargs):
        raise AssertionError("a body over the cap reached the JSON parser")

    read: list[int] = []
    payload_read, payload_readline = FakePayload.read, FakePayload.readline

    def counted(original):
        def reading(self, *args, **kwargs):
            data = original(self, *args, **kwargs)
            read.append(len(data))
            return data

        return reading

    monkeypatch.setattr(JSONParser, "parse", never)
    monkeypatch.setattr(FakePayload, "read", counted(payload_read))
    monkeypatch.setattr(FakePayload, "readline", counted(payload_readline))
    assert len(BIG_LIST) > 2_400_000
    response = APIClient().post("/api/auth/token/", BIG_LIST, content_type="application/json")
    assert response.status_code == 413
    body = response.json()
    assert body["code"] == "body_too_large"
    assert "65,536" in body["detail"]
    assert sum(read) == 0, f"{sum(read):,} bytes of a body over the cap were read"


def test_every_api_endpoint_refuses_a_body_over_the_cap_and_takes_one_under_it(player, client_for, settings):
    settings.API_MAX_BODY_BYTES = 1000
    client = client_for(player("alice"))
    for path in ("/api/rounds/1/bets/", "/api/wallet/refill/", "/api/auth/token/", "/api/nowhere/"):
        response = client.post(path, {"pad": "x" * 1000}, format="json")
        assert (response.status_code, response.json()["code"]) == (413, "body_too_large"), path
    small = client.post("/api/auth/token/", {"username": "alice", "password": "wrong"}, format="json")
    assert (small.status_code, small.json()["code"]) == (400, "invalid_credentials")


async def _asgi_post(path: str, chunks: list[bytes], headers: list[tuple[bytes, bytes]]) -> tuple[int, dict]:
    """POST ``chunks`` to the project's ASGI application as a chunked body (no Content-Length)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), *headers],
        "client": ("203.0.113.5", 50000),
        "server": ("testserver", 80),
    }
    communicator = ApplicationCommunicator(application, scope)
    for index, chunk in enumerate(chunks):
        await communicator.send_input({"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1})
    start = await communicator.receive_output(10)
    body = b""
    while True:
        message = await communicator.receive_output(10)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    return start["status"], json.loads(body)


@pytest.mark.django_db(transaction=True)
async def test_a_chunked_body_over_the_cap_is_413_and_one_under_it_is_parsed():
    chunks = [BIG_LIST[i : i + 65_536] for i in range(0, len(BIG_LIST), 65_536)]
    status, body = await _asgi_post("/api/auth/token/", chunks, [(b"transfer-encoding", b"chunked")])
    assert (status, body["code"]) == (413, "body_too_large")
    status, body = await _asgi_post("/api/auth/token/", [b'{"username": ', b'"alice"}'], [])
    assert status == 400
    assert body["code"] == "invalid_request"
    assert "password" in body["detail"]  # the body was read and parsed: only the password is missing


@pytest.mark.django_db(transaction=True)
async def test_daphne_answers_a_declared_length_over_the_cap_before_reading_the_body():
    # No body is ever sent: only an answer given before reading it can come back.
    status, body = await _asgi_post("/api/auth/token/", [], [(b"content-length", b"2400000")])
    assert (status, body["code"]) == (413, "body_too_large")
