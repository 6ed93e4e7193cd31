"""/api/v1/rosters/: saved forces, their documents and their members' server-side rolls."""

import json

import pytest
from rest_framework.test import APIClient

from accounts.tokens import create_api_token
from roster import engine, selectors, services
from roster.models import Force, SkillRoll
from tests.conftest import throttle_rates
from tests.roster.builders import legal_force, signed_in, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db
BASE = "/api/v1/rosters/"


def send(client, method: str, url: str, body=None):
    """A JSON request; a str body is sent as is (for bodies that are not JSON)."""
    if body is None or method == "get":
        return getattr(client, method)(url)
    data = body if isinstance(body, str) else json.dumps(body)
    return getattr(client, method)(url, data, content_type="application/json")


def error_keys(response) -> list[tuple[str, str]]:
    return [(e["pointer"], e["code"]) for e in response.json()["errors"]]


def rolling_document() -> dict:
    """A legal force whose second member (Ann) has a movement skill line to roll for."""
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    return document


@pytest.fixture
def saved(owner) -> Force:
    return services.import_force(owner=owner, document=rolling_document())


@pytest.fixture
def dice(monkeypatch):
    """The server's dice, scripted: `dice.faces.extend([...])` before each roll."""
    scripted = ScriptedDice()
    monkeypatch.setattr("rules.dice.server_dice", lambda: scripted)
    return scripted


def detail_url(force: Force | int) -> str:
    return f"{BASE}{getattr(force, 'pk', force)}/"


def rolls_url(force: Force, member: int = 1) -> str:
    return f"{detail_url(force)}members/{member}/rolls/"


def picks_url(force: Force, member: int = 1) -> str:
    return f"{detail_url(force)}members/{member}/picks/"


# --- create, read, replace, rename, delete ------------------------------------------------


def test_crud_round_trip(owner_api, client):
    document = legal_force()
    created = send(owner_api, "post", BASE, document)
    assert created.status_code == 201, created.json()
    body = created.json()
    assert created["Location"] == body["url"]
    assert set(body) == {
        "id",
        "url",
        "document",
        "evaluation",
        "rules_version",
        "rules_update_url",
        "share_url",
        "created_at",
        "updated_at",
    }

    fetched = owner_api.get(created["Location"])
    assert fetched.status_code == 200
    detail = fetched.json()
    assert detail["document"] == document
    assert detail["evaluation"]["valid"] is True
    assert detail["rules_version"] == "dbd-core-1"
    assert detail["share_url"] is None
    # The stored evaluation has the validation endpoint's shape (and here its answer).
    validated = send(client, "post", f"{BASE}validate/", document).json()
    assert detail["evaluation"] == validated
    assert owner_api.get(f"{created['Location']}export/").json() == document

    changed = legal_force()
    changed["name"] = "Renamed"
    changed["resources"] = 60
    changed["members"][3]["name"] = "Cal"
    replaced = send(owner_api, "put", created["Location"], changed)
    assert replaced.status_code == 200
    assert replaced.json()["document"] == changed
    assert owner_api.get(created["Location"]).json()["document"] == changed
    assert replaced.json()["evaluation"]["remaining"] == 60 - validated["total_cost"]

    deleted = owner_api.delete(created["Location"])
    assert deleted.status_code == 204
    assert owner_api.get(created["Location"]).status_code == 404
    assert not Force.objects.exists()


def test_list_shows_the_stored_headline_numbers(owner_api, owner):
    saved = services.import_force(owner=owner, document=legal_force())
    services.set_share_link(force=saved, actor=None, enabled=True)
    services.create_force(owner=owner, name="Empty draft")
    response = owner_api.get(BASE)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] == 2
    draft, full = body["results"]  # most recently changed first
    assert set(full) == {
        "id",
        "url",
        "name",
        "resources",
        "rules_version",
        "valid",
        "total_cost",
        "member_count",
        "created_at",
        "updated_at",
        "shared",
    }
    stored = Force.objects.get(pk=saved.pk).evaluation
    assert (full["id"], full["name"], full["member_count"]) == (saved.pk, "Test Force", 4)
    assert (full["valid"], full["total_cost"], full["shared"]) == (
        True,
        stored["total_cost"],
        True,
    )
    assert full["url"].endswith(detail_url(saved))
    assert (draft["name"], draft["member_count"], draft["valid"], draft["shared"]) == (
        "Empty draft",
        0,
        False,
        False,
    )


