"""Selectors for tables: the REST table shape (docs/api.md) and the WebSocket snapshot.

Read-only. Nothing here ever returns a live shoe's seed or card order: only the
commitment, and a finished shoe's revealed seed.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from auditlog.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Q, Sum
from django.utils import timezone

from baccarat_site import money
from baccarat_site.accounts.selectors import personal_limits_of
from baccarat_site.clock import iso, server_time
from baccarat_site.errors import NotFound
from tables.engine import (
    BET_TYPES,
    Card,
    Paytable,
    RoundResult,
    bet_available,
    facts_of,
    outcome_marks,
    payout_labels,
    roads,
    shoe_state,
)
from tables.labels import ROUND_NOTICES, STATUS_NOTICES
from tables.models import Bet, Round, Shoe, Table, shoe_decks_sql
from wallets.selectors import wallet_balance

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

    from tables.engine.payouts import Outcome

RESULT_STATES = ("result", "settled")


# ── formatting ──────────────────────────────────────────────────────────────


# ── pieces ──────────────────────────────────────────────────────────────────


def status_notice(table: Table, now: datetime | None = None) -> str | None:
    """The public code of what players are told about a table's status (``tables.labels.STATUS_NOTICES``), or
    None for an open table with nothing to tell. Never the operator's reason (``Table.status_reason``)."""
    if table.status == Table.Status.PAUSED:
        return table.pause_notice or "paused"
    if table.status in (Table.Status.CLOSED, Table.Status.RETIRED):
        return "closed_until" if table.closed_by == Table.ClosedBy.HOURS and table.has_hours else "closed"
    if table.close_after:
        return f"closing_after_{table.close_after}"
    if table.has_hours and not table.within_hours(now or timezone.now()):
        return "closing_after_round"
    return None


def _hhmm(value: Any) -> str | None:
    return value.strftime("%H:%M") if value is not None else None


def public_status(table: Table, now: datetime | None = None) -> dict[str, Any]:
    """What players may know of a table's status: ``status_notice`` (a code), ``status_reason`` (its fixed
    message in the active language) and ``hours`` (the daily UTC opening hours, or None)."""
    code = status_notice(table, now)
    opens_at = _hhmm(table.opens_at)
    return {
        "status_notice": code,
        "status_reason": str(STATUS_NOTICES[code]) % {"opens_at": opens_at or ""} if code else None,
        "hours": {"opens_at": opens_at, "closes_at": _hhmm(table.closes_at)} if table.has_hours else None,
    }


def round_public_reason(round_: Round) -> str | None:
    """What players are told about a paused or cancelled round (never the operator's or a fault's own words)."""
    notice = ROUND_NOTICES.get(round_.state)
    return str(notice) if notice is not None else None


