"""REST under /api/ for tables, rounds and bets (docs/api.md). One APIView per operation:
validate input, call one service or selector, render. Errors are rendered by
``baccarat_site.api.errors.exception_handler`` as ``{"code", "detail"}``."""

from __future__ import annotations

import logging
import re
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_time
from typing import TYPE_CHECKING, Any, cast

from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from baccarat_site.accounts.tokens import PreparedTokenAuthentication
from baccarat_site.api.errors import BODY_ERRORS, ERRORS, ErrorSerializer
from baccarat_site.api.fields import IsoMillisField
from baccarat_site.api.pagination import PAGE_PARAMETERS, page_of, paginated
from baccarat_site.money import STAKE_PATTERN as AMOUNT_PATTERN
from tables.engine import BET_TYPES, MODES
from tables.models import Bet
from tables.selectors import bets as bet_selectors
from tables.selectors import tables as table_selectors
from tables.services.placement import MAX_BETS_PER_BATCH, bet_place
from tables.services.rate import SCOPE as BET_RATE_SCOPE
from tables.services.rate import bet_rate_take

if TYPE_CHECKING:
    from django.contrib.auth.models import User

RESULTS = ("won", "lost", "push", "refunded", "open")

logger = logging.getLogger(__name__)


# ── tables ──────────────────────────────────────────────────────────────────


class LimitSerializer(serializers.Serializer):
    min = serializers.CharField()
    max = serializers.CharField()


class PersonalLimitsSerializer(serializers.Serializer):
    max_stake = serializers.CharField(
        help_text="The most the player may stake on one bet type in one round, at any table (docs/rules.md)."
    )


class RoundBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    state = serializers.CharField()
    closes_at = serializers.CharField()


class TableHoursSerializer(serializers.Serializer):
    opens_at = serializers.CharField(help_text="HH:MM, UTC")
    closes_at = serializers.CharField(help_text="HH:MM, UTC")


class TableOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    variant = serializers.CharField()
    status = serializers.CharField()
    status_notice = serializers.CharField(
        allow_null=True,
        help_text="paused, closing_after_round, closing_after_shoe, closed, closed_until; null: nothing to tell",
    )
    status_reason = serializers.CharField(
        allow_null=True, help_text="The notice's fixed public message, never the operator's reason."
    )
    hours = TableHoursSerializer(allow_null=True, help_text="Daily opening hours in UTC; null: always open.")
    decks = serializers.IntegerField()
    betting_seconds = serializers.IntegerField()
    limits = serializers.DictField(child=LimitSerializer())
    pb_difference_limit = serializers.CharField()
    round = RoundBriefSerializer(allow_null=True)


