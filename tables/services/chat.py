"""Table chat: every write of it (docs/api.md, "Table chat").

- :func:`chat_send`: a signed-in player's message to a table. The text is cleaned (Unicode NFC; line breaks and
  tabs become spaces, other control characters and the bidirectional overrides that could flip the text around
  it are removed; runs of spaces collapse; trimmed), then refused if empty (``chat_empty``) or longer than
  ``CHAT_MAX_CHARS`` (``chat_too_long``). A disabled, suspended, closed, timed-out or self-excluded account is
  refused as at the bet (``accounts.services.restriction_refusal``); a muted one with ``chat_muted``. At most
  ``CHAT_RATE_COUNT`` messages in any ``CHAT_RATE_SECONDS`` per player, over all tables and sockets (a sliding
  window in Redis, one round trip): the next is refused with ``chat_rate_limited`` and ``retry_after``, and
  nothing is stored. The stored message goes to the table as ``chat.message`` after commit.
- :func:`chat_delete`, :func:`chat_mute`, :func:`chat_unmute`: operators (``tables.moderate_chat``: Table
  operators and Supervisors, ``baccarat_site/roles.py``), each with a reason, audited like every operator action
  (``baccarat_site.audit``: the actor, the reason, before and after). A delete marks the row (the admin keeps what
  was said) and sends ``chat.deleted`` so open pages remove it.

The text is stored and sent as the player typed it (cleaned, not escaped): pages write it with ``textContent``
and templates autoescape, so markup in a message is shown as text everywhere.
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
import uuid
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection, transaction
from django.utils import timezone

from baccarat_site.accounts.models import Restriction
from baccarat_site.accounts.selectors import ACTIVE_RESTRICTION_JOIN
from baccarat_site.accounts.services import restriction_refusal
from baccarat_site.audit import audit
from baccarat_site.errors import DomainError, NotFound
from baccarat_site.redis_client import redis_client
from tables.events import table_chat_event
from tables.models import ChatMessage, ChatMute, Table
from tables.selectors.chat import active_mute, chat_body

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

MODERATE_PERMISSION = "tables.moderate_chat"
MAX_MUTE_MINUTES = 60 * 24 * 30  # 30 days; a longer stop is a suspension (accounts)

# Removed from a message: the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
# which could reorder the text shown after the message. Joiners (ZWJ/ZWNJ) stay: Persian and Hindi need them.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
_SPACES = re.compile(r"\s+")


class ChatRefused(DomainError):
    status = 400


class ChatRateLimited(DomainError):
    """Over ``CHAT_RATE_COUNT`` in ``CHAT_RATE_SECONDS``: the body carries ``retry_after`` (seconds)."""

    code = "chat_rate_limited"
    status = 429

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"You are sending messages too fast; wait {retry_after:.1f} s.")
        self.retry_after = round(retry_after, 3)

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "retry_after": self.retry_after}


def chat_clean(text: Any) -> str:
    """The message as it will be stored, or a :class:`ChatRefused` (``invalid_request``, ``chat_empty``,
    ``chat_too_long``)."""
    if not isinstance(text, str):
        raise ChatRefused("text must be a string.", code="invalid_request")
    normal = unicodedata.normalize("NFC", text)
    kept = "".join(
        " " if ch in "\t\n\r\v\f" else ch for ch in normal if ch in "\t\n\r\v\f" or unicodedata.category(ch) != "Cc"
    )
    cleaned: str = _SPACES.sub(" ", _BIDI_CONTROLS.sub("", kept)).strip()
    if not cleaned:
        raise ChatRefused("The message is empty.", code="chat_empty")
    if len(cleaned) > settings.CHAT_MAX_CHARS:
        raise ChatRefused(
            f"A message is at most {settings.CHAT_MAX_CHARS} characters (this one has {len(cleaned)}).",
            code="chat_too_long",
        )
    return cleaned


# ── the per-player rate: a sliding window in Redis ──────────────────────────

_RATE_SCRIPT = """
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return tonumber(oldest[2]) + window - now
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], window)
return -1
"""
_scripts: dict[int, Any] = {}


def chat_rate_take(*, user_id: int) -> float | None:
    """Count one message of this player. None: go ahead; else the seconds until the next is allowed. If Redis
    cannot be reached the message goes through (logged): a throttle never stops a conversation on its own."""
    client = redis_client()
    script = _scripts.get(id(client))
    if script is None:
        script = _scripts[id(client)] = client.register_script(_RATE_SCRIPT)
    window_ms = settings.CHAT_RATE_SECONDS * 1000
    try:
        wait_ms = script(
            keys=[cache.make_key(f"throttle:chat:{user_id}")],
            args=[int(time.time() * 1000), window_ms, settings.CHAT_RATE_COUNT, uuid.uuid4().hex],
        )
    except Exception:
        logger.warning("chat rate: Redis unavailable, letting the message through", exc_info=True)
        return None
    return None if int(wait_ms) < 0 else max(int(wait_ms), 1) / 1000


# ── players ─────────────────────────────────────────────────────────────────


# Everything that decides whether a player may write at a table now, in one round trip: the account is active, no
# restriction (accounts.Restriction) runs, no chat mute runs, and the table exists and is not retired.
_MAY_WRITE = """
SELECT u.is_active, r.kind, r.ends_at, m.until, t.status
FROM "{users}" u
{restriction}
LEFT JOIN LATERAL (
    SELECT until FROM tables_chatmute
    WHERE player_id = u.id AND lifted_at IS NULL AND until > %s
    ORDER BY until DESC
    LIMIT 1
) m ON true
LEFT JOIN tables_table t ON t.id = %s
WHERE u.id = %s
"""


def chat_may_write(*, user: User, table_id: int, now: datetime | None = None) -> None:
    """Refuse (``DomainError``) a player who may not write at ``table_id`` now: signed out, disabled,
    restricted, muted; or a table that is gone. Read now, not at sign-in (one query); ``now`` defaults to the
    clock."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise DomainError("Sign in to chat.", code="not_authenticated", status=401)
    now = now or timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            _MAY_WRITE.format(users=get_user_model()._meta.db_table, restriction=ACTIVE_RESTRICTION_JOIN),
            [now, now, now, table_id, user.pk],
        )
        row = cursor.fetchone()
    if row is None or not row[0]:
        raise DomainError("This account is disabled.", code="account_disabled", status=403)
    _active, kind, ends_at, muted_until, status = row
    if kind is not None:
        raise restriction_refusal(Restriction(user_id=user.pk, kind=kind, ends_at=ends_at))
    if muted_until is not None:
        raise DomainError(
            f"You cannot write in the chat until {muted_until:%Y-%m-%d %H:%M} UTC.", code="chat_muted", status=403
        )
    if status is None or status == Table.Status.RETIRED:
        raise NotFound("No such table.", code="table_not_found")


