"""The API root and the one error shape every endpoint answers with."""

from typing import Any

from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.views import csrf, defaults
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import exception_handler as drf_exception_handler

from dbd_site import api_codes  # noqa: F401  (declares the codes answered here)
from dbd_site.errors import DomainError
from dbd_site.middleware import API_PREFIX, error_answer


@extend_schema(
    operation_id="api_root",
    summary="Links to the API's parts",
    responses={
        200: inline_serializer(
            "ApiRoot",
            {
                key: serializers.URLField()
                for key in (
                    "rules",
                    "rosters",
                    "rosters_validate",
                    "campaigns",
                    "battles",
                    "events",
                    "webhooks",
                    "schema",
                    "docs",
                )
            },
        )
    },
    tags=["api"],
)
@api_view(["GET"])
@permission_classes([AllowAny])
def api_root(request: Request) -> Response:
    return Response(
        {
            "rules": reverse("rules-api-root", request=request),
            "rosters": reverse("roster-api-list", request=request),
            "rosters_validate": reverse("roster-api-validate", request=request),
            "campaigns": reverse("campaign-api-list", request=request),
            "battles": reverse("play-api-list", request=request),
            "events": reverse("events-api-feed", request=request),
            "webhooks": reverse("events-api-webhooks", request=request),
            "schema": reverse("api-schema", request=request),
            "docs": reverse("api-docs", request=request),
        }
    )


def _flatten(detail: Any, pointer: str = "") -> list[dict[str, str]]:
    """Turn DRF's nested error detail into [{pointer, code, message}] (R12's shape)."""
    if isinstance(detail, dict):
        errors: list[dict[str, str]] = []
        for key, value in detail.items():
            sub = pointer if key == "non_field_errors" else f"{pointer}/{key}"
            errors.extend(_flatten(value, sub))
        return errors
    if isinstance(detail, list):
        errors = []
        for index, value in enumerate(detail):
            sub = pointer if isinstance(value, exceptions.ErrorDetail) else f"{pointer}/{index}"
            errors.extend(_flatten(value, sub))
        return errors
    code = getattr(detail, "code", "invalid") or "invalid"
    return [{"pointer": pointer, "code": str(code).replace("_", "-"), "message": str(detail)}]


# The pages show a serializer's refusals in the same words.
flatten_errors = _flatten


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """Every refusal in the one error shape; a `DomainError`'s status from `HTTP_STATUS`."""
    if isinstance(exc, DomainError):
        return Response(exc.as_dict(), status=exc.status)
    # Django's own 404 and 403 become DRF's, so they get the same error shape.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"errors": _flatten(exc.detail)}
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        code = getattr(detail, "code", exc.default_code)
        response.data = {
            "errors": [
                {"pointer": "", "code": str(code).replace("_", "-"), "message": str(detail)}
            ]
        }
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS and "Retry-After" in response:
        response.data["retry_after"] = response["Retry-After"]
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """400 for the whole site (a forged Host, an unreadable form): the API's error shape
    under /api/, Django's plain page elsewhere. It names no host: the one it was given is
    what was refused."""
    if not request.path.startswith(API_PREFIX):
        return defaults.bad_request(request, exception)
    if isinstance(exception, DisallowedHost):
        return error_answer(400, "bad-host", "This site does not answer to that host name.")
    if isinstance(exception, RequestDataTooBig):
        return error_answer(413, "too-large", "The request body is larger than the site accepts.")
    return error_answer(400, "bad-request", "The request could not be read.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """403 for a write without its CSRF token: the API's shape under /api/ (DRF's views
    check their own; this is for any other view there), Django's page elsewhere."""
    if not request.path.startswith(API_PREFIX):
        return csrf.csrf_failure(request, reason)
    return error_answer(403, "csrf-failed", f"CSRF check failed: {reason or 'no token'}.")


def not_found(request, exception=None):
    """404 for the whole site: the API's error shape under /api/, a page elsewhere."""
    if request.path.startswith(API_PREFIX):
        message = "Nothing here: check the address against /api/schema/."
        return error_answer(404, "not-found", message)
    return defaults.page_not_found(request, exception)


def server_error(request):
    """500: the API's error shape under /api/ (no details leak), Django's page elsewhere;
    503 with Retry-After when it was the database or the cache out of reach."""
    from dbd_site import health

    if health.backing_service_down():
        return health.unavailable(request)
    if request.path.startswith(API_PREFIX):
        message = "Something went wrong on our side; it has been logged."
        return error_answer(500, "server-error", message)
    return defaults.server_error(request)
