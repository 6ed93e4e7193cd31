"""The rules catalogue answers with its version and may be kept (issue #32): `version` in
the root, the same as every answer's `ETag`; `Cache-Control`; 304 while unchanged; a new
version when the rules change."""

import pytest
from rest_framework.test import APIClient

from rules.loader import get_catalogue

pytestmark = pytest.mark.django_db

URLS = ["/api/v1/rules/", "/api/v1/rules/societies/", "/api/v1/rules/skills/melee/dual-wield/"]


@pytest.mark.parametrize("url", URLS)
def test_every_answer_names_the_version_and_may_be_kept(url):
    api = APIClient()
    first = api.get(url)
    assert first.status_code == 200
    catalogue = get_catalogue()
    assert first["ETag"] == f'"{catalogue.rules_version}.{catalogue.content_version}"'
    assert set(first["Cache-Control"].split(", ")) == {"public", "max-age=300"}
    again = api.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert (again.status_code, again.content) == (304, b"")
    assert again["ETag"] == first["ETag"]
    assert "max-age=300" in again["Cache-Control"]


def test_the_root_says_the_version_and_edition():
    root = APIClient().get("/api/v1/rules/")
    body = root.json()
    assert f'"{body["version"]}"' == root["ETag"]
    assert body["edition"] == get_catalogue().rules_version
    assert body["societies"].endswith("/api/v1/rules/societies/")


def test_new_rules_give_a_new_version(rules_change):
    api = APIClient()
    before = api.get("/api/v1/rules/equipment/")
    rules_change(equipment="medical-kit", cost_constant=7)
    after = api.get("/api/v1/rules/equipment/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert api.get("/api/v1/rules/").json()["version"] == after["ETag"].strip('"')


def test_a_missing_entry_is_not_cached():
    missing = APIClient().get("/api/v1/rules/societies/no-such/")
    assert missing.status_code == 404
    assert "ETag" not in missing
