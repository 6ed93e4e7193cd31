"""Request bodies over the documented limit get a clear 413 and change nothing."""

import json

import pytest

from roster.models import Force

pytestmark = pytest.mark.django_db


def test_api_body_over_the_limit_gets_413_in_the_api_error_shape(client, settings):
    settings.MAX_REQUEST_BODY_BYTES = 1000
    body = json.dumps({"format": "dbd-roster/1", "name": "x" * 2000})
    response = client.post("/api/v1/rosters/validate/", body, content_type="application/json")
    assert response.status_code == 413
    error = response.json()["errors"][0]
    assert error["code"] == "too-large"
    assert "1000" in error["message"]


def test_page_body_over_the_limit_gets_413(client, django_user_model, settings):
    settings.MAX_REQUEST_BODY_BYTES = 1000
    client.force_login(django_user_model.objects.create_user("big", password="pw-big-12345"))
    response = client.post("/forces/new/", {"name": "x" * 5000, "resources": 50})
    assert response.status_code == 413
    assert not Force.objects.exists()


def test_bodies_under_the_limit_pass(client):
    response = client.post("/api/v1/rosters/validate/", "{}", content_type="application/json")
    assert response.status_code == 400  # read and judged, not refused for size
