"""The dbd-campaign/1 document's JSON Schema is published, and the document comes back in
through the API, by the campaign import's own write path (issue #32)."""

import json

import jsonschema
import pytest

from campaign.models import Campaign
from campaign.schema import CAMPAIGN_DOCUMENT_SCHEMA
from tests.api_schema import published_schema
from tests.campaign.conftest import ann_takes_an_enemy_out
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def exported(campaign, organiser, alice, bob, red, blue):
    """Spring League with a confirmed battle, as its organiser exports it (the answer is
    checked against `CampaignDocument` by the API tests' hook)."""
    ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    answer = signed_in(organiser).get(f"/api/v1/campaigns/{campaign.pk}/export/")
    assert answer.status_code == 200
    return answer.json()


def renamed(document: dict) -> dict:
    """The document with its people renamed, as if it came from another site."""
    text = json.dumps(document)
    for name in ("olga", "alice", "bob"):
        text = text.replace(f'"{name}"', f'"{name}-2"')
    return json.loads(text)


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("sam", password="pw-sam-12345", is_staff=True)


def test_the_schema_is_published_and_the_export_holds_it(exported):
    component = published_schema()["components"]["schemas"]["CampaignDocument"]
    assert component["title"] == "CampaignDocument"
    forces = component["properties"]["forces"]["items"]["properties"]
    assert forces["document"] == {"$ref": "#/components/schemas/RosterDocument"}
    jsonschema.Draft202012Validator(CAMPAIGN_DOCUMENT_SCHEMA).validate(exported)
    export = published_schema()["paths"]["/api/v1/campaigns/{campaign_id}/export/"]["get"]
    assert export["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/CampaignDocument"
    }


def test_staff_import_a_campaign_and_it_exports_the_same(exported, staff):
    api = signed_in(staff)
    document = renamed(exported)
    made = api.post("/api/v1/campaigns/import/", document, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert (body["name"], body["organiser"]) == ("Spring League", "olga-2")
    assert body["players"] == ["olga-2", "alice-2", "bob-2"]
    assert made["Location"] == body["url"]
    imported = Campaign.objects.get(pk=body["id"])
    again = signed_in(imported.organiser).get(f"/api/v1/campaigns/{imported.pk}/export/")
    assert again.json() == document


def test_the_import_answers_the_campaigns_tag(exported, staff):
    made = signed_in(staff).post("/api/v1/campaigns/import/", renamed(exported), format="json")
    imported = Campaign.objects.get(pk=made.json()["id"])
    assert made["ETag"] == signed_in(imported.organiser).get(made["Location"])["ETag"]


def test_only_staff_import(exported, alice):
    refused = signed_in(alice).post("/api/v1/campaigns/import/", renamed(exported), format="json")
    assert refused.status_code == 403
    assert [e["code"] for e in refused.json()["errors"]] == ["not-allowed"]
    assert Campaign.objects.count() == 1


def test_a_document_off_its_schema_is_refused_at_each_pointer(exported, staff):
    document = renamed(exported)
    del document["campaign"]["name"]
    document["forces"][0]["document"]["resources"] = "lots"
    document["battles"][0]["status"] = "won"
    refused = signed_in(staff).post("/api/v1/campaigns/import/", document, format="json")
    assert refused.status_code == 400
    assert sorted((e["pointer"], e["code"]) for e in refused.json()["errors"]) == [
        ("/battles/0/status", "invalid-value"),
        ("/campaign/name", "missing-key"),
        ("/forces/0/document/resources", "wrong-type"),
    ]
    assert Campaign.objects.count() == 1


def test_what_the_import_refuses_is_said_and_nothing_is_made(exported, staff):
    refused = signed_in(staff).post("/api/v1/campaigns/import/", exported, format="json")
    assert refused.status_code == 400
    [error] = refused.json()["errors"]
    assert error["code"] == "campaign-import"
    assert "already exist" in error["message"]
    assert Campaign.objects.count() == 1
