"""Rendering shared by the HTML views: a whole page, or for htmx just a partial of it."""

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers


def is_htmx(request: HttpRequest) -> bool:
    htmx = getattr(request, "htmx", None)
    # A history-restore request wants the whole page back, not a fragment.
    return bool(htmx) and not htmx.history_restore_request


def render_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    partial: str = "content",
) -> HttpResponse:
    """The whole page, or for htmx only its `partial` (django-template-partials, no <html>)."""
    name = f"{template}#{partial}" if is_htmx(request) else template
    response = render(request, name, context, status=status)
    # Same URL, two answers: caches must keep them apart.
    patch_vary_headers(response, ("HX-Request",))
    return response
