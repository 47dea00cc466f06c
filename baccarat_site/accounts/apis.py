"""POST /api/auth/token/: an API token for a username and password (counted by the login throttle)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from baccarat_site.accounts.services import api_token_issue
from baccarat_site.api_errors import BODY_ERRORS, ErrorSerializer


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
