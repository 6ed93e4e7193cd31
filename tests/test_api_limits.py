"""Under /api/: every answer counted once against the client's limit and carrying the
rate-limit headers, every refusal in the API's error shape (a forged host, a wrong method,
an unacceptable `Accept`, a body too large or of the wrong type, a missing CSRF token), and
429 with `Retry-After` past the limit, per address when anonymous and per user when signed in.
"""

import json

import pytest
from django.test import Client, override_settings

from accounts.tokens import create_api_token
from dbd_site.api import csrf_failure
from tests.conftest import throttle_rates

RULES = "/api/v1/rules/"
VALIDATE = "/api/v1/rosters/validate/"
HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")


def limit_headers(response) -> dict[str, str]:
    return {name: response[name] for name in (*HEADERS, "Retry-After") if name in response}


def one_error(response) -> tuple[str, str]:
    body = json.loads(response.content)
    assert set(body) <= {"errors", "retry_after"}
    (error,) = body["errors"]
    assert set(error) == {"pointer", "code", "message"}
    assert error["message"]
    return error["pointer"], error["code"]


# --- refusals before any view, and by DRF, all in the error shape -------------------------

REFUSALS = [
    pytest.param(
        "get", "/api/v1/", {"HTTP_HOST": "evil.example"}, 400, "bad-host", id="forged-host"
    ),
    pytest.param(
        "post",
        VALIDATE,
        {"HTTP_HOST": "evil.example", "data": "{}", "content_type": "application/json"},
        400,
        "bad-host",
        id="forged-host-post",
    ),
    pytest.param("delete", RULES, {}, 405, "method-not-allowed", id="405"),
    pytest.param(
        "get", RULES, {"HTTP_ACCEPT": "application/xml"}, 406, "not-acceptable", id="406"
    ),
    pytest.param(
        "post",
        VALIDATE,
        {"data": "x" * 2048, "content_type": "application/json"},
        413,
        "too-large",
        id="413",
    ),
    pytest.param(
        "post",
        VALIDATE,
        {"data": "hello", "content_type": "text/plain"},
        415,
        "unsupported-media-type",
        id="415",
    ),
    pytest.param("get", "/api/v1/no-such-thing/", {}, 404, "not-found", id="404"),
    pytest.param(
        "get",
        RULES,
        {"HTTP_AUTHORIZATION": "Token nonsense"},
        401,
        "authentication-failed",
        id="401",
    ),
]


@pytest.mark.django_db
@override_settings(MAX_REQUEST_BODY_BYTES=1024)
@pytest.mark.parametrize(("method", "path", "kwargs", "status", "code"), REFUSALS)
def test_every_refusal_under_the_api_is_in_its_shape_with_the_headers(
    client, method, path, kwargs, status, code
):
    with throttle_rates(anon="7/minute"):
        response = getattr(client, method)(path, **kwargs)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert one_error(response) == ("", code)
    assert limit_headers(response) == {
        "RateLimit-Limit": "7",
        "RateLimit-Remaining": "6",
        "RateLimit-Reset": response["RateLimit-Reset"],
    }
    assert 1 <= int(response["RateLimit-Reset"]) <= 60


@pytest.mark.django_db
def test_a_forged_host_on_a_page_keeps_the_plain_400(client):
    response = client.get("/rules/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert "RateLimit-Limit" not in response
    assert "evil.example" not in response.content.decode()


@pytest.mark.django_db
def test_a_write_without_its_csrf_token_is_refused_in_the_shape(alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    response = browser.post(
        "/api/v1/rosters/", data={"name": "x"}, content_type="application/json"
    )
    assert response.status_code == 403
    pointer, code = one_error(response)
    assert (pointer, code) == ("", "permission-denied")
    assert response.json()["errors"][0]["message"].startswith("CSRF Failed")
    assert set(HEADERS) <= set(response.headers)


def test_the_csrf_failure_view_answers_the_api_in_its_shape(rf):
    """No view under /api/ but DRF's (which check CSRF themselves) takes a form today;
    Django's CSRF check answers any future one in the API's shape."""
    api = csrf_failure(rf.post("/api/v1/rosters/"), "CSRF cookie not set.")
    assert api.status_code == 403
    assert one_error(api) == ("", "csrf-failed")
    page = csrf_failure(rf.post("/accounts/login/"), "CSRF cookie not set.")
    assert page.status_code == 403
    assert page["Content-Type"].startswith("text/html")


# --- the limit, anonymous and signed in ---------------------------------------------------


@pytest.mark.django_db
def test_the_anonymous_limit_counts_every_answer_and_then_refuses(client):
    with throttle_rates(anon="3/minute"):
        answers = [
            client.get(RULES),
            client.get(RULES, HTTP_AUTHORIZATION="Token nonsense"),  # refused before DRF counts
            client.get("/api/v1/no-such-thing/"),
            client.get(RULES),
        ]
    assert [a.status_code for a in answers] == [200, 401, 404, 429]
    assert [a["RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    refused = answers[-1]
    assert one_error(refused) == ("", "throttled")
    assert refused["Retry-After"] == refused["RateLimit-Reset"]
    assert refused.json()["retry_after"] == refused["Retry-After"]


@pytest.mark.django_db
def test_a_request_refused_early_past_the_limit_is_429_too(client):
    with throttle_rates(anon="1/minute"):
        assert client.get(RULES).status_code == 200
        refused = client.get("/api/v1/no-such-thing/")
    assert refused.status_code == 429
    assert one_error(refused) == ("", "throttled")
    assert refused["Retry-After"] == refused["RateLimit-Reset"]


@pytest.mark.django_db
def test_a_signed_in_user_is_counted_apart_from_the_address(client, alice, bob):
    _, alices = create_api_token(user=alice, name="tool")
    _, bobs = create_api_token(user=bob, name="tool")
    with throttle_rates(anon="1/minute", user="2/minute"):
        as_alice = [client.get(RULES, HTTP_AUTHORIZATION=f"Token {alices}") for _ in range(3)]
        as_bob = client.get(RULES, HTTP_AUTHORIZATION=f"Token {bobs}")
        anonymous = [client.get(RULES) for _ in range(2)]
    assert [a.status_code for a in as_alice] == [200, 200, 429]
    assert [a["RateLimit-Limit"] for a in as_alice] == ["2", "2", "2"]
    assert as_bob.status_code == 200
    assert [a.status_code for a in anonymous] == [200, 429]
    assert anonymous[0]["RateLimit-Limit"] == "1"


@pytest.mark.django_db
def test_a_not_modified_answer_carries_the_headers(client, alice):
    client.force_login(alice)
    made = client.post(
        "/api/v1/rosters/",
        data={"format": "dbd-roster/1", "name": "Club", "resources": 50, "members": []},
        content_type="application/json",
    )
    assert made.status_code == 201
    url = f"/api/v1/rosters/{made.json()['id']}/"
    first = client.get(url)
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert set(HEADERS) <= set(again.headers)
    assert int(again["RateLimit-Remaining"]) == int(first["RateLimit-Remaining"]) - 1


@pytest.mark.django_db  # the page and the rules read the catalogue
def test_pages_carry_no_rate_limit_headers(client):
    response = client.get("/")
    assert response.status_code == 200
    assert limit_headers(response) == {}
