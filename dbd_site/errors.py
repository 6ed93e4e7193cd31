"""One error base for every refusal the site makes, and one table of HTTP statuses.

A service that refuses raises a `DomainError` (or one of its kinds below) carrying one
or more `Problem`s: where (a JSON Pointer into what the caller sent, R12), a stable
kebab-case `code`, and a plain-English `message`. The API's exception handler
(`dbd_site.api.exception_handler`) and the pages' helper (`dbd_site.rendering`) are
the only places that turn one into an answer, both through `HTTP_STATUS`.

Every code is declared once, with what it means, through `declare_codes`:
`docs/api-errors.md` lists the registry (written by `manage.py api_errors_doc`; a test
fails when it is out of date), and raising an undeclared code fails loudly in
development and in tests.

Pure Python (no Django): the engine and the other pure modules may use it too.
"""

import re
from collections.abc import Iterable, Mapping, Sequence
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


# The one table of statuses, for the roster and campaign APIs alike (and the pages).
HTTP_STATUS: Mapping[Kind, int] = {
    Kind.INVALID: 400,
    Kind.NOT_ALLOWED: 403,
    Kind.NOT_FOUND: 404,
    Kind.CONFLICT: 409,
    Kind.PRECONDITION_FAILED: 412,
}

_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_CODES: dict[str, str] = {}


def declare_codes(codes: Mapping[str, str]) -> Mapping[str, str]:
    """Declare error codes with what each means; returns them for the caller to keep.

    A code is declared once, in the module whose rule it names.
    """
    for code, meaning in codes.items():
        if not _KEBAB.match(code):
            raise ValueError(f"Error code {code!r} is not kebab-case.")
        if code in _CODES and _CODES[code] != meaning:
            raise ValueError(f"Error code {code!r} is declared twice, differently.")
        _CODES[code] = meaning
    return codes


def declared_codes() -> Mapping[str, str]:
    """Every declared code and its meaning, sorted by code (docs and schema read this)."""
    return dict(sorted(_CODES.items()))


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
declare_codes(
    {
        "invalid": "The input is not what this field takes.",
        "unknown-key": "A key this object does not have; nothing was changed.",
        "too-many-items": "A list with more entries than allowed.",
        "not-found": "No such object, or not yours.",
        "not-allowed": "You may not do this.",
        "stale-version": "The force changed since the version this change was made on; "
        "nothing was changed: read it again and redo the change.",
        "precondition-failed": "If-Match names a version that is no longer the current one.",
        "server-error": "Something went wrong on the server; it has been logged.",
    }
)
