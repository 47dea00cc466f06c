"""POST /api/auth/token/: an API token for a username and password (counted by the login throttle);
POST /api/wallet/refill/: the play-money refill, a rule of the account that reads the tables' minimum stake;
POST /api/account/time-out/ and /api/account/self-exclusion/: the player's own stop on their play."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from baccarat_site.accounts import services
from baccarat_site.accounts.models import Restriction
from baccarat_site.accounts.services import api_token_issue
from baccarat_site.api.errors import BODY_ERRORS, ERRORS, ErrorSerializer
from wallets.apis import WalletApi
from wallets.selectors import wallet_balance


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
        services.player_refill(user=request.user)
        return Response(WalletApi.OutputSerializer(wallet_balance(user=request.user)).data)


class _SelfRestrictApi(APIView):
    """The player's own stop: from now, for the chosen period; it cannot be shortened or lifted early, by the player
    or by staff. Every API token of the player is revoked and their signed-in sessions end; sign-in and bets are
    refused until it ends (403 with ``timed_out`` / ``self_excluded``)."""

    permission_classes = [IsAuthenticated]
    kind: str = ""

    class InputSerializer(serializers.Serializer):
        period = serializers.CharField(max_length=8)

    class OutputSerializer(serializers.Serializer):
        kind = serializers.CharField()
        starts_at = serializers.DateTimeField()
        ends_at = serializers.DateTimeField()

    def post(self, request: Request) -> Response:
        given = self.InputSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        stop = services.player_self_restrict(user=request.user, kind=self.kind, period=given.validated_data["period"])
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