class TableListApi(APIView):
    """Every table a player may join (open, paused, or closed until its opening hours) with its limits and
    current round."""

    @extend_schema(responses={200: TableOutputSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(table_selectors.table_list())


class TableDetailApi(APIView):
    """One table with its current round, the shoe and the roads."""

    class OutputSerializer(TableOutputSerializer):
        class Meta:
            ref_name = "TableDetail"

        current_round = serializers.JSONField(allow_null=True)
        shoe = serializers.JSONField(allow_null=True)
        previous_shoe = serializers.JSONField(allow_null=True)
        roads = serializers.JSONField()
        personal_limits = PersonalLimitsSerializer(
            allow_null=True, help_text="The signed-in player's personal limits; null for anyone else or none set."
        )
        server_time = serializers.CharField()

    @extend_schema(responses={200: OutputSerializer, 404: ERRORS[404]})
    def get(self, request: Request, table_id: int) -> Response:
        return Response(table_selectors.table_detail(table_id, user=request.user))


# ── rounds ──────────────────────────────────────────────────────────────────


class MyBetSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    type = serializers.CharField()
    amount = serializers.DecimalField(max_digits=12, decimal_places=2)
    mode = serializers.CharField()
    status = serializers.CharField()
    payout = serializers.DecimalField(max_digits=14, decimal_places=2, allow_null=True)
    placed_at = IsoMillisField()
    settled_at = IsoMillisField(allow_null=True)


class RoundDetailApi(APIView):
    """A round: cards, totals, winner and flags once dealt, and only the caller's bets with payouts."""

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "RoundDetail"

        id = serializers.IntegerField()
        table_id = serializers.IntegerField()
        table_name = serializers.CharField()
        number = serializers.IntegerField()
        shoe_number = serializers.IntegerField()
        state = serializers.CharField()
        opens_at = serializers.CharField()
        closes_at = serializers.CharField()
        result_at = serializers.CharField(allow_null=True)
        settled_at = serializers.CharField(allow_null=True)
        cancelled_at = serializers.CharField(allow_null=True)
        cards = serializers.JSONField()
        player_total = serializers.IntegerField(allow_null=True)
        banker_total = serializers.IntegerField(allow_null=True)
        winner = serializers.CharField(allow_null=True)
        flags = serializers.JSONField(allow_null=True)
        is_last_of_shoe = serializers.BooleanField()
        reason = serializers.CharField(allow_null=True)
        bets = MyBetSerializer(many=True)

    @extend_schema(responses={200: OutputSerializer, 404: ERRORS[404]})
    def get(self, request: Request, round_id: int) -> Response:
        data = bet_selectors.round_with_bets(round_id=round_id, user=request.user)
        return Response(self.OutputSerializer(data).data)


# ── bets ────────────────────────────────────────────────────────────────────


class BetPlaceThrottle(BaseThrottle):
    """Per-user limit on confirms, ``BET_THROTTLE_RATE``, counted with the table socket's confirms
    (``tables.services.rate``): one Redis round trip instead of DRF's read-modify-write of a timestamp
    list through the cache (two round trips, a pickle, and under ASGI a new connection each time)."""

    scope = BET_RATE_SCOPE

    def __init__(self) -> None:
        self.retry_after: float | None = None

    def allow_request(self, request: Request, view: APIView) -> bool:
        if not request.user or not request.user.is_authenticated:
            return True
        self.retry_after = bet_rate_take(user_id=request.user.pk)
        return self.retry_after is None

    def wait(self) -> float | None:
        return self.retry_after


@extend_schema_field({"type": "string", "pattern": AMOUNT_PATTERN, "example": "10.00"})
class AmountField(serializers.CharField):
    """A stake as the service reads it (tables.services.placement.parse_bets): documented with its pattern."""


@extend_schema_field({"type": "string", "enum": list(MODES)})
class ModeField(serializers.CharField):
    """``traditional`` or ``no_commission``; anything else is refused by the service as ``invalid_mode``."""


class BetInputSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=BET_TYPES)
    amount = AmountField(help_text='A string with at most two decimals, e.g. "10.00". Numbers are refused.')


@extend_schema_field(BetInputSerializer)
class RawBetField(serializers.Field):
    """Passed through as sent: the service checks each bet and answers with docs/api.md's codes."""

    def to_internal_value(self, data: Any) -> Any:
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class BetPlaceApi(APIView):
    """Confirm bets on a round, all or nothing. Send an ``Idempotency-Key`` header: the same key and
    body returns the first answer again; a different body under the same key is 409."""

    authentication_classes = [PreparedTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]
    throttle_classes = [BetPlaceThrottle]

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "BetPlaceInput"

        mode = ModeField(help_text="traditional or no_commission (how a Banker bet is paid).")
        bets = serializers.ListField(child=RawBetField(), allow_empty=False, max_length=MAX_BETS_PER_BATCH)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "BetPlaceOutput"

        class PlacedBetSerializer(serializers.Serializer):
            class Meta:
                ref_name = "PlacedBet"

            id = serializers.IntegerField()
            type = serializers.CharField()
            amount = serializers.CharField()
            mode = serializers.CharField()
            status = serializers.CharField()

        bets = PlacedBetSerializer(many=True)
        balance = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                required=True,
                description="A UUID per confirm, 1-100 characters (a retry reuses it; without it: 400).",
            )
        ],
        responses={
            201: OutputSerializer,
            **ERRORS,
            409: OpenApiResponse(ErrorSerializer, description="idempotency_conflict"),
            429: OpenApiResponse(ErrorSerializer, description="throttled"),
            **BODY_ERRORS,
        },
    )
    def post(self, request: Request, round_id: int) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        placed = bet_place(
            user=request.user,
            round_id=round_id,
            mode=serializer.validated_data["mode"],
            bets=serializer.validated_data["bets"],
            idempotency_key=request.headers.get("Idempotency-Key"),
        )
        return Response(placed.as_body(), status=status.HTTP_201_CREATED)


# Dates a filter can name: the day after the last one still exists, and every real UTC offset is within ±14:00
# (PostgreSQL refuses offsets from 16:00; Python's date arithmetic overflows past year 9999).
MIN_YEAR, MAX_YEAR = 1970, 9998
#: A date, or a date and time (seconds and fraction optional) with an optional UTC offset: what the filter reads.
MOMENT_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?$"
)
MAX_UTC_OFFSET = timedelta(hours=14)


