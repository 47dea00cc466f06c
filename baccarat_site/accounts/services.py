"""Everything the accounts app writes: a new player (with their starting money), their preferences."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from baccarat_site.accounts.models import Profile
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.errors import Conflict, DomainError
from tables.events import send_on_commit, user_group
from tables.selectors.tables import table_minimum_stake
from wallets.models import LedgerTransaction
from wallets.services import wallet_open_player, wallet_refill

logger = logging.getLogger(__name__)
LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)


class UsernameTaken(Conflict):
    code = "username_taken"


class TooManySignUps(DomainError):
    """``SIGNUP_LIMIT_PER_ADDRESS`` accounts were made from this address within the hour."""

    code = "too_many_signups"
    status = 429

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


@dataclass(frozen=True)
class SignUpPlace:
    """A sign-up's place in its address's counts: whether it gets the starting money, and the keys to give
    the place back if the account is not made after all."""

    credited: bool
    keys: tuple[str, ...] = ()


# KEYS: the address's hour count, its day count. ARGV: the hour limit, the hour key's TTL, the day key's TTL.
# Returns {hour count, day count}, or {-1, seconds until the hour's window ends} when the hour is full.
_SIGN_UP_TAKE = """
local hour = redis.call('INCR', KEYS[1])
if hour == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
if hour > tonumber(ARGV[1]) then
  redis.call('DECR', KEYS[1])
  return {-1, redis.call('TTL', KEYS[1])}
end
local day = redis.call('INCR', KEYS[2])
if day == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
return {hour, day}
"""


def sign_up_place_take(*, address: str | None, now: datetime | None = None) -> SignUpPlace:
    """Count one sign-up from ``address`` (the connection's REMOTE_ADDR, as the sign-in throttle reads it).

    At most ``SIGNUP_LIMIT_PER_ADDRESS`` per clock hour (:class:`TooManySignUps`, 429, with ``retry_after``);
    of an address's sign-ups in a UTC day only the first ``SIGNUP_CREDITED_PER_ADDRESS_PER_DAY`` get the
    starting play money. Fixed windows in Redis under the cache's key prefix; if Redis cannot be reached the
    sign-up goes ahead, credited (a counter must never stop a player joining)."""
    from django.core.cache import cache

    from baccarat_site.redis_client import redis_client

    if not address:
        return SignUpPlace(credited=True)
    now = now or timezone.now()
    hour_key = cache.make_key(f"signup:hour:{address}:{now:%Y%m%d%H}")
    day_key = cache.make_key(f"signup:day:{address}:{now:%Y%m%d}")
    try:
        hour, day = redis_client().eval(
            _SIGN_UP_TAKE, 2, hour_key, day_key, int(settings.SIGNUP_LIMIT_PER_ADDRESS), 3600 + 60, 86400 + 60
        )
    except Exception:
        logger.warning("sign-up limits: Redis unavailable; the sign-up goes ahead", exc_info=True)
        return SignUpPlace(credited=True)
    if int(hour) < 0:
        seconds = 3600 - (now.minute * 60 + now.second)
        minutes = max(1, math.ceil(seconds / 60))
        raise TooManySignUps(
            f"Too many new accounts from this address; try again in {minutes} min.", retry_after=seconds
        )
    return SignUpPlace(credited=int(day) <= int(settings.SIGNUP_CREDITED_PER_ADDRESS_PER_DAY), keys=(hour_key, day_key))


def sign_up_place_give_back(*, place: SignUpPlace) -> None:
    """The account was not made after all (the name was taken meanwhile): its place is free again."""
    from baccarat_site.redis_client import redis_client

    try:
        pipe = redis_client().pipeline(transaction=False)
        for key in place.keys:
            pipe.decr(key)
        pipe.execute()
    except Exception:
        logger.warning("sign-up limits: could not give a place back", exc_info=True)


def player_sign_up(*, form: Any, language: str = "", address: str | None = None) -> tuple[Any, bool]:
    """Create the player from a valid sign-up form (Django's UserCreationForm), their profile (``language``:
    the one they signed up in) and their starting play money, all or nothing. Raises :class:`UsernameTaken`
    when another sign-up took the name in the meantime, :class:`TooManySignUps` past the address's hourly
    limit (nothing is made). Past the address's credited sign-ups of the day the wallet opens at 0.00, and its
    first refill comes an hour later (``sign_up_place_take``). Returns the user and whether they got the
    starting money."""
    place = sign_up_place_take(address=address)
    try:
        with transaction.atomic():
            user = form.save()
            Profile.objects.create(user=user, language=language if language in LANGUAGE_CODES else "")
            wallet_open_player(user=user, credit=place.credited)
    except IntegrityError as error:
        sign_up_place_give_back(place=place)
        raise UsernameTaken("That username is taken.") from error
    except BaseException:
        sign_up_place_give_back(place=place)
        raise
    return user, place.credited


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
