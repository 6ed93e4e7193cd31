"""The roster API's query counts do not grow with members, forces or rolls."""

import pytest
from rest_framework.test import APIClient

from roster import services
from tests.roster.builders import force, legal_force, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db
BASE = "/api/v1/rosters/"

# Per request: the session and its user (2), then the work itself.
# The force's version; the answer for that version is then kept (roster.api).
DETAIL_QUERIES = 2 + 1
# The first time a version is asked for: the force and its members too (no roll history).
FIRST_DETAIL_QUERIES = DETAIL_QUERIES + 2
LIST_QUERIES = 2 + 2  # the count, the page (member counts annotated)
ROLLS_QUERIES = 2 + 3 + 2  # the force as for the detail, the count, the page


@pytest.fixture
def api(owner):
    client = APIClient()
    client.force_login(owner)
    return client


def four(owner):
    return services.import_force(owner=owner, document=legal_force())


def seven(owner):
    """Six students and a mentor, each with a skill line rolled for."""
    members = [
        student(name, free_advancements=[{"line": 4}, {"line": 3}])
        for name in ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")
    ]
    members.append(student("Mo", role="mentor"))
    saved = services.import_force(owner=owner, document=force(*members, resources=500))
    for member in saved.members.filter(role="student"):
        services.roll_skill(
            force=member.force,
            member_id=member.pk,
            slot="free_advancements/0",
            actor=owner,
            rng=ScriptedDice(3),
        )
    return saved


@pytest.mark.parametrize("build", [four, seven])
def test_detail_queries_do_not_grow_with_members(api, owner, django_assert_num_queries, build):
    saved = build(owner)
    with django_assert_num_queries(FIRST_DETAIL_QUERIES):
        first = api.get(f"{BASE}{saved.pk}/")
    with django_assert_num_queries(DETAIL_QUERIES):
        again = api.get(f"{BASE}{saved.pk}/")
    assert first.status_code == again.status_code == 200
    assert len(first.json()["document"]["members"]) == saved.members.count()
    # The kept answer is the JSON as first rendered, byte for byte, with the same headers.
    assert again.content == first.content
    headers = ("Content-Type", "Vary", "Allow", "ETag", "Cache-Control")
    assert [again[h] for h in headers] == [first[h] for h in headers]
    assert first["Content-Type"] == "application/json"


def test_a_conditional_detail_reads_only_the_version(api, owner, django_assert_num_queries):
    saved = seven(owner)
    with django_assert_num_queries(DETAIL_QUERIES):
        response = api.get(f"{BASE}{saved.pk}/", HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 304


@pytest.mark.parametrize("forces", [1, 5])
def test_list_queries_do_not_grow_with_forces(api, owner, django_assert_num_queries, forces):
    for _ in range(forces - 1):
        four(owner)
    seven(owner)
    with django_assert_num_queries(LIST_QUERIES):
        response = api.get(BASE)
    assert response.status_code == 200
    counts = [f["member_count"] for f in response.json()["results"]]
    assert counts == [7] + [4] * (forces - 1)


@pytest.mark.parametrize("rolls", [1, 6])
def test_roll_history_queries_do_not_grow_with_rolls(api, owner, django_assert_num_queries, rolls):
    saved = seven(owner)
    for member in saved.members.filter(role="student")[rolls:]:
        member.rolls.all().delete()
    with django_assert_num_queries(ROLLS_QUERIES):
        response = api.get(f"{BASE}{saved.pk}/rolls/")
    assert response.json()["count"] == rolls
    assert {r["rolled_by"] for r in response.json()["results"]} == {"owner"}
