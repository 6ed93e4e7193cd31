"""Every refusal code is declared once and listed for API users (dbd_site.errors)."""

from pathlib import Path

import pytest
from django.conf import settings

import campaign.api
import campaign.policy
import campaign.services
import dbd_site.health  # noqa: F401
import play.services
import play.table  # noqa: F401
import roster.api
import roster.services  # noqa: F401
from dbd_site.errors import HTTP_STATUS, DomainError, Invalid, Kind, declared_codes
from roster import documents, engine

DOCS = Path(settings.BASE_DIR) / "docs"


def test_every_declared_code_is_in_the_docs():
    listed = "".join(doc.read_text() for doc in sorted(DOCS.glob("*.md")))
    engine_or_shape = {*engine.ERROR_CODES, *engine.WARNING_CODES, *documents.SHAPE_CODES.values()}
    missing = [c for c in declared_codes() if f"`{c}`" not in listed and c not in engine_or_shape]
    assert missing == []


def test_the_status_table_has_one_status_per_kind():
    assert {kind: HTTP_STATUS[kind] for kind in Kind} == {
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


def test_an_undeclared_code_cannot_be_raised():
    with pytest.raises(ValueError, match="Undeclared error code"):
        Invalid("no-such-code-anywhere", "Never raised.")
    with pytest.raises(ValueError, match="at least one problem"):
        DomainError.of([])


def test_the_api_errors_page_lists_every_declared_code_as_declared():
    """docs/api-errors.md is generated: `python manage.py api_errors_doc` writes it."""
    from dbd_site.error_docs import PAGE, api_errors_page

    assert PAGE.read_text() == api_errors_page(), (
        "docs/api-errors.md is out of date: run `python manage.py api_errors_doc`."
    )
    assert all(f"| `{code}` |" in PAGE.read_text() for code in declared_codes())


def test_a_codes_kind_gives_its_status_and_a_second_kind_is_declared_again():
    """`declare_codes` keeps each code's kind (so its status, `HTTP_STATUS`); a code
    answered under a second kind is declared again there (`also`, with its one meaning);
    `only` names some of a group, and no code it does not hold."""
    from dbd_site.errors import Codes, codes_of, statuses_of

    conflicts = campaign.policy.CONFLICT_CODES
    assert (type(conflicts), conflicts.kind) == (Codes, Kind.CONFLICT)
    assert statuses_of("battle-pending") == [409]
    assert statuses_of("insufficient-resources") == [400]
    assert statuses_of("not-found") == [400, 404]  # a figure the body names: 400 (play.table)
    assert statuses_of("already-in-campaign") == [400, 409]
    assert codes_of(Kind.UNAUTHENTICATED) == ["authentication-failed", "not-authenticated"]
    assert dict(conflicts.only("force-retired")) == {"force-retired": conflicts["force-retired"]}
    with pytest.raises(KeyError):
        conflicts.only("insufficient-resources")
