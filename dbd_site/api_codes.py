"""The codes answered around any view: the request as a whole (its host, its size, its
CSRF token) and what Django REST framework refuses itself. Kept apart from `dbd_site.api`
(its views) so that the schema (`dbd_site.schema`) can name them without importing a view.
"""

from dbd_site.errors import INPUT_CODES, Codes, Kind, declare_codes, declared_codes

CODES = declare_codes(
    {
        "bad-host": "The request named a host (the Host header) this site does not answer "
        "to; nothing was done.",
        "bad-request": "The request could not be read (a malformed or oversized form, or "
        "too many fields); nothing was done.",
    }
)

CSRF_CODES = declare_codes(
    {
        "csrf-failed": "A signed-in browser's write without its CSRF token (or from another "
        "site); nothing was done.",
    },
    Kind.NOT_ALLOWED,
)

TOO_LARGE_CODES = declare_codes(
    {
        "too-large": "The request body is larger than the site accepts; nothing was done.",
    },
    Kind.TOO_LARGE,
)
# What Django REST framework refuses itself, with its own codes (in kebab-case, as the
# exception handler below answers them); `blank` and `invalid-choice` are declared by the
# document's and the engine's checks, in words that cover DRF's too.
DRF_CODES = declare_codes(
    {
        "required": "This field is required.",
        "null": "This field may not be null.",
        "max-length": "A text or list longer than allowed.",
        "min-length": "A text or list shorter than allowed.",
        "max-value": "A number above the largest allowed.",
        "min-value": "A number below the smallest allowed.",
        "max-string-length": "A number written with too many digits.",
        "not-a-list": "A list is needed here.",
        "not-a-dict": "An object is needed here.",
        "empty": "This list may not be empty.",
        "date": "A date is needed here, not a date and time.",
    }
)

UNAUTHENTICATED_CODES = declare_codes(
    {
        "not-authenticated": "No credentials were sent: sign in or send a token (401).",
        "authentication-failed": "The credentials sent are not valid: a bad, revoked or "
        "malformed token (401).",
    },
    Kind.UNAUTHENTICATED,
)

PERMISSION_CODES = declare_codes(
    {
        "permission-denied": "You may not do this (403).",
    },
    Kind.NOT_ALLOWED,
)

METHOD_CODES = declare_codes(
    {
        "method-not-allowed": "This address does not take this method (405).",
    },
    Kind.METHOD_NOT_ALLOWED,
)

MEDIA_TYPE_CODES = declare_codes(
    {
        "unsupported-media-type": "The body is not JSON (415).",
    },
    Kind.UNSUPPORTED_MEDIA_TYPE,
)

ACCEPT_CODES = declare_codes(
    {
        "not-acceptable": "No answer in the media type asked for (406).",
    },
    Kind.NOT_ACCEPTABLE,
)

THROTTLE_CODES = declare_codes(
    {
        "throttled": "Too many requests: wait `Retry-After` seconds (429).",
    },
    Kind.THROTTLED,
)


def serializer_codes() -> list[Codes]:
    """What a DRF serializer's fields may answer (400): DRF's codes, with `invalid`,
    `blank` and `invalid-choice`, which the site's own checks declare in words that cover
    DRF's too. A function: read when the schema is built, once every code is declared."""
    declared = declared_codes()  # both 400 already: named here, not declared again
    checks = Codes(Kind.INVALID, {code: declared[code] for code in ("blank", "invalid-choice")})
    return [DRF_CODES, INPUT_CODES.only("invalid"), checks]
