"""The production settings pass Django's deployment checks, and refuse to start unsafely.

Each case runs `manage.py` in a fresh interpreter, since settings are read once per process.
"""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent

# Every variable settings.py reads; the subprocess starts from none of them.
SETTINGS_VARIABLES = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "DATABASE_URL",
    "DATABASE_CONN_MAX_AGE",
    "SECURE_SSL_REDIRECT",
    "BEHIND_TLS_PROXY",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_PRELOAD",
    "LOG_LEVEL",
    "REDIS_URL",
    "TRUSTED_PROXY_COUNT",
    "RELEASE",
)


def python(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """This project's Python in a fresh process, with only the settings variables `env`."""
    environ = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    environ.update(DJANGO_SETTINGS_MODULE="dbd_site.settings", **env)
    return subprocess.run(
        [sys.executable, *args],
        cwd=BASE_DIR,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return python("manage.py", *args, **env)


PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "example.org",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    # Without it Django warns (security.W021) that the site cannot join the preload list.
    "SECURE_HSTS_PRELOAD": "1",
}


def test_check_deploy_passes_with_production_environment():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr


def test_debug_off_without_secret_key_refuses_to_start():
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = manage("check", **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY must be set" in result.stderr


def test_debug_off_with_the_development_key_refuses_to_start():
    from dbd_site import settings

    result = manage("check", **{**PRODUCTION, "SECRET_KEY": settings._DEV_SECRET_KEY})
    assert result.returncode != 0
    assert "SECRET_KEY must be set to a private value" in result.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [("DEBUG", "maybe"), ("SECURE_HSTS_SECONDS", "a year"), ("DATABASE_CONN_MAX_AGE", "1m")],
)
def test_unparseable_variable_refuses_to_start(name, value):
    result = manage("check", **{**PRODUCTION, name: value})
    assert result.returncode != 0
    assert f"{name} must be" in result.stderr


def test_the_wsgi_module_freezes_what_loading_the_site_made(tmp_path):
    """A worker's modules, models, settings and views live as long as it does: frozen, a
    full garbage collection no longer walks them (dbd_site/wsgi.py). The probe reads the
    URLs as the first request would: the views they name were frozen already. Its own
    empty database: the worker boots without the rules (dbd_site/boot.py), and nothing is
    written in the checkout's var/."""
    probe = (
        "import gc, dbd_site.wsgi; from django.urls import get_resolver; "
        "get_resolver().url_patterns; print(gc.get_freeze_count(), len(gc.get_objects()))"
    )
    result = python("-c", probe, **PRODUCTION, DATABASE_URL=f"sqlite:///{tmp_path / 'db'}")
    assert result.returncode == 0, result.stderr
    frozen, walked = map(int, result.stdout.split())
    assert frozen > 10_000
    assert walked < frozen / 100
