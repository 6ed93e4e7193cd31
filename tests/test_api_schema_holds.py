"""The published schema holds (issue #32): OpenAPI 3.1's null, shapes generators model,
one error model listing every declared code, `Location` on every 201, clean names. Every
API test's answers are checked against it besides (`tests/api_schema.py`)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from dbd_site.errors import declared_codes, statuses_of
from tests.api_schema import problems_with, published_schema
from tests.roster.builders import legal_force, signed_in

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema():
    return published_schema()


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def walk(node, path=""):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}/{i}")


def test_null_is_a_type_and_nothing_needs_prefix_items(schema):
    assert [p for p, node in walk(schema) if "nullable" in node] == []
    assert [p for p, node in walk(schema) if "prefixItems" in node] == []
    page = schema["components"]["schemas"]["PaginatedRosterList"]["properties"]
    assert page["next"]["type"] == page["previous"]["type"] == ["string", "null"]


def test_no_one_of_a_value_can_match_twice(schema):
    """Each `oneOf` has at most one branch that takes `null`, and none that takes anything
    (`{}`): the branches are told apart by type or by their own refs."""
    for path, node in walk(schema):
        for branch in node.get("oneOf", []):
            assert branch != {}, path
    battle = schema["components"]["schemas"]["PlayBattle"]["properties"]["record"]
    assert battle["oneOf"] == [{"$ref": "#/components/schemas/PlayRecord"}, {"type": "null"}]


def error_codes(operation, status):
    """The codes an operation's refusal with `status` lists (its narrowing of the model)."""
    content = operation["responses"][status]["content"]["application/json"]["schema"]
    assert content["$ref"] == "#/components/schemas/ErrorList"
    return content["properties"]["errors"]["items"]["properties"]["code"]["enum"]


def test_one_error_model_lists_every_declared_code(schema):
    components = schema["components"]["schemas"]
    assert components["ErrorCode"]["enum"] == list(declared_codes())
    assert {"authentication-failed", "battle-in-future", "campaign-resources"} <= set(
        components["ErrorCode"]["enum"]
    )
    assert not {"ApiErrors", "ApiError", "ShapeErrors", "ShapeProblem"} & set(components)
    for path, _method, operation in operations(schema):
        for status in operation["responses"]:
            if int(status) >= 400:
                codes = error_codes(operation, status)
                assert codes, (path, status)
                assert set(codes) <= set(declared_codes()), (path, status)
                assert [s for c in codes for s in statuses_of(c) if s == int(status)], (
                    path,
                    status,
                )


def test_each_operation_lists_the_codes_it_answers_under_their_status(schema):
    """Per operation and status, from the groups its view names and the common ones."""
    replace = schema["paths"]["/api/v1/rosters/{force_id}/"]["put"]
    assert {
        "campaign-resources",
        "insufficient-resources",
        "wrong-type",
        "parse-error",
        "idempotency-key-reused",
        "bad-host",
    } <= set(error_codes(replace, "400"))
    assert error_codes(replace, "409") == [
        "battle-pending",
        "campaign-force",
        "force-retired",
        "rules-update-pending",
        "void-breaks-force",
    ]
    assert error_codes(replace, "412") == ["precondition-failed"]
    assert error_codes(replace, "401") == ["authentication-failed", "not-authenticated"]
    assert error_codes(replace, "403") == [
        "not-owner",
        "permission-denied",
        "read-only-token",
    ]
    assert [p for p, node in walk(schema) if "x-error-codes" in node] == []  # used up
    listing = schema["paths"]["/api/v1/rosters/"]["get"]["responses"]
    assert not {"403", "404", "409"} & set(listing)
    validate = schema["paths"]["/api/v1/rosters/validate/"]["post"]  # reads no credentials
    assert not {"401", "403"} & set(validate["responses"])
    assert {"wrong-type", "missing-key"} <= set(error_codes(validate, "400"))  # @api_view
    assert error_codes(schema["paths"]["/api/v1/rosters/"]["get"], "400") == [
        "bad-character",
        "bad-host",
        "bad-request",
        "invalid",  # limit, offset
    ]


def test_every_201_declares_its_location_and_every_body_is_required(schema):
    created = 0
    for path, method, operation in operations(schema):
        if "201" in operation["responses"]:
            created += 1
            assert "Location" in operation["responses"]["201"]["headers"], (path, method)
        if "requestBody" in operation:
            assert operation["requestBody"]["required"] is True, (path, method)
    assert created >= 10


def test_operations_are_named_alike(schema):
    ids = [operation["operationId"] for _, _, operation in operations(schema)]
    assert [i for i in ids if i.startswith("v1_")] == []
    assert {"rules_root", "rules_skills_list", "rules_skills_retrieve", "api_root"} <= set(ids)
    patch = schema["paths"]["/api/v1/rosters/{force_id}/"]["patch"]["requestBody"]
    assert patch["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/RosterDocumentPatch"
    }
    assert schema["components"]["schemas"]["RosterDocument"]["title"] == "RosterDocument"


# --- the check of every answer can fail ---------------------------------------------------


def answer(body):
    return json.dumps(body).encode()


