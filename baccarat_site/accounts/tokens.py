"""API tokens that expire: ``Authorization: Token …`` keys are good for ``API_TOKEN_TTL_SECONDS`` after they
were issued. ``POST /api/auth/token/`` hands out the player's current key, or a new one once it has expired
(the old key then stops working); signing in again never extends a key."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from baccarat_site.db import prepared_cursor


def token_expires_at(created: datetime) -> datetime:
    return created + timedelta(seconds=settings.API_TOKEN_TTL_SECONDS)


def token_expired(created: datetime) -> bool:
    return timezone.now() >= token_expires_at(created)


class PreparedTokenAuthentication(TokenAuthentication):
    """DRF's ``Authorization: Token …`` check, as one prepared statement, refusing expired keys. The one
    token check of the API (settings' DEFAULT_AUTHENTICATION_CLASSES and the bet endpoint).

    Same rules (unknown or expired key, inactive user → 401 authentication_failed), but the
    token and its user come back from one server-side prepared query instead of an
    ORM query compiled on every request: a quarter of the bet endpoint's CPU went there.
    ``request.auth`` is the key.
    """

    _sql: str | None = None
    _fields: tuple[str, ...] = ()

    def authenticate_credentials(self, key: str) -> tuple[Any, str]:
        user_model = get_user_model()
        sql = self._sql
        if sql is None:
            columns = [field.column for field in user_model._meta.concrete_fields]
            type(self)._fields = tuple(field.attname for field in user_model._meta.concrete_fields)
            select = ", ".join(f'u."{column}"' for column in columns)
            table = user_model._meta.db_table
            # Names come from the model; the key is a bound parameter.
            sql = f'SELECT t.created, {select} FROM authtoken_token t JOIN "{table}" u ON u.id = t.user_id WHERE t.key = %s'  # noqa: S608,E501
            type(self)._sql = sql
        with prepared_cursor() as cursor:
            cursor.execute(sql, [key])
            row = cursor.fetchone()
        if row is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if token_expired(cast("datetime", row[0])):  # t.created: a timestamptz
            raise exceptions.AuthenticationFailed("This token has expired: ask POST /api/auth/token/ for a new one.")
        user = user_model.from_db("default", self._fields, row[1:])
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key
