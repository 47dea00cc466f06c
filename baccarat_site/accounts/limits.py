"""Responsible-gaming limits the player sets on themselves (``accounts.PlayLimit``), and their enforcement.

The limits (docs/api.md, "Responsible gaming"):

- **deposit** (play-money refills), **loss** and **wager**, each per **day**, **week** and **month**;
- a **session time limit** (minutes) and a **reality check** interval (15, 30 or 60 minutes, or none).

Periods are **rolling windows** ending now: a day is the last 24 hours, a week the last 7 days, a month the
last 30 days (UTC instants, no calendar). A calendar period lets a player spend a whole daily limit at 23:59 and
another at 00:01; a rolling window never allows more than the limit in any 24 hours, which is what regulators
(UKGC-style) expect. "What is left" frees up as old stakes leave the window: the refusal says when the oldest
one in it does.

What counts, per window:

- **wagered**: the stakes of the player's confirmed bets placed in the window, except stakes refunded by a
  cancelled round (a refunded stake was never wagered);
- **lost**: for those same bets (placed in the window, not refunded), stakes minus what they returned so far
  (by the one payout rule: stake plus winnings on a win, the stake on a push, 0 on a loss). A bet still open
  counts as its full stake until it is settled; a push nets 0; winnings of bets placed in the window offset
  later stakes in it (a net loss, which can be negative while the player is ahead);
- **deposited**: the play-money refills credited in the window.

The accounts sit below the tables and read no bet: the tables pass the wagered and lost figures in
(:class:`Spent`, from ``tables.selectors.spending``), the limits page's through its view and the check on every
confirm through placement, which reads them in the same statement as the limits in force (:data:`BET_LIMITS_SQL`).

A batch of bets is refused whole (403 ``limit_reached``) when wagered + the batch would pass a wager limit, or
lost + the batch (as if all of it were lost) would pass a loss limit; a refill when deposited + the refill would
pass a deposit limit. "At the line" is allowed: only more than the limit is refused. The checks run inside the
placement's (or the refill's) transaction, under the player's wallet lock, so concurrent confirms of one player
are decided one after another and cannot together pass a limit.

Reality check: a player who set one is reminded how long they have been playing once the interval has passed
since the later of their session's start (their latest sign-in) and their latest answer
(``accounts.RealityCheckAnswer``): every page shows a dialog (``accounts.selectors.account_header``,
``static/casino/reality-check.js``) that stays until they answer (:func:`reality_check_answer`, ``POST
/api/account/reality-check/``), and until then every bet is refused (403 ``reality_check_due``,
:func:`play_limits_check_reality`, on every path since placement calls it).

Changes: a stricter setting (a lower amount, a new limit, a shorter session, a more frequent reality check)
applies at once; a looser one (a higher amount, removing a limit, a longer or no reality check) applies after
:data:`COOLING_OFF` (24 hours) and is *pending* until then. A new change of a limit with one pending replaces
the pending one. Nothing is applied by a job: the limit in force is read from the history each time, so whatever
is due counts.

Sessions: a session starts at a sign-in (a page sign-in or an API token, ``accounts.SignIn``) and lasts the
session limit. Once it has, bets are refused (403 ``session_limit_reached``) and a new session starts only with
a sign-in at least :data:`SESSION_BREAK` (30 minutes) after the previous session ran out; a sign-in during that
break does not start one. A player with a session limit and no sign-in in the last :data:`SESSION_LOOKBACK`
signs in again before betting. A session limit set during a session counts from that session's start.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from baccarat_site import money
from baccarat_site.accounts.models import PLAY_LIMIT_KINDS, PlayLimit, RealityCheckAnswer
from baccarat_site.audit import audit
from baccarat_site.clock import iso
from baccarat_site.db import prepared_cursor
from baccarat_site.errors import DomainError
from baccarat_site.numbers import whole_number
from wallets.selectors import refill_reference

if TYPE_CHECKING:
    from django.contrib.auth.models import User

WINDOWS: dict[str, timedelta] = {"day": timedelta(hours=24), "week": timedelta(days=7), "month": timedelta(days=30)}
COOLING_OFF = timedelta(hours=24)
SESSION_BREAK = timedelta(minutes=30)
SESSION_LOOKBACK = timedelta(days=3)
SESSION_MINUTES_MIN, SESSION_MINUTES_MAX = 10, 1440
REALITY_CHECK_CHOICES = (15, 30, 60)
AMOUNT_KINDS = PLAY_LIMIT_KINDS[:9]
MAX_LIMIT = Decimal("9999999999.99")


class LimitReached(DomainError):
    code = "limit_reached"
    status = 403


class SessionLimitReached(DomainError):
    code = "session_limit_reached"
    status = 403


class InvalidLimit(DomainError):
    code = "invalid_limit"


class _RealityCheckError(DomainError):
    """A refusal that says when the check is (or was) due: ``due_at`` in the body, when there is one."""

    def __init__(self, detail: str, *, due_at: datetime | None = None) -> None:
        super().__init__(detail)
        self.due_at = due_at

    def as_dict(self) -> dict[str, str]:
        body = super().as_dict()
        if self.due_at is not None:
            body["due_at"] = iso(self.due_at) or ""
        return body


class RealityCheckDue(_RealityCheckError):
    code = "reality_check_due"
    status = 403


class RealityCheckNotDue(_RealityCheckError):
    code = "reality_check_not_due"
    status = 409


#: How early an answer may come before the check is due: the page's clock, corrected by the server's, may run a
#: little ahead. Earlier than that, there is nothing to answer (a client cannot answer in advance and never see
#: a check).
REALITY_CHECK_EARLY = timedelta(seconds=60)


def _window(kind: str) -> str:
    return kind.rsplit("_", 1)[1]


def limit_label(kind: str) -> str:
    """The limit's name, in the player's language."""
    return {
        "deposit_day": _("24-hour deposit limit"),
        "deposit_week": _("7-day deposit limit"),
        "deposit_month": _("30-day deposit limit"),
        "loss_day": _("24-hour loss limit"),
        "loss_week": _("7-day loss limit"),
        "loss_month": _("30-day loss limit"),
        "wager_day": _("24-hour wager limit"),
        "wager_week": _("7-day wager limit"),
        "wager_month": _("30-day wager limit"),
        "session_minutes": _("Session time limit (minutes)"),
        "reality_check_minutes": _("Reality check every (minutes)"),
    }[kind]


def _when(at: datetime) -> str:
    return formats.date_format(at.astimezone(UTC), "Y-m-d H:i") + " UTC"


# ── reading ─────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Pending:
    value: Decimal | None
    applies_at: datetime


@dataclass(frozen=True)
class Usage:
    used: Decimal
    left: Decimal
    resets_at: datetime | None  # when the oldest counted amount leaves the window (None: nothing counted)


#: What a player's bets staked and lost in each window, and the oldest of them counted (None: none):
#: ``{"wager_day": (used, oldest), …, "loss_month": (…)}``. The tables give it (``tables.selectors.spending``).
Spent = dict[str, tuple[Decimal, datetime | None]]


@dataclass(frozen=True)
class BetLimits:
    """What a confirm is judged against: the player's limits in force with a value, their sign-ins since
    :data:`SESSION_LOOKBACK` (read only with a session limit on) and what their bets spent (read only with a
    wager or loss limit on: otherwise empty). Read by ``tables.selectors.spending.bet_limits_of``."""

    limits: dict[str, Decimal]
    sign_ins: list[datetime]
    spent: Spent


@dataclass(frozen=True)
class LimitsState:
    in_force: dict[str, Decimal | None]
    pending: dict[str, Pending]
    usage: dict[str, Usage]  # only for the amount limits in force


def play_limits_read(*, user_id: int, now: datetime) -> tuple[dict[str, Decimal | None], dict[str, Pending]]:
    """The limits in force (every kind; None: no limit) and the pending changes, at ``now``."""
    in_force: dict[str, Decimal | None] = dict.fromkeys(PLAY_LIMIT_KINDS)
    pending: dict[str, Pending] = {}
    rows = PlayLimit.objects.filter(user_id=user_id, cancelled_at__isnull=True).order_by("kind", "-id")
    seen_in_force: set[str] = set()
    for row in rows.values("kind", "value", "applies_at"):
        kind = row["kind"]
        if kind in seen_in_force:
            continue
        if row["applies_at"] > now:
            pending.setdefault(kind, Pending(row["value"], row["applies_at"]))
        else:
            in_force[kind] = row["value"]
            seen_in_force.add(kind)
    return in_force, pending


_REFILL_SUMS = """
SELECT
    COALESCE(SUM(e.amount) FILTER (WHERE t.created_at > %(day)s), 0),
    COALESCE(SUM(e.amount) FILTER (WHERE t.created_at > %(week)s), 0),
    COALESCE(SUM(e.amount), 0),
    MIN(t.created_at) FILTER (WHERE t.created_at > %(day)s),
    MIN(t.created_at) FILTER (WHERE t.created_at > %(week)s),
    MIN(t.created_at)
