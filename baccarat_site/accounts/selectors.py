"""Reads for the account pages and the header."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import get_user_model
from django.db.models import F, OuterRef, Q, Subquery, Sum
from django.utils import timezone
from rest_framework.authtoken.models import Token

from baccarat_site import money
from baccarat_site.accounts.limits import reality_check_due_at
from baccarat_site.accounts.models import PlayerLimit, PlayLimit, Profile, RealityCheckAnswer, Restriction, SignIn
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.money import display, text
from tables.models import Bet
from tables.selectors.outcomes import bet_payout
from tables.selectors.tables import table_minimum_stake
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


@dataclass(frozen=True)
class SessionTotals:
    """What the player staked and won back since the session's start (their latest sign-in): the reality check."""

    staked: Decimal  # every bet placed since the start, open ones too
    returned: Decimal  # the payouts of those settled so far
    pending: Decimal  # the stakes of those still open

    @property
    def net(self) -> Decimal:
        """Returned minus the stakes of settled bets (an open bet counts once it is settled), as the bet record."""
        return self.returned - (self.staked - self.pending)


def session_totals(*, user: User) -> SessionTotals:
    """The stakes and returns of the bets the player placed since their latest sign-in, in one aggregate query
    (nothing before a first sign-in)."""
    start = SignIn.objects.filter(user=OuterRef("user")).order_by("-at").values("at")[:1]
    row = (
        Bet.objects.filter(user_id=user.pk, placed_at__gte=Subquery(start))
        .order_by()
        .aggregate(
            staked=Sum("amount"),
            returned=Sum(bet_payout()),
            pending=Sum("amount", filter=Q(outcome__status__isnull=True)),
        )
    )
    zero = money.ZERO
    return SessionTotals(staked=row["staked"] or zero, returned=row["returned"] or zero, pending=row["pending"] or zero)


def refill_status(*, user: User) -> RefillStatus:
    """Whether the player may refill now (``wallets.selectors.wallet_refill_status``, against the smallest
    stake the tables take)."""
    return wallet_refill_status(user=user, minimum_stake=table_minimum_stake())


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
