"""Reads for the account pages and the header."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from baccarat_site.accounts.models import Profile
from tables.engine import format_money
from wallets.selectors import wallet_balance


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
        balance=format_money(wallet_balance(user=user)["balance"]),
        sound="on" if profile and profile["sound"] else "off",
    )


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

    user = auth.get_user(_Request())  # the backend refuses inactive users; the hash check catches the rest
    return user if user.is_authenticated else None
