from collections import defaultdict
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.core.management import call_command

from rules import catalogue as c
from rules.catalogue import Catalogue
from rules.loader import clear_catalogue_cache, get_catalogue

RULES_FIXTURE = Path(__file__).resolve().parent.parent / "rules" / "fixtures" / "rules.yaml"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Every test database starts with the rules catalogue loaded, as `make run` does."""
    with django_db_blocker.unblock():
        call_command("loaddata", "rules", verbosity=0)
        clear_catalogue_cache()


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    """The rules catalogue the engine reads, without a database: the pure modules' tests
    need none. `tests/rules/test_catalogue.py` holds it equal to what `get_catalogue`
    builds from the tables the same fixture file fills."""
    return catalogue_from_fixture()


def catalogue_from_fixture(path: Path = RULES_FIXTURE) -> Catalogue:
    """`rules.loader.build_catalogue`, read from the fixture file instead of the tables
    it loads into (each table in its model's order)."""
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in yaml.safe_load(path.read_text()):
        rows[row["model"].removeprefix("rules.")].append({"pk": row["pk"], **row["fields"]})
    for table in rows.values():
        table.sort(key=lambda r: r.get("order", 0))

    def options(raw: list[dict[str, Any]]) -> tuple[c.StatisticOption, ...]:
        return tuple(c.StatisticOption(o["statistic"], int(o["amount"])) for o in raw)

    lines: dict[str, dict[int, c.AdvancementLine]] = defaultdict(dict)
    for line in sorted(rows["advancementline"], key=lambda r: (r["society"], r["number"])):
        lines[line["society"]][line["number"]] = c.AdvancementLine(
            number=line["number"],
            label=line["label"],
            kind=line["kind"],
            options=options(line.get("options", [])),
            skill_category=line.get("skill_category"),
        )
    category_order = [cat["pk"] for cat in rows["skillcategory"]]
    excludes: dict[str, set[str]] = defaultdict(set)  # a symmetrical many-to-many
    for s in rows["skill"]:
        for other in s.get("excludes", []):
            excludes[s["pk"]].add(other)
            excludes[other].add(s["pk"])
    skills = {
        s["pk"]: c.Skill(
            key=s["pk"],
            category=s["category"],
            slug=s["slug"],
            name=s["name"],
            roll_min=s["roll_min"],
            roll_max=s["roll_max"],
            summary=s["summary"],
            repeatable=s.get("repeatable", False),
            excludes=frozenset(excludes[s["pk"]]),
        )
        for s in sorted(
            rows["skill"], key=lambda s: (category_order.index(s["category"]), s["roll_min"])
        )
    }
    outcomes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for o in sorted(rows["spelloutcome"], key=lambda o: o["min_successes"]):
        outcomes[o["spell"]].append(o)
    built = c.Catalogue(
        rules_version=rows["rulesversion"][0]["pk"],
        content_version="",
        societies=MappingProxyType(
            {
                s["pk"]: c.Society(
                    slug=s["pk"],
                    name=s["name"],
                    choice_options=tuple(s["choice_options"]),
                    modifiers=options(s["modifiers"]),
                    lines=MappingProxyType(lines[s["pk"]]),
                    skill_categories=frozenset(
                        line.skill_category
                        for line in lines[s["pk"]].values()
                        if line.skill_category
                    ),
                )
                for s in rows["society"]
            }
        ),
        skill_categories=MappingProxyType(
            {
                cat["pk"]: c.SkillCategory(
                    slug=cat["pk"],
                    name=cat["name"],
                    table_size=cat["table_size"],
                    cost_statistics=tuple(cat["cost_statistics"]),
                    skills=tuple(s for s in skills.values() if s.category == cat["pk"]),
                )
                for cat in rows["skillcategory"]
            }
        ),
        skills=MappingProxyType(skills),
        equipment=MappingProxyType(
            {
                e["pk"]: c.Equipment(
                    slug=e["pk"],
                    name=e["name"],
                    kind=e["kind"],
                    hands=e["hands"],
                    cost_multiplier=Fraction(str(e["cost_multiplier"])),
                    cost_statistic=e.get("cost_statistic") or None,
                    cost_constant=e.get("cost_constant", 0),
                    cost_label=e["cost_label"],
                    range_inches=e.get("range_inches"),
                    fire_modes=tuple(
                        c.FireMode(m["rof"], m["accuracy"]) for m in e.get("fire_modes", [])
                    ),
                    blast=e.get("blast"),
                    to_hit=e.get("to_hit", 0),
                    df_bonus_melee=e.get("df_bonus_melee", 0),
                    df_bonus_ranged=e.get("df_bonus_ranged", 0),
                    summary=e["summary"],
                )
                for e in rows["equipment"]
            }
        ),
        spell_schools=MappingProxyType({s["pk"]: s["name"] for s in rows["spellschool"]}),
        spells=MappingProxyType(
            {
                sp["pk"]: c.Spell(
                    slug=sp["pk"],
                    name=sp["name"],
                    school=sp.get("school"),
                    difficulty=sp.get("difficulty"),
                    difficulty_label=sp["difficulty_label"],
                    range_kind=sp["range_kind"],
                    range_inches=sp.get("range_inches"),
                    forbidden=sp.get("forbidden", False),
                    required_skill=sp.get("required_skill"),
                    summary=sp.get("summary", ""),
                    outcomes=tuple(
                        c.SpellOutcome(
                            o["successes_label"],
                            o["min_successes"],
                            o.get("max_successes"),
                            o["effect"],
                        )
                        for o in outcomes[sp["pk"]]
                    ),
                )
                for sp in rows["spell"]
            }
        ),
    )
    return replace(built, content_version=c.content_digest(built))


def throttle_rates(*, anon: str = "100000/minute", user: str = "100000/minute"):
    """The API's rates for a test (`override_settings`, as a decorator or a `with`)."""
    from django.conf import settings
    from django.test import override_settings

    rates = {"anon": anon, "user": user}
    return override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    )


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache (cached page fragments, throttle counters)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