def chat_send(*, user: User, table_id: int, text: Any, now: datetime | None = None) -> dict[str, Any]:
    """Store ``user``'s message at ``table_id`` and announce it (``chat.message``) once committed; returns the
    message's body. Refusals, in this order (each changes nothing): the text, the player and the table, the rate.

    The hot path of the chat is three round trips: the checks (one query), the rate (one Redis script) and the
    INSERT, committed on its own (autocommit: a single row needs no transaction around it), after which the
    event leaves (``transaction.on_commit`` runs it at once outside a transaction, or after the caller's). ``now``
    (default: the clock) is when it was written: the mutes and restrictions are read at it, and it is stamped."""
    now = now or timezone.now()
    text = chat_clean(text)
    chat_may_write(user=user, table_id=table_id, now=now)
    retry_after = chat_rate_take(user_id=user.pk)
    if retry_after is not None:
        raise ChatRateLimited(retry_after)
    message = ChatMessage.objects.create(table_id=table_id, author_id=user.pk, text=text, created_at=now)
    body = chat_body(message, author_name=user.get_username())
    table_chat_event(table_id, {"type": "chat.message", **body})
    return body


# ── operators ───────────────────────────────────────────────────────────────


def _moderator(actor: User | None) -> User:
    """``actor``, who must moderate the chat (403 ``not_allowed`` otherwise)."""
    if actor is None or not actor.has_perm(MODERATE_PERMISSION):
        raise DomainError("Only staff who moderate the chat may do this.", code="not_allowed", status=403)
    return actor