FROM wallets_ledgertransaction t
JOIN wallets_ledgerentry e ON e.transaction_id = t.id AND e.amount > 0
WHERE t.reference = %(reference)s AND t.kind = 'deposit' AND t.created_at > %(month)s
"""


def window_starts(now: datetime) -> dict[str, datetime]:
    """When each window ending at ``now`` begins: ``{"day": …, "week": …, "month": …}``."""
    return {name: now - length for name, length in WINDOWS.items()}


def sums_by_kind(row: Any, prefixes: tuple[str, ...]) -> dict[str, tuple[Decimal, datetime | None]]:
    """One sums row (per prefix: day, week, month values, then the oldest instants) → {kind: (sum, oldest)}."""
    out: dict[str, tuple[Decimal, datetime | None]] = {}
    values, oldest = row[: 3 * len(prefixes)], row[3 * len(prefixes) :]
    for p, prefix in enumerate(prefixes):
        for w, window in enumerate(WINDOWS):
            out[f"{prefix}_{window}"] = (Decimal(values[3 * p + w]), oldest[w])
    return out


def play_limits_state(*, user_id: int, spent: Spent, now: datetime | None = None) -> LimitsState:
    """What the account page and ``GET /api/account/limits/`` show: limits in force, pending, used and left, with
    what the player's bets ``spent`` (``tables.selectors.spending.player_spent`` at the same ``now``)."""
    now = now or timezone.now()
    in_force, pending = play_limits_read(user_id=user_id, now=now)
    since = window_starts(now)
    sums: Spent = dict(spent)
    with prepared_cursor() as cursor:
        cursor.execute(_REFILL_SUMS, {**since, "reference": refill_reference(user_id=user_id)})
        sums.update(sums_by_kind(cursor.fetchone(), ("deposit",)))
    usage = {}
    for kind in AMOUNT_KINDS:
        limit = in_force[kind]
        if limit is None:
            continue
        used, oldest = sums[kind]
        resets = oldest + WINDOWS[_window(kind)] if oldest is not None else None
        usage[kind] = Usage(used=used, left=max(money.ZERO, limit - used), resets_at=resets)
    return LimitsState(in_force=in_force, pending=pending, usage=usage)


