"""A socket is signed in once, when it opens: when its session signs out, or the player's password changes, the
server closes it with 4401 so no balance or own bet reaches it any more (docs/api.md, close codes)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import Group
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.test import Client

from baccarat_site import events as shared_events
from baccarat_site import roles
from baccarat_site.accounts import services
from tables import events
from tables.consumers import CLOSE_SIGNED_OUT, TableConsumer
from tables.routing import websocket_urlpatterns
from tests.factories import make_user
from tests.tables.services.rounds_kit import fast_table, make_player

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(websocket_urlpatterns)
PASSWORD = "pass-word-123"  # tests.factories.make_user's


def browser_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


async def socket_of(table_id: int, user, browser: Client) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(ROUTER, f"/ws/tables/{table_id}/")
    communicator.scope["user"] = user
    communicator.scope["session"] = SessionStore(browser.cookies["sessionid"].value)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    snapshot = await communicator.receive_json_from(timeout=5)
    assert snapshot["type"] == "snapshot"
    assert "balance" in snapshot  # a signed-in socket: it gets the player's own data
    return communicator


async def closed_with(communicator: WebsocketCommunicator) -> int | None:
    """The close code the server sent (frames before it are skipped)."""
    while True:
        message = await communicator.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return message.get("code")


async def test_signing_out_closes_that_sessions_sockets_with_4401_and_leaves_another_sessions_open():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    laptop, phone = await database_sync_to_async(browser_of)(alice), await database_sync_to_async(browser_of)(alice)
    on_laptop = await socket_of(table.pk, alice, laptop)
    also_on_laptop = await socket_of(table.pk, alice, laptop)
    on_phone = await socket_of(table.pk, alice, phone)

    response = await database_sync_to_async(laptop.post)("/accounts/logout/")
    assert response.status_code == 302

    assert await closed_with(on_laptop) == CLOSE_SIGNED_OUT == 4401
    assert await closed_with(also_on_laptop) == 4401
    assert await on_phone.receive_nothing(timeout=1)  # the phone's session is still signed in
    await on_phone.send_json_to({"type": "ping"})
    assert (await on_phone.receive_json_from(timeout=5))["type"] == "pong"
    for communicator in (on_laptop, also_on_laptop, on_phone):
        await communicator.disconnect()


async def test_a_password_change_closes_every_socket_of_the_player_with_4401():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    bob = await database_sync_to_async(make_player)("bob")
    laptop, phone = await database_sync_to_async(browser_of)(alice), await database_sync_to_async(browser_of)(alice)
    on_laptop, on_phone = await socket_of(table.pk, alice, laptop), await socket_of(table.pk, alice, phone)
    bobs = await socket_of(table.pk, bob, await database_sync_to_async(browser_of)(bob))

    new = "brand-new-felt-42"
    response = await database_sync_to_async(laptop.post)(
        "/accounts/password/", {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )
    assert response.status_code == 302

    assert await closed_with(on_laptop) == 4401
    assert await closed_with(on_phone) == 4401
    assert await bobs.receive_nothing(timeout=1)  # someone else's sockets are not touched
    for communicator in (on_laptop, on_phone, bobs):
        await communicator.disconnect()


async def test_a_socket_closed_for_a_sign_out_forwards_no_personal_event_that_was_already_on_its_way():
    consumer = TableConsumer()
    consumer.table_id, consumer.ended = 1, True
    sent = []

    async def send_json(content, close=False):
        sent.append(content)

    consumer.send_json = send_json
    await consumer.forward({"type": "round.settled", "table_id": 1, "balance": "10.00"})
    assert sent == []


@pytest.mark.parametrize("stop", ["suspend", "time_out"])
async def test_a_suspension_or_a_time_out_closes_every_socket_of_the_player_with_4401(stop):
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    bob = await database_sync_to_async(make_player)("bob")
    on_laptop = await socket_of(table.pk, alice, await database_sync_to_async(browser_of)(alice))
    bobs = await socket_of(table.pk, bob, await database_sync_to_async(browser_of)(bob))

    def act() -> None:
        if stop == "suspend":
            boss = make_user("boss", is_staff=True)
            boss.groups.add(Group.objects.get(name=roles.SUPERVISORS))
            services.player_suspend(user=alice, reason="Chargeback under review", actor=boss)
        else:
            services.player_self_restrict(user=alice, kind="time_out", period="24h")

    await database_sync_to_async(act)()

    assert await closed_with(on_laptop) == 4401
    assert await bobs.receive_nothing(timeout=1)
    for communicator in (on_laptop, bobs):
        await communicator.disconnect()


def test_the_session_is_gone_before_its_sockets_are_told_to_close(monkeypatch):
    """A socket closed by a sign-out reloads its page at once: by then the session must be deleted, or the page
    comes back signed in (Django's logout flushes the session only after its user_logged_out signal)."""
    alice = make_player("alice")
    browser = browser_of(alice)
    key = browser.cookies["sessionid"].value
    seen: list[tuple[str, bool]] = []

    def send_now(group: str, event: dict) -> None:
        if event["type"] == "session.ended":
            seen.append((event["session_key"], Session.objects.filter(session_key=key).exists()))

    monkeypatch.setattr(shared_events, "send_now", send_now)  # a user group's send: baccarat_site.events
    assert browser.post("/accounts/logout/").status_code == 302
    assert seen == [(key, False)]
    assert browser.get("/accounts/profile/").status_code == 302  # signed out: sent to the sign-in page


async def opening(table_id: int, user, session_key: str) -> WebsocketCommunicator:
    """A socket whose gate read ``user`` from the session ``session_key`` (as baccarat_site.ws_gate does)."""
    communicator = WebsocketCommunicator(ROUTER, f"/ws/tables/{table_id}/")
    communicator.scope["user"] = user
    communicator.scope["session"] = SessionStore(session_key)
    return communicator


async def accepted_then_closed(communicator: WebsocketCommunicator) -> tuple[int | None, list[dict]]:
    """Connect; the close code the server sent after accepting, and the frames before it."""
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    frames = []
    while True:
        message = await communicator.receive_output(timeout=5)
        if message["type"] == "websocket.close":
            return message.get("code"), frames
        frames.append(message)


async def test_a_socket_whose_session_signed_out_while_it_opened_is_closed_with_4401_and_gets_nothing_personal():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    laptop = await database_sync_to_async(browser_of)(alice)
    key = laptop.cookies["sessionid"].value
    # The gate has read alice from the session; the sign-out comes before the socket joins user_<id>.
    communicator = await opening(table.pk, alice, key)
    assert (await database_sync_to_async(laptop.post)("/accounts/logout/")).status_code == 302
    code, frames = await accepted_then_closed(communicator)
    assert code == CLOSE_SIGNED_OUT
    assert not any("balance" in frame.get("text", "") for frame in frames)
    await communicator.disconnect()


async def test_a_sign_out_while_the_socket_joins_its_players_group_is_not_missed(monkeypatch):
    """The check comes after the join: a sign-out whose ``session.ended`` went out just before the socket was in
    ``user_<id>`` (so it never heard it) is seen by the check."""
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    laptop = await database_sync_to_async(browser_of)(alice)
    key = laptop.cookies["sessionid"].value
    layer = get_channel_layer()
    group_add = layer.group_add

    async def sign_out_then_join(group: str, channel: str) -> None:
        if group == events.user_group(alice.pk):
            await database_sync_to_async(laptop.post)("/accounts/logout/")  # its session.ended reaches no one
        await group_add(group, channel)

    monkeypatch.setattr(layer, "group_add", sign_out_then_join)
    communicator = await opening(table.pk, alice, key)
    code, frames = await accepted_then_closed(communicator)
    assert code == CLOSE_SIGNED_OUT
    assert not any("balance" in frame.get("text", "") for frame in frames)
    await communicator.disconnect()


async def test_a_deactivated_accounts_socket_is_closed_with_4401_as_it_opens():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    laptop = await database_sync_to_async(browser_of)(alice)
    key = laptop.cookies["sessionid"].value
    communicator = await opening(table.pk, alice, key)
    await database_sync_to_async(type(alice).objects.filter(pk=alice.pk).update)(is_active=False)
    code, frames = await accepted_then_closed(communicator)
    assert code == CLOSE_SIGNED_OUT
    assert not any("balance" in frame.get("text", "") for frame in frames)
    await communicator.disconnect()


async def test_a_signed_in_socket_still_opens_signed_in():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    communicator = await socket_of(table.pk, alice, await database_sync_to_async(browser_of)(alice))
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()


async def test_deactivating_an_account_closes_its_open_sockets_with_4401_and_no_one_elses():
    table = await database_sync_to_async(fast_table)()
    alice = await database_sync_to_async(make_player)("alice")
    bob = await database_sync_to_async(make_player)("bob")
    on_laptop = await socket_of(table.pk, alice, await database_sync_to_async(browser_of)(alice))
    bobs = await socket_of(table.pk, bob, await database_sync_to_async(browser_of)(bob))

    def deactivate() -> None:
        user = type(alice).objects.get(pk=alice.pk)
        user.is_active = False
        user.save()  # as the admin's user form saves it

    await database_sync_to_async(deactivate)()
    assert await closed_with(on_laptop) == 4401
    assert await bobs.receive_nothing(timeout=1)
    for communicator in (on_laptop, bobs):
        await communicator.disconnect()
