"""The site's URLs plus the benchmarks' floor: `/bench/floor/`, and the floor with one more
query: `/bench/floor/one-read/<force>/`.

The floor is the least a signed-in page can cost here: the same middleware, the same
session authentication (a session row and a user row read), and a tiny template rendered
with the site's context processors. Every page's time is reported as a multiple of it.
The second view adds the narrowest read a page makes (a force's version by its key, as the
API detail reads it before its cache), so the two together say what one query costs.
"""

import functools

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import path
from django.views.decorators.http import require_safe

from dbd_site.urls import handler404, handler500
from dbd_site.urls import urlpatterns as site_urlpatterns
from roster import selectors

FLOOR_TEMPLATE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Floor</title></head>
<body><p>Signed in as {{ user.get_username }}.</p></body></html>
"""


@functools.cache
def _floor_template():
    return engines["django"].from_string(FLOOR_TEMPLATE)


@login_required
@require_safe
def floor(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_floor_template().render({}, request))


@login_required
@require_safe
def floor_and_one_read(request: HttpRequest, force_id: int) -> HttpResponse:
    selectors.get_force_version(user=request.user, force_id=force_id)
    return HttpResponse(_floor_template().render({}, request))


urlpatterns = [
    path("bench/floor/", floor, name="bench-floor"),
    path("bench/floor/one-read/<int:force_id>/", floor_and_one_read, name="bench-floor-one-read"),
    *site_urlpatterns,
]

__all__ = ["handler404", "handler500", "urlpatterns"]