# ── enforcement ─────────────────────────────────────────────────────────────

# The first part of the one statement a confirm costs (``tables.selectors.spending.bet_limits_of`` adds the sums
# of the player's bets, which it restricts with ``l``, the limits in force). A player without a limit costs one
# index probe (playlimit_live) that finds nothing: the sign-ins and the sums are behind one-time filters on it.
BET_LIMITS_SQL = """
WITH l AS (
    SELECT DISTINCT ON (kind) kind, value
    FROM accounts_playlimit
    WHERE user_id = %(user)s AND cancelled_at IS NULL AND applies_at <= %(now)s
    ORDER BY kind, id DESC
)
SELECT
    (SELECT array_agg(kind) FROM l WHERE value IS NOT NULL),
    (SELECT array_agg(value) FROM l WHERE value IS NOT NULL),
    (SELECT array_agg(at ORDER BY at) FROM accounts_signin
     WHERE user_id = %(user)s AND at > %(lookback)s
       AND EXISTS (SELECT 1 FROM l WHERE kind = 'session_minutes' AND value IS NOT NULL))"""


def bet_limits_from(row: Any) -> BetLimits:
    """:class:`BetLimits` from a row of :data:`BET_LIMITS_SQL`'s three columns followed by the bets' sums."""
    kinds = cast("list[str] | None", row[0])
    values = cast("list[Decimal] | None", row[1])
    sign_ins = cast("list[datetime] | None", row[2])
    if not kinds:
        return BetLimits(limits={}, sign_ins=[], spent={})
    return BetLimits(
        limits=dict(zip(kinds, values or [], strict=True)),
        sign_ins=sign_ins or [],
        spent=sums_by_kind(row[3:], ("wager", "loss")),
    )


