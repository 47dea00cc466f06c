"""``account`` in every template: the signed-in player's balance and sound preference, read only if used."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from baccarat_site.accounts import selectors


def account(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"account": None}
    return {"account": SimpleLazyObject(lambda: selectors.account_header(user=user))}
