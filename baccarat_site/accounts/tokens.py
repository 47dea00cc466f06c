"""API tokens that expire: ``Authorization: Token …`` keys are good for ``API_TOKEN_TTL_SECONDS`` after they
were issued. ``POST /api/auth/token/`` hands out the player's current key, or a new one once it has expired
(the old key then stops working); signing in again never extends a key."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token


def token_expires_at(created: datetime) -> datetime:
    return created + timedelta(seconds=settings.API_TOKEN_TTL_SECONDS)


def token_expired(created: datetime) -> bool:
    return timezone.now() >= token_expires_at(created)


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's token check, refusing a key past its lifetime (401 ``authentication_failed``)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        user, token = super().authenticate_credentials(key)
        if token_expired(token.created):
            raise exceptions.AuthenticationFailed("This token has expired: ask POST /api/auth/token/ for a new one.")
        return user, token
