"""POST /api/auth/token/: an API token for a username and password (counted by the login throttle);
POST /api/auth/logout/: the caller's token revoked;
POST /api/wallet/refill/: the play-money refill, a rule of the account that reads the tables' minimum stake;
POST /api/account/time-out/ and /api/account/self-exclusion/: the player's own stop on their play;
GET/PUT /api/account/limits/: the player's responsible-gaming limits (``accounts.limits``);
GET/POST /api/account/reality-check/: the player's reality check, and their answer to it."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from django.contrib.auth import logout
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from baccarat_site import money
from baccarat_site.accounts import services
from baccarat_site.accounts.limits import (
    AMOUNT_KINDS,
    LimitsState,
    RealityCheck,
    play_limits_set,
    reality_check_answer,
    reality_check_state,
)
from baccarat_site.accounts.models import PLAY_LIMIT_KINDS, Restriction
from baccarat_site.accounts.services import api_token_issue
from baccarat_site.api.errors import BODY_ERRORS, ERRORS, ErrorSerializer
from baccarat_site.clock import iso
from baccarat_site.errors import DomainError
from baccarat_site.jsonlimits import BoundedJSONParser
from tables.selectors.spending import limits_state
from tables.selectors.tables import table_minimum_stake
from wallets.apis import WalletApi
from wallets.selectors import wallet_balance

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class TokenApi(APIView):
    """Exchange a username and password for an API token (``Authorization: Token <key>``). The key expires
    at ``expires_at``; asking again after that gives a new key. Five wrong passwords for one username from
    one address lock that pair out for 15 minutes (429 ``too_many_attempts``)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()
        expires_at = serializers.DateTimeField()

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(ErrorSerializer, description="invalid_request, invalid_credentials, malformed_json"),
            403: OpenApiResponse(
                ErrorSerializer,
                description="account_suspended, account_closed, timed_out, self_excluded (this account, or for the "
                "last two another account of the same person), linked_account_stopped",
            ),
            429: OpenApiResponse(ErrorSerializer, description="too_many_attempts (with retry_after)"),
            **BODY_ERRORS,
        },
    )
    def post(self, request: Request) -> Response:
        credentials = self.InputSerializer(data=request.data)
        credentials.is_valid(raise_exception=True)  # strings without NUL characters, of sane lengths
        token, expires_at = api_token_issue(
            request=request._request,
            username=credentials.validated_data["username"],
            password=credentials.validated_data["password"],
        )
        return Response(self.OutputSerializer({"token": token.key, "expires_at": expires_at}).data)


class LogoutApi(APIView):
    """Sign out a token client: the caller's API token is revoked at once (any later request with it is 401
    ``authentication_failed``); ask ``POST /api/auth/token/`` for a new one. Called with the session cookie
    instead, it also ends that session (and closes its table sockets), as the site's sign-out does."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="The token is revoked."), 401: ERRORS[401], **BODY_ERRORS},
    )
    def post(self, request: Request) -> Response:
        if request.auth is None:  # the session cookie: Django's logout (its signal revokes the token too)
            logout(request._request)
        else:  # a token client: its token only (the player's browser sessions and sockets are theirs)
            services.api_token_revoke(user=cast("User", request.user))
        return Response(status=204)


class RefillApi(APIView):
    """Top the caller's play money back up to the starting balance: allowed when the balance is below the smallest
    minimum stake of the open tables, once an hour. 409 ``refill_not_needed`` / ``refill_too_soon`` (with
    ``retry_after`` in seconds) otherwise; nothing is written on a refusal."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={
            200: WalletApi.OutputSerializer,
            401: ERRORS[401],
            409: OpenApiResponse(ErrorSerializer, description="`refill_not_needed` or `refill_too_soon`."),
        },
    )
    def post(self, request: Request) -> Response:
        services.player_refill(user=cast("User", request.user), minimum_stake=table_minimum_stake())
        return Response(WalletApi.OutputSerializer(wallet_balance(user=cast("User", request.user))).data)


