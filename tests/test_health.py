"""`/healthz` for the proxy, and 503 with Retry-After (never 500) while the database or the
cache cannot be reached. Outages are real: a connection to a closed port."""

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import IntegrityError, InterfaceError, OperationalError
from django.test import Client, override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from dbd_site.api import server_error
from tests.conftest import throttle_rates

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound by this test, never listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.mark.django_db
def test_healthz_answers_ok_when_the_database_and_cache_work(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"
    assert response["Content-Type"] == "text/plain"
    assert response["Cache-Control"] == "no-store"
    assert not response.cookies
    assert "Retry-After" not in response


@pytest.mark.django_db
def test_healthz_answers_head_and_refuses_other_methods(client):
    head = client.head("/healthz")
    assert head.status_code == 200
    assert head.content == b""
    refused = client.post("/healthz")
    assert refused.status_code == 405
    assert refused["Allow"] == "GET, HEAD"


@pytest.mark.django_db
def test_healthz_is_exactly_that_path(client):
    assert client.get("/healthz/").status_code == 404
    assert client.get("/healthz/x").status_code == 404


@pytest.mark.django_db
@override_settings(ALLOWED_HOSTS=["example.org"], SECURE_SSL_REDIRECT=True)
def test_healthz_on_any_host_is_never_redirected(client):
    # The proxy probes the server by its own address, over plain HTTP.
    probe = client.get("/healthz", HTTP_HOST="10.0.0.7:8000")
    assert probe.status_code == 200
    assert probe.content == b"ok\n"
    # The rest of the site still refuses that host, and redirects to HTTPS.
    assert client.get("/", HTTP_HOST="10.0.0.7:8000").status_code == 400
    assert client.get("/", HTTP_HOST="example.org").status_code == 301


@pytest.mark.django_db
@throttle_rates(anon="1/minute")
def test_healthz_is_not_throttled_or_behind_a_log_in(client):
    assert [client.get("/healthz").status_code for _ in range(3)] == [200, 200, 200]
    assert client.get("/api/v1/rules/").status_code == 200
    assert client.get("/api/v1/rules/").status_code == 429


@pytest.mark.django_db
def test_the_cache_out_of_reach_answers_503_with_retry_after(closed_port):
    redis = {
        "BACKEND": "dbd_site.redis_cache.KeptClientRedisCache",
        "LOCATION": f"redis://127.0.0.1:{closed_port}/0",
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }
    client = Client(raise_request_exception=False)
    with override_settings(CACHES={"default": redis}):
        probe = client.get("/healthz")
        api = client.get("/api/v1/rules/")  # the throttle counts in the cache
    assert (probe.status_code, probe.content) == (503, b"unavailable: cache\n")
    assert probe["Retry-After"] == "5"
    assert api.status_code == 503
    assert api["Retry-After"] == "5"
    assert api.json() == {
        "errors": [
            {
                "pointer": "",
                "code": "unavailable",
                "message": "The site cannot reach its database or cache just now: try again soon.",
            }
        ]
    }


# Run in a fresh process whose DATABASE_URL is a closed port (settings are read once).
ASK_WITHOUT_A_DATABASE = """
import json
import django
django.setup()
from django.test import Client
client = Client(raise_request_exception=False)
answers = {}
asks = {
    "/healthz": {},
    "/rules/": {},
    "/api/v1/rules/societies/": {},
    "/api/v1/rosters/": {"HTTP_AUTHORIZATION": "Token an-api-token-to-look-up"},
}
for path, headers in asks.items():
    response = client.get(path, **headers)
    answers[path] = {
        "status": response.status_code,
        "retry_after": response.get("Retry-After"),
        "type": response["Content-Type"],
        "body": response.content.decode(),
    }
print(json.dumps(answers))
"""


def test_the_database_out_of_reach_answers_503_not_500(closed_port):
    environ = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "REDIS_URL")}
    environ |= {
        "DJANGO_SETTINGS_MODULE": "dbd_site.settings_test",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{closed_port}/nowhere",
        "LOG_LEVEL": "CRITICAL",  # the outage is logged as an error; not this test's noise
    }
    done = subprocess.run(
        [sys.executable, "-c", ASK_WITHOUT_A_DATABASE],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)

    assert answers["/healthz"] == {
        "status": 503,
        "retry_after": "5",
        "type": "text/plain",
        "body": "unavailable: database\n",
    }
    unavailable = {
        "errors": [
            {
                "pointer": "",
                "code": "unavailable",
                "message": "The site cannot reach its database or cache just now: try again soon.",
            }
        ]
    }
    for path in ("/api/v1/rules/societies/", "/api/v1/rosters/"):
        assert answers[path]["status"] == 503, path
        assert answers[path]["retry_after"] == "5"
        assert answers[path]["type"] == "application/json"
        assert json.loads(answers[path]["body"]) == unavailable
    page = answers["/rules/"]
    assert (page["status"], page["retry_after"]) == (503, "5")
    assert page["type"] == "text/html; charset=utf-8"
    assert "Back in a moment" in page["body"]
    assert "127.0.0.1" not in page["body"]  # nothing about the database leaks


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (OperationalError("could not connect to server"), 503),
        (InterfaceError("connection already closed"), 503),
        (RedisConnectionError("Connection refused"), 503),
        (IntegrityError("duplicate key"), 500),  # a bug, not an outage
        (ValueError("a bug"), 500),
    ],
)
def test_only_a_service_out_of_reach_turns_a_500_into_a_503(rf, error, status):
    # Django calls the handler while handling the exception; so does this test.
    for path in ("/api/v1/rosters/", "/forces/"):
        try:
            raise error
        except Exception:
            response = server_error(rf.get(path))
        assert response.status_code == status, path
        assert ("Retry-After" in response) is (status == 503)


def test_an_outage_raised_from_another_error_is_still_503(rf):
    try:
        try:
            raise OperationalError("server closed the connection unexpectedly")
        except OperationalError as exc:
            raise RuntimeError("while rendering") from exc
    except RuntimeError:
        response = server_error(rf.get("/api/v1/rosters/"))
    assert response.status_code == 503
