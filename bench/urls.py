"""The site's URLs plus the floor: `/bench/floor/`, the least a signed-in page can cost
here (the same middleware, the same session authentication, a tiny template rendered with
the site's context processors). The bench lists it beside the pages as a reference, and
gunicorn's start is checked against it.
"""

import functools

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import path
from django.views.decorators.http import require_safe

from dbd_site.urls import handler404, handler500
from dbd_site.urls import urlpatterns as site_urlpatterns

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


urlpatterns = [
    path("bench/floor/", floor, name="bench-floor"),
    *site_urlpatterns,
]

__all__ = ["handler404", "handler500", "urlpatterns"]
