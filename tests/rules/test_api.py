"""The read-only rules catalogue API under /api/v1/rules/ and its OpenAPI description."""

import pytest
from django.urls import reverse

from rules.models import Equipment, Skill, SkillCategory, Society, Spell, SpellSchool

pytestmark = pytest.mark.django_db

BASE = "/api/v1/rules/"

# resource path, model, one known lookup value
RESOURCES = [
    ("societies", Society, "academic"),
    ("skill-categories", SkillCategory, "melee"),
    ("skills", Skill, "melee/dual-wield"),
    ("equipment", Equipment, "light-machine-gun"),
    ("spell-schools", SpellSchool, "restoration"),
    ("spells", Spell, "healing-spring"),
]
RESOURCE_IDS = [r[0] for r in RESOURCES]


def test_root_lists_every_endpoint(client):
    assert reverse("rules-api-root") == BASE
    response = client.get(BASE)
    assert response.status_code == 200
    links = response.json()
    assert set(links) == {
        "version",
        "edition",
        "societies",
        "skill_categories",
        "skills",
        "equipment",
        "spell_schools",
        "spells",
    }
    for key, url in links.items():
        if key not in ("version", "edition"):
            assert client.get(url).status_code == 200


def test_project_api_root_links_here(client):
    assert client.get("/api/v1/").json()["rules"].endswith(BASE)


@pytest.mark.parametrize(("path", "model", "key"), RESOURCES, ids=RESOURCE_IDS)
def test_list_is_unpaginated_and_complete(client, path, model, key):
    response = client.get(f"{BASE}{path}/")
    assert response.status_code == 200
    data = response.json()
    assert isinstance(data, list)
    assert len(data) == model.objects.count()
    assert key in {item.get("slug") if path != "skills" else item["key"] for item in data}


@pytest.mark.parametrize(("path", "model", "key"), RESOURCES, ids=RESOURCE_IDS)
def test_detail_by_slug(client, path, model, key):
    response = client.get(f"{BASE}{path}/{key}/")
    assert response.status_code == 200
    data = response.json()
    assert data["name"] == model.objects.get(pk=key).name


@pytest.mark.parametrize(("path", "model", "key"), RESOURCES, ids=RESOURCE_IDS)
def test_unknown_slug_is_a_404_in_the_error_shape(client, path, model, key):
    missing = "melee/no-such-skill" if path == "skills" else "no-such-thing"
    response = client.get(f"{BASE}{path}/{missing}/")
    assert response.status_code == 404
    body = response.json()
    assert set(body) == {"errors"}
    [error] = body["errors"]
    assert error["code"] == "not-found"
    assert error["pointer"] == ""
    assert missing in error["message"]


@pytest.mark.parametrize(("path", "model", "key"), RESOURCES, ids=RESOURCE_IDS)
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_writes_are_rejected(client, path, model, key, method):
    for url in (f"{BASE}{path}/", f"{BASE}{path}/{key}/"):
        response = getattr(client, method)(url, data={}, content_type="application/json")
        assert response.status_code == 405, url
        assert response.json()["errors"][0]["code"] == "method-not-allowed"
    assert model.objects.filter(pk=key).exists()


def test_root_rejects_writes(client):
    assert client.post(BASE).status_code == 405


def test_skills_sharing_a_name_have_distinct_keys(client):
    melee = client.get(f"{BASE}skills/melee/dual-wield/").json()
    ranged = client.get(f"{BASE}skills/ranged/dual-wield/").json()
    assert melee["name"] == ranged["name"] == "Dual Wield"
    assert (melee["category"], ranged["category"]) == ("melee", "ranged")
    assert melee["key"] == "melee/dual-wield"
    assert set(melee) >= {"slug", "roll_min", "roll_max", "roll_label", "summary", "excludes"}


def test_skill_details(client):
    slot = client.get(f"{BASE}skills/spellcasting/additional-spell-slot/").json()
    assert slot["roll_label"] == "7-10"
    assert slot["repeatable"] is True
    determination = client.get(f"{BASE}skills/movement/determination/").json()
    assert "support/extreme-determination" in determination["excludes"]


