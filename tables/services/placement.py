"""Placing bets: confirm a player's batch on one round (``bet_place``), all or nothing. Paying and refunding
a round is ``tables.services.settlement``.

Concurrency, in short:

- ``bet_place`` locks the round row ``FOR SHARE`` (never ``FOR UPDATE``: players
  of one table must not queue behind each other) and only while the window is
  open (``state = 'betting' AND closes_at > now`` is part of the locking query),
  then the player's own wallet ``FOR UPDATE``. Closing, pausing, cancelling
  and settling a round all take the round row's exclusive lock, so they wait
  for bets already in flight to commit, and a bet that arrives after them
  reads the new state and is refused. A bet is therefore never accepted into
  a round that is closed, and every accepted bet is visible to the settlement.
- The house wallet row is neither locked nor updated on the bet path (its
  balance is derived from the ledger): the only row two bets can both want
  is a player's own wallet, so two players' confirms on one round never wait
  for each other.
- A bet's outcome is written by settlement, never here (one row per round,
  type and mode, joined to the bets by those columns): placement writes the
  placement and its bets only, and no row any other player writes too.
- Idempotency: a confirmed batch is stored with its key and a fingerprint of
  the request; the same key and body returns the stored answer, a different
  body under the same key is ``409 idempotency_conflict``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from baccarat_site import money, roles
from baccarat_site.accounts.limits import play_limits_check_bets, play_limits_check_reality
from baccarat_site.accounts.models import Restriction
from baccarat_site.accounts.selectors import ACTIVE_RESTRICTION_JOIN
from baccarat_site.accounts.services import restriction_refusal
from baccarat_site.db import prepared_cursor
from baccarat_site.errors import Conflict, DomainError, NotFound
from tables import engine, events
from tables.models import BetPlacement, Round
from tables.selectors.spending import bet_limits_of
from wallets import services as wallet_services
from wallets.models import LedgerTransaction

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# tables_bet.amount is numeric(12, 2).
MAX_BET_AMOUNT = Decimal("9999999999.99")
MAX_BETS_PER_BATCH = 50
MAX_KEY_LENGTH = 100


class BettingClosed(DomainError):
    code = "betting_closed"


class RoundNotFound(NotFound):
    code = "round_not_found"


class IdempotencyConflict(Conflict):
    code = "idempotency_conflict"


class InvalidMode(DomainError):
    code = "invalid_mode"


class InvalidBet(DomainError):
    """A refused batch; ``code`` is one of docs/api.md's bet placement codes."""


@dataclass(frozen=True)
class PlacedBet:
    id: int
    type: str
    amount: Decimal
    mode: str
    status: str


@dataclass(frozen=True)
class Placement:
    """A confirmed batch: its bets and the player's balance right after the stake left it."""

    bets: tuple[PlacedBet, ...]
    balance: Decimal

    def as_body(self) -> dict[str, Any]:
        """The answer docs/api.md gives for it (kept with the placement, and given again on a replay)."""
        return {
            "bets": [
                {"id": b.id, "type": b.type, "amount": money.text(b.amount), "mode": b.mode, "status": b.status}
                for b in self.bets
            ],
            "balance": money.text(self.balance),
        }

    @classmethod
    def from_body(cls, body: Mapping[str, Any]) -> Placement:
        return cls(
            bets=tuple(
                PlacedBet(id=b["id"], type=b["type"], amount=Decimal(b["amount"]), mode=b["mode"], status=b["status"])
                for b in body["bets"]
            ),
            balance=Decimal(body["balance"]),
        )


class _KeyTaken(Exception):
    """Inside the transaction: the idempotency key turned out to be used already; roll back and replay."""


# ── input ───────────────────────────────────────────────────────────────────