def test_list_is_paginated(owner_api, owner):
    for name in ("One", "Two", "Three"):
        services.create_force(owner=owner, name=name)
    first = owner_api.get(f"{BASE}?limit=2").json()
    assert first["count"] == 3
    assert [f["name"] for f in first["results"]] == ["Three", "Two"]
    assert first["previous"] is None
    second = owner_api.get(first["next"]).json()
    assert [f["name"] for f in second["results"]] == ["One"]
    assert second["next"] is None


def test_share_url_while_sharing_is_on(owner_api, saved):
    services.set_share_link(force=saved, actor=None, enabled=True)
    share_url = owner_api.get(detail_url(saved)).json()["share_url"]
    assert share_url == f"http://testserver/forces/shared/{saved.share_token}/"


# --- refused documents -------------------------------------------------------------------


def test_a_malformed_document_is_refused_and_nothing_is_created(owner_api):
    document = legal_force()
    document["members"][1]["base"] = "strong"
    document["colour"] = "red"
    response = send(owner_api, "post", BASE, document)
    assert response.status_code == 400
    assert sorted(error_keys(response)) == [
        ("/colour", "unknown-key"),
        ("/members/1/base", "wrong-type"),
    ]
    assert all(e["message"] for e in response.json()["errors"])
    assert not Force.objects.exists()


def test_a_rule_breaking_draft_is_saved(owner_api):
    response = send(owner_api, "post", BASE, {**legal_force(), "resources": 1})
    assert response.status_code == 201
    assert response.json()["evaluation"]["valid"] is False
    assert ("/resources", "over-budget") in [
        (e["pointer"], e["code"]) for e in response.json()["evaluation"]["errors"]
    ]


def test_a_body_that_is_not_json(owner_api):
    response = send(owner_api, "post", BASE, "{not json")
    assert response.status_code == 400
    assert error_keys(response) == [("", "parse-error")]
    assert not Force.objects.exists()


def test_a_form_body_is_unsupported(owner_api):
    response = owner_api.post(BASE, {"format": "dbd-roster/1"}, format="multipart")
    assert response.status_code == 415
    assert error_keys(response) == [("", "unsupported-media-type")]
    assert not Force.objects.exists()


def test_a_malformed_replacement_changes_nothing(owner_api, saved):
    before = owner_api.get(detail_url(saved)).json()
    response = send(owner_api, "put", detail_url(saved), {**legal_force(), "members": "none"})
    assert response.status_code == 400
    assert error_keys(response) == [("/members", "wrong-type")]
    assert owner_api.get(detail_url(saved)).json() == before


def test_patch_changes_some_of_the_document(owner_api, saved):
    response = send(owner_api, "patch", detail_url(saved), {"name": "Renamed"})
    assert response.status_code == 200
    assert response.json()["document"]["name"] == "Renamed"
    response = send(owner_api, "patch", detail_url(saved), {"resources": 1})
    assert response.json()["document"]["resources"] == 1
    assert response.json()["evaluation"]["valid"] is False  # over budget now
    assert len(response.json()["document"]["members"]) == 4

    members = send(owner_api, "get", detail_url(saved), None).json()["document"]["members"]
    response = send(owner_api, "patch", detail_url(saved), {"members": members[:3]})
    assert response.status_code == 200
    assert [m["name"] for m in response.json()["document"]["members"]] == [
        m["name"] for m in members[:3]
    ]

    refused = send(
        owner_api, "patch", detail_url(saved), {"name": "  ", "resources": 0, "format": "x"}
    )
    assert refused.status_code == 400
    assert sorted(error_keys(refused)) == [
        ("/format", "unknown-key"),
        ("/name", "blank"),
        ("/resources", "out-of-range"),
    ]
    assert send(owner_api, "patch", detail_url(saved), [1]).status_code == 400
    assert Force.objects.get(pk=saved.pk).name == "Renamed"


# --- who may do what ---------------------------------------------------------------------