class _SelfRestrictApi(APIView):
    """The player's own stop: from now, for the chosen period; it cannot be shortened or lifted early, by the player
    or by staff. Every API token of the player is revoked and their signed-in sessions end; sign-in and bets are
    refused until it ends (403 with ``timed_out`` / ``self_excluded``)."""

    permission_classes = [IsAuthenticated]
    kind: str = ""

    class InputSerializer(serializers.Serializer):
        period = serializers.CharField(max_length=8)

        class Meta:
            ref_name = "StopPeriod"

    class OutputSerializer(serializers.Serializer):
        kind = serializers.CharField()
        starts_at = serializers.DateTimeField()
        ends_at = serializers.DateTimeField()

        class Meta:
            ref_name = "Stop"

    def post(self, request: Request) -> Response:
        given = self.InputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        stop = services.player_self_restrict(
            user=cast("User", request.user), kind=self.kind, period=given.validated_data["period"]
        )
        return Response(self.OutputSerializer(stop).data, status=201)


_SELF_RESTRICT_RESPONSES = {
    401: ERRORS[401],
    400: OpenApiResponse(ErrorSerializer, description="invalid_period, invalid_request, not_a_player"),
    **BODY_ERRORS,
}


class TimeOutApi(_SelfRestrictApi):
    __doc__ = _SelfRestrictApi.__doc__
    kind = Restriction.Kind.TIME_OUT

    @extend_schema(
        summary="Take a time-out: period 24h, 7d, 30d or 6w",
        request=_SelfRestrictApi.InputSerializer,
        responses={201: _SelfRestrictApi.OutputSerializer, **_SELF_RESTRICT_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class SelfExclusionApi(_SelfRestrictApi):
    __doc__ = _SelfRestrictApi.__doc__
    kind = Restriction.Kind.SELF_EXCLUSION

    @extend_schema(
        summary="Exclude yourself: period 6m, 1y or 5y",
        request=_SelfRestrictApi.InputSerializer,
        responses={201: _SelfRestrictApi.OutputSerializer, **_SELF_RESTRICT_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


def _limit_value(kind: str, value: Decimal | None) -> str | int | None:
    if value is None:
        return None
    return money.text(value) if kind in AMOUNT_KINDS else int(value)


def limits_body(state: LimitsState) -> dict[str, Any]:
    """The answer of ``GET``/``PUT /api/account/limits/`` (docs/api.md, "Responsible gaming")."""
    body: dict[str, Any] = {kind: _limit_value(kind, state.in_force[kind]) for kind in PLAY_LIMIT_KINDS}
    body["pending"] = [
        {"limit": kind, "value": _limit_value(kind, p.value), "applies_at": iso(p.applies_at)}
        for kind, p in sorted(state.pending.items(), key=lambda item: PLAY_LIMIT_KINDS.index(item[0]))
    ]
    body["usage"] = {
        kind: {"used": money.text(u.used), "left": money.text(u.left), "resets_at": iso(u.resets_at)}
        for kind, u in state.usage.items()
    }
    return body


class LimitPendingSerializer(serializers.Serializer):
    limit = serializers.ChoiceField(choices=list(PLAY_LIMIT_KINDS))
    value = serializers.CharField(allow_null=True, help_text='An amount ("200.00"), minutes, or null: none.')
    applies_at = serializers.DateTimeField()

    class Meta:
        ref_name = "LimitPending"


class LimitUsageSerializer(serializers.Serializer):
    used = serializers.CharField(help_text="Counted in the rolling period so far (a loss may be negative).")
    left = serializers.CharField()
    resets_at = serializers.DateTimeField(
        allow_null=True, help_text="When the oldest amount counted leaves the period (more is left then)."
    )

    class Meta:
        ref_name = "LimitUsage"


class LimitsApi(APIView):
    """The caller's responsible-gaming limits (docs/api.md, "Responsible gaming"): GET reads them, PUT changes
    the fields it sends (amounts as strings like "100.00", minutes as whole numbers, null for none; fields left
    out stay as they are). Stricter values apply at once, looser ones after 24 hours (listed in ``pending``
    with ``applies_at``). A bad value: 400 ``invalid_limit`` and nothing changes. JSON only: a form cannot say
    null, and its repeated fields arrive as lists; an empty string is refused rather than read as "none"."""

    permission_classes = [IsAuthenticated]
    parser_classes = [BoundedJSONParser]

    class InputSerializer(serializers.Serializer):
        deposit_day = serializers.CharField(allow_null=True, required=False)
        deposit_week = serializers.CharField(allow_null=True, required=False)
        deposit_month = serializers.CharField(allow_null=True, required=False)
        loss_day = serializers.CharField(allow_null=True, required=False)
        loss_week = serializers.CharField(allow_null=True, required=False)
        loss_month = serializers.CharField(allow_null=True, required=False)
        wager_day = serializers.CharField(allow_null=True, required=False)
        wager_week = serializers.CharField(allow_null=True, required=False)
        wager_month = serializers.CharField(allow_null=True, required=False)
        session_minutes = serializers.IntegerField(allow_null=True, required=False)
        reality_check_minutes = serializers.ChoiceField(choices=[15, 30, 60], allow_null=True, required=False)

        class Meta:
            ref_name = "LimitsInput"

    class OutputSerializer(InputSerializer):
        pending = serializers.ListField(child=LimitPendingSerializer(), help_text="Changes waiting for their time.")
        usage = serializers.DictField(
            child=LimitUsageSerializer(), help_text="Per amount limit in force (its field name): used and left."
        )

        class Meta:
            ref_name = "LimitsOutput"

    @extend_schema(
        responses={200: OutputSerializer, 401: ERRORS[401]},
        description="Limits in force, pending changes (`pending`: [{limit, value, applies_at}]) and, per amount "
        "limit in force, `usage`: {kind: {used, left, resets_at}} over its rolling period.",
    )
    def get(self, request: Request) -> Response:
        return Response(limits_body(limits_state(user_id=cast(int, request.user.pk))))

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(ErrorSerializer, description="invalid_limit, invalid_request, malformed_json"),
            401: ERRORS[401],
            **BODY_ERRORS,
        },
    )
    def put(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise DomainError("Send a JSON object of limits.", code="invalid_limit")
        unknown = sorted(set(request.data) - set(PLAY_LIMIT_KINDS))
        if unknown:
            raise DomainError(f"Not a limit: {', '.join(k[:40] for k in unknown)}.", code="invalid_limit")
        blank = sorted(kind for kind, value in request.data.items() if value == "")
        if blank:
            raise DomainError(f"{', '.join(blank)}: send null for no limit, not an empty string.", code="invalid_limit")
        play_limits_set(user=cast("User", request.user), changes=dict(request.data))
        return Response(limits_body(limits_state(user_id=cast(int, request.user.pk))))


class RealityCheckApi(APIView):
    """The caller's reality check (docs/api.md, "Responsible gaming"). GET: the interval, the session's start,
    when the next check is due and whether it is due now (all null without a check or a sign-in). POST: the
    player answers it ("Keep playing"); the next one is due an interval from now. While a check is due and
    unanswered, every bet is refused with 403 ``reality_check_due``. Answering when there is no check, or more
    than a minute before it is due, is 409 ``reality_check_not_due`` (with ``due_at``) and records nothing."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        every = serializers.IntegerField(allow_null=True, help_text="Minutes between checks; null: no check.")
        session_started_at = serializers.DateTimeField(allow_null=True)
        answered_at = serializers.DateTimeField(allow_null=True, help_text="The latest answer.")
        due_at = serializers.DateTimeField(allow_null=True)
        due = serializers.BooleanField(help_text="A check is waiting for an answer: bets are refused until then.")

        class Meta:
            ref_name = "RealityCheck"

    def _body(self, check: RealityCheck | None) -> dict[str, Any]:
        now = timezone.now()
        if check is None:
            return {"every": None, "session_started_at": None, "answered_at": None, "due_at": None, "due": False}
        return {
            "every": check.every,
            "session_started_at": iso(check.since),
            "answered_at": iso(check.answered_at),
            "due_at": iso(check.due_at),
            "due": check.due(now),
        }

    @extend_schema(responses={200: OutputSerializer, 401: ERRORS[401]})
    def get(self, request: Request) -> Response:
        return Response(self._body(reality_check_state(user_id=cast(int, request.user.pk), now=timezone.now())))

    @extend_schema(
        request=None,
        responses={
            200: OutputSerializer,
            401: ERRORS[401],
            409: OpenApiResponse(ErrorSerializer, description="reality_check_not_due (with due_at)"),
            **BODY_ERRORS,
        },
    )
    def post(self, request: Request) -> Response:
        return Response(self._body(reality_check_answer(user=cast("User", request.user))))
