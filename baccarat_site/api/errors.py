"""One exception handler: every API error is ``{"code": …, "detail": …}`` with a 4xx status."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from baccarat_site.errors import DomainError


class ErrorSerializer(serializers.Serializer):
    """Every error body of the API (documented on each operation)."""

    code = serializers.CharField()
    detail = serializers.CharField()


ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Refused: see `code`."),
    401: OpenApiResponse(ErrorSerializer, description="Not signed in."),
    404: OpenApiResponse(ErrorSerializer, description="No such object."),
}
#: What any request with a body may also get: a body in a format the endpoint does not parse.
BODY_ERRORS = {
    413: OpenApiResponse(ErrorSerializer, description="body_too_large: over API_MAX_BODY_BYTES (64 KB), not read."),
    415: OpenApiResponse(ErrorSerializer, description="unsupported_media_type: send JSON."),
}

_DRF_CODES = {
    exceptions.ParseError: "malformed_json",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def _flatten(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_flatten(item) for item in detail)
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DomainError):
        return Response(exc.as_dict(), status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        code = "invalid_request"
    else:
        code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    detail = _flatten(response.data.get("detail", response.data) if isinstance(response.data, dict) else response.data)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed) and response.status_code == 403:
        response.status_code = status.HTTP_401_UNAUTHORIZED
    response.data = {"code": code, "detail": detail}
    return response


@csrf_exempt  # a POST to a path that names nothing gets the 404, not the CSRF failure page
def api_not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Every path under ``/api/`` that names nothing (an unknown route, a negative or non-numeric id): the
    API's JSON 404, not Django's HTML page."""
    return JsonResponse({"code": "not_found", "detail": "There is no such API resource."}, status=404)
