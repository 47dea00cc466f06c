"""Everything the accounts app writes: a new player (with their starting money), their preferences."""

from __future__ import annotations

import ipaddress
import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from baccarat_site.accounts.models import Profile, SignIn
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.errors import Conflict, DomainError
from tables.selectors.tables import table_minimum_stake
from wallets.models import LedgerTransaction
from wallets.services import wallet_open_player, wallet_refill

LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)


class UsernameTaken(Conflict):
    code = "username_taken"


def player_sign_up(*, form: Any, language: str = "") -> Any:
    """Create the player from a valid sign-up form (Django's UserCreationForm), their profile (``language``:
    the one they signed up in) and their starting play money, all or nothing. Raises :class:`UsernameTaken`
    when another sign-up took the name in the meantime."""
    try:
        with transaction.atomic():
            user = form.save()
            Profile.objects.create(user=user, language=language if language in LANGUAGE_CODES else "")
            wallet_open_player(user=user)
    except IntegrityError as error:
        raise UsernameTaken("That username is taken.") from error
    return user


def profile_update(*, user: Any, language: str | None = None, sound: bool | None = None) -> Profile:
    """Save the player's language (``""``: the browser's) and/or sound preference; ``None`` leaves one as it is."""
    if language is not None and language and language not in LANGUAGE_CODES:
        raise ValueError(f"Unknown language {language!r}.")
    with transaction.atomic():
        profile, _created = Profile.objects.select_for_update().get_or_create(user=user)
        fields = []
        if language is not None:
            profile.language = language
            fields.append("language")
        if sound is not None:
            profile.sound = sound
            fields.append("sound")
        if fields:
            profile.save(update_fields=[*fields, "updated_at"])
    return profile


def api_token_issue(*, request: HttpRequest, username: Any, password: Any) -> tuple[Token, datetime]:
    """The key for these credentials and when it expires. Wrong credentials: 400 ``invalid_credentials``;
    too many of them (django-axes, which sees this like any sign-in): 429 ``too_many_attempts``."""
    if not isinstance(username, str) or not isinstance(password, str) or not username or not password:
        raise DomainError("Send a username and a password.", code="invalid_request")
    user = authenticate(request=request, username=username, password=password)
    if getattr(request, "axes_locked_out", False):
        from baccarat_site.accounts.lockout import CODE, lockout_detail

        raise DomainError(lockout_detail(settings.AXES_COOLOFF_TIME.seconds // 60), code=CODE, status=429)
    if user is None:
        raise DomainError("Unable to sign in with those credentials.", code="invalid_credentials")
    with transaction.atomic():
        token, _created = Token.objects.select_for_update().get_or_create(user=user)
        if token_expired(token.created):
            token.delete()
            token = Token.objects.create(user=user)
        sign_in_record(user=user, request=request, method=SignIn.Method.API_TOKEN)
    return token, token_expires_at(token.created)


def player_refill(*, user: Any) -> LedgerTransaction:
    """Top the player's play money back up (``wallets.services.wallet_refill``), when their balance is below
    the smallest stake the tables take (``tables.selectors.tables.table_minimum_stake``)."""
    return wallet_refill(user=user, minimum_stake=table_minimum_stake())


def sign_in_record(*, user: Any, request: HttpRequest | None, method: str = SignIn.Method.PAGE) -> SignIn:
    """Record a successful sign-in: the address (``REMOTE_ADDR``, or the header a trusted proxy sets, named by
    ``SIGNIN_ADDRESS_HEADER``), the browser and the device cookie. A browser without the cookie is given a new
    device id here; :class:`baccarat_site.accounts.middleware.DeviceCookieMiddleware` sets it on the response."""
    address, agent, device = None, "", ""
    if request is not None:
        meta = request.META
        raw = meta.get(settings.SIGNIN_ADDRESS_HEADER or "REMOTE_ADDR") or meta.get("REMOTE_ADDR") or ""
        address = _valid_address(str(raw).split(",")[0].strip())
        agent = str(meta.get("HTTP_USER_AGENT", ""))[:300]
        device = _device_id_of(request)
        if not device and method == SignIn.Method.PAGE:
            device = secrets.token_urlsafe(24)
            request.new_device_id = device  # type: ignore[attr-defined]
    return SignIn.objects.create(user=user, method=method, ip_address=address, user_agent=agent, device_id=device)


def _valid_address(raw: str) -> str | None:
    try:
        return str(ipaddress.ip_address(raw)) if raw else None
    except ValueError:
        return None


def _device_id_of(request: HttpRequest) -> str:
    """The browser's device cookie, if it looks like one of ours (random URL-safe text, at most 64 characters)."""
    value = request.COOKIES.get(settings.DEVICE_COOKIE_NAME, "")
    return value if 16 <= len(value) <= 64 and value.replace("-", "").replace("_", "").isalnum() else ""