def test_the_answer_check_finds_what_breaks_the_schema():
    json_type = {"Content-Type": "application/json"}
    first_page = {"count": 0, "next": None, "previous": None, "results": []}
    assert problems_with("/api/v1/rosters/", "GET", 200, json_type, answer(first_page)) == []
    wrong = {**first_page, "next": 3}
    assert problems_with("/api/v1/rosters/", "GET", 200, json_type, answer(wrong))
    # A key the schema does not name: the tests refuse it (the published schema does not).
    [extra] = problems_with(
        "/api/v1/rosters/", "GET", 200, json_type, answer({**first_page, "x": 1})
    )
    assert "Unevaluated properties are not allowed ('x' was unexpected)" in extra
    unlisted = {"errors": [{"pointer": "", "code": "no-such-code", "message": "?"}]}
    assert problems_with("/api/v1/rosters/", "POST", 400, json_type, answer(unlisted))
    # A declared code that operation does not name: the check refuses it too.
    elsewhere = {"errors": [{"pointer": "", "code": "battle-ended", "message": "?"}]}
    [refused] = problems_with("/api/v1/rosters/", "POST", 400, json_type, answer(elsewhere))
    assert refused.startswith(
        "POST /api/v1/rosters/ 400: at /errors/0/code: 'battle-ended' is not"
    )
    assert problems_with("/api/v1/rosters/", "GET", 418, json_type, answer(unlisted)) == [
        "GET /api/v1/rosters/ 418: the status is not listed"
    ]
    created = {"Content-Type": "application/json"}
    assert "POST /api/v1/campaigns/ 201: a 201 without Location" in problems_with(
        "/api/v1/campaigns/", "POST", 201, created, answer({})
    )


def test_first_and_last_pages_and_answers_with_null_hold(alice):
    """Through the hooked client: a first page is also the last (`next` and `previous`
    null), and a refusal (a bad token) lists its code."""
    api = signed_in(alice)
    assert api.get("/api/v1/rosters/").json()["next"] is None
    api.post("/api/v1/rosters/", legal_force(), format="json")
    api.post("/api/v1/rosters/", legal_force(), format="json")
    last = api.get("/api/v1/rosters/?limit=1&offset=1").json()
    assert (last["next"], last["previous"] is not None) == (None, True)
    refused = APIClient().get("/api/v1/rosters/", HTTP_AUTHORIZATION="Token nope")
    assert [e["code"] for e in refused.json()["errors"]] == ["authentication-failed"]


def test_a_status_listed_with_no_code_named_for_it_fails_the_build():
    """The other half of the check: an operation cannot list a refusal and name none of
    its codes (`dbd_site.schema.answers`)."""
    from dbd_site.schema import add_common_error_responses

    result = {"paths": {"/api/v1/x/": {"get": {"responses": {"409": {"description": "?"}}}}}}
    with pytest.raises(ValueError, match=r"no code named for them: GET /api/v1/x/ 409$"):
        add_common_error_responses(result)


def test_every_answer_declares_the_rate_limit_headers_and_a_429_retry_after(schema):
    """What `ApiRateLimitMiddleware` sends on every answer; the hook checks each answer
    the tests receive sends only headers its operation declares (`tests/api_schema.py`)."""
    assert set(schema["components"]["headers"]) == {
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
        "Retry-After",
    }
    for path, method, operation in operations(schema):
        for status, response in operation["responses"].items():
            names = set(response["headers"])
            assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= names
            assert ("Retry-After" in names) == (status in ("429", "503")), (path, method, status)


def test_openapi_spec_validator_accepts_the_published_schema(schema):
    """What a tool author tries first (issue #32); the validator can refuse, as it does a
    copy with an answer that has no description (the specification requires one)."""
    from openapi_spec_validator import OpenAPIV31SpecValidator

    document = json.loads(json.dumps(schema))
    assert document["openapi"].startswith("3.1")
    assert list(OpenAPIV31SpecValidator(document).iter_errors()) == []
    broken = json.loads(json.dumps(schema))
    broken["paths"]["/api/v1/rosters/"]["get"]["responses"]["200"] = {"content": {}}
    assert list(OpenAPIV31SpecValidator(broken).iter_errors())


def components_answered(schema) -> set[str]:
    """The components an answer can hold, through every `$ref` on the way."""
    components = schema["components"]["schemas"]
    prefix = "#/components/schemas/"
    todo = [
        node["$ref"].removeprefix(prefix)
        for _path, _method, operation in operations(schema)
        for _at, node in walk(operation["responses"])
        if node.get("$ref", "").startswith(prefix)
    ]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [
                n["$ref"].removeprefix(prefix) for _, n in walk(components[name]) if "$ref" in n
            ]
    return seen


def test_answers_are_left_open_to_keys_added_later(schema):
    """Only the tests close them (`tests/api_schema.py`); the published answers stay open
    (docs/api.md), but for the documents whose format is closed (what import takes back)."""
    assert [p for p, node in walk(schema) if "unevaluatedProperties" in node] == []
    components = schema["components"]["schemas"]
    closed = {
        name
        for name in components_answered(schema)
        if any(node.get("additionalProperties") is False for _, node in walk(components[name]))
    }
    assert closed == {"RosterDocument", "RosterMember", "CampaignDocument"}


def test_the_schema_is_the_same_document_whatever_the_hash_seed(tmp_path):
    """Tools diff the schema between releases: Python's string hashing, which orders sets,
    must not reorder it."""
    documents = []
    for seed in ("1", "2"):
        out = tmp_path / f"schema-{seed}.yaml"
        subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "spectacular", "--file", str(out)],
            env={**os.environ, "PYTHONHASHSEED": seed, "DEBUG": "1"},
            check=True,
            capture_output=True,
        )
        documents.append(out.read_bytes())
    assert documents[0] == documents[1]
