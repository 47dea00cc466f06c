"""POST /api/auth/token/: an API token for a username and password (counted by the login throttle);
POST /api/auth/logout/: the caller's token revoked;
POST /api/wallet/refill/: the play-money refill, a rule of the account that reads the tables' minimum stake."""

from __future__ import annotations

from django.contrib.auth import logout
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from baccarat_site.accounts import services
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
            services.api_token_revoke(user=request.user)
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
        services.player_refill(user=request.user)
        return Response(WalletApi.OutputSerializer(wallet_balance(user=request.user)).data)
