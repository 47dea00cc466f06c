"""Everything the accounts app writes: a new player (with their starting money), their preferences, API tokens,
the personal limit staff set on a player, staff notes, and the stops on a player's play (restrictions: a staff
suspension or closure, the player's own time-out or self-exclusion)."""

from __future__ import annotations

import logging
import math
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from dateutil.relativedelta import relativedelta
from django.conf import settings
from django.contrib.auth import authenticate, get_user_model
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from baccarat_site import money
from baccarat_site.accounts import selectors
from baccarat_site.accounts.limits import play_limits_check_deposit
from baccarat_site.accounts.lockout import CODE, lockout_detail
from baccarat_site.accounts.models import PlayerLimit, PlayerNote, Profile, Restriction, SignIn
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.audit import audit
from baccarat_site.client_address import client_address
from baccarat_site.errors import Conflict, DomainError
from baccarat_site.events import send_on_commit, user_group
from baccarat_site.redis_client import redis_client
from wallets.models import LedgerTransaction
from wallets.selectors import wallet_refill_status
from wallets.services import wallet_lock, wallet_open_player, wallet_refill

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.base import SessionBase

logger = logging.getLogger(__name__)
LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)


class UsernameTaken(Conflict):
    code = "username_taken"


class InvalidPlayerLimit(DomainError):
    code = "invalid_player_limit"


#: The largest personal maximum: what one stake can be (tables_bet.amount is numeric(12, 2)).
MAX_PERSONAL_STAKE = Decimal("9999999999.99")
REASON_MIN, REASON_MAX = 5, 200


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
    """Count one sign-up from ``address`` (the client's, ``baccarat_site.client_address``, as the sign-in throttle's).

    At most ``SIGNUP_LIMIT_PER_ADDRESS`` per clock hour (:class:`TooManySignUps`, 429, with ``retry_after``);
    of an address's sign-ups in a UTC day only the first ``SIGNUP_CREDITED_PER_ADDRESS_PER_DAY`` get the
    starting play money. Fixed windows in Redis under the cache's key prefix; if Redis cannot be reached the
    sign-up goes ahead, credited (a counter must never stop a player joining)."""
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
    try:
        pipe = redis_client().pipeline(transaction=False)
        for key in place.keys:
            pipe.decr(key)
        pipe.execute()
    except Exception:
        logger.warning("sign-up limits: could not give a place back", exc_info=True)


def player_sign_up(
    *, form: Any, language: str = "", address: str | None = None, request: HttpRequest | None = None
) -> tuple[Any, bool]:
    """Create the player from a valid sign-up form (Django's UserCreationForm), their profile (``language``:
    the one they signed up in) and their starting play money, all or nothing. Raises :class:`UsernameTaken`
    when another sign-up took the name in the meantime, :class:`TooManySignUps` past the address's hourly
    limit, and the refusal of :func:`person_stop_check` when the sign-up looks like the person of an account a
    restriction stops (by ``request``'s device cookie and address, or the name): nothing is made then, and no
    money moves. Past the address's credited sign-ups of the day the wallet opens at 0.00, and its first refill
    comes an hour later (``sign_up_place_take``). Returns the user and whether they got the starting money."""
    data = form.cleaned_data
    person_stop_check(request=request, username=str(data.get("username", "")), email=str(data.get("email") or ""))
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


