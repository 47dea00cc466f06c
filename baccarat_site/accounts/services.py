"""Everything the accounts app writes: a new player (with their starting money), their preferences, the personal
limit staff set on them."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from rest_framework.authtoken.models import Token

from baccarat_site import money
from baccarat_site.accounts.models import PlayerLimit, Profile
from baccarat_site.accounts.tokens import token_expired, token_expires_at
from baccarat_site.audit import audit
from baccarat_site.errors import Conflict, DomainError
from tables.selectors.tables import table_minimum_stake
from wallets.models import LedgerTransaction
from wallets.services import wallet_open_player, wallet_refill

LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)


class UsernameTaken(Conflict):
    code = "username_taken"


class InvalidPlayerLimit(DomainError):
    code = "invalid_player_limit"


#: The largest personal maximum: what one stake can be (tables_bet.amount is numeric(12, 2)).
MAX_PERSONAL_STAKE = Decimal("9999999999.99")
REASON_MIN, REASON_MAX = 5, 200


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


def player_limit_set(*, user: Any, max_stake: Decimal | None, reason: str, actor: Any) -> PlayerLimit:
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
