"""What every page's layout needs."""

from functools import cache

from django.http import HttpRequest
from django.urls import get_script_prefix, reverse

# The site navigation and footer, by URL name.
NAV_URL_NAMES = (
    "home",
    "rules:index",
    "rules:notes",
    "api-docs",
    "roster:list",
    "campaign:list",
    "accounts:account",
    "accounts:logout",
    "accounts:login",
    "accounts:signup",
)


@cache
def _nav_urls(script_prefix: str) -> dict[str, str]:
    # `reverse` reads the prefix itself; it is the key so a change of prefix is seen.
    return {name.replace(":", "_").replace("-", "_"): reverse(name) for name in NAV_URL_NAMES}


def navigation(request: HttpRequest) -> dict[str, dict[str, str]]:
    """The layout's links, reversed once per process: every page shows the same ones."""
    return {"nav_urls": _nav_urls(get_script_prefix())}