def _refusal(kind: str, *, limit: Decimal, used: Decimal, oldest: datetime | None) -> LimitReached:
    left = max(money.ZERO, limit - used)
    values = {"limit_name": limit_label(kind), "limit": money.display(limit), "left": money.display(left)}
    if oldest is not None:
        values["when"] = _when(oldest + WINDOWS[_window(kind)])
        detail = (
            _(
                "This would pass your %(limit_name)s of %(limit)s: %(left)s is left. More frees up from "
                "%(when)s, when the oldest amount counted leaves the period."
            )
            % values
        )
    else:
        detail = _("This would pass your %(limit_name)s of %(limit)s: %(left)s is left.") % values
    return LimitReached(detail, limit=money.text(limit))


def play_limits_check_bets(*, limits: BetLimits, bets: list[tuple[str, Decimal]], now: datetime) -> None:
    """Refuse a batch of bets that would pass a wager or loss limit (:class:`LimitReached`) or that comes after
    the session time limit (:class:`SessionLimitReached`). Called by ``tables.services.placement`` inside the
    placement's transaction, holding the player's wallet lock, with the player's :class:`BetLimits` read there
    (``tables.selectors.spending.bet_limits_of``) and the batch's ``(type, amount)`` list."""
    if not limits.limits:
        return
    session = limits.limits.get("session_minutes")
    if session is not None:
        _check_session(minutes=int(session), sign_ins=limits.sign_ins, now=now)
    total = sum((amount for _type, amount in bets), money.ZERO)
    sums = limits.spent
    for kind in ("wager_day", "wager_week", "wager_month", "loss_day", "loss_week", "loss_month"):
        limit = limits.limits.get(kind)
        if limit is None:
            continue
        used, oldest = sums[kind]
        if used + total > limit:
            raise _refusal(kind, limit=limit, used=used, oldest=oldest)


def session_started_at(*, minutes: int, sign_ins: list[datetime]) -> datetime | None:
    """The start of the current session: sign-ins in order, each one starting a new session only when it comes
    at least the limit plus :data:`SESSION_BREAK` after the start of the one before."""
    start: datetime | None = None
    length = timedelta(minutes=minutes) + SESSION_BREAK
    for at in sign_ins:
        if start is None or at >= start + length:
            start = at
    return start


def _check_session(*, minutes: int, sign_ins: list[datetime], now: datetime) -> None:
    start = session_started_at(minutes=minutes, sign_ins=sign_ins)
    if start is None:
        raise SessionLimitReached(
            _("Your session time limit is on: sign in again to start a new session."), limit=minutes
        )
    if now >= start + timedelta(minutes=minutes):
        again = start + timedelta(minutes=minutes) + SESSION_BREAK
        raise SessionLimitReached(
            _(
                "You have reached your session time limit of %(minutes)s minutes. Take a break: sign in again "
                "from %(when)s to start a new session."
            )
            % {"minutes": minutes, "when": _when(again)},
            limit=minutes,
        )