def _limits(per_type: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return {
        bet_type: {"min": money.text(per_type[bet_type]["min"]), "max": money.text(per_type[bet_type]["max"])}
        for bet_type in BET_TYPES
        if bet_type in per_type
    }


def _round_brief(round_: Round | None) -> dict[str, Any] | None:
    if round_ is None:
        return None
    return {"id": round_.pk, "number": round_.number, "state": round_.state, "closes_at": iso(round_.closes_at)}


def current_decks(tables: list[Table]) -> dict[int, int]:
    """``{table id: decks}`` as players are told: the deck count of the table's current shoe (its newest: the
    active one, else the one just finished, as the snapshot's ``shoe``), the variant's for a table with no
    shoe yet. A variant switched or edited mid-shoe changes the next shoe, not this one. One query."""
    shoes = dict(
        Shoe.objects.filter(table__in=tables)
        .order_by("table_id", "-number")
        .distinct("table_id")
        .values_list("table_id", shoe_decks_sql())
    )
    return {table.pk: shoes.get(table.pk) or table.variant.decks for table in tables}


def table_decks(table: Table) -> int:
    """The deck count shown for one table (:func:`current_decks`)."""
    return current_decks([table])[table.pk]


def _table_row(table: Table, round_: Round | None, decks: int) -> dict[str, Any]:
    # The variant's, narrowed by the table's own, less the bets the current shoe's decks can never pay (what
    # its next round opens with: no Perfect Pair from a one-deck shoe, whatever the variant says now).
    limits = table.terms(decks=decks)["limits"]
    return {
        "id": table.pk,
        "name": table.name,
        "variant": table.variant.name,
        "status": table.status,
        **public_status(table),
        "decks": decks,
        "betting_seconds": table.betting_seconds,
        "limits": _limits(limits["per_type"]),
        "pb_difference_limit": money.text_or_none(limits["pb_difference"]),
        "round": _round_brief(round_),
        # Where the cards come from: "shoe" (the server's) or "live" (a dealer scanning a physical shoe), and for a
        # live table the dealer on shift and the video (an HLS playlist, "" for none).
        "dealing": table.dealing,
        "dealer": dealer_info(table.dealer) if table.is_live else None,
        "video_url": table.video_url if table.is_live else "",
    }


def dealer_info(user: User | None) -> dict[str, Any] | None:
    """What players see of a dealer: the first name (else the username), never more."""
    if user is None:
        return None
    return {"name": (user.first_name or user.get_username())[:40]}


def cards_with_totals(cards: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored cards in deal order, each with the running totals after it (as ``card.dealt`` sends them)."""
    points = {"player": 0, "banker": 0}
    out = []
    for entry in cards:
        points[entry["hand"]] = (points[entry["hand"]] + Card.parse(entry["card"]).value) % 10
        out.append(
            {
                "hand": entry["hand"],
                "card": entry["card"],
                "position": entry["position"],
                "totals": dict(points),
            }
        )
    return out


def round_result_of(round_: Round) -> Any:
    """The engine's RoundResult rebuilt from a round's stored cards."""
    player = [Card.parse(c["card"]) for c in round_.cards if c["hand"] == "player"]
    banker = [Card.parse(c["card"]) for c in round_.cards if c["hand"] == "banker"]
    return RoundResult.from_cards(player, banker)


def shoe_roads(shoe_id: int | None) -> dict[str, Any]:
    """The scoreboard roads of one shoe: every round with a result, in shoe order."""
    if shoe_id is None:
        return roads([])
    flags = Round.objects.filter(shoe_id=shoe_id, state__in=RESULT_STATES).order_by("number")
    # A round with a result always has its flags (the column is null only before the result).
    return roads(cast("list[dict[str, Any]]", list(flags.values_list("flags", flat=True))))


def shoe_info(shoe: Shoe | None) -> dict[str, Any] | None:
    """Public facts of a shoe: number, round in shoe, cards left, commitment (never the seed while live)."""
    if shoe is None:
        return None
    state = shoe_state(shoe.state) if shoe.state else None
    last = shoe.rounds.order_by("-number").values_list("number", flat=True).first()
    return {
        "number": shoe.number,
        # "live": a dealer's physical shoe, scanned card by card (no seed); "ready" False while it is being
        # shuffled and burned.
        "live": shoe.is_live,
        "ready": bool(state and state.ready),
        # While a live shoe is shuffled: since when (the shoe's start), so players see how long it takes.
        "shuffling_since": iso(shoe.created_at) if shoe.is_live and not (state and state.ready) else None,
        "round_in_shoe": last or 0,
        "cards_left": state.cards_left if state is not None else None,
        "commitment": shoe.commitment,
        "burn_card": shoe.burn_card,
        "burn_count": shoe.burn_count,
        "cut_card_out": bool(state and state.is_last_round),
        "finished": shoe.finished_at is not None,
        "revealed_seed": shoe.revealed_seed,
    }


def previous_shoe_info(table_id: int, before_number: int | None) -> dict[str, Any] | None:
    """The most recent finished shoe before ``before_number``, with its revealed seed (for verification)."""
    shoes = Shoe.objects.filter(table_id=table_id, finished_at__isnull=False)
    if before_number is not None:
        shoes = shoes.filter(number__lt=before_number)
    shoe = shoes.order_by("-number").first()
    if shoe is None:
        return None
    return {"number": shoe.number, "commitment": shoe.commitment, "server_seed": shoe.server_seed}


def current_round(table_id: int) -> Round | None:
    """The table's round now: the live one, else the most recent one."""
    return Round.objects.filter(table_id=table_id).select_related("shoe", "table__variant").order_by("-id").first()


def table_terms_now(table: Table) -> dict[str, Any]:
    """The terms a table page draws first (``Round.terms``' shape): its current round's (:func:`current_round`, the
    round the snapshot then draws), else what its next round would open with from its current shoe. Never the
    variant's odds of now over a round that opened with others."""
    round_ = current_round(table.pk)
    if round_ is not None and round_.terms:
        return cast("dict[str, Any]", round_.terms)
    return table.terms(decks=table_decks(table))


def round_bet_types(round_: Round) -> list[str]:
    """Bet types offered in this round (offered at the table and not past their shoe-round limit)."""
    limits = round_.terms["limits"] if round_.terms else round_.table.variant.limits_dict()
    per_type, cutoffs = limits["per_type"], limits["unavailable_after"]
    return [t for t in BET_TYPES if t in per_type and bet_available(t, round_.number, cutoffs)]


def round_limits(round_: Round) -> dict[str, Any]:
    """The limits a round opened with (its terms): ``{"per_type": {bet: {min, max}}, "pb_difference": …}``."""
    limits = round_.terms["limits"] if round_.terms else round_.table.variant.limits_dict()
    return {
        "per_type": {
            t: {"min": money.text(v["min"]), "max": money.text(v["max"])} for t, v in limits["per_type"].items()
        },
        "pb_difference": money.text_or_none(limits.get("pb_difference")),
    }


def round_paytable(round_: Round) -> dict[str, Any]:
    """The paytable a round opened with (its terms), as ``round.opened`` and the snapshot carry it:
    ``paytable`` (the odds, as stored), ``pays`` (``{bet: {traditional, no_commission}}``: the label each spot shows,
    written by the engine's ``payout_labels``, the same words as the page's first render) and ``bonus_margins`` (the
    non-natural winning margins a Bonus bet pays for). A round opened before rounds kept terms: the variant's now."""
    raw = (round_.terms or {}).get("paytable") or round_.table.variant.paytable_dict()
    paytable = Paytable.from_dict(raw)
    return {
        "paytable": raw,
        "pays": payout_labels(paytable),
        "bonus_margins": [margin for margin, _odds in paytable.bonus_margins],
    }


def round_outcomes(round_: Round, result: Any = None) -> dict[str, dict[str, Outcome]] | None:
    """What each spot did in a round with a result, by the round's own paytable (its terms), as ``round.result``
    and the snapshot carry it: ``{type: {"traditional": "won" | "lost" | "push", "no_commission": …}}`` (the
    engine's ``outcome_marks``, built on the settlement rules). None before the result, or for a round without one.
    ``result``: the engine's RoundResult when the caller has it (else rebuilt from the stored cards)."""
    if result is None and not round_.winner:
        return None
    raw = (round_.terms or {}).get("paytable") or round_.table.variant.paytable_dict()
    return outcome_marks(facts_of(result if result is not None else round_result_of(round_)), Paytable.from_dict(raw))


#: Why a round was cancelled or paused, as players are told it (``cause``): a code, never the operator's words.
#: ``operator``: an operator cancelled the round; ``paused``: an operator paused the table; ``fault``: a fault
#: stopped the table; ``supervisor``: a live table's supervisor voided the round.
ROUND_CAUSES = ("operator", "paused", "fault", "supervisor")


def round_cause(round_: Round) -> str | None:
    """The ``cause`` code of a cancelled or paused round, read from the audit trail (the last pause or cancel that
    named it: ``tables.services.controls``); None for any other round, or when nothing was recorded."""
    if round_.state not in (Round.State.CANCELLED, Round.State.PAUSED):
        return None
    entries = LogEntry.objects.filter(
        Q(content_type=ContentType.objects.get_for_model(Round), object_id=round_.pk)
        | Q(
            content_type=ContentType.objects.get_for_model(Table),
            object_id=round_.table_id,
            additional_data__round_id=round_.pk,
        ),
        additional_data__action__in=["round.cancel", "table.pause"],
    ).order_by("-timestamp", "-id")
    data = entries.values_list("additional_data", flat=True).first()
    if not isinstance(data, dict):
        return None
    if data.get("via") == "fault":
        return "fault"
    if data.get("cause") == "supervisor":
        return "supervisor"
    return "operator" if data.get("action") == "round.cancel" else "paused"


def round_detail(round_: Round) -> dict[str, Any]:
    """A round as the snapshot and the table detail show it."""
    return {
        "id": round_.pk,
        "number": round_.number,
        "shoe_number": round_.shoe.number,
        "state": round_.state,
        "opens_at": iso(round_.opens_at),
        "closes_at": iso(round_.closes_at),
        "closed_at": iso(round_.closed_at),
        "dealing_started_at": iso(round_.dealing_started_at),
        "result_at": iso(round_.result_at),
        "cards": cards_with_totals(round_.cards),
        "player_total": round_.player_total,
        "banker_total": round_.banker_total,
        "winner": round_.winner or None,
        "flags": round_.flags,
        "outcomes": round_outcomes(round_),
        "is_last_of_shoe": round_.is_last_of_shoe,
        "paused_from": round_.paused_from or None,
        "reason": round_public_reason(round_),
        "cause": round_cause(round_),
        "bet_types": round_bet_types(round_),
        "limits": round_limits(round_),
        **round_paytable(round_),
    }


def round_bet_totals(round_id: int) -> dict[str, Any]:
    """Stake totals and player counts per bet type for one round (refunded bets left out)."""
    rows = (
        Bet.objects.filter(round_id=round_id)
        .exclude(outcome__status=Bet.Status.REFUNDED)
        .values("type")
        .annotate(amount=Sum("amount"), players=Count("user", distinct=True))
        .order_by("type")
    )
    totals = {row["type"]: {"amount": money.text_or_none(row["amount"]), "players": row["players"]} for row in rows}
    players = (
        Bet.objects.filter(round_id=round_id)
        .exclude(outcome__status=Bet.Status.REFUNDED)
        .values("user")
        .distinct()
        .count()
    )
    return {"totals": totals, "players": players}


def _visible_tables() -> Any:
    """Tables players may reach: all but retired ones (whose rounds, bets and shoes stay in the records)."""
    return Table.objects.exclude(status=Table.Status.RETIRED)


def joinable_tables() -> Any:
    """Tables the lobby and the table list offer: those a player may join (open or paused), and closed ones that
    their opening hours will reopen. Closed by an operator, or retired: not listed."""
    return Table.objects.filter(
        Q(status__in=[Table.Status.OPEN, Table.Status.PAUSED])
        | Q(status=Table.Status.CLOSED, closed_by=Table.ClosedBy.HOURS)
    )


def _get_table(table_id: int) -> Table:
    table = (
        _visible_tables()
        .select_related("variant", "dealer")
        .prefetch_related("variant__bets", "limits")
        .filter(pk=table_id)
        .first()
    )
    if table is None:
        raise NotFound(f"There is no table {table_id}.", code="table_not_found")
    return table


# ── public selectors ────────────────────────────────────────────────────────


def table_exists(table_id: int) -> bool:
    """A table players may reach (not retired)."""
    return _visible_tables().filter(pk=table_id).exists()


def table_list() -> list[dict[str, Any]]:
    """GET /api/tables/: every table a player may join with its current round (docs/api.md shape)."""
    tables = list(
        joinable_tables().select_related("variant", "dealer").prefetch_related("variant__bets", "limits").order_by("id")
    )
    latest = {
        r.table_id: r for r in Round.objects.filter(table__in=tables).order_by("table_id", "-id").distinct("table_id")
    }
    decks = current_decks(tables)
    return [_table_row(table, latest.get(table.pk), decks[table.pk]) for table in tables]


def personal_limits(user: User | AnonymousUser | None) -> dict[str, str] | None:
    """A signed-in player's personal limits (``{"max_stake": …}``), None for anyone else or a player without."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return personal_limits_of(user=cast("User", user))


def table_detail(table_id: int, user: User | AnonymousUser | None = None) -> dict[str, Any]:
    """GET /api/tables/{id}/: the list row plus the current round, the shoe and the roads, and for a signed-in
    ``user`` their personal limits (``personal_limits``, None for anyone else).

    Raises :class:`baccarat_site.errors.NotFound` (``table_not_found``).
    """
    table = _get_table(table_id)
    round_ = current_round(table.pk)
    shoe = Shoe.objects.filter(table=table, finished_at__isnull=True).first()
    if shoe is None and round_ is not None:
        shoe = round_.shoe
    decks = (shoe.decks if shoe is not None else None) or table.variant.decks
    data = _table_row(table, round_, decks)
    data.update(
        {
            "deal_interval_ms": table.deal_interval_ms,
            "result_seconds": table.result_seconds,
            "current_round": round_detail(round_) if round_ is not None else None,
            "shoe": shoe_info(shoe),
            "previous_shoe": previous_shoe_info(table.pk, shoe.number if shoe else None),
            "roads": shoe_roads(shoe.pk if shoe else None),
            "personal_limits": personal_limits(user),
            "server_time": server_time(),
        }
    )
    return data


def user_balance(user: User) -> str | None:
    return money.text_or_none(wallet_balance(user=user)["balance"])


def user_round_bets(user: User, round_id: int) -> list[dict[str, Any]]:
    bets = Bet.objects.filter(round_id=round_id, user=user).select_related("outcome", "round").order_by("id")
    return [
        {
            "id": bet.pk,
            "type": bet.type,
            "amount": money.text_or_none(bet.amount),
            "mode": bet.mode,
            "status": bet.status,
            "payout": money.text_or_none(bet.payout),
        }
        for bet in bets
    ]


def table_snapshot(table_id: int) -> dict[str, Any]:
    """The WebSocket ``snapshot`` frame: everything a browser needs to draw the table now, the same for every
    viewer (the consumer adds a signed-in player's own part with :func:`player_snapshot`)."""
    detail = table_detail(table_id)
    round_ = detail.pop("current_round")
    table = {
        key: detail[key]
        for key in (
            "id",
            "name",
            "variant",
            "status",
            "status_notice",
            "status_reason",
            "hours",
            "decks",
            "betting_seconds",
            "deal_interval_ms",
            "result_seconds",
            "pb_difference_limit",
            "dealing",
            "dealer",
            "video_url",
        )
    }
    snapshot: dict[str, Any] = {
        "type": "snapshot",
        "table": table,
        "limits": detail["limits"],
        "pb_difference_limit": detail["pb_difference_limit"],
        "round": round_,
        "state": round_["state"] if round_ else None,
        "closes_at": round_["closes_at"] if round_ else None,
        "cards": round_["cards"] if round_ else [],
        "bets_totals": round_bet_totals(round_["id"]) if round_ else None,
        "roads": detail["roads"],
        "shoe": detail["shoe"],
        "previous_shoe": detail["previous_shoe"],
        "server_time": server_time(),
    }
    # The round before the current one, so a player back from a disconnection sees how it ended.
    last = (
        Round.objects.filter(table_id=table_id, id__lt=round_["id"]).select_related("shoe", "table__variant").first()
        if round_
        else None
    )
    snapshot["last_round"] = round_detail(last) if last is not None else None
    return snapshot


def player_snapshot(user: User, snapshot: dict[str, Any]) -> dict[str, Any]:
    """A signed-in player's part of a snapshot: balance, personal limits, own bets in the current and the previous
    round."""
    round_, last = snapshot.get("round"), snapshot.get("last_round")
    return {
        "balance": user_balance(user),
        "personal_limits": personal_limits(user),
        "my_bets": user_round_bets(user, round_["id"]) if round_ else [],
        "my_last_bets": user_round_bets(user, last["id"]) if last else [],
    }


def due_table_ids(*, now: datetime) -> list[int]:
    """Tables the ticker must look at: deadline passed (a table closed by its opening hours: they begin), or open
    and never started. Paused and retired tables wait; a table an operator closed has no deadline."""
    return list(
        Table.objects.exclude(status__in=[Table.Status.PAUSED, Table.Status.RETIRED])
        .filter(Q(next_action_at__lte=now) | Q(next_action_at__isnull=True, status=Table.Status.OPEN))
        .order_by("next_action_at", "id")
        .values_list("id", flat=True)
    )


def table_minimum_stake() -> Decimal:
    """The smallest minimum stake a player can bet: over the open tables' limits (their variant's, narrowed by the
    table's own), or over every table's but retired ones when none is open (a pause or a close must not turn a
    small balance into a refill), or 0.01 when there are no tables."""
    tables = _visible_tables().select_related("variant").prefetch_related("variant__bets", "limits")
    for query in (tables.filter(status=Table.Status.OPEN), tables):
        minimums = [Decimal(v["min"]) for table in query for v in table.limits_dict()["per_type"].values()]
        if minimums:
            return money.cents(min(minimums))
    return money.CENT