# Every endpoint on a saved force: (method, path under the force, body).
FORCE_ENDPOINTS = [
    ("get", "", None),
    ("put", "", legal_force()),
    ("patch", "", {"name": "Mine now"}),
    ("delete", "", None),
    ("get", "export/", None),
    ("get", "rolls/", None),
    ("get", "members/1/rolls/", None),
    ("post", "members/1/rolls/", {"slot": "free_advancements/0"}),
    ("post", "members/1/picks/", {"slot": "free_advancements/0", "skill": "movement/catfall"}),
]
ENDPOINT_IDS = [f"{m}-{p or 'detail'}" for m, p, _ in FORCE_ENDPOINTS]


@pytest.mark.parametrize(("method", "path", "body"), FORCE_ENDPOINTS, ids=ENDPOINT_IDS)
def test_the_owner_may_use_every_endpoint(owner_api, saved, dice, method, path, body):
    dice.faces.append(3)
    response = send(owner_api, method, f"{detail_url(saved)}{path}", body)
    assert response.status_code in (200, 201, 204), response.content


@pytest.mark.parametrize(("method", "path", "body"), FORCE_ENDPOINTS, ids=ENDPOINT_IDS)
def test_another_user_gets_404_and_changes_nothing(
    stranger_api, owner, saved, dice, method, path, body
):
    dice.faces.append(3)
    before = selectors.force_document(force=selectors.get_force(user=owner, force_id=saved.pk))
    response = send(stranger_api, method, f"{detail_url(saved)}{path}", body)
    assert response.status_code == 404
    assert error_keys(response) == [("", "not-found")]
    after = selectors.get_force(user=owner, force_id=saved.pk)
    assert selectors.force_document(force=after) == before
    assert not SkillRoll.objects.exists()


def test_a_missing_force_is_the_same_404(owner_api, stranger_api, saved):
    missing = owner_api.get(detail_url(saved.pk + 1000))
    assert missing.status_code == 404
    assert missing.json() == stranger_api.get(detail_url(saved)).json()


def test_another_user_lists_only_their_own(stranger_api, saved):
    body = stranger_api.get(BASE).json()
    assert (body["count"], body["results"]) == (0, [])


ALL_ENDPOINTS = [("get", BASE, None), ("post", BASE, legal_force())] + [
    (method, f"{{force}}{path}", body) for method, path, body in FORCE_ENDPOINTS
]


@pytest.mark.parametrize(
    ("method", "url", "body"), ALL_ENDPOINTS, ids=["get-list", "post-list", *ENDPOINT_IDS]
)
def test_anonymous_gets_401(client, saved, method, url, body):
    response = send(client, method, url.format(force=detail_url(saved)), body)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert error_keys(response) == [("", "not-authenticated")]
    assert Force.objects.count() == 1
    assert not SkillRoll.objects.exists()


def test_token_authentication(client, owner, saved):
    _, raw = create_api_token(user=owner, name="my tool")
    auth = {"HTTP_AUTHORIZATION": f"Token {raw}"}
    assert client.get(BASE, **auth).json()["count"] == 1
    assert client.get(detail_url(saved), **auth).status_code == 200
    # No session, so no CSRF token needed for unsafe methods.
    strict = APIClient(enforce_csrf_checks=True)
    strict.credentials(**auth)
    created = strict.post(BASE, legal_force(), format="json")
    assert created.status_code == 201
    assert strict.delete(created["Location"]).status_code == 204

    wrong = client.get(BASE, HTTP_AUTHORIZATION="Token not-a-token")
    assert wrong.status_code == 401
    assert error_keys(wrong) == [("", "authentication-failed")]


def test_a_session_needs_its_csrf_token_for_unsafe_methods(owner, saved):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(owner)
    assert browser.get(BASE).status_code == 200
    refused = browser.post(BASE, legal_force(), format="json")
    assert refused.status_code == 403
    assert error_keys(refused) == [("", "permission-denied")]
    assert "CSRF" in refused.json()["errors"][0]["message"]
    assert browser.delete(detail_url(saved)).status_code == 403
    assert Force.objects.count() == 1


@throttle_rates(user="2/minute")
def test_throttling_answers_429(owner_api):
    assert owner_api.get(BASE).status_code == 200
    assert owner_api.get(BASE).status_code == 200
    response = owner_api.get(BASE)
    assert response.status_code == 429
    assert error_keys(response) == [("", "throttled")]
    assert int(response.json()["retry_after"]) > 0


def test_the_api_root_links_the_list(client):
    assert client.get("/api/v1/").json()["rosters"] == f"http://testserver{BASE}"


