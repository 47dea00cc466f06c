"""What a player's bets staked and got back, for the accounts above which the tables sit: the figures the wager
and loss limits are judged against (``baccarat_site.accounts.limits``, which reads no bet) and the reality
check's session totals.

Per window (``accounts.limits.WINDOWS``, rolling, ending now): **wagered** is the stakes of the player's bets
placed in it, except those a cancelled round refunded; **lost** is, for those same bets, stakes minus what they
returned so far by the one payout rule (``tables.selectors.outcomes``), an open bet counting as its full stake.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from django.db.models import OuterRef, Q, Subquery, Sum
from django.utils import timezone

from baccarat_site import money
from baccarat_site.accounts.limits import (
    BET_LIMITS_SQL,
    SESSION_LOOKBACK,
    BetLimits,
    LimitsState,
    Spent,
    bet_limits_from,
    play_limits_state,
    sums_by_kind,
    window_starts,
)
from baccarat_site.accounts.models import SignIn
from baccarat_site.db import prepared_cursor
from tables.models import Bet
from tables.selectors.outcomes import bet_payout, payout_sql

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# What a player's bets placed in each window staked and lost so far (open bets count as lost), and the oldest of
# them: wagered day / week / month, lost day / week / month, oldest day / week / month. Refunded bets count for
# nothing. Shared by the limits page (_SPENT) and the check on every confirm (_BET_LIMITS).
_SUM_COLUMNS = """
    COALESCE(SUM(b.amount) FILTER (WHERE b.placed_at > %(day)s), 0),
    COALESCE(SUM(b.amount) FILTER (WHERE b.placed_at > %(week)s), 0),
    COALESCE(SUM(b.amount), 0),
    COALESCE(SUM(b.amount - COALESCE({payout}, 0)) FILTER (WHERE b.placed_at > %(day)s), 0),
    COALESCE(SUM(b.amount - COALESCE({payout}, 0)) FILTER (WHERE b.placed_at > %(week)s), 0),
    COALESCE(SUM(b.amount - COALESCE({payout}, 0)), 0),
    MIN(b.placed_at) FILTER (WHERE b.placed_at > %(day)s),
    MIN(b.placed_at) FILTER (WHERE b.placed_at > %(week)s),
    MIN(b.placed_at)
FROM tables_bet b
LEFT JOIN tables_betoutcome o ON o.round_id = b.round_id AND o.type = b.type AND o.mode = b.mode
""".replace("{payout}", payout_sql("b.amount", "o.status", "o.odds"))

_SPENT = "".join(
    (
        "SELECT",
        _SUM_COLUMNS,
        "WHERE b.user_id = %(user)s AND b.placed_at > %(month)s AND o.status IS DISTINCT FROM 'refunded'",
    )
)

# One statement per confirm: the limits in force and the session's sign-ins (the accounts' part), then the sums,
# only as far back as the longest period with a wager or loss limit (none: no scan at all).
_BET_LIMITS = "".join(
    (
        BET_LIMITS_SQL,
        """,
    sums.*
FROM (
    SELECT""",
        _SUM_COLUMNS,
        """    WHERE b.user_id = %(user)s AND o.status IS DISTINCT FROM 'refunded'
      AND b.placed_at > (
          SELECT MIN(
              CASE WHEN kind LIKE '%%_day' THEN %(day)s WHEN kind LIKE '%%_week' THEN %(week)s ELSE %(month)s END
          )
          FROM l WHERE value IS NOT NULL AND (kind LIKE 'wager%%' OR kind LIKE 'loss%%')
      )
      AND EXISTS (SELECT 1 FROM l WHERE value IS NOT NULL AND (kind LIKE 'wager%%' OR kind LIKE 'loss%%'))
) sums
""",
    )
)


def player_spent(*, user_id: int, now: datetime) -> Spent:
    """What the player's bets wagered and lost in each window ending at ``now``, with the oldest counted: the limits
    page's figures (``accounts.limits.play_limits_state``)."""
    with prepared_cursor() as cursor:
        cursor.execute(_SPENT, {**window_starts(now), "user": user_id})
        return sums_by_kind(cursor.fetchone(), ("wager", "loss"))


def limits_state(*, user_id: int, now: datetime | None = None) -> LimitsState:
    """The player's limits as the account page and ``GET /api/account/limits/`` show them
    (``accounts.limits.play_limits_state``), with what their bets spent by ``now`` (default: the clock)."""
    now = now or timezone.now()
    return play_limits_state(user_id=user_id, spent=player_spent(user_id=user_id, now=now), now=now)


def bet_limits_of(*, user_id: int, now: datetime) -> BetLimits:
    """The player's limits in force at ``now`` with what they need, in one statement: what a confirm is judged
    against (``accounts.limits.play_limits_check_bets``). Read inside the placement's transaction, holding the
    player's wallet lock, so concurrent confirms of one player are judged one after another."""
    params = {**window_starts(now), "user": user_id, "now": now, "lookback": now - SESSION_LOOKBACK}
    with prepared_cursor() as cursor:
        cursor.execute(_BET_LIMITS, params)
        row = cursor.fetchone()
    assert row is not None  # an aggregate always answers
    return bet_limits_from(row)


@dataclass(frozen=True)
class SessionTotals:
    """What the player staked and won back since the session's start (their latest sign-in): the reality check."""

    staked: Decimal  # every bet placed since the start, open ones too
    returned: Decimal  # the payouts of those settled so far
    pending: Decimal  # the stakes of those still open

    @property
    def net(self) -> Decimal:
        """Returned minus the stakes of settled bets (an open bet counts once it is settled), as the bet record."""
        return self.returned - (self.staked - self.pending)


def session_totals(*, user: User) -> SessionTotals:
    """The stakes and returns of the bets the player placed since their latest sign-in, in one aggregate query
    (nothing before a first sign-in)."""
    start = SignIn.objects.filter(user=OuterRef("user")).order_by("-at").values("at")[:1]
    row = (
        Bet.objects.filter(user_id=user.pk, placed_at__gte=Subquery(start))
        .order_by()
        .aggregate(
            staked=Sum("amount"),
            returned=Sum(bet_payout()),
            pending=Sum("amount", filter=Q(outcome__status__isnull=True)),
        )
    )
    zero = money.ZERO
    return SessionTotals(staked=row["staked"] or zero, returned=row["returned"] or zero, pending=row["pending"] or zero)