def test_society_has_its_six_lines(client):
    data = client.get(f"{BASE}societies/sporting/").json()
    assert [line["number"] for line in data["lines"]] == [1, 2, 3, 4, 5, 6]
    assert data["choice_options"] == ["ME", "RA"]
    hp_or_df = data["lines"][1]
    assert hp_or_df["kind"] == "statistic"
    assert {o["statistic"] for o in hp_or_df["options"]} == {"HP", "DF"}
    assert data["lines"][3]["skill_category"] == "melee"


def test_equipment_fields(client):
    lmg = client.get(f"{BASE}equipment/light-machine-gun/").json()
    assert lmg["kind"] == "ranged"
    assert lmg["hands"] == 2
    assert lmg["cost"] == "2xRA"
    assert lmg["cost_formula"] == {"multiplier": 2.0, "statistic": "RA", "constant": 0}
    assert lmg["range_inches"] == 15
    assert lmg["fire_modes"] == [{"rof": 2, "accuracy": 0}, {"rof": 3, "accuracy": -1}]
    armour = client.get(f"{BASE}equipment/light-armour/").json()
    assert armour["cost_formula"] == {"multiplier": 1.0, "statistic": "DF", "constant": -5}
    goggles = client.get(f"{BASE}equipment/vision-goggles/").json()
    assert goggles["cost_formula"]["statistic"] is None
    shield = client.get(f"{BASE}equipment/heavy-shield/").json()
    assert (shield["df_bonus_melee"], shield["df_bonus_ranged"]) == (2, 1)


def test_spell_has_outcomes_and_the_forbidden_spell_no_school(client):
    spring = client.get(f"{BASE}spells/healing-spring/").json()
    assert spring["school"] == "restoration"
    assert spring["difficulty"] == 7
    assert spring["range_label"] == '5"'
    assert [o["successes_label"] for o in spring["outcomes"]] == ["1-2", "3+"]
    slayer = client.get(f"{BASE}spells/dragon-slayer/").json()
    assert slayer["school"] is None
    assert slayer["forbidden"] is True
    assert slayer["required_skill"] == "spellcasting/dragon-slayer"


@pytest.mark.parametrize(
    ("path", "param", "value", "field"),
    [
        ("skills", "category", "melee", "category"),
        ("spells", "school", "restoration", "school"),
        ("equipment", "kind", "ranged", "kind"),
    ],
)
def test_filters(client, path, param, value, field):
    everything = client.get(f"{BASE}{path}/").json()
    filtered = client.get(f"{BASE}{path}/", {param: value}).json()
    assert filtered
    assert all(item[field] == value for item in filtered)
    assert len(filtered) == sum(1 for item in everything if item[field] == value)
    unknown = client.get(f"{BASE}{path}/", {param: "nothing-like-this"})
    if path == "equipment":  # `kind` is an enum in the schema: anything else is refused
        assert unknown.status_code == 400
        assert unknown.json()["errors"][0]["pointer"] == "/kind"
    else:  # free-text slugs: an unknown one simply matches nothing
        assert unknown.json() == []


def test_list_query_counts_are_fixed(client, django_assert_max_num_queries):
    for path in RESOURCE_IDS:
        with django_assert_max_num_queries(3):
            client.get(f"{BASE}{path}/")


# --- OpenAPI --------------------------------------------------------------------------------


def test_schema_includes_the_rules_paths(client):
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in [
        "/api/v1/rules/",
        "/api/v1/rules/societies/",
        "/api/v1/rules/societies/{slug}/",
        "/api/v1/rules/skill-categories/{slug}/",
        "/api/v1/rules/skills/",
        "/api/v1/rules/skills/{key}/",
        "/api/v1/rules/equipment/{slug}/",
        "/api/v1/rules/spell-schools/{slug}/",
        "/api/v1/rules/spells/",
        "/api/v1/rules/spells/{slug}/",
    ]:
        assert path in paths, path
        assert set(paths[path]) == {"get"}, path
    params = {p["name"] for p in paths["/api/v1/rules/skills/"]["get"]["parameters"]}
    assert "category" in params


def test_api_docs_are_served_without_a_cdn(client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode().lower()
    assert "swagger" in page
    for host in ["cdn", "jsdelivr", "unpkg"]:
        assert host not in page
