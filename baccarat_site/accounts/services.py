"""Everything the accounts app writes: a new player (with their starting money), their preferences."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from baccarat_site.accounts.models import Profile
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.errors import Conflict, DomainError
from tables.events import send_on_commit, user_group
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
    return token, token_expires_at(token.created)


def player_refill(*, user: Any) -> LedgerTransaction:
    """Top the player's play money back up (``wallets.services.wallet_refill``), when their balance is below
    the smallest stake the tables take (``tables.selectors.tables.table_minimum_stake``)."""
    return wallet_refill(user=user, minimum_stake=table_minimum_stake())


# ── credentials that end: sign-out, password change ─────────────────────────

#: The group message (to ``user_<id>``) that closes a player's open table sockets (tables.consumers, close code
#: 4401): with a ``session_key``, only the sockets of that session; without, all of them.
SESSION_ENDED = "session.ended"


def api_token_revoke(*, user: Any) -> bool:
    """Delete the player's API token (DRF's authtoken: one per user), so its key answers 401 from now on.
    Whether there was one."""
    deleted, _detail = Token.objects.filter(user_id=user.pk).delete()
    return deleted > 0


def sockets_close(*, user: Any, session_key: str | None = None, reason: str) -> None:
    """After commit, close the player's open table sockets (those of ``session_key`` alone when given): a socket
    is signed in once, when it connects, and would otherwise keep receiving the balance and the player's own
    bets after the session that opened it ended."""
    send_on_commit(user_group(user.pk), {"type": SESSION_ENDED, "session_key": session_key, "reason": reason})


def account_signed_out(*, user: Any, session_key: str | None) -> None:
    """A player signed out (the site's sign-out, or ``POST /api/auth/logout/``): their API token is revoked and
    the sockets of that session are closed."""
    with transaction.atomic():
        api_token_revoke(user=user)
        sockets_close(user=user, session_key=session_key, reason="signed_out")


def account_password_changed(*, user: Any) -> None:
    """A player's password changed, by any path (the password page, the admin, ``changepassword``): their API
    token is revoked and every open socket of theirs is closed (the sessions it invalidated reconnect as
    watchers; the one that changed it reconnects signed in)."""
    with transaction.atomic():
        api_token_revoke(user=user)
        sockets_close(user=user, reason="password_changed")
