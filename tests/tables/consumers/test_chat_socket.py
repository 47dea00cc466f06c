"""Table chat on ws/tables/<id>/ (docs/api.md, "Table chat"), through Channels' communicator on the real Redis
channel layer: send and receive, markup arriving as text, the length cap, empty and control characters, the rate
limit, a muted or suspended player, a delete reaching open sockets, history for a late joiner, read-only watchers."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from auditlog.models import LogEntry
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings
from django.utils import timezone

from baccarat_site.accounts import services as accounts
from tables.models import ChatMessage
from tables.services import chat
from tests.factories import make_user
from tests.tables.consumers.test_table_consumer import connect
from tests.tables.services.rounds_kit import fast_table, make_player

pytestmark = pytest.mark.django_db(transaction=True)


async def sit(table_id: int, user=None) -> tuple[WebsocketCommunicator, dict]:
    """A socket at the table, past its snapshot (returned)."""
    communicator = await connect(table_id, user=user)
    snapshot = await communicator.receive_json_from(timeout=5)
    assert snapshot["type"] == "snapshot"
    return communicator, snapshot


async def next_of(communicator: WebsocketCommunicator, *types: str, timeout: float = 5) -> dict:
    """The next frame of one of ``types`` (others, such as the round's own, are passed over)."""
    while True:
        frame = await communicator.receive_json_from(timeout=timeout)
        if frame["type"] in types:
            return frame


async def say(communicator: WebsocketCommunicator, text) -> None:
    await communicator.send_json_to({"type": "chat.send", "text": text})


def staff():
    return make_user("mod", is_staff=True, is_superuser=True)


async def count_messages() -> int:
    return await database_sync_to_async(ChatMessage.objects.count)()


async def test_a_message_reaches_every_socket_at_the_table_and_not_another_table():
    table, other = await database_sync_to_async(fast_table)(), await database_sync_to_async(fast_table)("Other")
    alice, bob = await database_sync_to_async(lambda: [make_player(n) for n in ("alice", "bob")])()
    alice_socket, _ = await sit(table.pk, alice)
    bob_socket, _ = await sit(table.pk, bob)
    watcher, _ = await sit(table.pk)
    elsewhere, _ = await sit(other.pk, bob)

    await say(alice_socket, "  hello   table  ")

    for socket in (alice_socket, bob_socket, watcher):
        frame = await next_of(socket, "chat.message", "error")
        assert frame["type"] == "chat.message"
        assert (frame["author"], frame["text"], frame["table_id"]) == ("alice", "hello table", table.pk)
        assert frame["time"].endswith("Z")
        assert isinstance(frame["id"], int)
        assert "seq" not in frame  # chat is no part of the round's numbered state
    assert await elsewhere.receive_nothing(timeout=0.3)
    for socket in (alice_socket, bob_socket, watcher, elsewhere):
        await socket.disconnect()


async def test_markup_is_stored_and_sent_as_the_text_it_is():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    socket, _ = await sit(table.pk, alice)
    text = '<script>alert("x")</script> & <b>bold</b>'

    await say(socket, text)

    frame = await next_of(socket, "chat.message", "error")
    assert frame["text"] == text  # not escaped twice, not stripped: the page writes it with textContent
    stored = await database_sync_to_async(ChatMessage.objects.get)()
    assert stored.text == text
    await socket.disconnect()


@pytest.mark.parametrize(
    ("text", "code"),
    [("", "chat_empty"), ("   \n\t ", "chat_empty"), ("\x00\x07\u202e", "chat_empty"), (42, "invalid_request")],
)
async def test_an_empty_or_non_text_message_is_refused_and_nothing_is_stored(text, code):
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    socket, _ = await sit(table.pk, alice)

    await say(socket, text)

    frame = await next_of(socket, "chat.message", "error")
    assert (frame["type"], frame["code"], frame["frame"]) == ("error", code, "chat.send")
    assert await count_messages() == 0
    await socket.disconnect()


async def test_the_length_cap_counts_characters_after_trimming_and_control_characters_are_removed():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    socket, _ = await sit(table.pk, alice)

    await say(socket, "  " + "я" * 200 + "  ")  # 200 characters (400 bytes) once trimmed: accepted
    assert (await next_of(socket, "chat.message", "error"))["text"] == "я" * 200
    await say(socket, "x" * 201)
    refused = await next_of(socket, "chat.message", "error")
    assert (refused["type"], refused["code"]) == ("error", "chat_too_long")
    await say(socket, "a\x00b\u202ec\nd")
    assert (await next_of(socket, "chat.message", "error"))["text"] == "abc d"
    assert await count_messages() == 2
    await socket.disconnect()


@override_settings(CHAT_RATE_COUNT=5, CHAT_RATE_SECONDS=10)
async def test_the_sixth_message_in_ten_seconds_is_refused_with_retry_after_and_not_stored():
    table = await database_sync_to_async(fast_table)()
    alice, bob = await database_sync_to_async(lambda: [make_player(n) for n in ("alice", "bob")])()
    socket, _ = await sit(table.pk, alice)
    also, _ = await sit(table.pk, alice)  # a second tab shares the player's allowance
    bob_socket, _ = await sit(table.pk, bob)

    for n in range(5):
        await say(socket if n % 2 else also, f"message {n}")
        assert (await next_of(socket, "chat.message", "error"))["text"] == f"message {n}"
    await say(also, "one too many")

    refused = await next_of(also, "error")
    assert refused["code"] == "chat_rate_limited"
    assert 0 < refused["retry_after"] <= 10
    assert await count_messages() == 5
    await say(bob_socket, "another player is not held back")
    frame = await next_of(bob_socket, "chat.message", "error")
    while frame.get("author") == "alice":  # alice's five, which bob's socket heard too
        frame = await next_of(bob_socket, "chat.message", "error")
    assert (frame["type"], frame["author"]) == ("chat.message", "bob")
    for s in (socket, also, bob_socket):
        await s.disconnect()


async def test_a_muted_player_cannot_write_until_unmuted_and_both_are_audited():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    moderator = await database_sync_to_async(staff)()
    socket, _ = await sit(table.pk, alice)
    await database_sync_to_async(chat.chat_mute)(player=alice, minutes=10, reason="spamming", actor=moderator)

    await say(socket, "let me speak")
    refused = await next_of(socket, "chat.message", "error")
    assert (refused["type"], refused["code"]) == ("error", "chat_muted")
    assert await count_messages() == 0

    await database_sync_to_async(chat.chat_unmute)(player=alice, reason="calmed down", actor=moderator)
    await say(socket, "thank you")
    assert (await next_of(socket, "chat.message", "error"))["text"] == "thank you"
    actions = await database_sync_to_async(
        lambda: [
            (e.additional_data.get("action"), e.additional_data.get("reason"), e.actor_id)
            for e in LogEntry.objects.all()
            if e.additional_data
        ]
    )()
    assert ("chat.mute", "spamming", moderator.pk) in actions
    assert ("chat.unmute", "calmed down", moderator.pk) in actions
    await socket.disconnect()


async def test_a_suspended_player_cannot_write():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    moderator = await database_sync_to_async(staff)()
    socket, _ = await sit(table.pk, alice)
    # The suspension closes the player's sockets after commit; the session check or the restriction refuses a
    # message that races the close.
    await database_sync_to_async(accounts.player_suspend)(user=alice, reason="fraud check", actor=moderator)

    await say(socket, "still here?")
    output = await socket.receive_output(timeout=5)
    if output["type"] == "websocket.send":
        frame = json.loads(output["text"])
        assert frame["type"] == "error", frame
        assert frame["code"] in ("not_authenticated", "account_suspended"), frame
    else:
        assert output["type"] == "websocket.close"
    assert await count_messages() == 0
    # Let the consumer end (its hub membership, its Redis subscriptions): a socket left open at the end of the
    # test once hung the teardown for the whole 300 s.
    await socket.disconnect()


async def test_a_signed_out_watcher_reads_the_chat_but_cannot_write():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    player_socket, _ = await sit(table.pk, alice)
    watcher, _ = await sit(table.pk)

    await say(watcher, "hi")
    refused = await next_of(watcher, "chat.message", "error")
    assert (refused["type"], refused["code"], refused["frame"]) == ("error", "not_authenticated", "chat.send")
    await say(player_socket, "welcome, watcher")
    assert (await next_of(watcher, "chat.message"))["text"] == "welcome, watcher"
    assert await count_messages() == 1
    await player_socket.disconnect()
    await watcher.disconnect()


async def test_a_delete_reaches_every_open_socket_and_leaves_the_history():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    moderator = await database_sync_to_async(staff)()
    socket, _ = await sit(table.pk, alice)
    watcher, _ = await sit(table.pk)
    await say(socket, "something rude")
    message = await next_of(socket, "chat.message")
    await next_of(watcher, "chat.message")

    done = await database_sync_to_async(chat.chat_delete)(message_id=message["id"], actor=moderator, reason="rude")

    assert done
    for s in (socket, watcher):
        frame = await next_of(s, "chat.deleted")
        assert (frame["id"], frame["table_id"]) == (message["id"], table.pk)
    late, snapshot = await sit(table.pk)
    assert snapshot["chat"] == []
    for s in (socket, watcher, late):
        await s.disconnect()


async def test_a_late_joiner_gets_the_recent_messages_in_its_snapshot_but_not_older_ones():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    socket, _ = await sit(table.pk, alice)
    for text in ("first", "second <i>"):
        await say(socket, text)
        await next_of(socket, "chat.message")
    old = await database_sync_to_async(ChatMessage.objects.create)(table=table, author=alice, text="long ago")
    await database_sync_to_async(ChatMessage.objects.filter(pk=old.pk).update)(
        created_at=timezone.now() - timedelta(minutes=31)
    )

    late, snapshot = await sit(table.pk)

    assert [(m["author"], m["text"]) for m in snapshot["chat"]] == [("alice", "first"), ("alice", "second <i>")]
    await socket.disconnect()
    await late.disconnect()


async def test_the_chat_does_not_hold_up_a_round_frame():
    """A chat flood and the round's frames share the socket: every round frame still arrives, in order."""
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    socket, _ = await sit(table.pk, alice)
    await asyncio.gather(*(say(socket, f"m{n}") for n in range(3)))
    texts = sorted([(await next_of(socket, "chat.message"))["text"] for _ in range(3)])
    assert texts == ["m0", "m1", "m2"]
    await socket.disconnect()