def _operator_reason(actor: User | None, reason: str) -> str:
    _moderator(actor)
    reason = (reason or "").strip()
    if len(reason) < 3:
        raise DomainError(
            "Give a reason (at least 3 characters): it is kept in the audit trail.", code="reason_required"
        )
    return reason[:200]


@transaction.atomic
def chat_delete(*, message_id: int, actor: User | None, reason: str, now: datetime | None = None) -> bool:
    """Delete a message (an operator, with a reason): it leaves every open page (``chat.deleted``) and the
    history; the admin still shows it, marked. Deleting a deleted message changes nothing (False). Audited.
    ``now`` (default: the clock) stamps ``deleted_at``."""
    now = now or timezone.now()
    reason = _operator_reason(actor, reason)
    message = ChatMessage.objects.select_for_update().filter(pk=message_id).first()
    if message is None:
        raise NotFound("No such chat message.")
    done = ChatMessage.objects.filter(pk=message_id, deleted_at__isnull=True).update(deleted_at=now, deleted_by=actor)
    if not done:
        return False
    audit(
        actor=actor,
        action="chat.delete",
        target=message,
        reason=reason,
        before={"deleted_at": None},
        after={"deleted_at": now},
        extra={"table_id": message.table_id, "author_id": message.author_id, "text": message.text},
    )
    table_chat_event(message.table_id, {"type": "chat.deleted", "table_id": message.table_id, "id": message.pk})
    return True


@transaction.atomic
def chat_mute(*, player: User, minutes: int, reason: str, actor: User | None, now: datetime | None = None) -> ChatMute:
    """Keep ``player`` from writing in any table's chat for ``minutes`` (1 to 30 days' worth) from ``now``
    (default: the clock). A mute that already runs longer stays as it is (returned). Audited."""
    now = now or timezone.now()
    actor = _moderator(actor)
    reason = _operator_reason(actor, reason)
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not 1 <= minutes <= MAX_MUTE_MINUTES:
        raise DomainError(f"Mute for 1 to {MAX_MUTE_MINUTES} minutes.", code="invalid_duration")
    if player.pk == actor.pk:
        raise DomainError("No one mutes themselves.", code="not_allowed", status=403)
    type(player).objects.select_for_update().filter(pk=player.pk).first()  # one decision at a time per player
    until: datetime = now + timedelta(minutes=minutes)
    running = active_mute(player.pk, now=now)
    if running is not None and running.until >= until:
        return running
    mute = ChatMute.objects.create(player=player, until=until, reason=reason, by=actor)
    audit(
        actor=actor,
        action="chat.mute",
        target=player,
        reason=reason,
        before={"chat_muted_until": running.until if running else None},
        after={"chat_muted_until": until},
        extra={"minutes": minutes},
    )
    return mute


@transaction.atomic
def chat_unmute(*, player: User, reason: str, actor: User | None, now: datetime | None = None) -> int:
    """Lift every mute of ``player`` in force at ``now`` (default: the clock), stamping ``lifted_at`` with it.
    Returns how many; audited when there was one."""
    now = now or timezone.now()
    reason = _operator_reason(actor, reason)
    running = active_mute(player.pk, now=now)
    lifted = ChatMute.objects.filter(player=player, lifted_at__isnull=True, until__gt=now).update(
        lifted_at=now, lifted_by=actor
    )
    if lifted:
        audit(
            actor=actor,
            action="chat.unmute",
            target=player,
            reason=reason,
            before={"chat_muted_until": running.until if running else None},
            after={"chat_muted_until": None},
        )
    return lifted