# --- rolls and picks (R5) ----------------------------------------------------------------


def roll(client, force, body, member=1):
    return send(client, "post", rolls_url(force, member), body)


def test_a_roll_answers_with_the_advancement_and_the_new_totals(owner_api, saved, dice):
    dice.faces.extend([11, 1])
    response = roll(owner_api, saved, {"slot": "free_advancements/0"})
    assert response.status_code == 201
    body = response.json()
    assert {k: body[k] for k in ("slot", "table", "dice", "outcome", "skill", "choices")} == {
        "slot": "free_advancements/0",
        "table": "movement",
        "dice": [11, 1],
        "outcome": "skill",
        "skill": "movement/catfall",
        "choices": [],
    }
    assert body["rolled_by"] == "owner"
    assert body["created_at"]
    assert body["advancement"] == {"line": 4, "skill": "movement/catfall", "method": "rolled"}
    stored = Force.objects.get(pk=saved.pk).evaluation
    assert body["force"] == {
        "valid": True,
        "total_cost": stored["total_cost"],
        "remaining": stored["remaining"],
    }
    assert stored["members"][1]["unverified_rolls"] == 0


def test_a_natural_12_then_a_table(owner_api, saved, dice):
    dice.faces.append(12)
    first = roll(owner_api, saved, {"slot": "free_advancements/0"}).json()
    assert (first["outcome"], first["skill"]) == ("natural-12", "")
    assert first["advancement"] == {"line": 4, "method": "rolled", "natural_12": True}

    dice.faces.append(3)
    refused = roll(owner_api, saved, {"slot": "free_advancements/0"})
    assert refused.status_code == 400
    assert error_keys(refused) == [("/table", "table-required")]
    assert "natural 12" in refused.json()["errors"][0]["message"]

    dice.faces[:] = [10]
    second = roll(owner_api, saved, {"slot": "free_advancements/0", "table": "melee"})
    assert second.status_code == 201
    assert (second.json()["table"], second.json()["skill"]) == ("melee", "melee/dual-wield")
    assert second.json()["advancement"] == {
        "line": 4,
        "skill": "melee/dual-wield",
        "method": "rolled",
        "natural_12": True,
    }
    assert second.json()["force"]["valid"] is True


def test_rolling_again_is_a_reroll(owner_api, saved, dice):
    dice.faces.extend([1, 2])
    roll(owner_api, saved, {"slot": "free_advancements/0"})
    again = roll(owner_api, saved, {"slot": "free_advancements/0"}).json()
    assert again["advancement"] == {
        "line": 4,
        "skill": "movement/quick-mantle",
        "method": "rolled",
        "rerolls": 1,
    }
    evaluation = owner_api.get(detail_url(saved)).json()["evaluation"]
    assert evaluation["members"][1]["stats"]["FR"] == 4  # -1 FR for the re-roll
    assert evaluation["members"][1]["unverified_rolls"] == 0


@pytest.mark.parametrize(("fr", "allowed"), [(engine.REROLL_FR_COST, True), (0, False)])
def test_r5a_a_reroll_needs_the_fr_to_pay_for_it(owner_api, saved, dice, fr, allowed):
    """FR exactly the re-roll's cost pays for it (FR 0 after, R3); below it the re-roll is
    refused with one problem and nothing changes (R5a)."""
    dice.faces.append(3)
    roll(owner_api, saved, {"slot": "free_advancements/0"})
    while (now := ann_fr(owner_api, saved)) > fr:
        dice.faces.append(3)
        assert roll(owner_api, saved, {"slot": "free_advancements/0"}).status_code == 201
    assert now == fr
    before = owner_api.get(detail_url(saved)).json()
    rolls = SkillRoll.objects.count()

    dice.faces.append(5)
    response = roll(owner_api, saved, {"slot": "free_advancements/0"})
    if allowed:
        assert response.status_code == 201
        assert (
            response.json()["advancement"]["rerolls"]
            == before["document"]["members"][1]["free_advancements"][0]["rerolls"] + 1
        )
        assert ann_fr(owner_api, saved) == fr - engine.REROLL_FR_COST == 0
        return
    assert response.status_code == 400
    assert response.json() == {
        "errors": [
            {
                "code": "reroll-fr",
                "pointer": "/slot",
                "message": "Ann has no FR left to pay for this (R5a: FR may not go below 0).",
            }
        ]
    }
    assert owner_api.get(detail_url(saved)).json() == before
    assert SkillRoll.objects.count() == rolls


