"""Refuse request bodies over the documented size before anything reads them."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse


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
            if request.path.startswith("/api/"):
                return JsonResponse(
                    {"errors": [{"pointer": "", "code": "too-large", "message": message}]},
                    status=413,
                )
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