def parse_bets(bets: Any) -> list[tuple[str, Decimal]]:
    """``[{"type": "player", "amount": "10.00"}, …]`` → ``[("player", Decimal("10.00")), …]``.

    Amounts must be JSON *strings* of digits with at most two decimals
    ("10", "10.5", "10.50"); numbers, exponents, signs, NaN and infinities are
    refused, so no float ever meets the money.
    """
    if not isinstance(bets, list) or not bets:
        raise DomainError("bets must be a non-empty list of {type, amount}.")
    if len(bets) > MAX_BETS_PER_BATCH:
        raise DomainError(f"At most {MAX_BETS_PER_BATCH} bets in one batch.")
    bet_types = engine.BET_TYPES
    parsed = []
    for index, bet in enumerate(bets):
        if not isinstance(bet, Mapping) or "type" not in bet or "amount" not in bet:
            raise DomainError(f"bets[{index}] must be an object with a type and an amount.")
        bet_type, amount = bet["type"], bet["amount"]
        if not isinstance(bet_type, str) or bet_type not in bet_types:
            raise InvalidBet(f"{str(bet_type)[:40]!r} is not a bet type.", code="unknown_bet_type")
        if not isinstance(amount, str):
            raise InvalidBet(
                f'bets[{index}].amount must be a string like "10.00", not a JSON number.',
                code="invalid_amount",
                bet_type=bet_type,
            )
        value = money.parse_amount(amount, money.STAKE_PATTERN)  # a full match: "10\n" is not an amount
        if value is None:
            raise InvalidBet(
                f"{amount[:40]!r} is not an amount: digits with at most two decimals, up to "
                f"{money.display(MAX_BET_AMOUNT)}.",
                code="invalid_amount",
                bet_type=bet_type,
            )
        if value <= 0:
            raise InvalidBet("A stake must be greater than zero.", code="invalid_amount", bet_type=bet_type)
        parsed.append((bet_type, value))
    return parsed