def ann_fr(client, force) -> int:
    return client.get(detail_url(force)).json()["evaluation"]["members"][1]["stats"]["FR"]


def test_pick_freely_then_a_free_pick(owner_api, saved, dice):
    dice.faces.append(1)
    roll(owner_api, saved, {"slot": "free_advancements/0"})  # movement/catfall
    document = owner_api.get(f"{detail_url(saved)}export/").json()
    document["members"][1].update(xp=3, level_ups=[{"line": 4}])
    assert send(owner_api, "put", detail_url(saved), document).status_code == 200

    dice.faces.append(1)
    rolled = roll(owner_api, saved, {"slot": "level_ups/0"}).json()
    assert rolled["outcome"] == "pick-freely"
    assert "movement/catfall" not in rolled["choices"]
    assert "movement/wall-run" in rolled["choices"]

    taken = {"slot": "level_ups/0", "skill": "movement/catfall", "free": True}
    refused = send(owner_api, "post", picks_url(saved), taken)
    assert refused.status_code == 400
    assert error_keys(refused) == [("/skill", "not-a-choice")]

    picked = send(owner_api, "post", picks_url(saved), {**taken, "skill": "movement/wall-run"})
    assert picked.status_code == 200
    assert picked.json()["slot"] == "level_ups/0"
    assert picked.json()["advancement"] == {
        "line": 4,
        "skill": "movement/wall-run",
        "method": "rolled",
    }
    evaluation = owner_api.get(detail_url(saved)).json()["evaluation"]
    assert evaluation["members"][1]["unverified_rolls"] == 0


def test_a_free_pick_needs_a_pick_freely_roll(owner_api, saved):
    body = {"slot": "free_advancements/0", "skill": "movement/catfall", "free": True}
    response = send(owner_api, "post", picks_url(saved), body)
    assert response.status_code == 400
    assert error_keys(response) == [("/slot", "roll-refused")]


def test_picking_a_skill_costs_two_fr(owner_api, saved):
    body = {"slot": "free_advancements/0", "skill": "movement/catfall"}
    response = send(owner_api, "post", picks_url(saved), body)
    assert response.status_code == 200
    assert response.json()["advancement"] == {
        "line": 4,
        "skill": "movement/catfall",
        "method": "picked",
    }
    assert response.json()["force"]["valid"] is True
    evaluation = owner_api.get(detail_url(saved)).json()["evaluation"]
    assert evaluation["members"][1]["stats"]["FR"] == 3
    assert not SkillRoll.objects.exists()


@pytest.mark.parametrize(
    ("body", "pointer", "code"),
    [
        ({"slot": "free_advancements/1"}, "/slot", "not-a-skill-slot"),  # a statistic line
        ({"slot": "free_advancements/9"}, "/slot", "no-such-slot"),
        ({"slot": "spells/0"}, "/slot", "no-such-slot"),
        ({}, "/slot", "required"),
        ({"slot": 5, "table": ["melee"]}, "/table", "invalid"),
        ([], "", "invalid"),
    ],
)
def test_refused_rolls(owner_api, saved, dice, body, pointer, code):
    dice.faces.append(3)
    response = roll(owner_api, saved, body)
    assert response.status_code == 400
    assert (pointer, code) in error_keys(response)
    assert not SkillRoll.objects.exists()


def test_refused_picks(owner_api, saved):
    statistic_line = {"slot": "free_advancements/1", "skill": "movement/catfall"}
    response = send(owner_api, "post", picks_url(saved), statistic_line)
    assert error_keys(response) == [("/slot", "not-a-skill-slot")]
    response = send(owner_api, "post", picks_url(saved), {"slot": "free_advancements/0"})
    assert error_keys(response) == [("/skill", "required")]


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "rolls/"), ("post", "rolls/"), ("post", "picks/")],
)
def test_a_member_out_of_range_is_404(owner_api, saved, dice, method, path):
    body = {"slot": "free_advancements/0", "skill": "movement/catfall"}
    response = send(owner_api, method, f"{detail_url(saved)}members/4/{path}", body)
    assert response.status_code == 404
    assert error_keys(response) == [("", "not-found")]


