"""Reads for the account pages and the header."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from rest_framework.authtoken.models import Token

from baccarat_site.accounts.models import Profile
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.money import display
from tables.selectors.tables import table_minimum_stake
from wallets.selectors import RefillStatus, wallet_balance, wallet_refill_status

if TYPE_CHECKING:
    from django.http import HttpRequest


def profile_of(*, user: Any) -> Profile:
    """The player's preferences (defaults, unsaved, for a player who has none yet)."""
    return Profile.objects.filter(user=user).first() or Profile(user=user)


@dataclass(frozen=True)
class AccountHeader:
    balance: str  # "1,234.00"
    sound: str  # "on" | "off"


def account_header(*, user: Any) -> AccountHeader:
    """What every page's header shows a signed-in player: the balance and the sound preference."""
    profile = Profile.objects.filter(user=user).values("sound").first()
    return AccountHeader(
        balance=display(wallet_balance(user=user)["balance"]),
        sound="on" if profile and profile["sound"] else "off",
    )


def refill_status(*, user: Any) -> RefillStatus:
    """Whether the player may refill now (``wallets.selectors.wallet_refill_status``, against the smallest
    stake the tables take)."""
    return wallet_refill_status(user=user, minimum_stake=table_minimum_stake())


def session_user(*, session_key: str | None) -> Any | None:
    """The active user a session signs in *now*, read afresh from the session store and the database: None
    after a logout, a password change (the session's hash no longer matches) or a deactivation. A socket
    checks it before each bet, since its own user was fixed when it connected."""
    if not session_key:
        return None
    from importlib import import_module

    from django.conf import settings
    from django.contrib import auth

    class _Request:
        session = import_module(settings.SESSION_ENGINE).SessionStore(session_key)

    # get_user reads only request.session. The backend refuses inactive users; the hash check catches the rest.
    user = auth.get_user(cast("HttpRequest", _Request()))
    return user if user.is_authenticated else None


@dataclass(frozen=True)
class ApiTokenView:
    """The player's API token as the profile shows it: never the key, only its last four characters."""

    created: datetime
    expires_at: datetime
    expired: bool
    last4: str


def api_token_of(*, user: Any) -> ApiTokenView | None:
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