@extend_schema_field({"type": "string", "pattern": MOMENT_PATTERN, "example": "2026-01-31"})
class MomentField(serializers.Field):
    """A date (``2026-01-31``) or a datetime (``2026-01-31T12:00:00Z``; naive means UTC)."""

    def to_internal_value(self, data: Any) -> datetime | date:
        if isinstance(data, str) and re.fullmatch(MOMENT_PATTERN, data):
            try:
                day = parse_date(data)
                if day is not None:
                    if not MIN_YEAR <= day.year <= MAX_YEAR:
                        raise serializers.ValidationError(f"Use a year from {MIN_YEAR} to {MAX_YEAR}.")
                    return day
                moment = parse_datetime(data)
                if moment is not None:
                    offset = moment.utcoffset() if moment.tzinfo else None
                    if offset is not None and abs(offset) > MAX_UTC_OFFSET:
                        raise serializers.ValidationError("A UTC offset is at most ±14:00.")
                    if not MIN_YEAR <= moment.year <= MAX_YEAR:
                        raise serializers.ValidationError(f"Use a year from {MIN_YEAR} to {MAX_YEAR}.")
                    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
            except (ValueError, OverflowError):
                pass
        raise serializers.ValidationError("Use a date (2026-01-31) or a datetime (2026-01-31T12:00:00Z).")

    def to_representation(self, value: Any) -> str:
        return value.isoformat()


class BetListApi(APIView):
    """The caller's bet record, newest first, paginated; filter by table, type, result, from, to."""

    permission_classes = [IsAuthenticated]

    class FilterSerializer(serializers.Serializer):
        class Meta:
            ref_name = "BetFilter"

        table = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
        type = serializers.ChoiceField(choices=BET_TYPES, required=False)
        result = serializers.ChoiceField(choices=RESULTS, required=False)

        def get_fields(self) -> dict[str, serializers.Field]:
            fields = super().get_fields()
            fields["from"] = MomentField(required=False, help_text="Placed on or after (date or datetime).")
            fields["to"] = MomentField(required=False, help_text="Placed on or before (a date: that whole day).")
            return fields

    class OutputSerializer(serializers.ModelSerializer):
        table = serializers.IntegerField(source="round.table_id")
        table_name = serializers.CharField(source="round.table.name")
        round = serializers.IntegerField(source="round_id")
        round_number = serializers.IntegerField(source="round.number")
        placed_at = IsoMillisField()
        # The bet's outcome is its kind's on its round (tables.models.BetOutcome), read through the bet.
        status = serializers.ChoiceField(choices=Bet.Status.choices, read_only=True)
        payout = serializers.DecimalField(max_digits=14, decimal_places=2, allow_null=True, read_only=True)
        settled_at = IsoMillisField(allow_null=True, read_only=True)

        class Meta:
            ref_name = "BetRecord"
            model = Bet
            fields = (
                "id",
                "placed_at",
                "table",
                "table_name",
                "round",
                "round_number",
                "type",
                "mode",
                "amount",
                "status",
                "payout",
                "settled_at",
            )

    @extend_schema(
        parameters=[FilterSerializer, *PAGE_PARAMETERS],
        responses={200: page_of(OutputSerializer, "BetPage"), 400: ERRORS[400], 401: ERRORS[401], 404: ERRORS[404]},
    )
    def get(self, request: Request) -> Response:
        # DRF reads an empty query value as "not given"; the schema says each filter is a value or absent.
        blank = {
            name: "Give a value, or leave the parameter out."
            for name, value in request.query_params.items()
            if value == ""
        }
        if blank:
            raise exceptions.ValidationError(blank)
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        start, end = data.get("from"), data.get("to")
        if isinstance(start, date) and not isinstance(start, datetime):
            start = datetime.combine(start, day_time.min, tzinfo=UTC)
        before = until = None
        if isinstance(end, datetime):
            until = end
        elif isinstance(end, date):
            before = datetime.combine(end + timedelta(days=1), day_time.min, tzinfo=UTC)
        bets = bet_selectors.bet_list(
            user=cast("User", request.user),
            table_id=data.get("table"),
            bet_type=data.get("type"),
            result=data.get("result"),
            placed_from=start,
            placed_before=before,
            placed_until=until,
        )
        return paginated(queryset=bets, serializer_class=self.OutputSerializer, request=request, view=self)
