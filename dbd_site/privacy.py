"""Pages with a player's data are never kept by the browser (issue: stale pages on Back)."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers


class PrivatePagesMiddleware:
    """`Cache-Control: no-store` (with Django's other never-cache headers) on every HTML
    answer to a signed-in user, in production as under DEBUG.

    Back and Forward then ask the server again instead of showing a copy from before the
    player's last change; htmx keeps no snapshots either (`historyCacheSize` 0 in
    base.html). Answers that chose their own caching (the roster API's ETag) and non-HTML
    answers (files, JSON) are left as they are.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.get("Content-Type", "").startswith("text/html")
            and not response.has_header("Cache-Control")
            and _signed_in(request)
        ):
            add_never_cache_headers(response)
        return response


def _signed_in(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)
