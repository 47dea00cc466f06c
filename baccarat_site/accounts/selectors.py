"""Reads for the account pages and the header."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone
from rest_framework.authtoken.models import Token

from baccarat_site.accounts.limits import reality_check_due_at
from baccarat_site.accounts.models import PlayerLimit, PlayLimit, Profile, RealityCheckAnswer, Restriction, SignIn
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.money import display, text
from wallets.selectors import RefillStatus, wallet_balance, wallet_refill_status

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest


def profile_of(*, user: User) -> Profile:
    """The player's preferences (defaults, unsaved, for a player who has none yet)."""
    return Profile.objects.filter(user=user).first() or Profile(user=user)


def personal_limits_of(*, user: User) -> dict[str, str] | None:
    """The player's personal limits as the API shows them, ``{"max_stake": "100.00"}``, or None when they have
    none (docs/api.md ``personal_limits``)."""
    max_stake = PlayerLimit.objects.filter(user_id=user.pk).values_list("max_stake", flat=True).first()
    return None if max_stake is None else {"max_stake": text(max_stake)}


@dataclass(frozen=True)
class AccountHeader:
    balance: str | None  # "1,234.00"; None for staff, who do not play (a dealer's console showed "0.00")
    sound: str  # "on" | "off"
    # The player's reality check (accounts.limits): every so many minutes from the session's start (their latest
    # sign-in), every page reminds them how long they have played (base.html, reality-check.js). None: off.
    reality_every: int | None = None
    reality_since: datetime | None = None
    # When the next check is due: an interval after the later of the session's start and the latest answer
    # (accounts.RealityCheckAnswer). Bets are refused from then until the player answers.
    reality_due_at: datetime | None = None


def account_header(*, user: User) -> AccountHeader:
    """What every page's header shows a signed-in player: the balance and the sound preference."""
    now = timezone.now()
    # One query: the sound preference, the reality check in force (the newest applied change of it: see
    # accounts.models.PlayLimit), the latest sign-in and the latest answer to the reality check.
    row = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .values(
            sound=Subquery(Profile.objects.filter(user=OuterRef("pk")).values("sound")[:1]),
            every=Subquery(
                PlayLimit.objects.filter(
                    user=OuterRef("pk"), kind="reality_check_minutes", cancelled_at__isnull=True, applies_at__lte=now
                )
                .order_by("-id")
                .values("value")[:1]
            ),
            since=Subquery(SignIn.objects.filter(user=OuterRef("pk")).order_by("-at").values("at")[:1]),
            answered=Subquery(
                RealityCheckAnswer.objects.filter(user=OuterRef("pk"))
                .order_by("-answered_at")
                .values("answered_at")[:1]
            ),
        )
        .first()
    ) or {"sound": False, "every": None, "since": None, "answered": None}
    every = row["every"] if row["since"] is not None else None
    return AccountHeader(
        balance=None if user.is_staff else display(wallet_balance(user=user)["balance"]),
        sound="on" if row["sound"] else "off",
        reality_every=int(every) if every is not None else None,
        reality_since=row["since"] if every is not None else None,
        reality_due_at=(
            reality_check_due_at(every=int(every), since=row["since"], answered_at=row["answered"])
            if every is not None
            else None
        ),
    )


def refill_status(*, user: User, minimum_stake: Decimal) -> RefillStatus:
    """Whether the player may refill now (``wallets.selectors.wallet_refill_status``), against the smallest
    stake the tables take, which they give (``tables.selectors.tables.table_minimum_stake``)."""
    return wallet_refill_status(user=user, minimum_stake=minimum_stake)


def session_user(*, session_key: str | None) -> Any | None:
    """The active user a session signs in *now*, read afresh from the session store and the database: None
    after a logout, a password change (the session's hash no longer matches) or a deactivation. A socket
    checks it before each bet, since its own user was fixed when it connected."""
    if not session_key:
        return None

    class _Request:
        session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)

    # get_user reads only request.session. The backend refuses inactive users; the hash check catches the rest.
    user = auth.get_user(cast("HttpRequest", _Request()))
    return user if user.is_authenticated else None


