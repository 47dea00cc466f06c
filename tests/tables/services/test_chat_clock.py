"""The chat takes the one clock too: ``chat_send(now=…)`` reads mutes at that moment and stamps the message."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tables.models import ChatMessage, ChatMute
from tables.services.chat import chat_send
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db


def test_a_message_is_stamped_and_checked_at_the_moment_given():
    table = make_table("Chat clock")
    player = make_user("cleo")
    boss = make_user("boss", is_staff=True)
    later = timezone.now() + timedelta(hours=2)
    ChatMute.objects.create(player=player, until=later - timedelta(hours=1), reason="spam", by=boss)
    body = chat_send(user=player, table_id=table.pk, text="hello", now=later)  # the mute has run out by then
    assert ChatMessage.objects.get(pk=body["id"]).created_at == later
    with pytest.raises(Exception) as refused:
        chat_send(user=player, table_id=table.pk, text="again", now=later - timedelta(hours=1, minutes=30))
    assert refused.value.code == "chat_muted"
