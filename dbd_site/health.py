"""Is this app server fit to take requests? `/healthz` for the proxy, and 503 (not 500)
whenever the database or the shared cache cannot be reached.

`/healthz` is answered by `HealthCheckMiddleware`, first in the stack, before anything that
could refuse or change the answer: no session or log-in, no HTTPS redirect, no throttle, no
CSRF, and any Host. Any host is safe here because the answer is a fixed word that names no
host and sets no cookie, and nothing caches it: the Host header checks (ALLOWED_HOSTS) exist
to stop a forged host from ending up in links, redirects and cached pages, and this answer
has none of those. It lets a proxy or an orchestrator probe a server by its own address
(127.0.0.1:8000, a container's IP) without adding that to ALLOWED_HOSTS, where it would
also let the whole site answer under that name.
"""

import secrets
import sys
from collections.abc import Callable

from django.core.cache import cache
from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from dbd_site import cache_keys
from dbd_site.errors import Kind, declare_codes

HEALTH_PATH = "/healthz"
# How long a client is asked to wait before trying again when a backing service is down.
RETRY_AFTER_SECONDS = 5

# Errors that mean "a backing service cannot be reached right now", not "a bug": the
# database refusing or dropping the connection (or timing out a lock, under SQLite), or
# Redis doing so. They answer 503 with Retry-After.
UNAVAILABLE: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    RedisConnectionError,
    RedisTimeoutError,
)

CODES = declare_codes(
    {"unavailable": "The site cannot reach its database or cache just now: try again soon."},
    Kind.UNAVAILABLE,
)


def _database_works() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except DatabaseError:
        return False


def _cache_works() -> bool:
    """A round trip through the shared cache: what one worker writes, it reads back."""
    token = secrets.token_hex(8)
    try:
        cache.set(cache_keys.health_probe(), token, 30)
        return cache.get(cache_keys.health_probe()) == token
    except (DatabaseError, RedisError):
        return False


def healthz(request: HttpRequest) -> HttpResponse:
    """200 "ok" when the database and the cache both answer, else 503 naming what failed."""
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    failing = [
        name
        for name, works in (("database", _database_works), ("cache", _cache_works))
        if not works()
    ]
    if failing:
        response = HttpResponse(
            f"unavailable: {', '.join(failing)}\n", status=503, content_type="text/plain"
        )
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    else:
        response = HttpResponse("ok\n", content_type="text/plain")
    response["Cache-Control"] = "no-store"
    return response


class HealthCheckMiddleware:
    """Answers exactly `/healthz` itself; every other request goes on down the stack."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == HEALTH_PATH:
            return healthz(request)
        return self.get_response(request)


def backing_service_down() -> bool:
    """Whether the exception being handled now (or one it was raised from) is a backing
    service out of reach; for the site's 500 handler (`dbd_site.api.server_error`)."""
    error = sys.exc_info()[1]
    while error is not None:
        if isinstance(error, UNAVAILABLE):
            return True
        error = error.__cause__
    return False


def unavailable(request: HttpRequest) -> HttpResponse:
    """503 with Retry-After: the API's error shape under /api/, a short page elsewhere."""
    message = CODES["unavailable"]
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(
            {"errors": [{"pointer": "", "code": "unavailable", "message": message}]},
            status=503,
        )
    else:
        # Plain HTML, no template: rendering the site's pages may need the database.
        response = HttpResponse(
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            "<title>Back soon · DBD Force Builder</title></head><body>"
            "<h1>Back in a moment</h1>"
            f"<p>{message} If you were saving a change, check whether it was "
            "saved once the page is back.</p></body></html>",
            status=503,
            content_type="text/html; charset=utf-8",
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response