#: :func:`active_restriction` as SQL, for the paths that read it with other facts in one round trip (a bet's
#: placement, a chat message): a join of the row aliased ``r`` (``kind``, ``ends_at``, all NULL when nothing stops
#: the player) for the user aliased ``u``, with the moment as its two parameters.
ACTIVE_RESTRICTION_JOIN = """LEFT JOIN LATERAL (
    SELECT kind, ends_at FROM accounts_restriction
    WHERE user_id = u.id AND lifted_at IS NULL AND starts_at <= %s AND (ends_at IS NULL OR ends_at > %s)
    ORDER BY ends_at DESC NULLS FIRST
    LIMIT 1
) r ON true"""


def active_restriction(*, user_id: int, now: datetime | None = None) -> Restriction | None:
    """The restriction that stops the player now (the one ending last; a permanent one first), or None."""
    moment = now or timezone.now()
    found = (
        Restriction.objects.filter(user_id=user_id, lifted_at__isnull=True, starts_at__lte=moment)
        .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=moment))
        .order_by(F("ends_at").desc(nulls_first=True))
        .first()
    )
    return found


def restriction_history(*, user_id: int) -> list[Restriction]:
    """Every restriction the player has had, newest first (the admin's player page)."""
    return list(Restriction.objects.filter(user_id=user_id).select_related("created_by", "lifted_by"))


@dataclass(frozen=True)
class ApiTokenView:
    """The player's API token as the profile shows it: never the key, only its last four characters."""

    created: datetime
    expires_at: datetime
    expired: bool
    last4: str


def api_token_of(*, user: User) -> ApiTokenView | None:
    """The player's API token (DRF's authtoken keeps one per user), or None."""
    token = Token.objects.filter(user_id=user.pk).only("key", "created").first()
    if token is None:
        return None
    return ApiTokenView(
        created=token.created,
        expires_at=token_expires_at(token.created),
        expired=token_expired(token.created),
        last4=token.key[-4:],
    )


# ── the person behind the accounts: linked accounts ─────────────────────────


def identity_key_sql(column: str) -> str:
    """SQL for the key two names share when they are one person's: case-folded, a ``+tag`` dropped (up to the
    ``@`` of an e-mail), dots, hyphens and underscores dropped, and the digits that pass for letters read as
    them (0 o; 1, i and l one letter; 3 e, 4 a, 5 s, 7 t, 8 b): ``Alice``, ``a.lice``, ``alice+2`` and ``al1ce``
    are one key."""
    return rf"translate(lower(regexp_replace({column}, '\+[^@]*', '', 'g')), '0134578i._-', 'oleastbl')"


@dataclass(frozen=True)
class LinkedAccount:
    """Another account that looks like the same person's: its id and name, what links them (``device``,
    ``address``, ``name``), and the stop on its play now (None: it may play)."""

    user_id: int
    username: str
    via: tuple[str, ...]
    stop_kind: str | None = None
    stop_ends_at: datetime | None = None


def _links_sql(*, stopped_only: bool) -> str:
    users = get_user_model()._meta.db_table
    me = identity_key_sql("%(name)s")
    candidates = (
        """SELECT DISTINCT ON (r.user_id) r.user_id, r.kind, r.ends_at FROM accounts_restriction r
           WHERE r.lifted_at IS NULL AND r.starts_at <= %(now)s AND (r.ends_at IS NULL OR r.ends_at > %(now)s)
           ORDER BY r.user_id, r.ends_at DESC NULLS FIRST"""
        if stopped_only
        else f"""SELECT u.id AS user_id, NULL::varchar AS kind, NULL::timestamptz AS ends_at FROM {users} u
           WHERE u.id IN (
               SELECT o.user_id FROM accounts_signin o
               WHERE o.device_id <> '' AND o.device_id = ANY(%(devices)s)
               UNION SELECT o.user_id FROM accounts_signin o
               WHERE o.ip_address = ANY(%(addresses)s::inet[]) AND o.at > %(since)s
               UNION SELECT v.id FROM {users} v WHERE {identity_key_sql("v.username")} = {me}
               UNION SELECT v.id FROM {users} v
               WHERE v.email <> '' AND (
                   {identity_key_sql("split_part(v.email, '@', 1)")} = {me}
                   OR (%(email)s <> '' AND {identity_key_sql("v.email")} = {identity_key_sql("%(email)s")})
               )
           )"""  # noqa: S608 - only constants and %(…)s parameters
    )
    return f"""
SELECT * FROM (
    SELECT c.user_id, u.username, c.kind, c.ends_at,
        EXISTS (SELECT 1 FROM accounts_signin i WHERE i.user_id = c.user_id AND i.device_id <> ''
                AND i.device_id = ANY(%(devices)s)) AS by_device,
        EXISTS (SELECT 1 FROM accounts_signin i WHERE i.user_id = c.user_id
                AND i.ip_address = ANY(%(addresses)s::inet[]) AND i.at > %(since)s) AS by_address,
        ({identity_key_sql("u.username")} = {me}
         OR (u.email <> '' AND {identity_key_sql("split_part(u.email, '@', 1)")} = {me})
         OR (%(email)s <> '' AND u.email <> '' AND {identity_key_sql("u.email")} = {identity_key_sql("%(email)s")})
        ) AS by_name
    FROM ({candidates}) c JOIN {users} u ON u.id = c.user_id
    WHERE c.user_id IS DISTINCT FROM %(me)s
) links
WHERE by_device OR by_address OR by_name
ORDER BY username
"""  # noqa: S608 - only constants and %(…)s parameters