def profile_update(*, user: User, language: str | None = None, sound: bool | None = None) -> Profile:
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
        raise DomainError(lockout_detail(settings.AXES_COOLOFF_TIME.seconds // 60), code=CODE, status=429)
    if user is None:
        raise DomainError("Unable to sign in with those credentials.", code="invalid_credentials")
    stop = selectors.active_restriction(user_id=user.pk)
    if stop is not None:
        raise restriction_refusal(stop)
    if not user.is_staff:
        person_stop_check(request=request, username=user.get_username(), email=user.email, user_id=user.pk)
    with transaction.atomic():
        token, _created = Token.objects.select_for_update().get_or_create(user=user)
        if token_expired(token.created):
            token.delete()
            token = Token.objects.create(user=user)
        sign_in_record(user=user, request=request, method=SignIn.Method.API_TOKEN)
    return token, token_expires_at(token.created)


@transaction.atomic
def player_refill(*, user: User, minimum_stake: Decimal, now: datetime | None = None) -> LedgerTransaction:
    """Top the player's play money back up (``wallets.services.wallet_refill``), when their balance is below
    ``minimum_stake``, the smallest stake the tables take (they give it:
    ``tables.selectors.tables.table_minimum_stake``), and the refill stays
    within the player's deposit limits (``accounts.limits``: 403 ``limit_reached``). The limits are read
    holding the wallet's lock, which the refill then takes again in the same transaction. ``now`` defaults to the
    clock."""
    now = now or timezone.now()
    minimum = minimum_stake
    wallet = wallet_lock(user=user)
    status = wallet_refill_status(user=user, minimum_stake=minimum, balance=wallet.balance)
    if status.refusal is None:
        play_limits_check_deposit(user_id=user.pk, amount=status.starting - wallet.balance, now=now)
    return wallet_refill(user=user, minimum_stake=minimum, now=now)


def sign_in_record(*, user: User, request: HttpRequest | None, method: str = SignIn.Method.PAGE) -> SignIn:
    """Record a successful sign-in: the client's address (:func:`baccarat_site.client_address.client_address`:
    the connection's, or the one a trusted proxy forwards), the browser and the device cookie. A browser without
    the cookie is given a new device id (:class:`baccarat_site.accounts.middleware.DeviceCookieMiddleware` gives
    one on every first page, and sets it on the response)."""
    address, agent, device = None, "", ""
    if request is not None:
        meta = request.META
        address = client_address(request) or None
        agent = str(meta.get("HTTP_USER_AGENT", ""))[:300]
        device = _device_id_of(request)
        if not device and method == SignIn.Method.PAGE:
            device = device_id_new()
            request.device_id = request.new_device_id = device  # type: ignore[attr-defined]
    return SignIn.objects.create(user=user, method=method, ip_address=address, user_agent=agent, device_id=device)


#: The salt of the device cookie's signature (Django's signed cookies: ``set_signed_cookie``).
DEVICE_COOKIE_SALT = "baccarat.accounts.device"


def device_id_new() -> str:
    """A new random device id (URL-safe text)."""
    return secrets.token_urlsafe(24)


def device_id_from_cookie(request: HttpRequest) -> str:
    """The device id of the browser's signed device cookie, or "" without one, or with one we did not sign or
    that does not look like ours (random URL-safe text, 16 to 64 characters)."""
    value = str(request.get_signed_cookie(settings.DEVICE_COOKIE_NAME, default="", salt=DEVICE_COOKIE_SALT) or "")
    return value if 16 <= len(value) <= 64 and value.replace("-", "").replace("_", "").isalnum() else ""


def _device_id_of(request: HttpRequest) -> str:
    """The request's device id: the one the middleware read or gave this request, or the cookie's."""
    given = getattr(request, "device_id", None)
    return given if isinstance(given, str) and given else device_id_from_cookie(request)


# ── exclusion follows the person ────────────────────────────────────────────


def person_stop_check(
    *,
    request: HttpRequest | None,
    username: str,
    email: str = "",
    user_id: int | None = None,
    now: datetime | None = None,
) -> None:
    """Refuse a sign-up or sign-in that looks like the person of another account a restriction stops now
    (``selectors.linked_accounts``): this browser's device cookie signed in to it, this address did within
    ``LINKED_ADDRESS_DAYS``, or ``username`` / ``email`` has the same key as its name or e-mail. A player's own
    time-out or self-exclusion covers the person: 403 ``timed_out`` / ``self_excluded``, saying until when; a
    staff suspension or closure: 403 ``linked_account_stopped``. Nothing is written. ``user_id``: the account
    signing in, which is not its own link."""
    now = now or timezone.now()
    days = int(settings.LINKED_ADDRESS_DAYS)
    address = (client_address(request) or None) if request is not None and days > 0 else None
    found = selectors.linked_accounts(
        devices=[_device_id_of(request)] if request is not None else [],
        addresses=[address] if address else [],
        name=username,
        email=email,
        since=now - timedelta(days=days),
        exclude_user_id=user_id,
        stopped_only=True,
        now=now,
    )
    if not found:
        return
    own = [f for f in found if f.stop_kind in (Restriction.Kind.TIME_OUT, Restriction.Kind.SELF_EXCLUSION)]
    if own:
        link = max(own, key=lambda f: f.stop_ends_at or now)
        until = formats.date_format(link.stop_ends_at, "Y-m-d H:i") + " UTC" if link.stop_ends_at else ""
        if link.stop_kind == Restriction.Kind.TIME_OUT:
            detail = _(
                "You are taking a time-out until %(until)s. It covers you, not one account: no other account "
                "can be opened or used until then."
            )
        else:
            detail = _(
                "You have excluded yourself from play until %(until)s. It covers you, not one account: no other "
                "account can be opened or used until then."
            )
        logger.info("person check: refused %s, linked to %s by %s", username, link.username, ",".join(link.via))
        code = REFUSAL_CODES[Restriction.Kind(str(link.stop_kind))]
        raise DomainError(detail % {"until": until}, code=code, status=403)
    logger.info("person check: refused %s, linked to %s by %s", username, found[0].username, ",".join(found[0].via))
    raise DomainError(
        _("An account of yours is suspended or closed. Please contact support."),
        code="linked_account_stopped",
        status=403,
    )


# ── restrictions: suspension, closure, time-out, self-exclusion ─────────────


class NotAllowed(DomainError):
    code = "not_allowed"
    status = 403


#: A player's own stops (docs/api.md): period → its length. Months and years are calendar ones.
TIME_OUT_PERIODS: dict[str, relativedelta | timedelta] = {
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
    "6w": timedelta(weeks=6),
}
SELF_EXCLUSION_PERIODS: dict[str, relativedelta | timedelta] = {
    "6m": relativedelta(months=6),
    "1y": relativedelta(years=1),
    "5y": relativedelta(years=5),
}
#: Restriction kind → the code a refused sign-in, token or bet carries.
REFUSAL_CODES = {
    Restriction.Kind.SUSPENSION: "account_suspended",
    Restriction.Kind.CLOSURE: "account_closed",
    Restriction.Kind.TIME_OUT: "timed_out",
    Restriction.Kind.SELF_EXCLUSION: "self_excluded",
}


def _restricted_key(user_id: int) -> str:
    return f"restricted:{user_id}"


def restriction_refusal(stop: Restriction) -> DomainError:
    """The error (403, docs/api.md's code) for what ``stop`` refuses, in the player's language, saying until when."""
    until = formats.date_format(stop.ends_at, "Y-m-d H:i") + " UTC" if stop.ends_at else ""
    detail = {
        Restriction.Kind.SUSPENSION: _("This account is suspended. Please contact support."),
        Restriction.Kind.CLOSURE: _("This account is closed."),
        Restriction.Kind.TIME_OUT: _("You are taking a time-out until %(until)s.") % {"until": until},
        Restriction.Kind.SELF_EXCLUSION: _("You have excluded yourself from play until %(until)s.") % {"until": until},
    }[Restriction.Kind(stop.kind)]
    return DomainError(detail, code=REFUSAL_CODES[Restriction.Kind(stop.kind)], status=403)


def _stop_play(*, user: User, stop: Restriction, now: datetime) -> None:
    """What every new restriction does at once: API tokens revoked, open sockets closed, and a mark that ends the
    player's signed-in sessions at their next request (baccarat_site.accounts.middleware), set after commit.
    Bets are refused from the database row itself (tables.services.placement), whatever the mark."""
    api_token_revoke(user=user)
    sockets_close(user=user, reason=stop.kind)  # after commit: every open socket of theirs closes with 4401
    timeout = None if stop.ends_at is None else max(1, int((stop.ends_at - now).total_seconds()) + 1)
    transaction.on_commit(lambda: cache.set(_restricted_key(user.pk), stop.kind, timeout=timeout))


def _staff_reason(actor: User | None, reason: str) -> str:
    """The reason of a staff action on a player, after checking the actor may act on players."""
    if actor is None or not actor.has_perm("accounts.suspend_player"):
        raise NotAllowed("Only staff with the right to suspend players may do this.")
    reason = (reason or "").strip()
    if len(reason) < 3:
        raise DomainError(
            "Give a reason (at least 3 characters): it is kept in the audit trail.", code="reason_required"
        )
    return reason


def _player(user: User) -> None:
    if user.is_staff or user.is_superuser:
        raise DomainError("Staff accounts are not restricted here: a superuser deactivates them.", code="not_a_player")


@transaction.atomic
def player_suspend(*, user: User, reason: str, actor: User | None, now: datetime | None = None) -> Restriction:
    """Suspend a player (staff with ``accounts.suspend_player``, a reason required): sign-in, tokens and bets are
    refused until :func:`player_reinstate`. Suspending a suspended player changes nothing and returns the stop in
    force. Audited with who, before and after. ``now`` (default: the clock) is when it starts."""
    return _staff_restriction(user=user, reason=reason, actor=actor, kind=Restriction.Kind.SUSPENSION, now=now)


@transaction.atomic
def player_close(*, user: User, reason: str, actor: User | None, now: datetime | None = None) -> Restriction:
    """Close a player's account for good (staff with ``accounts.suspend_player``), from ``now`` (default: the
    clock). Audited."""
    return _staff_restriction(user=user, reason=reason, actor=actor, kind=Restriction.Kind.CLOSURE, now=now)


def _staff_restriction(*, user: User, reason: str, actor: User | None, kind: str, now: datetime | None) -> Restriction:
    now = now or timezone.now()
    reason = _staff_reason(actor, reason)
    _player(user)
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one decision at a time per player
    same = Restriction.objects.filter(user=user, kind=kind, lifted_at__isnull=True).first()
    if same is not None:
        return same
    before = selectors.active_restriction(user_id=user.pk, now=now)
    stop = Restriction.objects.create(user=user, kind=kind, starts_at=now, reason=reason[:200], created_by=actor)
    audit(
        actor=actor,
        action=f"player.{'suspend' if kind == Restriction.Kind.SUSPENSION else 'close'}",
        target=user,
        reason=reason,
        before={"restriction": before.kind if before else None},
        after={"restriction": kind},
    )
    _stop_play(user=user, stop=stop, now=now)
    return stop


@transaction.atomic
def player_reinstate(*, user: User, reason: str, actor: User | None, now: datetime | None = None) -> int:
    """Lift a staff suspension (a closure, a time-out and a self-exclusion stay), stamping ``lifted_at`` with
    ``now`` (default: the clock). Returns how many were lifted. Audited."""
    now = now or timezone.now()
    reason = _staff_reason(actor, reason)
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    lifted = Restriction.objects.filter(user=user, kind=Restriction.Kind.SUSPENSION, lifted_at__isnull=True).update(
        lifted_at=now, lifted_by=actor, lift_reason=reason[:200]
    )
    if lifted:
        after = selectors.active_restriction(user_id=user.pk, now=now)
        audit(
            actor=actor,
            action="player.reinstate",
            target=user,
            reason=reason,
            before={"restriction": Restriction.Kind.SUSPENSION},
            after={"restriction": after.kind if after else None},
        )
        if after is None:
            transaction.on_commit(lambda: cache.delete(_restricted_key(user.pk)))
    return lifted


def self_restriction_end(*, kind: str, period: str, now: datetime) -> datetime:
    """When a player's own time-out or self-exclusion of ``period`` taken at ``now`` ends; a
    :class:`DomainError` (``invalid_request``, ``invalid_period``) for an unknown kind or period."""
    if kind not in (Restriction.Kind.TIME_OUT, Restriction.Kind.SELF_EXCLUSION):
        raise DomainError(_("Choose a time-out or a self-exclusion."), code="invalid_request")
    periods = TIME_OUT_PERIODS if kind == Restriction.Kind.TIME_OUT else SELF_EXCLUSION_PERIODS
    if period not in periods:
        raise DomainError(
            _("Choose one of these periods: %(periods)s.") % {"periods": ", ".join(periods)}, code="invalid_period"
        )
    return now + periods[period]


@transaction.atomic
def player_self_restrict(*, user: User, kind: str, period: str, now: datetime | None = None) -> Restriction:
    """The player's own time-out (``24h``, ``7d``, ``30d``, ``6w``) or self-exclusion (``6m``, ``1y``, ``5y``),
    from now. It cannot be shortened or lifted early by anyone; taking another while one runs keeps the longer
    end. Audited with the player as actor. ``now`` defaults to the clock."""
    now = now or timezone.now()
    self_restriction_end(kind=kind, period=period, now=now)  # refuses a bad kind or period first
    _player(user)
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    ends_at = self_restriction_end(kind=kind, period=period, now=now)
    stop = Restriction.objects.create(user=user, kind=kind, starts_at=now, ends_at=ends_at)
    audit(actor=user, action=f"player.{kind}", target=user, after={"restriction": kind, "until": stop.ends_at})
    _stop_play(user=user, stop=selectors.active_restriction(user_id=user.pk, now=now) or stop, now=now)
    return stop


def restriction_ends_session(*, user_id: int) -> Restriction | None:
    """The restriction that ends the player's signed-in session now, or None: the mark :func:`_stop_play` set is
    there (a cache look-up, on every signed-in page) and the database confirms a restriction is running. A mark
    the database does not confirm (the restriction ended or was lifted, or the cache outlived the database) is
    dropped."""
    if cache.get(_restricted_key(user_id)) is None:
        return None
    stop = selectors.active_restriction(user_id=user_id)
    if stop is None:
        cache.delete(_restricted_key(user_id))
    return stop


@transaction.atomic
def player_note_add(*, player: User, text: str, actor: User | None) -> PlayerNote:
    """A staff member's note on a player (staff with ``accounts.add_playernote``), audited."""
    if actor is None or not actor.has_perm("accounts.add_playernote"):
        raise NotAllowed("Only staff with the right to write player notes may do this.")
    text = (text or "").strip()
    if not text:
        raise DomainError("A note needs some text.", code="invalid_request")
    note = PlayerNote.objects.create(player=player, author=actor, text=text[:1000])
    audit(actor=actor, action="player.note", target=player, after={"note": note.text})
    return note


def player_limit_set(*, user: User, max_stake: Decimal | None, reason: str, actor: User | None) -> PlayerLimit:
    """Set (``max_stake``) or clear (``None``) a player's personal maximum stake, with the reason, and write who
    did it, the limit before and after and why to the audit trail, all in one transaction.

    It applies from the player's next confirm, in the round under way too; bets already confirmed stay. Raises
    :class:`InvalidPlayerLimit` for an amount that is not positive with at most two decimals, a reason outside
    5-200 characters, or a staff member setting their own limit (no one sets their own).
    """
    if max_stake is not None:
        amount = money.to_amount(max_stake)
        if amount is None or amount < money.CENT or amount > MAX_PERSONAL_STAKE:
            raise InvalidPlayerLimit(
                "A personal maximum is an amount greater than zero with at most two decimals, up to "
                f"{money.display(MAX_PERSONAL_STAKE)}."
            )
        max_stake = amount
    reason = (reason or "").strip()
    if not REASON_MIN <= len(reason) <= REASON_MAX:
        raise InvalidPlayerLimit(f"Give a reason of {REASON_MIN} to {REASON_MAX} characters.", code="missing_reason")
    if actor is not None and getattr(actor, "pk", None) == user.pk:
        raise InvalidPlayerLimit("No one sets their own personal limit.", code="own_limit", status=403)
    with transaction.atomic():
        limit, _created = PlayerLimit.objects.select_for_update().get_or_create(user=user, defaults={"reason": reason})
        before = limit.max_stake
        limit.max_stake = max_stake
        limit.reason = reason
        limit.updated_by = actor if getattr(actor, "is_authenticated", False) else None
        limit.save()
        audit(
            actor=actor,
            action="player_limit.set" if max_stake is not None else "player_limit.clear",
            target=limit,
            reason=reason,
            before={"max_stake": money.text_or_none(before)},
            after={"max_stake": money.text_or_none(max_stake)},
        )
    return limit


# ── credentials that end: sign-out, password change ─────────────────────────

#: The group message (to ``user_<id>``) that closes a player's open table sockets (tables.consumers, close code
#: 4401): with a ``session_key``, only the sockets of that session; without, all of them.
SESSION_ENDED = "session.ended"


def api_token_revoke(*, user: User) -> bool:
    """Delete the player's API token (DRF's authtoken: one per user), so its key answers 401 from now on.
    Whether there was one."""
    deleted, _detail = Token.objects.filter(user_id=user.pk).delete()
    return deleted > 0


def sockets_close(*, user: User, session_key: str | None = None, reason: str) -> None:
    """After commit, close the player's open table sockets (those of ``session_key`` alone when given): a socket
    is signed in once, when it connects, and would otherwise keep receiving the balance and the player's own
    bets after the session that opened it ended."""
    send_on_commit(user_group(user.pk), {"type": SESSION_ENDED, "session_key": session_key, "reason": reason})


def account_signed_out(*, user: User, session: SessionBase | None) -> None:
    """A player signed out (the site's sign-out, or ``POST /api/auth/logout/``): the session is deleted, their API
    token is revoked and the sockets of that session are closed, after commit. The deletion comes first: a closed
    socket's page reloads at once, and it reloaded signed in when its request came before the session was gone
    (Django's ``logout`` sends its signal before it flushes the session)."""
    session_key = session.session_key if session is not None else None
    with transaction.atomic():
        if session is not None and session_key is not None:
            session.delete()
        api_token_revoke(user=user)
        sockets_close(user=user, session_key=session_key, reason="signed_out")


def account_deactivated(*, user: User) -> None:
    """An account was deactivated (``is_active`` turned off, by the admin or any code that saves the user): its API
    token is revoked and every open socket of it is closed with 4401 after commit, as a sign-out closes its own.
    Its sessions already sign no one in (the auth backend refuses an inactive user)."""
    with transaction.atomic():
        api_token_revoke(user=user)
        sockets_close(user=user, reason="deactivated")


def account_password_changed(*, user: User) -> None:
    """A player's password changed, by any path (the password page, the admin, ``changepassword``): their API
    token is revoked and every open socket of theirs is closed (the sessions it invalidated reconnect as
    watchers; the one that changed it reconnects signed in)."""
    with transaction.atomic():
        api_token_revoke(user=user)
        sockets_close(user=user, reason="password_changed")