# The reality check in force, the session's start and the latest answer: three index probes in one round trip
# (playlimit_live, signin_user_recent, realitycheck_user_recent); no row at all when the player has no check.
_REALITY_CHECK = """
WITH l AS (
    SELECT value FROM accounts_playlimit
    WHERE user_id = %(user)s AND kind = 'reality_check_minutes' AND cancelled_at IS NULL AND applies_at <= %(now)s
    ORDER BY id DESC
    LIMIT 1
)
SELECT
    l.value,
    (SELECT at FROM accounts_signin WHERE user_id = %(user)s AND at <= %(now)s ORDER BY at DESC LIMIT 1),
    (SELECT answered_at FROM accounts_realitycheckanswer
     WHERE user_id = %(user)s AND answered_at <= %(now)s ORDER BY answered_at DESC LIMIT 1)
FROM l
WHERE l.value IS NOT NULL
"""


@dataclass(frozen=True)
class RealityCheck:
    """A player's reality check at a moment: every ``every`` minutes; the session began at ``since``; the next
    check is due at ``due_at`` (the later of ``since`` and the latest answer, plus the interval)."""

    every: int
    since: datetime
    answered_at: datetime | None
    due_at: datetime

    def due(self, now: datetime) -> bool:
        return now >= self.due_at


def reality_check_due_at(*, every: int, since: datetime, answered_at: datetime | None) -> datetime:
    """When the check after a session start at ``since`` and the latest answer ``answered_at`` is due."""
    anchor = since if answered_at is None or answered_at < since else answered_at
    return anchor + timedelta(minutes=every)


def reality_check_state(*, user_id: int, now: datetime) -> RealityCheck | None:
    """The player's reality check at ``now``, or None: none set, or no sign-in yet (no session to count)."""
    with prepared_cursor() as cursor:
        cursor.execute(_REALITY_CHECK, {"user": user_id, "now": now})
        row = cursor.fetchone()
    if row is None or row[1] is None:
        return None
    every, since, answered = int(cast(Decimal, row[0])), cast(datetime, row[1]), cast("datetime | None", row[2])
    return RealityCheck(
        every=every,
        since=since,
        answered_at=answered,
        due_at=reality_check_due_at(every=every, since=since, answered_at=answered),
    )


