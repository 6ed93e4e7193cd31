"""`docs/api-errors.md`, written from the declared codes (`dbd_site.errors.declare_codes`).

The page is generated, never edited: `python manage.py api_errors_doc` writes it, and a
test fails when it differs from what the code declares. A code is declared by the module
whose rule it names, when that module is imported; loading the site's URLs (every view,
and through them every service) and its middleware imports them all, without this layer
naming any app.
"""

from pathlib import Path

from django.conf import settings
from django.urls import get_resolver
from django.utils.module_loading import import_string

from dbd_site.errors import HTTP_STATUS, Kind, declared_codes

PAGE = Path(settings.BASE_DIR) / "docs" / "api-errors.md"

_WHAT_KIND_MEANS = {
    Kind.INVALID: "bad input, or a rule of the game or of the campaign refuses it",
    Kind.NOT_ALLOWED: "you may not do this",
    Kind.NOT_FOUND: "not there, or not yours (the two are not told apart)",
    Kind.CONFLICT: "the state is in the way (a pending battle, a stale version): try again "
    "once it has changed",
    Kind.PRECONDITION_FAILED: "`If-Match` names a version that is no longer the current one",
}


def _load_every_declaring_module() -> None:
    get_resolver().url_patterns  # noqa: B018  (imports every view, and what they import)
    for path in settings.MIDDLEWARE:
        import_string(path)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def api_errors_page() -> str:
    """The page as the code declares it now."""
    _load_every_declaring_module()
    lines = [
        "# API errors",
        "",
        "<!-- Written by `python manage.py api_errors_doc` from the codes the code declares",
        "     (`dbd_site.errors.declare_codes`); a test fails when it is out of date. -->",
        "",
        "Every refusal, from the API and the pages alike, changes nothing and answers with a",
        "list of problems, each saying where (a JSON Pointer into what was sent, empty for",
        "the whole request), a stable code, and plain words:",
        "",
        "```json",
        '{"errors": [{"pointer": "/members/0/base", "code": "invalid-base-statistics",',
        '             "message": "ME, RA, CA and DF take 3, 2, 2 and 1 in some order; ..."}]}',
        "```",
        "",
        "A program keys on `code` and `pointer`; `message` is for people and may be reworded.",
        "What Django REST framework refuses itself answers in the same shape with its own",
        "codes: a request body's fields (400: `required`, `max-length`, `null`, ...), a",
        "missing or bad token (401: `not-authenticated`, `authentication-failed`), the",
        "throttle (429: `throttled`, with `Retry-After`).",
        "",
        "## Statuses",
        "",
        "One table of statuses (`dbd_site.errors.HTTP_STATUS`); every problem of one answer",
        "is of one kind.",
        "",
        "| Status | Kind | Means |",
        "| --- | --- | --- |",
        *(f"| {HTTP_STATUS[kind]} | `{kind.value}` | {_WHAT_KIND_MEANS[kind]} |" for kind in Kind),
        "",
        "## Codes",
        "",
        "| Code | Means |",
        "| --- | --- |",
        *(f"| `{code}` | {_cell(meaning)} |" for code, meaning in declared_codes().items()),
        "",
    ]
    return "\n".join(lines)