def linked_accounts(
    *,
    devices: list[str],
    addresses: list[str],
    name: str,
    email: str = "",
    since: datetime,
    exclude_user_id: int | None = None,
    stopped_only: bool = False,
    now: datetime | None = None,
) -> list[LinkedAccount]:
    """The accounts that look like the same person's as these facts: one of ``devices`` signed in to them, one of
    ``addresses`` did after ``since``, or their name or e-mail has the same :func:`identity_key_sql` as ``name``
    (or ``email``). ``stopped_only``: only the accounts a restriction stops at ``now`` (with that stop), as a
    sign-up and a sign-in check them; otherwise every linked account (the admin's player page)."""
    moment = now or timezone.now()
    params: dict[str, Any] = {
        "devices": [d for d in devices if d],
        "addresses": [a for a in addresses if a],
        "name": name,
        "email": email or "",
        "since": since,
        "now": moment,
        "me": exclude_user_id,
    }
    with connection.cursor() as cursor:
        cursor.execute(_links_sql(stopped_only=stopped_only), params)
        rows = cursor.fetchall()
    out = []
    for user_id, username, kind, ends_at, by_device, by_address, by_name in rows:
        via = tuple(w for w, on in (("device", by_device), ("address", by_address), ("name", by_name)) if on)
        out.append(LinkedAccount(user_id=user_id, username=username, via=via, stop_kind=kind, stop_ends_at=ends_at))
    return out


def linked_accounts_of(*, user: User, now: datetime | None = None) -> list[LinkedAccount]:
    """The admin's player page: every other account linked to ``user`` by a device one of their sign-ins used,
    an address both used within the last ``LINKED_ADDRESS_DAYS``, or a name or e-mail with the same key, each
    with the stop on its play now."""
    moment = now or timezone.now()
    since = moment - timedelta(days=settings.LINKED_ADDRESS_DAYS)
    seen = SignIn.objects.filter(user_id=user.pk)
    devices = sorted(set(seen.exclude(device_id="").values_list("device_id", flat=True)))
    addresses = sorted({str(a) for a in seen.filter(at__gt=since).values_list("ip_address", flat=True) if a})
    found = linked_accounts(
        devices=devices,
        addresses=addresses,
        name=user.get_username(),
        email=user.email or "",
        since=since,
        exclude_user_id=user.pk,
        now=moment,
    )
    stops = {
        s.user_id: s
        for s in (
            Restriction.objects.filter(user_id__in=[f.user_id for f in found], lifted_at__isnull=True)
            .filter(starts_at__lte=moment)
            .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=moment))
            .order_by("user_id", F("ends_at").asc(nulls_last=True))
        )
    }
    return [
        LinkedAccount(
            user_id=f.user_id,
            username=f.username,
            via=f.via,
            stop_kind=stops[f.user_id].kind if f.user_id in stops else None,
            stop_ends_at=stops[f.user_id].ends_at if f.user_id in stops else None,
        )
        for f in found
    ]
