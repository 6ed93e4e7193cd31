"""Read-only API tokens (issue #32): they read everything their user may read and change
nothing; a write sent with one is refused before any view (403 `read-only-token`)."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.tokens import create_api_token
from roster.models import Force
from tests.roster.builders import legal_force

pytestmark = pytest.mark.django_db


def client_with(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_read_only_token_reads_and_changes_nothing(alice, campaign):
    _, raw = create_api_token(user=alice, name="dashboard", read_only=True)
    reader = client_with(raw)
    assert reader.get("/api/v1/rosters/").status_code == 200
    assert reader.head("/api/v1/rosters/").status_code == 200
    assert reader.get(f"/api/v1/campaigns/{campaign.pk}/").status_code == 200
    writes = [
        ("post", "/api/v1/rosters/", legal_force()),
        ("post", "/api/v1/campaigns/", {"name": "Cup"}),
        ("patch", f"/api/v1/campaigns/{campaign.pk}/", {"resources_for_win": 12}),
        ("post", "/api/v1/battles/", {"forces": [], "scenario": "X"}),
    ]
    for method, url, body in writes:
        refused = getattr(reader, method)(url, body, format="json")
        assert refused.status_code == 403, url
        assert refused.json() == {
            "errors": [
                {
                    "pointer": "",
                    "code": "read-only-token",
                    "message": "This token is read-only: it reads and changes nothing.",
                }
            ]
        }
    assert not Force.objects.exists()
    assert alice.organised_campaigns.count() == 0


def test_a_full_token_still_writes(alice):
    _, raw = create_api_token(user=alice, name="script")
    assert (
        client_with(raw).post("/api/v1/rosters/", legal_force(), format="json").status_code == 201
    )


def test_the_account_page_makes_a_read_only_token_and_says_so(alice, client):
    client.force_login(alice)
    made = client.post(reverse("accounts:token_create"), {"name": "Board", "read_only": "on"})
    assert made.status_code == 200
    assert ApiToken.objects.get(user=alice, name="Board").read_only is True
    client.post(reverse("accounts:token_create"), {"name": "Script"})
    assert ApiToken.objects.get(user=alice, name="Script").read_only is False
    page = client.get(reverse("accounts:account")).content.decode()
    assert "Read only" in page
    assert "Read and write" in page