def play_limits_check_reality(*, user_id: int, now: datetime) -> None:
    """Refuse a bet while the player's reality check is due and unanswered (:class:`RealityCheckDue`). Called by
    ``tables.services.placement`` under the player's wallet lock, right after :func:`play_limits_check_bets`."""
    check = reality_check_state(user_id=user_id, now=now)
    if check is not None and check.due(now):
        raise RealityCheckDue(
            _(
                "Your reality check is waiting: you have been playing for %(minutes)s minutes. Answer it to "
                "keep playing."
            )
            % {"minutes": int((now - check.since).total_seconds() // 60)},
            due_at=check.due_at,
        )


@transaction.atomic
def reality_check_answer(*, user: User, now: datetime | None = None) -> RealityCheck:
    """The player answered their reality check ("Keep playing"): recorded, and the next one is due an interval
    from now. Refused with :class:`RealityCheckNotDue` (409) when they have no check, or it is not due yet (more
    than :data:`REALITY_CHECK_EARLY` ahead); nothing is written then. Returns the check after the answer."""
    now = now or timezone.now()
    check = reality_check_state(user_id=user.pk, now=now)
    if check is None:
        raise RealityCheckNotDue(_("You have no reality check to answer."))
    if now < check.due_at - REALITY_CHECK_EARLY:
        raise RealityCheckNotDue(
            _("Your next reality check is at %(when)s.") % {"when": _when(check.due_at)}, due_at=check.due_at
        )
    RealityCheckAnswer.objects.create(user=user, answered_at=now)
    return RealityCheck(
        every=check.every,
        since=check.since,
        answered_at=now,
        due_at=reality_check_due_at(every=check.every, since=check.since, answered_at=now),
    )


def play_limits_check_deposit(*, user_id: int, amount: Decimal, now: datetime) -> None:
    """Refuse a refill of ``amount`` that would pass a deposit limit (:class:`LimitReached`). Call it holding the
    player's wallet lock, in the transaction that credits the refill."""
    in_force, _pending = play_limits_read(user_id=user_id, now=now)
    if all(in_force[kind] is None for kind in ("deposit_day", "deposit_week", "deposit_month")):
        return
    with prepared_cursor() as cursor:
        cursor.execute(_REFILL_SUMS, {**window_starts(now), "reference": refill_reference(user_id=user_id)})
        sums = sums_by_kind(cursor.fetchone(), ("deposit",))
    for kind in ("deposit_day", "deposit_week", "deposit_month"):
        limit = in_force[kind]
        if limit is None:
            continue
        used, oldest = sums[kind]
        if used + amount > limit:
            raise _refusal(kind, limit=limit, used=used, oldest=oldest)


# ── changing ────────────────────────────────────────────────────────────────


def parse_limit(kind: str, raw: Any) -> Decimal | None:
    """A limit's new value from the API or the form: an amount string ("100.00") for the amounts, a whole
    number of minutes for the others; None or "" for no limit. Raises :class:`InvalidLimit`."""
    if kind not in PLAY_LIMIT_KINDS:
        raise InvalidLimit(_("%(name)s is not a limit.") % {"name": str(kind)[:40]})
    if raw is None or raw == "":
        return None
    if kind in AMOUNT_KINDS:
        value = money.parse_amount(raw, money.STAKE_PATTERN) if isinstance(raw, str) else None
        if value is None or value <= 0:
            raise InvalidLimit(
                _('%(name)s: send an amount greater than zero, like "100.00", or null for none.') % {"name": kind}
            )
        return value
    minutes = whole_number(raw, max_digits=9)  # ASCII digits only: "²", "①" or 5,000 digits are refused, not a 500
    if minutes is None:
        raise InvalidLimit(_("%(name)s: send a whole number of minutes, or null for none.") % {"name": kind})
    if kind == "session_minutes" and not SESSION_MINUTES_MIN <= minutes <= SESSION_MINUTES_MAX:
        raise InvalidLimit(
            _("session_minutes: between %(low)s and %(high)s minutes.")
            % {"low": SESSION_MINUTES_MIN, "high": SESSION_MINUTES_MAX}
        )
    if kind == "reality_check_minutes" and minutes not in REALITY_CHECK_CHOICES:
        raise InvalidLimit(_("reality_check_minutes: 15, 30 or 60, or null for none."))
    return Decimal(minutes)


def _stricter(new: Decimal | None, old: Decimal | None) -> bool:
    """Whether ``new`` makes play at least as strict as ``old`` (None: no limit, the loosest)."""
    return new is not None and (old is None or new <= old)


@transaction.atomic
def play_limits_set(*, user: User, changes: dict[str, Any], now: datetime | None = None) -> None:
    """Change some of the player's limits (``{kind: raw value}``, as :func:`parse_limit` reads them; kinds left
    out stay as they are). Every value is checked first: one bad value changes nothing. Stricter ones apply at
    once, looser ones after :data:`COOLING_OFF`; a change replaces a pending one of the same limit. Audited with
    the player as actor. The new state is :func:`play_limits_state`'s."""
    parsed = {kind: parse_limit(kind, raw) for kind, raw in changes.items()}
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one change at a time per player
    now = now or timezone.now()
    in_force, pending = play_limits_read(user_id=user.pk, now=now)
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for kind, value in parsed.items():
        old = in_force[kind]
        waiting = pending.get(kind)
        if value == old and waiting is None:
            continue
        if waiting is not None:
            if waiting.value == value and not _stricter(value, old):
                continue  # the same loosening asked again: the pending one keeps its time
            PlayLimit.objects.filter(user=user, kind=kind, cancelled_at__isnull=True, applies_at__gt=now).update(
                cancelled_at=now
            )
        if value != old:
            applies = now if _stricter(value, old) else now + COOLING_OFF
            PlayLimit.objects.create(user=user, kind=kind, value=value, requested_at=now, applies_at=applies)
        before[kind] = money.text_or_none(old)
        after[kind] = {"value": money.text_or_none(value), "applies_at": iso(now if value == old else applies)}
    if after:
        audit(actor=user, action="player.limits", target=user, before=before, after=after)
