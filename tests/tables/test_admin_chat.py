"""The table chat in the admin and on the live floor: delete a message and mute a player, each with a reason,
audited; who may (Table operators, Supervisors) and who may not (Auditors read, Cashiers see nothing)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from baccarat_site import roles
from tables.models import ChatMessage, ChatMute
from tables.services import chat
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:tables_chatmessage_changelist"


def staff_client(username: str, role: str | None) -> tuple[Client, object]:
    user = make_user(username, is_staff=True)
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    client = Client()
    client.force_login(user)
    return client, user


@pytest.fixture
def message():
    table = make_table("Chatty")
    alice = make_user("alice")
    body = chat.chat_send(user=alice, table_id=table.pk, text="<b>rude</b> words")
    return ChatMessage.objects.get(pk=body["id"])


def entries(action: str) -> list[LogEntry]:
    return [e for e in LogEntry.objects.order_by("pk") if (e.additional_data or {}).get("action") == action]


@pytest.mark.parametrize("role", [roles.TABLE_OPERATORS, roles.SUPERVISORS])
def test_an_operator_deletes_a_message_with_a_reason_and_it_is_audited(message, role):
    client, operator = staff_client("olga", role)
    url = reverse("admin:tables_chatmessage_delete_message", args=[message.pk])

    page = client.get(url)
    assert page.status_code == 200
    assert "&lt;b&gt;rude&lt;/b&gt; words" in page.content.decode()  # the text shown as text
    response = client.post(url, {"reason": "insults", "apply": "1"})

    assert response.status_code == 302
    message.refresh_from_db()
    assert message.deleted_at is not None
    assert message.deleted_by == operator
    [entry] = entries("chat.delete")
    assert (entry.actor, entry.additional_data["reason"]) == (operator, "insults")
    assert entry.additional_data["text"] == "<b>rude</b> words"


def test_a_delete_needs_a_reason_and_changes_nothing_without_one(message):
    client, _ = staff_client("olga", roles.TABLE_OPERATORS)
    url = reverse("admin:tables_chatmessage_delete_message", args=[message.pk])

    response = client.post(url, {"reason": " ", "apply": "1"})

    assert response.status_code == 200
    assert "Please correct the error below." in response.content.decode()
    message.refresh_from_db()
    assert message.deleted_at is None
    assert entries("chat.delete") == []


def test_an_operator_mutes_the_authors_of_selected_messages_for_a_duration_audited(message):
    client, operator = staff_client("olga", roles.TABLE_OPERATORS)
    data = {"action": "mute_authors", "_selected_action": [message.pk], "reason": "spamming", "minutes": 60}

    response = client.post(reverse(CHANGELIST), {**data, "apply": "1"})

    assert response.status_code == 302
    mute = ChatMute.objects.get()
    assert (mute.player, mute.by, mute.reason) == (message.author, operator, "spamming")
    assert 59 * 60 < (mute.until - timezone.now()).total_seconds() <= 3600
    [entry] = entries("chat.mute")
    assert (entry.actor, entry.additional_data["reason"], entry.additional_data["minutes"]) == (
        operator,
        "spamming",
        60,
    )
    with pytest.raises(Exception, match="cannot write in the chat"):
        chat.chat_send(user=message.author, table_id=message.table_id, text="hello?")


def test_a_supervisor_unmutes_from_the_mutes_list_audited(message):
    client, supervisor = staff_client("sam", roles.SUPERVISORS)
    chat.chat_mute(player=message.author, minutes=60, reason="spamming", actor=supervisor)
    mute = ChatMute.objects.get()

    data = {"action": "unmute_players", "_selected_action": [mute.pk], "reason": "apologised", "apply": "1"}
    client.post(reverse("admin:tables_chatmute_changelist"), data)

    mute.refresh_from_db()
    assert mute.lifted_by == supervisor
    assert entries("chat.unmute")[0].additional_data["reason"] == "apologised"
    chat.chat_send(user=message.author, table_id=message.table_id, text="sorry")


def test_an_auditor_reads_the_chat_but_may_not_delete_or_mute(message):
    client, _ = staff_client("audrey", roles.AUDITORS)

    listing = client.get(reverse(CHANGELIST))
    assert listing.status_code == 200
    html = listing.content.decode()
    assert "&lt;b&gt;rude&lt;/b&gt; words" in html
    assert reverse("admin:tables_chatmessage_delete_message", args=[message.pk]) not in html
    assert client.get(reverse("admin:tables_chatmessage_delete_message", args=[message.pk])).status_code == 403
    assert (
        client.post(
            reverse("admin:tables_chatmessage_mute_author", args=[message.pk]),
            {"reason": "x" * 5, "minutes": 10, "apply": "1"},
        ).status_code
        == 403
    )
    client.post(
        reverse(CHANGELIST),
        {"action": "delete_messages", "_selected_action": [message.pk], "reason": "nope", "apply": "1"},
    )
    message.refresh_from_db()
    assert message.deleted_at is None
    assert ChatMute.objects.count() == 0


def test_a_cashier_does_not_see_the_chat(message):
    client, _ = staff_client("cash", roles.CASHIERS)

    assert client.get(reverse(CHANGELIST)).status_code == 403
    assert client.get(reverse("admin:tables_chatmessage_delete_message", args=[message.pk])).status_code == 403


def test_the_roles_grant_moderation_to_operators_and_supervisors_only():
    assert ("tables", "moderate_chat") in roles.codenames(roles.TABLE_OPERATORS)
    assert ("tables", "moderate_chat") in roles.codenames(roles.SUPERVISORS)
    assert ("tables", "moderate_chat") not in roles.codenames(roles.CASHIERS)
    assert not Group.objects.get(name=roles.AUDITORS).permissions.filter(codename="moderate_chat").exists()


def test_the_live_floor_shows_the_chat_with_delete_and_mute_for_an_operator_and_back_to_the_floor(message):
    client, operator = staff_client("olga", roles.TABLE_OPERATORS)

    floor = client.get(reverse("admin_floor:floor_live")).content.decode()

    assert f'data-chat-id="{message.pk}"' in floor
    assert "&lt;b&gt;rude&lt;/b&gt; words" in floor
    delete = reverse("admin:tables_chatmessage_delete_message", args=[message.pk]) + "?next=floor"
    mute = reverse("admin:tables_chatmessage_mute_author", args=[message.pk]) + "?next=floor"
    assert delete in floor
    assert mute in floor
    response = client.post(mute, {"reason": "shouting", "minutes": 10, "apply": "1"})
    assert response.url == reverse("admin_floor:floor_live")
    assert entries("chat.mute")[0].actor == operator
    assert "muted until" in client.get(reverse("admin_floor:floor_live")).content.decode()


def test_an_auditor_sees_the_floor_chat_without_the_links(message):
    client, _ = staff_client("audrey", roles.AUDITORS)

    floor = client.get(reverse("admin_floor:floor_live")).content.decode()

    assert f'data-chat-id="{message.pk}"' in floor
    assert "delete-message" not in floor
    assert "mute-author" not in floor


def test_the_services_refuse_an_actor_without_the_permission(message):
    someone = make_user("bob")
    with pytest.raises(Exception, match="moderate the chat"):
        chat.chat_delete(message_id=message.pk, actor=someone, reason="because")
    with pytest.raises(Exception, match="moderate the chat"):
        chat.chat_mute(player=message.author, minutes=10, reason="because", actor=someone)
    assert LogEntry.objects.filter(additional_data__action__startswith="chat.").count() == 0


def test_the_moderation_services_stamp_the_now_they_are_given(message):
    _client, supervisor = staff_client("sam", roles.SUPERVISORS)
    now = timezone.now() + timedelta(minutes=3)

    assert chat.chat_delete(message_id=message.pk, actor=supervisor, reason="rude words", now=now)
    assert ChatMessage.objects.get(pk=message.pk).deleted_at == now

    mute = chat.chat_mute(player=message.author, minutes=60, reason="spamming", actor=supervisor, now=now)
    assert mute.until == now + timedelta(minutes=60)
    with pytest.raises(Exception, match="cannot write in the chat"):
        chat.chat_may_write(user=message.author, table_id=message.table_id, now=now + timedelta(minutes=59))
    chat.chat_may_write(user=message.author, table_id=message.table_id, now=now + timedelta(minutes=61))

    later = now + timedelta(minutes=5)
    assert chat.chat_unmute(player=message.author, reason="apologised", actor=supervisor, now=later) == 1
    assert ChatMute.objects.get(pk=mute.pk).lifted_at == later
