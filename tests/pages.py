"""Helpers for tests that read the site's pages."""

from django.http import HttpResponse


def html(response: HttpResponse) -> str:
    """The page's body as text."""
    return response.content.decode()
