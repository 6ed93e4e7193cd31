"""One error base for every refusal the site makes, and one table of HTTP statuses.

A service that refuses raises a `DomainError` (or one of its kinds below) carrying one
or more `Problem`s: where (a JSON Pointer into what the caller sent, R12), a stable
kebab-case `code`, and a plain-English `message`. The API's exception handler
(`dbd_site.api.exception_handler`) and the pages' helper (`dbd_site.rendering`) are
the only places that turn one into an answer, both through `HTTP_STATUS`.

Every code is declared once, with what it means and its kind (so its status), through
`declare_codes`, in the module whose rule it names; the group it returns (`Codes`) is
what an API operation names to say it may answer those codes (`dbd_site.schema.answers`):
the schema lists, per operation and status, exactly the codes it may answer.
`docs/api-errors.md` lists the registry
(written by `manage.py api_errors_doc`; a test
fails when it is out of date), and raising an undeclared code fails loudly in
development and in tests.

Pure Python (no Django): the engine and the other pure modules may use it too.
"""

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar


class Kind(StrEnum):
    """What sort of refusal it is; each kind has one HTTP status in both APIs."""

    INVALID = "invalid"  # bad input, or a rule refuses it
    NOT_ALLOWED = "not-allowed"  # this user may not do this
    NOT_FOUND = "not-found"  # not there, or not yours (no leak)
    CONFLICT = "conflict"  # the state is in the way: a pending battle, a stale version
    PRECONDITION_FAILED = "precondition-failed"  # an If-Match that no longer matches
    # Answered before or around any view (authentication, the parser, the throttle, the
    # server itself): every operation may meet them, so the schema lists their codes on
    # each without the operation naming them.
    UNAUTHENTICATED = "unauthenticated"
    METHOD_NOT_ALLOWED = "method-not-allowed"
    NOT_ACCEPTABLE = "not-acceptable"
    TOO_LARGE = "too-large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported-media-type"
    THROTTLED = "throttled"
    SERVER_ERROR = "server-error"
    UNAVAILABLE = "unavailable"


# The one table of statuses, for the roster and campaign APIs alike (and the pages).
HTTP_STATUS: Mapping[Kind, int] = {
    Kind.INVALID: 400,
    Kind.NOT_ALLOWED: 403,
    Kind.NOT_FOUND: 404,
    Kind.CONFLICT: 409,
    Kind.PRECONDITION_FAILED: 412,
    Kind.UNAUTHENTICATED: 401,
    Kind.METHOD_NOT_ALLOWED: 405,
    Kind.NOT_ACCEPTABLE: 406,
    Kind.TOO_LARGE: 413,
    Kind.UNSUPPORTED_MEDIA_TYPE: 415,
    Kind.THROTTLED: 429,
    Kind.SERVER_ERROR: 500,
    Kind.UNAVAILABLE: 503,
}
# The kinds a view's refusal (a `DomainError`) can be; the others are answered around it.
DOMAIN_KINDS = frozenset(
    {Kind.INVALID, Kind.NOT_ALLOWED, Kind.NOT_FOUND, Kind.CONFLICT, Kind.PRECONDITION_FAILED}
)

_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_CODES: dict[str, str] = {}
_KINDS: dict[str, set[Kind]] = {}


class Codes(Mapping[str, str]):
    """Codes declared together: what each means, and the one kind of refusal they are
    answered as (its status is `HTTP_STATUS[kind]`). An operation names the groups it may
    answer (`dbd_site.schema.answers`)."""

    def __init__(self, kind: Kind, meanings: Mapping[str, str]) -> None:
        self.kind = kind
        self._meanings = dict(meanings)

    def __getitem__(self, code: str) -> str:
        return self._meanings[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._meanings)

    def __len__(self) -> int:
        return len(self._meanings)

    def __repr__(self) -> str:
        return f"Codes({self.kind.value}: {', '.join(self._meanings)})"

    def only(self, *codes: str) -> "Codes":
        """Some of these codes: what an operation that meets only those names."""
        return Codes(self.kind, {code: self._meanings[code] for code in codes})


def declare_codes(codes: Mapping[str, str], kind: Kind = Kind.INVALID) -> Codes:
    """Declare error codes with what each means and the kind of refusal they are (so their
    status); returns them as a group for the caller to keep and for operations to name.

    A code is declared once, in the module whose rule it names; one answered under a
    second kind is declared again there, with the same meaning (`also`).
    """
    for code, meaning in codes.items():
        if not _KEBAB.match(code):
            raise ValueError(f"Error code {code!r} is not kebab-case.")
        if code in _CODES and _CODES[code] != meaning:
            raise ValueError(f"Error code {code!r} is declared twice, differently.")
        _CODES[code] = meaning
        _KINDS.setdefault(code, set()).add(kind)
    return Codes(kind, codes)


