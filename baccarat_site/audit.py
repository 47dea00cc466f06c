"""The operators' audit trail: every configuration change, staff account change and operator action, with who,
when, what, before, after; kept append-only by the database.

What is audited:

* **Configuration rows** (variants, their bet rows, tables; ``tables/models/``) and **staff accounts**: users
  (every field but ``last_login``; the password hash is never recorded, only that it changed: ``(hidden)``),
  groups, and the many-to-many grants (a user's groups and permissions, a group's permissions;
  ``baccarat_site/accounts/apps.py``) are registered with ``django-auditlog``, which records each save.
* **Operator actions** that are not a plain save (pause, resume, cancel and refund, money movements, a fault
  pausing a table) are recorded with :func:`audit` by the service that performs them, inside the same
  transaction.

Who: every entry, whichever path made it, gets ``additional_data["actor_name"]``, the actor's username at the
time (:func:`stamp_entry`, a ``pre_save`` receiver of ``LogEntry``), besides auditlog's ``actor`` link and
``actor_email``. In the admin the actor is the signed-in user (:class:`AuditMiddleware`). A management command
runs inside :func:`from_command`: its entries carry the operating-system user (``os_user``, from
``getpass.getuser()``), ``"via": "command"``, the command's name and the operator's mandatory reason.

The trail is append-only: a trigger on ``auditlog_logentry`` refuses UPDATE and DELETE
(``baccarat_site/accounts/migrations/0006_audit_append_only.py``). So a user who is the actor of any entry
cannot be deleted (deleting would null the entries' ``actor``): deactivate the account instead; the admin says
so, and :func:`refuse_deleting_an_actor` refuses it in code before the database does.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from auditlog.middleware import AuditlogMiddleware
from auditlog.models import LogEntry
from django.conf import settings
from django.db.models import Model, ProtectedError
from django.http import HttpRequest, HttpResponse

from baccarat_site.client_address import client_address

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

# Who is acting, for the entries of the current request or command: {"request": …} or {"os_user": …, …}.
_acting: ContextVar[dict[str, Any] | None] = ContextVar("baccarat_audit_acting", default=None)


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def audit(
    *,
    actor: User | AnonymousUser | None,
    action: str,
    target: Model,
    reason: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
) -> LogEntry:
    """Record that ``actor`` did ``action`` (e.g. ``"table.pause"``) to ``target``.

    ``before``/``after`` are the values that changed, ``{field: value}``; they are stored as auditlog's
    ``changes`` (``{field: [before, after]}``), and ``action``, ``reason`` and ``extra`` (e.g. the round a
    table action concerned) in ``additional_data``. ``actor`` None: a command (its OS user is stamped) or the
    system (a fault).
    """
    before, after = before or {}, after or {}
    changes = {key: [_plain(before.get(key)), _plain(after.get(key))] for key in {*before, *after}}
    user = actor if getattr(actor, "is_authenticated", False) else None
    return LogEntry.objects.log_create(
        target,
        force_log=True,
        action=LogEntry.Action.UPDATE,
        changes=changes,
        actor=user,
        additional_data={**_plain(extra or {}), "action": action, "reason": reason},
    )


def os_user() -> str:
    """The operating-system user running this process (``getpass.getuser()``), or its uid if it has no name."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}"


@contextmanager
def from_command(*, command: str, reason: str) -> Iterator[None]:
    """Every audit entry made inside is stamped with the OS user, ``via: command``, the command and ``reason``
    (kept if the entry has a reason of its own)."""
    token = _acting.set({"os_user": os_user(), "via": "command", "command": command, "reason": reason})
    try:
        yield
    finally:
        _acting.reset(token)


def _reason_text(value: str) -> str:
    text = " ".join(value.split())
    if not text:
        raise argparse.ArgumentTypeError("a reason is required: say why (it goes into the audit trail)")
    return text[:200]


def add_reason_argument(parser: argparse.ArgumentParser) -> None:
    """The mandatory ``--reason TEXT`` of a command whose action is audited (blank is refused)."""
    parser.add_argument(
        "--reason", required=True, type=_reason_text, help="Why (required): recorded in the audit trail."
    )


class AuditMiddleware(AuditlogMiddleware):
    """auditlog's middleware (actor, address, correlation id), plus the request for :func:`stamp_entry`, which
    needs the actor before auditlog's own per-request receiver has set it.

    The address is the client's (:func:`baccarat_site.client_address.client_address`): auditlog's own takes the
    left-most ``X-Forwarded-For`` from anyone, which the client writes, and its port from a client-sent
    ``X-Forwarded-Port``; an entry records neither claim."""

    @staticmethod
    def _get_remote_addr(request: HttpRequest) -> str | None:
        if getattr(settings, "AUDITLOG_DISABLE_REMOTE_ADDR", False):
            return None
        return client_address(request) or None

    @staticmethod
    def _get_remote_port(request: HttpRequest) -> int | None:
        return None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = _acting.set({"request": request})
        try:
            response: HttpResponse = super().__call__(request)
            return response
        finally:
            _acting.reset(token)


def _request_user(acting: dict[str, Any]) -> Any:
    user = getattr(acting.get("request"), "user", None)
    return user if getattr(user, "is_authenticated", False) else None


def stamp_entry(sender: Any, instance: LogEntry, **kwargs: Any) -> None:
    """``pre_save`` of a new ``LogEntry``: the actor (the request's user if the entry has none), its username as
    ``additional_data["actor_name"]`` and email, and for a command its OS user, command and reason."""
    if instance.pk is not None or kwargs.get("raw"):
        return
    acting = _acting.get() or {}
    data = instance.additional_data
    data = dict(data) if isinstance(data, dict) else ({} if data is None else {"data": data})
    actor = instance.actor or _request_user(acting)
    if actor is not None:
        instance.actor = actor
        instance.actor_email = instance.actor_email or getattr(actor, "email", None) or None
        data.setdefault("actor_name", actor.get_username())
    if acting.get("via") == "command":
        data.setdefault("os_user", acting["os_user"])
        data.setdefault("via", "command")
        data.setdefault("command", acting["command"])
        if not data.get("reason"):
            data["reason"] = acting["reason"]
    instance.additional_data = data


def who(entry: LogEntry) -> str:
    """Who made an entry, from what the entry itself stores (so a renamed or missing account changes nothing):
    the username, else the OS user of a command, else the system."""
    data = entry.additional_data if isinstance(entry.additional_data, dict) else {}
    if data.get("actor_name"):
        name = str(data["actor_name"])
        return f"{name} (os user {data['os_user']})" if data.get("os_user") else name
    if data.get("os_user"):
        return f"os user {data['os_user']} (command {data.get('command', '?')})"
    if data.get("via") == "fault":
        return "system (fault)"
    if entry.actor_id is not None:  # an entry from before names were stored
        return str(entry.actor)
    return "system"


def hide_password(value: str) -> str:
    """auditlog's mask for the password field: whether there is one, never any part of the hash."""
    if value in ("", "None"):
        return "(none)"
    return "(unusable)" if value.startswith("!") else "(hidden)"


def refuse_deleting_an_actor(sender: Any, instance: Any, **kwargs: Any) -> None:
    """``pre_delete`` of a user: refused while any audit entry names them as its actor (the trail is
    append-only; deleting would null those entries' actor). Deactivate the account instead."""
    entries = LogEntry.objects.filter(actor_id=instance.pk)
    if entries.exists():
        raise ProtectedError(
            f"{instance.get_username()} is the actor of audit entries, which are kept unchanged: "
            "deactivate the account (untick Active) instead of deleting it.",
            set(entries[:10]),
        )
