"""Refusals made before any view: request bodies over the documented size, characters
that cannot be stored; and the API's error shape for every answer made outside DRF."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

API_PREFIX = "/api/"


def error_answer(status: int, code: str, message: str, **more: str) -> JsonResponse:
    """One problem in the API's error shape, for the answers made outside DRF's views
    (`more`: keys beside `errors`, as a 429's `retry_after`)."""
    return JsonResponse(
        {"errors": [{"pointer": "", "code": code, "message": message}], **more}, status=status
    )


class RequestSizeLimitMiddleware:
    """413 for a body larger than settings.MAX_REQUEST_BODY_BYTES (by its Content-Length).

    API callers get the API's error shape; people get a short page. A body sent without
    a length is still capped by DATA_UPLOAD_MAX_MEMORY_SIZE when it is read.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_REQUEST_BODY_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            message = f"The request body is {length} bytes; the limit is {limit} bytes."
            return _refusal(request, 413, "too-large", message)
        return self.get_response(request)


_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _refusal(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        return error_answer(status, code, message)
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


class UnstorableCharacterMiddleware:
    """Refuse a NUL character in the address, the query or a form before any view sees it.

    PostgreSQL cannot store or even compare text holding NUL, so a `%00` that reached a
    lookup would answer 500. No address of the site holds one (404); a query or a form
    field with one is bad input (400). JSON bodies are checked by their parser
    (`dbd_site.inputs.load_json`), which refuses lone surrogates as well.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            return _refusal(request, 404, "not-found", "No address here holds a NUL character.")
        if _holds_nul(request.GET):
            return _refusal(
                request, 400, "bad-character", "A query parameter holds a NUL character."
            )
        # The API reads JSON only (its parser refuses NUL), and must find its body unread.
        if (
            request.method == "POST"
            and request.content_type in _FORM_TYPES
            and not request.path.startswith("/api/")
            and _holds_nul(request.POST)
        ):
            return _refusal(request, 400, "bad-character", "A form field holds a NUL character.")
        return self.get_response(request)


def _holds_nul(data) -> bool:
    return any("\x00" in key or any("\x00" in v for v in values) for key, values in data.lists())
