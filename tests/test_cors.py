"""CORS for the read-only API (issue #32): any origin reads `/api/v1/` with a token, no
cookies travel, and writes are not opened."""

import pytest
from rest_framework.test import APIClient

from accounts.tokens import create_api_token

pytestmark = pytest.mark.django_db

ORIGIN = {"HTTP_ORIGIN": "https://tool.example"}


def test_a_read_from_any_origin_is_allowed_without_credentials(alice):
    _, raw = create_api_token(user=alice, name="page", read_only=True)
    answer = APIClient().get("/api/v1/rosters/", HTTP_AUTHORIZATION=f"Token {raw}", **ORIGIN)
    assert answer.status_code == 200
    assert answer["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in answer
    exposed = {h.strip() for h in answer["Access-Control-Expose-Headers"].split(",")}
    assert {"ETag", "Location", "RateLimit-Remaining"} <= exposed
    rules = APIClient().get("/api/v1/rules/societies/", **ORIGIN)
    assert rules["Access-Control-Allow-Origin"] == "*"


def test_a_preflight_allows_reads_with_a_token_and_nothing_else():
    preflight = APIClient().options(
        "/api/v1/rosters/",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, if-none-match",
        **ORIGIN,
    )
    assert preflight.status_code == 200
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert set(preflight["Access-Control-Allow-Methods"].split(", ")) == {"GET", "HEAD", "OPTIONS"}
    assert {"authorization", "if-none-match"} <= set(
        preflight["Access-Control-Allow-Headers"].split(", ")
    )
    assert "Access-Control-Allow-Credentials" not in preflight


def test_a_write_is_not_opened_to_other_origins(alice):
    _, raw = create_api_token(user=alice, name="script")
    wrote = APIClient().post(
        "/api/v1/campaigns/",
        {"name": "Cup"},
        format="json",
        HTTP_AUTHORIZATION=f"Token {raw}",
        **ORIGIN,
    )
    assert (
        wrote.status_code == 201
    )  # a server-side tool may write; a page elsewhere may not read it
    assert "Access-Control-Allow-Origin" not in wrote


def test_pages_are_not_opened():
    page = APIClient().get("/rules/", **ORIGIN)
    assert "Access-Control-Allow-Origin" not in page