def test_roll_history(owner, saved, dice):
    _, raw = create_api_token(user=owner, name="dice app")
    session = signed_in(owner)
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    dice.faces.extend([12, 10, 2])
    roll(session, saved, {"slot": "free_advancements/0"})
    roll(token, saved, {"slot": "free_advancements/0", "table": "melee"})
    document = selectors.force_document(force=selectors.get_force(user=owner, force_id=saved.pk))
    document["members"][2]["free_advancements"] = [{"line": 4}, {"line": 3}]
    services.replace_document(force=saved, actor=None, document=document)
    roll(session, saved, {"slot": "free_advancements/0"}, member=2)

    history = session.get(rolls_url(saved)).json()
    assert history["count"] == 2
    assert [
        (r["rolled_by"], r["table"], r["dice"], r["outcome"], r["skill"])
        for r in history["results"]
    ] == [
        ("owner", "movement", [12], "natural-12", ""),
        ("owner", "melee", [10], "skill", "melee/dual-wield"),
    ]
    first, second = history["results"]
    assert first["created_at"] <= second["created_at"]
    assert first["id"] < second["id"]

    everything = session.get(f"{detail_url(saved)}rolls/").json()
    assert [(r["member"], r["member_index"], r["slot"]) for r in everything["results"]] == [
        ("Ann", 1, "free_advancements/0"),
        ("Ann", 1, "free_advancements/0"),
        ("Ben", 2, "free_advancements/0"),
    ]
    assert session.get(rolls_url(saved, member=3)).json()["count"] == 0


def test_rolls_survive_a_replacement_that_keeps_the_member(owner_api, saved, dice):
    dice.faces.append(1)
    roll(owner_api, saved, {"slot": "free_advancements/0"})
    document = owner_api.get(f"{detail_url(saved)}export/").json()
    document["members"].append(student("Dot"))
    send(owner_api, "put", detail_url(saved), document)
    assert owner_api.get(rolls_url(saved)).json()["count"] == 1
    evaluation = owner_api.get(detail_url(saved)).json()["evaluation"]
    assert evaluation["members"][1]["unverified_rolls"] == 0


# --- the OpenAPI description -------------------------------------------------------------


def test_every_endpoint_is_described(client):
    schema = client.get("/api/schema/?format=json").json()
    operations = {
        (path, method): operation
        for path, item in schema["paths"].items()
        if path.startswith(BASE)
        for method, operation in item.items()
    }
    assert set(operations) == {
        (BASE, "get"),
        (BASE, "post"),
        (f"{BASE}validate/", "post"),
        (f"{BASE}{{force_id}}/", "get"),
        (f"{BASE}{{force_id}}/", "put"),
        (f"{BASE}{{force_id}}/", "patch"),
        (f"{BASE}{{force_id}}/rules-update/", "get"),
        (f"{BASE}{{force_id}}/rules-update/", "post"),
        (f"{BASE}{{force_id}}/", "delete"),
        (f"{BASE}{{force_id}}/export/", "get"),
        (f"{BASE}{{force_id}}/rolls/", "get"),
        (f"{BASE}{{force_id}}/members/{{member_index}}/rolls/", "get"),
        (f"{BASE}{{force_id}}/members/{{member_index}}/rolls/", "post"),
        (f"{BASE}{{force_id}}/members/{{member_index}}/picks/", "post"),
    }
    assert all(op["tags"] == ["rosters"] for op in operations.values())
    document_ref = {"$ref": "#/components/schemas/RosterDocument"}
    for key in ((BASE, "post"), (f"{BASE}{{force_id}}/", "put")):
        body = operations[key]["requestBody"]["content"]["application/json"]["schema"]
        assert body == document_ref
    export = operations[(f"{BASE}{{force_id}}/export/", "get")]
    assert export["responses"]["200"]["content"]["application/json"]["schema"] == document_ref
    assert "404" in operations[(f"{BASE}{{force_id}}/", "get")]["responses"]


@pytest.mark.parametrize(
    "path", ["", "{force}", "{force}export/", "{force}rolls/", "{force}members/1/rolls/"]
)
def test_the_browsable_api_renders(owner_api, saved, path):
    url = f"{BASE}{path.format(force=f'{saved.pk}/')}"
    response = owner_api.get(url, HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
