"""Under DEBUG, Django's error page shows settings and the request's environment: the
database's address and password must not be among them (issue #13)."""

import sys

import pytest
from django.test import RequestFactory, override_settings
from django.views.debug import technical_500_response

SECRET_URL = "postgres://dbd:hunter2-sekrit@db.internal:5432/dbd"


def debug_page(with_environment: bool = False) -> str:
    """The page for an error in a request whose environment (as the development server
    passes it) holds the database's and the cache's addresses."""
    request = RequestFactory().get("/forces/")
    if with_environment:
        request.META.update(DATABASE_URL=SECRET_URL, REDIS_URL=SECRET_URL)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        return technical_500_response(request, *sys.exc_info()).content.decode()


@override_settings(DEBUG=True, REDIS_URL=SECRET_URL)
def test_the_debug_page_hides_the_database_url_and_password():
    page = debug_page(with_environment=True)
    assert "boom" in page  # it is the debug page
    assert "DATABASE_URL" in page  # the name shows, so the reader knows it is set
    assert "hunter2-sekrit" not in page
    assert "db.internal" not in page


@pytest.mark.parametrize("name", ["STATIC_URL", "LOGIN_URL", "TIME_ZONE"])
@override_settings(DEBUG=True)
def test_the_debug_page_still_shows_harmless_settings(name):
    from django.conf import settings

    assert f"{name}" in debug_page()
    assert str(getattr(settings, name)) in debug_page()
