"""The rules reference pages: thin views over `rules.selectors`."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_safe

from rules import rulings, selectors

MAX_QUERY_LENGTH = 100


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:MAX_QUERY_LENGTH]
    context = {"q": query, "index": selectors.rules_index(query=query)}
    htmx = getattr(request, "htmx", None)
    # A history-restore request wants the whole page back, not the fragment.
    if htmx and not htmx.history_restore_request:
        # The fragment also refreshes the live result count, out of band.
        response = render(request, "rules/index.html#results", {**context, "oob_status": True})
    else:
        response = render(request, "rules/index.html", context)
    patch_vary_headers(response, ("HX-Request",))
    return response


@require_safe
def notes(request: HttpRequest) -> HttpResponse:
    context = {"sections": rulings.SECTIONS, "worked_examples": rulings.WORKED_EXAMPLES}
    return render(request, "rules/notes.html", context)
