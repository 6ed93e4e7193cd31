"""One test per class of input that once answered 500 (issue #13): each is refused with
a 4xx that says what and where, and changes nothing."""

import io
import json

import pytest
from django.test import Client

from dbd_site.errors import Invalid
from dbd_site.inputs import MAX_JSON_DEPTH, MAX_NUMBER_DIGITS, load_json, whole_number
from roster.models import Force, SkillRoll
from tests.roster.builders import legal_force, signed_in
from tests.site_walk import make_world, snapshot

pytestmark = pytest.mark.django_db

DEEP = "[" * 5000 + "]" * 5000


def nested(depth: int) -> str:
    """A JSON document `depth` levels deep: [[...[0]...]]."""
    return "[" * depth + "0" + "]" * depth


@pytest.fixture
def world():
    return make_world()


@pytest.fixture
def api(world):
    return signed_in(world.owner)


@pytest.fixture
def page(world):
    client = Client()
    client.force_login(world.owner)
    return client


def api_operations(client) -> list[tuple[str, str]]:
    """(method, path) of every API operation that takes a JSON body, with the world's ids."""
    schema = client.get("/api/schema/?format=json").json()
    return [
        (method, path)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if isinstance(operation, dict) and "requestBody" in operation
    ]


def concrete(path: str, world) -> str:
    values = {**world.values, **world.campaign_values, "member_index": "0"}
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    assert "{" not in path, path
    return path


# --- the helpers themselves, both sides of each limit -----------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("0", 0),
        ("7", 7),
        ("007", 7),
        ("9" * 18, 10**18 - 1),
        ("9" * 19, None),  # beyond what PostgreSQL's bigint holds
        ("²", None),
        ("①", None),
        ("١٢", None),  # Arabic-Indic digits: int() reads them, people do not mean them
        ("-1", None),
        ("+1", None),
        (" 1", None),
        ("1 ", None),
        ("1.0", None),
        ("", None),
        (None, None),
        (3, None),
    ],
)
def test_whole_number_takes_ascii_digits_only(text, number):
    assert whole_number(text) == number


def test_json_depth_limit_has_two_sides():
    assert load_json(nested(MAX_JSON_DEPTH)) is not None
    with pytest.raises(Invalid) as refused:
        load_json(nested(MAX_JSON_DEPTH + 1))
    assert refused.value.code == "too-deep"
    with pytest.raises(Invalid) as refused:
        load_json(DEEP)  # past the parser's own recursion limit
    assert refused.value.code == "too-deep"


def test_number_length_limit_has_two_sides():
    assert load_json("1" * MAX_NUMBER_DIGITS) == int("1" * MAX_NUMBER_DIGITS)
    assert load_json("-" + "1" * MAX_NUMBER_DIGITS) == -int("1" * MAX_NUMBER_DIGITS)
    for text in ("1" * (MAX_NUMBER_DIGITS + 1), "1" * 4400, "1e999", "-1e999", "NaN"):
        with pytest.raises(Invalid) as refused:
            load_json(text)
        assert refused.value.code in ("number-too-long", "parse-error"), text


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("2.0", 2),
        ("2e0", 2),
        ("-3.000", -3),
        ("9007199254740992.0", 2**53),
        ("9007199254740994.0", 9007199254740994.0),  # past exact floats: stays a float
        ("2.5", 2.5),
        ("1e-3", 0.001),
    ],
)
def test_whole_numbers_written_as_floats_are_integers(text, number):
    value = load_json(text)
    assert (value, type(value)) == (number, type(number))


def test_a_roster_document_may_write_resources_as_50_0(client):
    document = json.dumps(legal_force()).replace('"resources": 50', '"resources": 50.0')
    response = client.post("/api/v1/rosters/validate/", document, content_type="application/json")
    assert response.status_code == 200
    assert response.json()["valid"] is True


def test_unstorable_characters_are_refused_with_where():
    assert load_json('{"a": ["x", "\\ud83d\\ude00"]}') == {"a": ["x", "\U0001f600"]}
    for text, where in (
        ('{"a": ["x", "\\ud800"]}', "/a/1"),
        ('{"a": {"b": "x\\u0000y"}}', "/a/b"),
        ('{"a\\udc00": 1}', ""),
    ):
        with pytest.raises(Invalid) as refused:
            load_json(text)
        assert (refused.value.code, refused.value.pointer) == ("bad-character", where)


# --- deep JSON: every JSON endpoint and the import page ----------------------------------


def test_deep_json_is_400_on_every_json_endpoint(world, api):
    operations = api_operations(api)
    assert len(operations) >= 15  # the walk really covers the API
    for method, path in operations:
        before = snapshot()
        response = getattr(api, method)(
            concrete(path, world), DEEP, content_type="application/json"
        )
        if response.status_code == 404:
            # The world has no such object (a level-up not yet earned): looked up first.
            assert response.json()["errors"][0]["code"] == "not-found", (method, path)
            continue
        assert response.status_code == 400, (method, path, response.status_code)
        assert response.json() == {
            "errors": [
                {
                    "pointer": "",
                    "code": "too-deep",
                    "message": f"The JSON nests deeper than {MAX_JSON_DEPTH} levels.",
                }
            ]
        }, (method, path)
        assert snapshot() == before, (method, path)


def test_deep_json_is_a_form_error_on_the_import_page(page):
    response = page.post("/forces/import/", {"text": DEEP})
    assert response.status_code == 400
    assert f"The JSON nests deeper than {MAX_JSON_DEPTH} levels." in response.content.decode()
    upload = io.BytesIO(nested(100).encode())
    upload.name = "deep.json"
    response = page.post("/forces/import/", {"file": upload})
    assert response.status_code == 400
    assert "nests deeper" in response.content.decode()


