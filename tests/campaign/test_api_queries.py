"""The campaign API's reads run a fixed number of queries, for 1 battle or 200."""

import pytest
from rest_framework.test import APIClient

from campaign import services
from tests.campaign.conftest import freeform_force, make_user
from tests.campaign.test_selectors import bulk_battles

pytestmark = pytest.mark.django_db
BASE = "/api/v1/campaigns/"

# Per request: the session and its user (2), the campaign (1), then the work itself.
REQUEST = 2 + 1
QUERIES = {
    "standings/": REQUEST + 1,  # the forces with their tallies
    "battles/": REQUEST + 4,  # the count, the page, its forces, their members' results
    "battles/?status=pending": REQUEST + 4,
    "battles/?status=confirmed&limit=200": REQUEST + 4,
    "forces/": REQUEST + 3,  # the count, the page (balances are tallies), the members
    "level-ups/": REQUEST + 1,
    "log/": REQUEST + 2,  # the count, the page
    "": REQUEST + 1,  # the detail: its players
}


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_login(alice)
    return client


@pytest.mark.parametrize("battles", [1, 200])
@pytest.mark.parametrize("path", sorted(QUERIES))
def test_reads_do_not_grow_with_battles(
    api, campaign, alice, bob, red, blue, django_assert_num_queries, path, battles
):
    bulk_battles(campaign, red, blue, alice, battles)
    url = f"{BASE}{campaign.pk}/{path}"
    with django_assert_num_queries(QUERIES[path]):
        response = api.get(url)
    assert response.status_code == 200
    body = response.json()
    if path == "standings/":
        assert sum(row["played"] for row in body) == 2 * battles
    if path.startswith("battles/"):
        expected = {"battles/": 2 * battles}.get(path, battles)
        assert body["count"] == expected
        assert all(len(b["forces"]) == 2 for b in body["results"])
        assert all(len(f["members"]) == 4 for b in body["results"] for f in b["forces"])


@pytest.mark.parametrize("forces", [2, 6])
def test_the_forces_list_does_not_grow_with_forces(
    api, campaign, red, blue, django_assert_num_queries, forces
):
    for i in range(forces - 2):
        player = make_user(f"player{i}")
        services.join_campaign(user=player, token=campaign.invite_token)
        services.enter_force(
            campaign=campaign, player=player, force=freeform_force(player, f"Club {i}")
        )
    with django_assert_num_queries(QUERIES["forces/"]):
        response = api.get(f"{BASE}{campaign.pk}/forces/")
    assert [len(f["members"]) for f in response.json()["results"]] == [4] * forces
    assert {f["balance"] for f in response.json()["results"]} == {45}


@pytest.mark.parametrize("entries", [1, 30])
def test_the_ledger_does_not_grow_with_entries(
    api, campaign, organiser, red, django_assert_num_queries, entries
):
    for i in range(entries):
        services.adjust_resources(campaign_force=red, amount=1, reason=f"Prize {i}", by=organiser)
    with django_assert_num_queries(REQUEST + 1 + 2):  # the force, the count, the page
        response = api.get(f"{BASE}{campaign.pk}/forces/{red.pk}/ledger/?limit=100")
    results = response.json()["results"]
    assert [e["running_balance"] for e in results][-1] == 45 + entries
