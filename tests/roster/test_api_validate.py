"""POST /api/v1/rosters/validate/: no login, nothing stored."""

import json

import pytest

from roster.engine import ERROR_CODES, WARNING_CODES
from tests.roster.builders import emma, force, legal_force

pytestmark = pytest.mark.django_db
URL = "/api/v1/rosters/validate/"


def post(client, body, content_type="application/json"):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(URL, data, content_type=content_type)


def test_the_issue_example_answers_as_documented(client):
    document = force(emma(), name="Literature Club Irregulars")
    response = post(client, document)
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False
    assert body["rules_version"] == "dbd-core-1"
    assert (body["resources"], body["total_cost"], body["remaining"]) == (50, 5, 45)
    assert [(e["pointer"], e["code"]) for e in body["errors"]] == [("/members", "force-size")]
    assert body["warnings"] == []
    emma_result = body["members"][0]
    assert emma_result["stats"] == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3}
    assert emma_result["defence"] == {"melee": 8, "ranged": 8}
    assert emma_result["skills"] == ["spellcasting/spell-focus"]
    assert emma_result["spell_slots"] == {"total": 4, "used": 1}
    assert emma_result["cost"] == {"advancements": 0, "equipment": 5, "total": 5}
    assert emma_result["unverified_rolls"] == 0
    assert (emma_result["name"], emma_result["role"], emma_result["level"]) == (
        "Emma",
        "student",
        1,
    )


def test_a_legal_force_is_valid(client):
    body = post(client, legal_force()).json()
    assert body["valid"] is True
    assert body["errors"] == []


def test_anonymous_post_needs_no_csrf_token(client):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    assert post(strict, legal_force()).status_code == 200


@pytest.mark.parametrize(
    ("body", "pointer", "code"),
    [
        ("{not json", "", "parse-error"),
        ("[]", "", "wrong-type"),
        ({**legal_force(), "format": "dbd-roster/2"}, "/format", "invalid-value"),
        ({**legal_force(), "colour": "red"}, "/colour", "unknown-key"),
        ({k: v for k, v in legal_force().items() if k != "name"}, "/name", "missing-key"),
        ({**legal_force(), "resources": 0}, "/resources", "out-of-range"),
        ({**legal_force(), "resources": "50"}, "/resources", "wrong-type"),
        ({**legal_force(), "resources": 50.5}, "/resources", "wrong-type"),
        ({**legal_force(), "members": [{}] * 21}, "/members", "too-many-items"),
    ],
)
def test_malformed_bodies_get_400_with_a_pointer(client, body, pointer, code):
    response = post(client, body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert (pointer, code) in [(e["pointer"], e["code"]) for e in errors]
    assert all(e["message"] for e in errors)


def test_malformed_member_fields_point_inside_the_member(client):
    document = legal_force()
    document["members"][2]["spell_focus"] = "yes"
    document["members"][3]["free_advancements"] = [{"line": 9}]
    document["members"][1]["purchases"] = [{"line": 1, "skill": "movement/catfall"}]
    errors = post(client, document).json()["errors"]
    assert {(e["pointer"], e["code"]) for e in errors} == {
        ("/members/2/spell_focus", "wrong-type"),
        ("/members/3/free_advancements/0/line", "out-of-range"),
        ("/members/1/purchases/0", "invalid-purchase"),
    }


def test_unknown_slugs_are_rule_errors_not_malformed(client):
    document = legal_force()
    document["members"][0]["equipment"] = ["simple-weapon", "lightsaber"]
    document["members"][1]["club"]["society"] = "drama"
    document["members"][0]["spells"] = ["fireball"]
    response = post(client, document)
    assert response.status_code == 200
    found = {(e["pointer"], e["code"]) for e in response.json()["errors"]}
    assert {
        ("/members/0/equipment/1", "unknown-equipment"),
        ("/members/1/club/society", "unknown-society"),
        ("/members/0/spells/0", "unknown-spell"),
    } <= found


def test_form_bodies_are_refused(client):
    response = client.post(URL, {"format": "dbd-roster/1"})
    assert response.status_code == 415
    assert response.json()["errors"][0]["code"] == "unsupported-media-type"


def test_get_is_not_allowed(client):
    assert client.get(URL).status_code == 405


def test_schema_lists_every_code_and_the_document(client):
    schema = client.get("/api/schema/?format=json").json()
    problem = schema["components"]["schemas"]["Problem"]["properties"]["code"]
    enum = problem.get("enum") or schema["components"]["schemas"][
        problem["$ref"].rsplit("/", 1)[-1]
    ].get("enum")
    assert set(enum) == set(ERROR_CODES) | set(WARNING_CODES)
    operation = schema["paths"][URL]["post"]
    assert operation["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RosterDocument"
    }
    assert "RosterDocument" in schema["components"]["schemas"]
    assert set(operation["responses"]) >= {"200", "400"}


def test_docs_table_lists_every_code():
    from pathlib import Path

    from django.conf import settings

    text = (Path(settings.BASE_DIR) / "docs" / "roster-document.md").read_text()
    for code in ERROR_CODES:
        assert f"| `{code}` | error |" in text
    for code in WARNING_CODES:
        assert f"| `{code}` | warning |" in text