# --- lone surrogates in a roster document ----------------------------------------------

SURROGATE_NAME = (
    '{"format": "dbd-roster/1", "name": "Bad \\ud800 name", "resources": 50, "members": []}'
)
REFUSED_SURROGATE = {
    "errors": [
        {
            "pointer": "/name",
            "code": "bad-character",
            "message": "This text holds a NUL character or a lone UTF-16 surrogate, which "
            "cannot be stored.",
        }
    ]
}


def test_a_lone_surrogate_is_400_on_validate_post_put_patch(world, api):
    force_path = f"/api/v1/rosters/{world.values['force_id']}/"
    for method, path, body in (
        ("post", "/api/v1/rosters/validate/", SURROGATE_NAME),
        ("post", "/api/v1/rosters/", SURROGATE_NAME),
        ("put", force_path, SURROGATE_NAME),
        ("patch", force_path, '{"name": "Bad \\ud800 name"}'),
    ):
        before = snapshot()
        response = getattr(api, method)(path, body, content_type="application/json")
        assert (response.status_code, response.json()) == (400, REFUSED_SURROGATE), path
        assert snapshot() == before


def test_a_lone_surrogate_is_a_form_error_on_import(page):
    response = page.post("/forces/import/", {"text": SURROGATE_NAME})
    assert response.status_code == 400
    assert "lone UTF-16 surrogate" in response.content.decode()
    assert "(at /name)" in response.content.decode()
    assert not Force.objects.filter(name__startswith="Bad").exists()


def test_nul_in_a_json_document_is_400(api):
    body = SURROGATE_NAME.replace("\\ud800", "\\u0000")
    response = api.post("/api/v1/rosters/", body, content_type="application/json")
    assert (response.status_code, response.json()) == (400, REFUSED_SURROGATE)


# --- Unicode "digits" ------------------------------------------------------------------


def test_unicode_digits_in_limit_and_offset_are_400_on_every_list(world, api):
    schema = api.get("/api/schema/?format=json").json()
    lists = [  # paged by limit and offset (the events feed, by a cursor, has its own test)
        path
        for path, operations in schema["paths"].items()
        if any(p["name"] == "offset" for p in operations.get("get", {}).get("parameters", []))
    ]
    assert len(lists) >= 5
    for path in lists:
        for query in ("limit=²", "offset=①", "limit=١٢", "offset=" + "9" * 30):
            response = api.get(f"{concrete(path, world)}?{query}")
            assert response.status_code == 400, (path, query)
            name = query.partition("=")[0]
            assert [e["pointer"] for e in response.json()["errors"]] == [f"/{name}"]
        assert api.get(f"{concrete(path, world)}?limit=1&offset=0").status_code == 200, path


def test_unicode_digits_in_a_roll_or_pick_slot_are_400(world, api):
    base = f"/api/v1/rosters/{world.values['force_id']}/members/0"
    for path, body in (
        (f"{base}/rolls/", {"slot": "free_advancements/²"}),
        (f"{base}/picks/", {"slot": "free_advancements/①", "skill": "melee/dual-wield"}),
    ):
        rolls = SkillRoll.objects.count()
        response = api.post(path, body, format="json")
        assert response.status_code == 400, path
        assert SkillRoll.objects.count() == rolls


def test_unicode_digits_in_the_builder_index_are_refused(world, page):
    force_id, member_id = world.values["force_id"], world.values["member_id"]
    before = snapshot()
    for step, data in (
        ("equipment-remove", {"index": "①"}),
        ("free", {"slot": "²", "option": "2"}),
        ("free", {"slot": "0", "option": "²"}),
    ):
        response = page.post(f"/forces/{force_id}/members/{member_id}/{step}/", data)
        assert response.status_code < 500, step
    assert snapshot() == before


def test_unicode_digits_in_house_rule_thresholds_are_a_form_error(world, page):
    campaign_id = world.campaign_values["campaign_id"]
    response = page.post(f"/campaigns/{campaign_id}/house-rules/", {"level_thresholds": "0, ²"})
    assert response.status_code == 400
    assert "“²” is not a whole number of XP." in response.content.decode()


# --- NUL in the address or the query ---------------------------------------------------


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/forces/shared/%00/", 404),
        ("/campaigns/join/%00/", 404),
        ("/rules/?q=%00", 400),
        ("/rules/?q=a%00b", 400),
        ("/api/v1/rules/skills/?category=%00", 400),
        ("/api/v1/rules/spells/?school=%00", 400),
    ],
)
def test_nul_never_reaches_the_database(page, path, status):
    response = page.get(path)
    assert response.status_code == status


def test_nul_in_the_api_answers_in_its_error_shape(page):
    response = page.get("/api/v1/rules/skills/?category=%00")
    assert response.json() == {
        "errors": [
            {
                "pointer": "",
                "code": "bad-character",
                "message": "A query parameter holds a NUL character.",
            }
        ]
    }


def test_nul_in_a_form_field_is_400_and_changes_nothing(world, page):
    before = snapshot()
    response = page.post(
        f"/forces/{world.values['force_id']}/edit/", {"name": "a\x00b", "resources": "50"}
    )
    assert response.status_code == 400
    assert snapshot() == before


# --- huge integers on the import page ---------------------------------------------------


def test_an_integer_past_4300_digits_is_a_clear_form_error(page):
    forces = Force.objects.count()
    document = json.dumps(legal_force()).replace('"resources": 50', '"resources": 1' + "0" * 5000)
    response = page.post("/forces/import/", {"text": document})
    assert response.status_code == 400
    assert (
        f"A number here has 5001 digits; numbers have at most {MAX_NUMBER_DIGITS}."
        in response.content.decode()
    )
    assert Force.objects.count() == forces
