"""Rendering shared by the HTML views: a whole page, or for htmx just a partial of it."""

import json
import re
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from dbd_site.errors import DomainError


def is_htmx(request: HttpRequest) -> bool:
    htmx = getattr(request, "htmx", None)
    # A history-restore request wants the whole page back, not a fragment.
    return bool(htmx) and not htmx.history_restore_request


# A line break and the indentation after it: the templates' layout, not the page's.
_INDENTATION = re.compile(rb"\n[ \t]*(?:\n[ \t]*)*")


def render_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    status: int = 200,
    partial: str = "content",
    compact: bool = False,
) -> HttpResponse:
    """The whole page, or for htmx only its `partial` (django-template-partials, no <html>).

    `compact` drops the templates' indentation and blank lines (each run becomes one line
    break, which renders the same): for pages answered often and large, such as the
    builder's steps. Only for templates without <pre> or <textarea>, where it would show.
    """
    name = f"{template}#{partial}" if is_htmx(request) else template
    response = render(request, name, context, status=status)
    if compact:
        response.content = _INDENTATION.sub(b"\n", response.content)
    # Same URL, two answers: caches must keep them apart.
    patch_vary_headers(response, ("HX-Request",))
    return response


def refusal_messages(error: DomainError) -> list[str]:
    """A refusal's problems as sentences for a page (the pointers are for the API)."""
    return [problem.message for problem in error.problems]


def add_refusal_to_form(form: Any, error: DomainError, fields: dict[str, str]) -> None:
    """Put each problem of a refusal beside the form field its pointer names.

    `fields` maps a pointer (or the start of one) to a form field, e.g.
    {"/name": "name", "/resources": "resources"}; any other problem is the form's own.
    """
    for problem in error.problems:
        field = next(
            (
                name
                for at, name in fields.items()
                if problem.pointer == at or problem.pointer.startswith(at + "/")
            ),
            None,
        )
        form.add_error(field, problem.message)


def json_download(document: Any, filename: str) -> HttpResponse:
    """A JSON document as a file to save (an export): indented, UTF-8, named `filename`."""
    response = HttpResponse(
        json.dumps(document, indent=2, ensure_ascii=False) + "\n",
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
