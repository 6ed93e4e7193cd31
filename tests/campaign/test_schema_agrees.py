"""The OpenAPI schema says what the server does, where they once disagreed (issue #13):
each statement in the schema, and the server doing just that, on both sides."""

import json

import pytest
from django.test import Client

from tests.campaign.conftest import TODAY
from tests.roster.builders import legal_force, signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        return Client().get("/api/schema/?format=json").json()


def component(schema: dict, name: str) -> dict:
    return schema["components"]["schemas"][name]


def test_the_schema_says_level_thresholds_start_at_0_in_words(schema):
    """A plain array (no `prefixItems`, which generators mis-model, issue #32); that the
    first is 0 is said in words, and the server refuses any other (the test below)."""
    thresholds = component(schema, "PatchedHouseRulesChangeRequest")["properties"][
        "level_thresholds"
    ]
    assert "prefixItems" not in thresholds
    assert "starts at 0" in thresholds["description"]
    assert thresholds["minItems"] == 1
    assert thresholds["items"] == {"type": "integer", "minimum": 0, "maximum": 100_000}


def test_the_schema_says_an_adjustment_is_not_0(schema):
    amount = component(schema, "AdjustmentRequest")["properties"]["amount"]
    assert amount["not"] == {"const": 0}
    assert (amount["minimum"], amount["maximum"]) == (-1_000_000, 1_000_000)


def test_the_schema_says_a_battle_has_two_results(schema):
    assert component(schema, "NewBattleRequest")["properties"]["results"]["minItems"] == 2


def test_the_schema_says_every_body_refuses_other_keys(schema):
    """Every API input refuses unknown keys (dbd_site.serializers.StrictSerializer), and
    the schema says so for every request body."""
    requests = [name for name in schema["components"]["schemas"] if name.endswith("Request")]
    assert {"PatchedHouseRulesChangeRequest", "NewCampaignRequest", "JoinRequest"} <= set(requests)
    for name in [*requests, "RosterDocument"]:
        assert component(schema, name)["additionalProperties"] is False, name
    patch = schema["paths"]["/api/v1/rosters/{force_id}/"]["patch"]
    ref = patch["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    body = component(schema, ref.rpartition("/")[2])
    assert body["additionalProperties"] is False
    assert set(body["properties"]) == {"name", "resources", "members"}


def test_the_schema_lists_the_parsers_refusals_among_the_codes(schema):
    codes = set(component(schema, "ErrorCode")["enum"])
    assert {"parse-error", "too-deep", "number-too-long", "bad-character"} <= codes


# --- the server, both sides ------------------------------------------------------------


def test_thresholds_not_starting_at_0_are_refused(campaign, organiser):
    api = signed_in(organiser)
    url = f"/api/v1/campaigns/{campaign.pk}/"
    refused = api.patch(url, {"level_thresholds": [1, 3]}, format="json")
    assert refused.status_code == 400
    assert [e["pointer"] for e in refused.json()["errors"]] == ["/level_thresholds"]
    assert api.patch(url, {"level_thresholds": [0, 3]}, format="json").status_code == 200


def test_an_adjustment_of_0_is_refused_and_of_1_taken(campaign, organiser, red):
    api = signed_in(organiser)
    url = f"/api/v1/campaigns/{campaign.pk}/forces/{red.pk}/adjustments/"
    refused = api.post(url, {"amount": 0, "reason": "Nothing"}, format="json")
    assert refused.status_code == 400
    assert [e["pointer"] for e in refused.json()["errors"]] == ["/amount"]
    assert api.post(url, {"amount": 1, "reason": "Prize"}, format="json").status_code == 201


def test_a_battle_of_one_force_is_refused(campaign, alice, red):
    body = {
        "played_on": TODAY.isoformat(),
        "scenario": "Alone",
        "winner": None,
        "results": [{"force": red.pk, "members": [{"member": red.force.members.first().pk}]}],
    }
    response = signed_in(alice).post(
        f"/api/v1/campaigns/{campaign.pk}/battles/", body, format="json"
    )
    assert response.status_code == 400
    assert [e["pointer"] for e in response.json()["errors"]] == ["/results"]


def test_patch_refuses_other_keys(django_user_model):
    owner = django_user_model.objects.create_user("owner", password="pw-owner-12345")
    api = signed_in(owner)
    created = api.post("/api/v1/rosters/", legal_force(), format="json").json()
    url = f"/api/v1/rosters/{created['id']}/"
    refused = api.patch(url, {"name": "New", "colour": "red"}, format="json")
    assert refused.status_code == 400
    assert [(e["pointer"], e["code"]) for e in refused.json()["errors"]] == [
        ("/colour", "unknown-key")
    ]
    assert api.patch(url, {"name": "New"}, format="json").status_code == 200


def test_a_new_campaign_refuses_other_keys(organiser):
    api = signed_in(organiser)
    refused = api.post("/api/v1/campaigns/", {"name": "Cup", "colour": "red"}, format="json")
    assert refused.status_code == 400
    assert [(e["pointer"], e["code"]) for e in refused.json()["errors"]] == [
        ("/colour", "unknown-key")
    ]
    assert api.post("/api/v1/campaigns/", {"name": "Cup"}, format="json").status_code == 201


def test_2_0_is_taken_as_an_integer(campaign, organiser, red):
    api = signed_in(organiser)
    url = f"/api/v1/campaigns/{campaign.pk}/forces/{red.pk}/adjustments/"
    body = json.dumps({"amount": 2.0, "reason": "Prize"})
    response = api.post(url, body, content_type="application/json")
    assert response.status_code == 201
    assert response.json()["amount"] == 2
    body = json.dumps({"amount": 2.5, "reason": "Prize"})
    assert api.post(url, body, content_type="application/json").status_code == 400


@pytest.mark.parametrize(("query", "status"), [("", 200), ("?status=pending", 200)])
def test_a_battle_status_filter_is_taken(campaign, alice, query, status):
    response = signed_in(alice).get(f"/api/v1/campaigns/{campaign.pk}/battles/{query}")
    assert response.status_code == status


@pytest.mark.parametrize("query", ["?status=", "?status=lost"])
def test_an_empty_or_unknown_battle_status_is_refused(campaign, alice, query):
    response = signed_in(alice).get(f"/api/v1/campaigns/{campaign.pk}/battles/{query}")
    assert response.status_code == 400
    assert [e["pointer"] for e in response.json()["errors"]] == ["/status"]