def _fingerprint(round_id: int, mode: Any, bets: Any) -> str:
    body = json.dumps({"round": round_id, "mode": mode, "bets": bets}, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()


# ── bet_place ───────────────────────────────────────────────────────────────


def bet_place(
    *,
    user: User | AnonymousUser | None,
    round_id: int,
    mode: str,
    bets: list[dict[str, Any]],
    idempotency_key: str | None,
    now: datetime | None = None,
) -> Placement:
    """Confirm a player's batch of bets on one round, all or nothing; return the :class:`Placement`.

    Raises :class:`DomainError` subclasses carrying docs/api.md's codes. With an
    ``idempotency_key``, a repeated request returns the first answer again
    (even after the window closed) and a different body is refused with 409. ``now`` (default: the clock)
    is the moment the window and the player's limits are judged at, and the bets' ``placed_at``.
    """
    if user is None or isinstance(user, AnonymousUser) or not user.is_authenticated:
        raise DomainError("Sign in to place bets.", code="not_authenticated", status=401)
    if idempotency_key is None:
        # Without a key a client's retry (a timeout, a reconnect) would place the same bets twice.
        raise DomainError(
            "Send an Idempotency-Key (a UUID per confirm; a retry reuses it).", code="idempotency_key_required"
        )
    if not isinstance(idempotency_key, str) or not idempotency_key.strip():
        raise DomainError("Idempotency-Key must be a non-empty string.")
    if len(idempotency_key) > MAX_KEY_LENGTH:
        raise DomainError(f"Idempotency-Key must be at most {MAX_KEY_LENGTH} characters.")
    fingerprint = _fingerprint(round_id, mode, bets)
    key = idempotency_key
    try:
        if mode not in engine.MODES:
            raise InvalidMode(f"mode must be one of {', '.join(engine.MODES)}.")
        parsed = parse_bets(bets)
        with transaction.atomic():
            return _place(
                user=user,
                round_id=round_id,
                mode=mode,
                bets=parsed,
                key=key,
                fingerprint=fingerprint,
                now=timezone.now() if now is None else now,
            )
    except _KeyTaken:
        pass
    except DomainError:
        # A refused request may be the replay of one that succeeded: the first answer wins.
        replay = _replay(user=user, key=key, fingerprint=fingerprint)
        if replay is None:
            raise
        return replay
    except IntegrityError as exc:
        if "placement_idempotency_key_unique" not in str(exc):
            raise
    replay = _replay(user=user, key=key, fingerprint=fingerprint)
    if replay is None:  # pragma: no cover - the key was seen inside the transaction
        raise DomainError("That request could not be completed; try again.", code="retry", status=409)
    return replay


def _replay(*, user: User, key: str, fingerprint: str) -> Placement | None:
    found = BetPlacement.objects.filter(user=user, idempotency_key=key).values("fingerprint", "response").first()
    if found is None:
        return None
    if found["fingerprint"] != fingerprint:
        raise IdempotencyConflict("This Idempotency-Key was already used with a different request.")
    return Placement.from_body(found["response"])


_ROUND_FOR_BETS = """
SELECT r.number, r.table_id, r.terms
FROM tables_round r
JOIN tables_table t ON t.id = r.table_id
WHERE r.id = %s AND r.state = 'betting' AND r.closes_at > %s AND t.status = 'open'
FOR SHARE OF r
"""

# In one round trip, under the wallet lock: whether the player may bet now (the account is active, it is no staff
# account: neither ``is_staff``/``is_superuser`` nor in a staff role's group, as ``roles.is_staff_member``, and no
# restriction, accounts.Restriction, is running), the player's stake per type on the round so far, whether the key
# is taken, the player's personal maximum (baccarat_site.accounts.models.PlayerLimit, read by its primary key: one
# index probe) and ids for the new bets.
_MINE_ON_ROUND = """
SELECT 'user', r.kind,
    CASE WHEN NOT u.is_active THEN 0
         WHEN u.is_staff OR u.is_superuser OR EXISTS (
             SELECT 1 FROM "{user_groups}" ug JOIN auth_group g ON g.id = ug.group_id
             WHERE ug.user_id = u.id AND g.name = ANY(%s)
         ) THEN 2
         ELSE 1 END::numeric,
    r.ends_at
FROM "{users}" u
{restriction}
WHERE u.id = %s
UNION ALL
SELECT 'bet', type, SUM(amount), NULL FROM tables_bet WHERE round_id = %s AND user_id = %s GROUP BY type
UNION ALL
SELECT 'key', NULL, NULL, NULL FROM tables_betplacement WHERE user_id = %s AND idempotency_key = %s
UNION ALL
SELECT 'max', NULL, max_stake, NULL FROM accounts_playerlimit WHERE user_id = %s AND max_stake IS NOT NULL
UNION ALL
SELECT 'id', NULL, nextval(%s::regclass), NULL FROM generate_series(1, %s)
"""


def _mine_on_round_sql() -> str:
    users = get_user_model()
    return _MINE_ON_ROUND.format(
        users=users._meta.db_table,
        user_groups=users.groups.through._meta.db_table,
        restriction=ACTIVE_RESTRICTION_JOIN,
    )


_INSERT_BETS = """
WITH p AS (
    INSERT INTO tables_betplacement
        (user_id, round_id, idempotency_key, fingerprint, mode, stake_transaction_id, response, created_at)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
    RETURNING id
)
INSERT INTO tables_bet (id, round_id, user_id, placement_id, type, amount, mode, placed_at)
SELECT v.id, %s, %s, p.id, v.type, v.amount, %s, %s
FROM p, unnest(%s::bigint[], %s::varchar[], %s::numeric[]) AS v(id, type, amount)
"""

_limits_cache: dict[int, tuple[Any, Any]] = {}
LIMITS_CACHE_SIZE = 256
_sequence: list[str] = []


def _bet_sequence(cursor: Any) -> str:
    """The name of tables_bet's id sequence, looked up once per process."""
    if not _sequence:
        cursor.execute("SELECT pg_get_serial_sequence('tables_bet', 'id')")
        _sequence.append(cursor.fetchone()[0])
    return _sequence[0]


def _limits_of(round_id: int, terms: Any) -> Any:
    """The engine Limits of a round's own terms (``Round.terms``: what it opened with), built once per round
    and process; a bet is always checked against the limits of the round it is placed on."""
    if isinstance(terms, str):  # a JSON column read raw may come back as text
        terms = json.loads(terms)
    cached = _limits_cache.get(round_id)
    if cached is not None and cached[0] == terms:
        return cached[1]
    built = engine.Limits.from_dict(terms["limits"])
    if len(_limits_cache) >= LIMITS_CACHE_SIZE:
        _limits_cache.clear()
    _limits_cache[round_id] = (terms, built)
    return built


def _place(
    *,
    user: User,
    round_id: int,
    mode: str,
    bets: list[tuple[str, Decimal]],
    key: str,
    fingerprint: str,
    now: datetime,
) -> Placement:
    with prepared_cursor() as cursor:
        cursor.execute(_ROUND_FOR_BETS, [round_id, now])
        row = cursor.fetchone()
        if row is None:
            if Round.objects.filter(pk=round_id).exists():
                raise BettingClosed("Betting is closed for this round.")
            raise RoundNotFound("There is no such round.")
        shoe_round, table_id, terms = cast("tuple[int, int, Any]", row)
        engine_limits = _limits_of(round_id, terms)

        wallet = wallet_services.wallet_lock_existing(user_id=user.pk)
        # The account and its restrictions are read now, not at sign-in: a socket opened before an operator
        # disabled, suspended or closed the account, or before the player took a time-out or excluded themselves,
        # keeps its user.
        cursor.execute(
            _mine_on_round_sql(),
            [
                list(roles.STAFF_GROUPS),
                now,
                now,
                user.pk,
                round_id,
                user.pk,
                user.pk,
                key,
                user.pk,
                _bet_sequence(cursor),
                len(bets),
            ],
        )
        stopped: tuple[int, str | None, datetime | None] | None = None
        existing: list[tuple[str, Decimal]] = []
        bet_ids: list[int] = []
        personal_max: Decimal | None = None
        for kind, bet_type, value, at in cast("list[tuple[str, str, Any, datetime | None]]", cursor.fetchall()):
            if kind == "key":
                raise _KeyTaken
            if kind == "user":
                stopped = (int(value), bet_type, at)
            elif kind == "bet":
                existing.append((bet_type, value))
            elif kind == "max":
                personal_max = value
            else:
                bet_ids.append(int(value))
        if stopped is None or stopped[0] == 0:
            raise DomainError("This account is disabled.", code="account_disabled", status=403)
        if stopped[0] == 2:
            # Staff never stake with the house (a dealer on the cards he scans, a supervisor on a round he may
            # void): the account, not only the page, is refused, on every path that places a bet.
            raise DomainError("Staff accounts cannot place bets.", code="staff_cannot_bet", status=403)
        if stopped[1] is not None:
            raise restriction_refusal(Restriction(user_id=user.pk, kind=stopped[1], ends_at=stopped[2]))
        # the player's own limits, read and judged under the lock
        play_limits_check_bets(limits=bet_limits_of(user_id=user.pk, now=now), bets=bets, now=now)
        play_limits_check_reality(user_id=user.pk, now=now)  # an unanswered reality check holds every bet

        # The personal maximum is read now, not with the round's terms: a supervisor's change (it only ever
        # narrows the table's limits) applies from the player's next confirm.
        violations = engine.validate_bets(bets, existing, engine_limits, shoe_round, personal_max)
        if violations:
            first = violations[0]
            raise InvalidBet(first.detail, code=first.code, bet_type=first.bet_type, limit=first.limit)

        total = sum((amount for _type, amount in bets), money.ZERO)
        if total > MAX_BET_AMOUNT:
            raise InvalidBet("That batch is larger than any single stake can be.", code="above_max")
        if wallet is None or wallet.balance < total:
            held = wallet.balance if wallet is not None else money.ZERO
            raise wallet_services.InsufficientFunds(
                f"Your balance of {money.display(held)} does not cover these bets ({money.display(total)})."
            )
        stake_id = wallet_services.wallet_post(
            wallet=wallet, amount=-total, kind=LedgerTransaction.Kind.STAKE, reference=f"round:{round_id}", now=now
        )

        placed = Placement(
            bets=tuple(
                PlacedBet(id=bet_id, type=bet_type, amount=amount, mode=mode, status="open")
                for bet_id, (bet_type, amount) in zip(bet_ids, bets, strict=True)
            ),
            balance=wallet.balance,
        )
        cursor.execute(
            _INSERT_BETS,
            [
                user.pk,
                round_id,
                key,
                fingerprint,
                mode,
                stake_id,
                json.dumps(placed.as_body()),
                now,
                round_id,
                user.pk,
                mode,
                now,
                bet_ids,
                [bet_type for bet_type, _ in bets],
                [amount for _, amount in bets],
            ],
        )
    _announce_bets_changed(table_id=table_id, round_id=round_id)
    events.wallet_changed(user_id=user.pk, table_id=table_id, round_id=round_id, idempotency_key=key)
    return placed


def _announce_bets_changed(*, table_id: int, round_id: int) -> None:
    def announce() -> None:
        try:
            events.bets_changed(table_id=table_id, round_id=round_id)
        except Exception:  # a display must never fail a confirmed bet
            logger.exception("bets_changed failed for round %s", round_id)

    transaction.on_commit(announce)
