"""The API root and the one error shape every endpoint answers with."""

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import exception_handler as drf_exception_handler

from dbd_site.errors import DomainError


@extend_schema(
    summary="Links to the API's parts",
    responses={200: OpenApiTypes.OBJECT},
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


def not_found(request, exception=None):
    """404 for the whole site: the API's error shape under /api/, a page elsewhere."""
    from django.http import JsonResponse
    from django.views.defaults import page_not_found

    if request.path.startswith("/api/"):
        message = "Nothing here: check the address against /api/schema/."
        return JsonResponse(
            {"errors": [{"pointer": "", "code": "not-found", "message": message}]}, status=404
        )
    return page_not_found(request, exception)


def server_error(request):
    """500: the API's error shape under /api/ (no details leak), Django's page elsewhere;
    503 with Retry-After when it was the database or the cache out of reach."""
    from django.http import JsonResponse
    from django.views.defaults import server_error as page_server_error

    from dbd_site import health

    if health.backing_service_down():
        return health.unavailable(request)
    if request.path.startswith("/api/"):
        message = "Something went wrong on our side; it has been logged."
        return JsonResponse(
            {"errors": [{"pointer": "", "code": "server-error", "message": message}]},
            status=500,
        )
    return page_server_error(request)
