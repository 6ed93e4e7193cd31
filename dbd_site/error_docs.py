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

from dbd_site.errors import HTTP_STATUS, Kind, declared_codes, statuses_of

PAGE = Path(settings.BASE_DIR) / "docs" / "api-errors.md"

_WHAT_KIND_MEANS = {
    Kind.INVALID: "bad input, or a rule of the game or of the campaign refuses it",
    Kind.NOT_ALLOWED: "you may not do this",
    Kind.NOT_FOUND: "not there, or not yours (the two are not told apart)",
    Kind.CONFLICT: "the state is in the way (a pending battle, a stale version): try again "
    "once it has changed",
    Kind.PRECONDITION_FAILED: "`If-Match` names a version that is no longer the current one",
    Kind.UNAUTHENTICATED: "no credentials, or bad or revoked ones (with `WWW-Authenticate`)",
    Kind.METHOD_NOT_ALLOWED: "this address does not take this method",
    Kind.NOT_ACCEPTABLE: "no answer in the media type `Accept` asks for",
    Kind.TOO_LARGE: "the request body is larger than the site accepts",
    Kind.UNSUPPORTED_MEDIA_TYPE: "the body is not JSON",
    Kind.THROTTLED: "too many requests: wait `Retry-After` seconds",
    Kind.SERVER_ERROR: "something went wrong on the server; it has been logged",
    Kind.UNAVAILABLE: "the database or the cache is out of reach: retry after `Retry-After`",
}


def load_every_declaring_module() -> None:
    get_resolver().url_patterns  # noqa: B018  (imports every view, and what they import)
    for path in settings.MIDDLEWARE:
        import_string(path)


_BY_STATUS = sorted(Kind, key=HTTP_STATUS.__getitem__)
_WHICH_CODES = [
    "## Which codes an operation answers",
    "",
    "Each operation's refusals in the schema (`/api/schema/`) list, per status, exactly the",
    "codes it may answer: its error schema is the one `ErrorList` model with `code` narrowed",
    "to those codes (a `$ref` with siblings, as JSON Schema 2020-12 reads it; a generated",
    "client keeps the one model and its `ErrorCode` enum of every code, so a code added later",
    "does not break it). The lists are generated, never kept by hand:",
    "",
    "- a code is declared once, with its meaning and its kind, in the module whose rule it",
    "  names (`CONFLICT_CODES = declare_codes({...}, Kind.CONFLICT)`); the kind gives its",
    "  status from the table above. A code answered under a second kind is declared there",
    '  again with `also(Kind.INVALID, "not-found")`;',
    "- a view names the groups it may answer, one line next to its handler:",
    '  `@answers(*WRITE_CODES)`, `@answers(services.CONFLICT_CODES.only("battle-ended"))`',
    "  (`dbd_site.schema.answers`). Groups known only once every app is ready (the policies",
    "  other apps register for the roster's forces) are named by a function that returns",
    "  them (`roster.policy.policy_codes`);",
    "- the pipeline brings its own: `@idempotent` (the key's refusals), a request serializer",
    "  (its fields' codes), a list's paginator (`limit`, `offset`), the view's authentication",
    "  (401 for a bad token; on a write, 403 `read-only-token`, and `permission-denied` for a",
    "  session without its CSRF token);",
    "- every operation may meet the common ones: a forged Host, an unreadable request or a",
    "  NUL in the query (400), a missing object at a path parameter (404), `If-Match` (412,",
    "  where the operation takes it), and every code of the kinds answered around any view",
    "  (405, 406, 413, 415, 429, 500, 503).",
    "",
    "The test suite checks every answer its API tests receive against its operation's list:",
    "an operation that answers a code it does not name fails a test, and a status an",
    "operation lists with no code named for it fails the schema's build.",
    "",
]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def api_errors_page() -> str:
    """The page as the code declares it now."""
    load_every_declaring_module()
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
        *(
            f"| {HTTP_STATUS[kind]} | `{kind.value}` | {_WHAT_KIND_MEANS[kind]} |"
            for kind in _BY_STATUS
        ),
        "",
        *_WHICH_CODES,
        "## Codes",
        "",
        "| Code | Status | Means |",
        "| --- | --- | --- |",
        *(
            f"| `{code}` | {', '.join(map(str, statuses_of(code)))} | {_cell(meaning)} |"
            for code, meaning in declared_codes().items()
        ),
        "",
    ]
    return "\n".join(lines)
