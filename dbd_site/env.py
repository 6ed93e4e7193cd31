"""Typed readers for settings that come from the environment.

Each helper fails loudly (ImproperlyConfigured) on a value it cannot parse, so a
typo in a deployment's environment stops the site at start-up instead of
quietly running with a default.
"""

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false, 1/0), not {raw!r}.")


def env_str(name: str, *, default: str | None = None) -> str:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        if default is None:
            raise ImproperlyConfigured(f"{name} must be set.")
        return default
    return raw


def env_int(name: str, *, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from None


def env_list(name: str, *, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_rate(name: str, *, default: str) -> str:
    """A rate limit as DRF writes it ("60/minute"), checked here so a typo stops start-up."""
    from dbd_site.rate_limits import Rate

    raw = env_str(name, default=default)
    try:
        Rate.parse(raw)
    except ValueError as error:
        raise ImproperlyConfigured(f"{name}: {error}") from None
    return raw
