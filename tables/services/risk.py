"""Risk alerts on the live floor: raised for a round once its betting has closed, acknowledged by staff.

:func:`risk_scan_round` looks at one round and raises what it calls for (``tables.models.RiskAlert``):

- **large bet**: a player's single bet at or above ``RISK_BET_THRESHOLD`` (one alert per player and round,
  for their largest such bet);
- **large win**: what a player's winning bets on a settled round paid back (stake + winnings), at or above
  ``RISK_WIN_THRESHOLD``;
- **exposure**: the round's worst-case exposure (``tables.engine.exposure.worst_case_exposure``, the live
  floor's figure, over every bet of the round that was not refunded, priced with the round's own paytable) at
  or above ``RISK_EXPOSURE_THRESHOLD``;
- **linked accounts**: two accounts that signed in from the same address or device
  (``baccarat_site.accounts.models.SignIn``, within ``RISK_LINK_DAYS``) backing Player and Banker in the same
  round, one each (or both of them on both sides).

The scan runs in a Celery task (``tables.tasks.risk_scan``) queued after the commit that closes the round's
betting and again after the one that settles it (:func:`risk_scan_later`, called by
``tables.services.transitions``), never on the bet path. Every alert is inserted ``ON CONFLICT DO NOTHING``
against its unique (kind, round, player, linked player), so a scan run twice, or concurrently, raises nothing
twice; the settling scan also raises what a lost closing scan missed.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone, translation

from baccarat_site.accounts.models import SignIn
from baccarat_site.audit import audit
from baccarat_site.celery import app
from baccarat_site.errors import Conflict, DomainError, NotFound
from baccarat_site.money import ZERO, cents, display
from tables.engine.exposure import worst_case_exposure
from tables.labels import BET_NAMES, label
from tables.models import Bet, RiskAlert, Round
from tables.selectors.outcomes import bet_payout
from tables.selectors.reports import round_terms

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

#: The most linked-account alerts one round raises (an address shared by hundreds, e.g. a proxy, would
#: otherwise raise one per pair).
MAX_LINKED_PAIRS = 50
RISK_SCAN_TASK = "tables.tasks.risk_scan"
_NOT_SCANNED = (Round.State.BETTING, Round.State.CANCELLED)


@dataclass(frozen=True)
class Thresholds:
    bet: Decimal
    win: Decimal
    exposure: Decimal


def thresholds() -> Thresholds:
    """The configured thresholds (``RISK_*_THRESHOLD``), as amounts."""
    return Thresholds(
        bet=cents(str(settings.RISK_BET_THRESHOLD)),
        win=cents(str(settings.RISK_WIN_THRESHOLD)),
        exposure=cents(str(settings.RISK_EXPOSURE_THRESHOLD)),
    )


def risk_scan_later(*, round_id: int) -> None:
    """Queue :func:`risk_scan_round` for after the current transaction commits (by task name: services import no
    task). A broker that cannot be reached is logged, never raised: the round has moved on regardless."""

    def send() -> None:
        try:
            app.send_task(RISK_SCAN_TASK, args=[round_id], expires=600)
        except Exception:
            logger.exception("round %s: risk scan not queued", round_id)

    transaction.on_commit(send)


def risk_scan_round(*, round_id: int, now: datetime | None = None) -> int:
    """Raise every alert round ``round_id`` calls for; return how many were new. A round still taking bets or
    cancelled (its stakes refunded) raises nothing; win alerts wait for the settlement. ``now`` (default: the
    clock) is when the linked-accounts look-back ends."""
    now = now or timezone.now()
    round_ = Round.objects.select_related("table__variant", "shoe").filter(pk=round_id).first()
    if round_ is None or round_.state in _NOT_SCANNED:
        return 0
    limits = thresholds()
    bets = Bet.objects.filter(round_id=round_id).exclude(outcome__status=Bet.Status.REFUNDED)
    names = _Names()
    with translation.override(settings.LANGUAGE_CODE):  # the record is written in the site's language
        alerts = [
            *_large_bets(round_, bets, limits.bet, names),
            *_exposure(round_, bets, limits.exposure),
            *_linked_accounts(round_, bets, names, now),
        ]
        if round_.state == Round.State.SETTLED:
            alerts += _large_wins(round_, bets, limits.win, names)
    if not alerts:
        return 0
    with transaction.atomic():
        before = RiskAlert.objects.filter(round_id=round_id).count()
        RiskAlert.objects.bulk_create(alerts, ignore_conflicts=True)
        return RiskAlert.objects.filter(round_id=round_id).count() - before


def _where(round_: Round) -> str:
    return f"{round_.table.name}, shoe {round_.shoe.number} round {round_.number}"


class _Names:
    """Usernames, each looked up once per scan."""

    def __init__(self) -> None:
        self.known: dict[int, str] = {}

    def __call__(self, user_ids: set[int]) -> dict[int, str]:
        missing = user_ids - set(self.known)
        if missing:
            self.known.update(get_user_model().objects.filter(pk__in=missing).values_list("pk", "username"))
        return self.known


def _large_bets(round_: Round, bets: Any, threshold: Decimal, names: _Names) -> list[RiskAlert]:
    rows = list(bets.filter(amount__gte=threshold).values_list("user_id", "type", "amount"))
    if not rows:
        return []
    per_user: dict[int, list[tuple[str, Decimal]]] = defaultdict(list)
    for user_id, bet_type, amount in rows:
        per_user[user_id].append((bet_type, amount))
    username = names(set(per_user))
    alerts = []
    for user_id, placed in per_user.items():
        bet_type, largest = max(placed, key=lambda p: p[1])
        detail = f"{username[user_id]} bet {display(largest)} on {label(BET_NAMES, bet_type)} at {_where(round_)}"
        if len(placed) > 1:
            detail += f" ({len(placed)} bets of {display(threshold)} or more)"
        alerts.append(_alert(RiskAlert.Kind.LARGE_BET, round_, largest, detail + ".", user_id=user_id))
    return alerts


def _exposure(round_: Round, bets: Any, threshold: Decimal) -> list[RiskAlert]:
    book = [
        (row["type"], row["mode"], row["amount"], row["n"])
        for row in bets.values("type", "mode", "amount").annotate(n=Count("id")).order_by()
    ]
    if not book:
        return []
    # The round's own terms: its shoe's decks and the paytable it opened with, not the variant as edited since.
    decks, paytable = round_terms(round_)
    exposure = worst_case_exposure(book, decks=decks, paytable=paytable)
    if exposure.net < threshold:
        return []
    staked = cents(sum((amount * n for _t, _m, amount, n in book), ZERO))
    players = bets.values("user_id").distinct().count()
    detail = (
        f"{_where(round_)}: the house could lose {display(exposure.net)} on {exposure.outcome} "
        f"({display(staked)} staked by {players} player{'s' if players != 1 else ''})."
    )
    return [_alert(RiskAlert.Kind.EXPOSURE, round_, exposure.net, detail)]


def _large_wins(round_: Round, bets: Any, threshold: Decimal, names: _Names) -> list[RiskAlert]:
    rows = list(
        bets.filter(outcome__status=Bet.Status.WON)
        .values("user_id")
        .annotate(paid=Sum(bet_payout()), staked=Sum("amount"))
        .filter(paid__gte=threshold)
        .order_by()
        .values_list("user_id", "paid", "staked")
    )
    username = names({user_id for user_id, _paid, _staked in rows})
    return [
        _alert(
            RiskAlert.Kind.LARGE_WIN,
            round_,
            cents(paid),
            f"{username[user_id]} was paid {display(paid)} (winnings {display(paid - staked)} on "
            f"{display(staked)} staked) at {_where(round_)}.",
            user_id=user_id,
        )
        for user_id, paid, staked in rows
    ]


def _linked_accounts(round_: Round, bets: Any, names: _Names, now: datetime) -> list[RiskAlert]:
    sides: dict[str, dict[int, Decimal]] = {"player": {}, "banker": {}}
    for user_id, bet_type, total in (
        bets.filter(type__in=("player", "banker"))
        .values("user_id", "type")
        .annotate(total=Sum("amount"))
        .order_by()
        .values_list("user_id", "type", "total")
    ):
        sides[bet_type][user_id] = total
    on_player, on_banker = set(sides["player"]), set(sides["banker"])
    if not on_player or not on_banker or len(on_player | on_banker) < 2:
        return []
    since = now - timedelta(days=settings.RISK_LINK_DAYS)
    shared: dict[tuple[str, str], set[int]] = defaultdict(set)
    for user_id, address, device in (
        SignIn.objects.filter(user_id__in=on_player | on_banker, at__gte=since)
        .values_list("user_id", "ip_address", "device_id")
        .distinct()
    ):
        if address:
            shared[("address", address)].add(user_id)
        if device:
            shared[("device", device)].add(user_id)
    pairs: dict[tuple[int, int], list[tuple[str, str]]] = defaultdict(list)
    for what, users in shared.items():
        if len(users) < 2:
            continue
        for a in users & on_player:
            for b in users & on_banker:
                if a != b:
                    pairs[(min(a, b), max(a, b))].append(what)
    if len(pairs) > MAX_LINKED_PAIRS:
        logger.warning("round %s: %s linked pairs, alerting the first %s", round_.pk, len(pairs), MAX_LINKED_PAIRS)
    username = names({user for pair in pairs for user in pair})
    alerts = []
    for (a, b), shared_by in sorted(pairs.items())[:MAX_LINKED_PAIRS]:
        how = sorted(set(shared_by))
        via = " and ".join(f"device {value[:8]}…" if kind == "device" else f"address {value}" for kind, value in how)
        stakes = [_side_stakes(username[u], sides, u) for u in (a, b)]
        amount = sum((sides[side].get(u, ZERO) for u in (a, b) for side in sides), ZERO)
        detail = f"{stakes[0]} and {stakes[1]} backed Player and Banker at {_where(round_)}; both signed in from {via}."
        alerts.append(_alert(RiskAlert.Kind.LINKED_ACCOUNTS, round_, cents(amount), detail, user_id=a, other_id=b))
    return alerts


def _side_stakes(username: str, sides: dict[str, dict[int, Decimal]], user_id: int) -> str:
    on = [f"{side.capitalize()} {display(stakes[user_id])}" for side, stakes in sides.items() if user_id in stakes]
    return f"{username} ({', '.join(on)})"


def _alert(
    kind: str, round_: Round, amount: Decimal, detail: str, *, user_id: int | None = None, other_id: int | None = None
) -> RiskAlert:
    return RiskAlert(
        kind=kind,
        table_id=round_.table_id,
        round_id=round_.pk,
        user_id=user_id,
        other_user_id=other_id,
        amount=amount,
        detail=detail[:500],
    )


# ── acknowledging ───────────────────────────────────────────────────────────


class AlreadyAcknowledged(Conflict):
    code = "alert_already_acknowledged"


@transaction.atomic
def risk_alert_acknowledge(
    *, alert_id: int, actor: User | None, note: str = "", now: datetime | None = None
) -> RiskAlert:
    """Mark an open alert acknowledged by ``actor`` (who needs ``tables.acknowledge_riskalert``), with an optional
    note, and record it in the audit trail. Compare-and-set: acknowledging twice is refused
    (:class:`AlreadyAcknowledged`) and changes nothing. ``now`` (default: the clock) stamps ``acknowledged_at``."""
    now = now or timezone.now()
    if actor is None or not actor.has_perm("tables.acknowledge_riskalert"):
        raise DomainError("You may view risk alerts but not acknowledge them.", code="permission_denied", status=403)
    note = (note or "").strip()[:200]
    updated = RiskAlert.objects.filter(pk=alert_id, acknowledged_at__isnull=True).update(
        acknowledged_by=actor, acknowledged_at=now, note=note
    )
    alert = RiskAlert.objects.select_related("acknowledged_by").filter(pk=alert_id).first()
    if alert is None:
        raise NotFound(f"No risk alert {alert_id}.")
    if updated != 1:
        raise AlreadyAcknowledged(
            f"Already acknowledged by {alert.acknowledged_by} at {alert.acknowledged_at:%Y-%m-%d %H:%M:%S} UTC."
        )
    audit(
        actor=actor,
        action="risk_alert.acknowledge",
        target=alert,
        reason=note,
        before={"acknowledged_at": None, "acknowledged_by": None},
        after={"acknowledged_at": now, "acknowledged_by": actor.get_username()},
    )
    return alert


def risk_scan_recent(*, hours: float, now: datetime | None = None) -> tuple[int, int]:
    """Scan again every round whose betting closed in the ``hours`` before ``now`` (default: the clock; e.g.
    after a broker outage lost the tasks); returns (rounds scanned, new alerts). Already raised alerts are not
    raised again."""
    now = now or timezone.now()
    since = now - timedelta(hours=hours)
    round_ids = list(
        Round.objects.filter(closed_at__gte=since)
        .exclude(state__in=_NOT_SCANNED)
        .order_by("id")
        .values_list("pk", flat=True)
    )
    return len(round_ids), sum(risk_scan_round(round_id=round_id, now=now) for round_id in round_ids)
