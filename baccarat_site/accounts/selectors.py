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
