"""REST for the dealer's console and scanner integrations, under /api/dealer/ (docs/api.md, "Dealer's console").

One APIView per operation: validate the body, call one service of ``tables.services.dealing`` (or the console's
selector), render. Staff only: a dealer in the Dealers group (``tables.deal_table``) on shift at the table, or a
supervisor (``tables.supervise_table``); anyone else gets 403 ``not_dealer`` and nothing changes.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from baccarat_site.accounts.tokens import PreparedTokenAuthentication
from baccarat_site.api.errors import BODY_ERRORS, ERRORS, ErrorSerializer
from baccarat_site.errors import DomainError
from tables.selectors.dealing import console_state
from tables.services import dealing
from tables.services.placement import MAX_KEY_LENGTH
from tables.services.sources import DealingRefused

REFUSED = {
    403: OpenApiResponse(ErrorSerializer, description="not_dealer, not_on_shift, not_supervisor"),
    409: OpenApiResponse(
        ErrorSerializer,
        description="rescan, card_impossible, shoe_empty, betting_open, hand_complete, paused, no_round, no_shoe, "
        "burn_pending, burn_done, round_dealing, not_live, wrong_position, position_taken, round_changed, "
        "idempotency_conflict, round_has_result: nothing was dealt or changed",
    ),
}


class _DealerApi(APIView):
    authentication_classes = [PreparedTokenAuthentication, SessionAuthentication]
    permission_classes = [IsAuthenticated]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        if not dealing.may_deal(request.user):
            raise dealing.NotADealer("Only staff in the Dealers group (or a supervisor) may use the dealer's console.")


class ReasonSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=200, allow_blank=True, required=False, default="")


class ConsoleApi(_DealerApi):
    """The console's state: round, expected card, cards with totals and scan times, shoe, supervisor call."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED})
    def get(self, request: Request, table_id: int) -> Response:
        return Response(console_state(table_id))


class CardScanApi(_DealerApi):
    """A scanned card: the new shoe's burn card, or the next card of the round. Never guessed: a code that is not
    a card, or one the shoe cannot take now, is refused (409 with a precise code) and nothing is dealt. A scan
    names what it is for (``round_id`` and ``position``, and/or an ``Idempotency-Key``): a repeat answers the first
    answer and deals nothing."""

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CardScanInput"

        card = serializers.CharField(max_length=12, help_text="Rank then suit: AS, TD, 7H, QC (10H is read as TH).")
        round_id = serializers.IntegerField(
            required=False, min_value=1, max_value=2**63 - 1, help_text="The round the card is for."
        )
        position = serializers.IntegerField(
            required=False, min_value=1, max_value=6, help_text="The card's place in the deal order, 1 to 6."
        )

    @extend_schema(request=InputSerializer, responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED, **BODY_ERRORS})
    def post(self, request: Request, table_id: int) -> Response:
        serializer = self.InputSerializer(data=request.data)
        if not serializer.is_valid():
            raise DealingRefused('Send {"card": "AS", "round_id": …, "position": …}: scan again.', code="rescan")
        data = serializer.validated_data
        key = request.headers.get("Idempotency-Key")
        if key is not None and not 0 < len(key.strip()) <= MAX_KEY_LENGTH:
            raise DomainError(f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters.", code="invalid_request")
        if ("round_id" in data) != ("position" in data):
            raise DomainError("Send round_id and position together.", code="scan_unnamed")
        if key is None and "round_id" not in data:
            raise DomainError(
                "Name the scan: an Idempotency-Key header (kept across retries), or round_id and position, so a "
                "retry never deals a card twice.",
                code="scan_unnamed",
            )
        return Response(
            dealing.card_scan(
                table_id=table_id,
                code=data["card"],
                actor=request.user,
                round_id=data.get("round_id"),
                position=data.get("position"),
                key=key,
            )
        )


class BurnApi(_DealerApi):
    """The dealer has burned the cards the burn card calls for: the shoe is ready."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED})
    def post(self, request: Request, table_id: int) -> Response:
        return Response(dealing.burn_confirm(table_id=table_id, actor=request.user))


class CutCardApi(_DealerApi):
    """The cut card came out: the current round is the last of the shoe."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED})
    def post(self, request: Request, table_id: int) -> Response:
        return Response(dealing.cut_card_out(table_id=table_id, actor=request.user))


class ShiftApi(_DealerApi):
    """The signed-in dealer takes the shift at this table."""

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED})
    def post(self, request: Request, table_id: int) -> Response:
        dealing.shift_take(table_id=table_id, actor=request.user)
        return Response(console_state(table_id))


class SupervisorCallApi(_DealerApi):
    """Call the supervisor: the table pauses and the live floor shows the call."""

    @extend_schema(request=ReasonSerializer, responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED})
    def post(self, request: Request, table_id: int) -> Response:
        serializer = ReasonSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(
            dealing.supervisor_call(table_id=table_id, actor=request.user, reason=serializer.validated_data["reason"])
        )


class _SupervisorInput(serializers.Serializer):
    reason = serializers.CharField(max_length=200, help_text="Why: kept in the audit trail.")


class ResumeApi(_DealerApi):
    """Supervisor: resume the paused table (a started round is completed as dealing resumes)."""

    @extend_schema(request=_SupervisorInput, responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED})
    def post(self, request: Request, table_id: int) -> Response:
        serializer = _SupervisorInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(
            dealing.supervisor_resume(table_id=table_id, actor=request.user, reason=serializer.validated_data["reason"])
        )


class VoidApi(_DealerApi):
    """Supervisor: void the named round, cancelling it and refunding every stake; a repeat answers the first answer
    and never touches the next round."""

    class InputSerializer(_SupervisorInput):
        class Meta:
            ref_name = "VoidInput"

        round_id = serializers.IntegerField(min_value=1, max_value=2**63 - 1, help_text="The round to void.")

    @extend_schema(request=InputSerializer, responses={200: OpenApiTypes.OBJECT, **ERRORS, **REFUSED})
    def post(self, request: Request, table_id: int) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        return Response(
            dealing.supervisor_void(
                table_id=table_id, actor=request.user, reason=data["reason"], round_id=data["round_id"]
            )
        )
