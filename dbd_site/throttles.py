"""The API's throttles: per client address when anonymous, per user when signed in, each
counted atomically (`dbd_site.rate_limits`), with the rate-limit headers on every answer.

DRF asks the throttles after authentication and permissions, so a request refused before
them (a bad token, a forged host, a body too large, an unknown address) would go uncounted
and answer without the headers. `ApiRateLimitMiddleware` counts any such request once, as
the throttles would have (per user if it has one, else per address), and turns it into a
429 when the client is over its limit; then it sets the headers from the request's count.
The rates are DRF's setting (`DEFAULT_THROTTLE_RATES`: `anon`, `user`), read per request.
"""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle

from dbd_site.client_address import client_address
from dbd_site.middleware import API_PREFIX, error_answer
from dbd_site.rate_limits import Count, Rate, hit

# Where a request's count is kept for the headers: on Django's request, which DRF wraps.
_COUNT = "rate_limit_count"


def _rate(scope: str) -> Rate:
    return Rate.parse(api_settings.DEFAULT_THROTTLE_RATES[scope])


def scope_and_bucket(request: HttpRequest) -> tuple[str, str]:
    """Whose count a request adds to: the user's when signed in, else its address's."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return "user", f"api:user:{user.pk}"
    return "anon", f"api:anon:{client_address(request)}"


def _count(request: HttpRequest) -> Count:
    scope, bucket = scope_and_bucket(request)
    count = hit(bucket, _rate(scope))
    setattr(request, _COUNT, count)
    return count


class _ScopedThrottle(BaseThrottle):
    signed_in: bool

    def allow_request(self, request: Request, view: object) -> bool:
        if request.user.is_authenticated != self.signed_in:
            return True  # the other scope's throttle counts this request
        self.count = _count(request._request)
        return self.count.allowed

    def wait(self) -> float:
        return self.count.reset_seconds


class AnonThrottle(_ScopedThrottle):
    """`anon`: anonymous requests, per client address (TRUSTED_PROXY_COUNT's rule)."""

    signed_in = False


class UserThrottle(_ScopedThrottle):
    """`user`: signed-in requests (session or token), per user."""

    signed_in = True


def too_many_requests(count: Count) -> HttpResponse:
    """429 in the API's error shape, as DRF's `Throttled` answers through the handler."""
    message = f"Request was throttled. Expected available in {count.reset_seconds} seconds."
    return error_answer(429, "throttled", message, retry_after=str(count.reset_seconds))


class ApiRateLimitMiddleware:
    """Under /api/: every request counted once and every answer with the headers."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(API_PREFIX):
            return self.get_response(request)
        response = self.get_response(request)
        count = getattr(request, _COUNT, None)
        if count is None:  # refused before the throttles were asked
            count = _count(request)
            if not count.allowed:
                response = too_many_requests(count)
        for name, value in count.headers().items():
            response[name] = value
        return response