# --- the people of the campaign and play tests -------------------------------------------


def make_user(username: str):
    return get_user_model().objects.create_user(username, password=f"pw-{username}-1234")


@pytest.fixture
def organiser():
    return make_user("olga")


@pytest.fixture
def alice():
    return make_user("alice")


@pytest.fixture
def bob():
    return make_user("bob")


@pytest.fixture
def eve():
    return make_user("eve")


@pytest.fixture
def alice_api(alice):
    """An API client with Alice's session."""
    from tests.roster.builders import signed_in

    return signed_in(alice)


@pytest.fixture
def bob_api(bob):
    from tests.roster.builders import signed_in

    return signed_in(bob)


@pytest.fixture
def campaign(organiser, alice, bob):
    """Spring League: Olga organises, Alice and Bob have joined (no forces entered yet)."""
    from campaign import services

    made = services.create_campaign(organiser=organiser, name="Spring League")
    services.join_campaign(user=alice, token=made.invite_token)
    services.join_campaign(user=bob, token=made.invite_token)
    return made


@pytest.fixture
def rules_change(db):
    """Changes the rules in the database as a new fixture would, and makes this process
    read them (`rules.loader.get_catalogue`). Call it with any of:

    - `edition`: a new edition's name (the `RulesVersion`), e.g. "dbd-core-2";
    - `equipment` and `cost_constant`: a piece of equipment's new constant cost (R7).

    The database changes roll back with the test; the catalogue is read again after it.
    """
    from rules.models import Equipment, RulesVersion

    def change(
        *, edition: str | None = None, equipment: str | None = None, cost_constant: int = 0
    ) -> Catalogue:
        if edition is not None:
            RulesVersion.objects.update(code=edition)
        if equipment is not None:
            Equipment.objects.filter(slug=equipment).update(cost_constant=cost_constant)
        clear_catalogue_cache()
        return get_catalogue()

    clear_catalogue_cache()
    yield change
    clear_catalogue_cache()


@pytest.fixture(autouse=True)
def _api_answers_hold_their_schema(monkeypatch):
    """Every answer a test receives from /api/v1/ is checked against the published schema
    under strict JSON Schema 2020-12 (`tests/api_schema.py`, issue #32)."""
    from django.test import Client

    from tests.api_schema import check_answer

    request = Client.request

    def checked(self, **kwargs):
        response = request(self, **kwargs)
        check_answer(response)
        return response

    monkeypatch.setattr(Client, "request", checked)