def also(kind: Kind, *codes: str) -> Codes:
    """Codes declared elsewhere, answered under another kind here too."""
    return declare_codes({code: _CODES[code] for code in codes}, kind)


def declared_codes() -> Mapping[str, str]:
    """Every declared code and its meaning, sorted by code (docs and schema read this)."""
    return dict(sorted(_CODES.items()))


def statuses_of(code: str) -> list[int]:
    """The statuses a declared code is answered with (from its kinds, `HTTP_STATUS`)."""
    return sorted({HTTP_STATUS[kind] for kind in _KINDS[code]})


def codes_of(kind: Kind) -> list[str]:
    """Every code declared of this kind, sorted."""
    return sorted(code for code, kinds in _KINDS.items() if kind in kinds)


@dataclass(frozen=True, slots=True)
class Problem:
    """Where (a JSON Pointer, R12), a stable code, and plain words."""

    pointer: str
    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"pointer": self.pointer, "code": self.code, "message": self.message}


def pointer(*parts: str | int) -> str:
    """A JSON Pointer (RFC 6901) from path parts."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def under(prefix: str, problems: Iterable[Problem]) -> list[Problem]:
    """`problems` with `prefix` put before each pointer (a member's pointers, in a force)."""
    return [Problem(prefix + p.pointer, p.code, p.message) for p in problems]


class DomainError(Exception):
    """A refusal: nothing was changed. One or more problems, all of one kind."""

    kind: ClassVar[Kind] = Kind.INVALID

    def __init__(self, code: str, message: str, *, pointer: str = "") -> None:
        self._init([Problem(pointer, code, message)])

    def _init(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("A refusal names at least one problem.")
        for problem in problems:
            if problem.code not in _CODES:
                raise ValueError(f"Undeclared error code {problem.code!r}; declare_codes it.")
        self.problems = list(problems)
        super().__init__(" ".join(p.message for p in self.problems))

    @classmethod
    def of(cls, problems: Sequence[Problem]) -> "DomainError":
        """One refusal carrying several problems (all reported at once, R12)."""
        error = cls.__new__(cls)
        error._init(problems)
        return error

    @property
    def code(self) -> str:
        return self.problems[0].code

    @property
    def message(self) -> str:
        return str(self)

    @property
    def pointer(self) -> str:
        return self.problems[0].pointer

    @property
    def status(self) -> int:
        return HTTP_STATUS[self.kind]

    def as_dict(self) -> dict[str, list[dict[str, str]]]:
        return {"errors": [p.as_dict() for p in self.problems]}


class Invalid(DomainError):
    """Bad input, or a rule of the game or of the campaign refuses it (400)."""

    kind = Kind.INVALID


class NotAllowed(DomainError):
    """The user may not do this (403)."""

    kind = Kind.NOT_ALLOWED


class NotFound(DomainError):
    """Not there, or not the user's (404)."""

    kind = Kind.NOT_FOUND


class Conflict(DomainError):
    """The state is in the way: try again once it has changed (409)."""

    kind = Kind.CONFLICT


class PreconditionFailed(DomainError):
    """The version the caller named (If-Match) is no longer the current one (412)."""

    kind = Kind.PRECONDITION_FAILED


# Codes every part of the site may raise.
INPUT_CODES = declare_codes(
    {
        "invalid": "The input is not what this field takes.",
        "unknown-key": "A key this object does not have; nothing was changed.",
        "too-many-items": "A list with more entries than allowed.",
    }
)
NOT_FOUND_CODES = declare_codes({"not-found": "No such object, or not yours."}, Kind.NOT_FOUND)
NOT_ALLOWED_CODES = declare_codes({"not-allowed": "You may not do this."}, Kind.NOT_ALLOWED)
STALE_CODES = declare_codes(
    {
        "stale-version": "The force changed since the version this change was made on; "
        "nothing was changed: read it again and redo the change.",
    },
    Kind.CONFLICT,
)
PRECONDITION_CODES = declare_codes(
    {"precondition-failed": "If-Match names a version that is no longer the current one."},
    Kind.PRECONDITION_FAILED,
)
declare_codes(
    {"server-error": "Something went wrong on the server; it has been logged."},
    Kind.SERVER_ERROR,
)
