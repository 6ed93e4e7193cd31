"""ETags on every write answer and `If-Match` compared strongly, on forces and on the
campaign objects that can race: house rules and a pending battle's confirmation (issue
#32; docs/api.md, "Preconditions")."""

import pytest

from campaign.models import Battle
from tests.campaign.conftest import record
from tests.roster.builders import legal_force, signed_in

pytestmark = pytest.mark.django_db


def codes(response) -> list[str]:
    return [e["code"] for e in response.json()["errors"]]


# --- forces -------------------------------------------------------------------------------


def test_every_force_write_answers_its_new_etag_for_the_next(alice):
    api = signed_in(alice)
    created = api.post("/api/v1/rosters/", legal_force(), format="json")
    url = created["Location"]
    assert created["ETag"] == api.get(url)["ETag"]
    renamed = api.patch(url, {"name": "Renamed"}, format="json", HTTP_IF_MATCH=created["ETag"])
    assert renamed.status_code == 200
    assert renamed["ETag"] not in (created["ETag"], None)
    assert renamed["ETag"] == api.get(url)["ETag"]
    again = api.patch(url, {"name": "Again"}, format="json", HTTP_IF_MATCH=renamed["ETag"])
    assert again.status_code == 200  # no read between the writes


def test_a_weak_or_stale_tag_is_refused_and_changes_nothing(alice):
    api = signed_in(alice)
    created = api.post("/api/v1/rosters/", legal_force(), format="json")
    url, etag = created["Location"], created["ETag"]
    for sent in ("W/" + etag, '"0.abc"', "garbage"):
        refused = api.patch(url, {"name": "Nope"}, format="json", HTTP_IF_MATCH=sent)
        assert (refused.status_code, codes(refused)) == (412, ["precondition-failed"]), sent
    assert api.get(url).json()["document"]["name"] == legal_force()["name"]
    assert api.patch(url, {"name": "Yes"}, format="json", HTTP_IF_MATCH=etag).status_code == 200


# --- house rules ----------------------------------------------------------------------------


def test_house_rules_change_only_as_the_organiser_saw_them(campaign, organiser):
    api = signed_in(organiser)
    url = f"/api/v1/campaigns/{campaign.pk}/"
    seen = api.get(url)["ETag"]
    assert seen.startswith('"')
    changed = api.patch(url, {"resources_for_win": 12}, format="json", HTTP_IF_MATCH=seen)
    assert changed.status_code == 200
    assert changed["ETag"] not in (seen, None)
    assert changed["ETag"] == api.get(url)["ETag"]
    stale = api.patch(url, {"resources_for_win": 20}, format="json", HTTP_IF_MATCH=seen)
    assert (stale.status_code, codes(stale)) == (412, ["precondition-failed"])
    weak = api.patch(
        url, {"resources_for_win": 20}, format="json", HTTP_IF_MATCH="W/" + changed["ETag"]
    )
    assert weak.status_code == 412
    assert api.get(url).json()["house_rules"]["resources_for_win"] == 12
    anyway = api.patch(url, {"resources_for_win": 20}, format="json")  # no header: as always
    assert anyway.status_code == 200


# --- a pending battle's confirmation -------------------------------------------------------------


def test_a_battle_is_confirmed_only_as_the_confirmer_saw_it(
    campaign, organiser, alice, bob, red, blue
):
    battle = record(campaign, alice, red, blue)
    url = f"/api/v1/campaigns/{campaign.pk}/battles/{battle.pk}/"
    seen = signed_in(bob).get(url)["ETag"]
    # The organiser changes what the battle would give before Bob confirms (R14c).
    signed_in(organiser).patch(
        f"/api/v1/campaigns/{campaign.pk}/", {"xp_for_taking_part": 3}, format="json"
    )
    stale = signed_in(bob).post(f"{url}confirm/", HTTP_IF_MATCH=seen)
    assert (stale.status_code, codes(stale)) == (412, ["precondition-failed"])
    assert Battle.objects.get(pk=battle.pk).status == Battle.Status.PENDING
    fresh = signed_in(bob).get(url)["ETag"]
    assert fresh != seen
    confirmed = signed_in(bob).post(f"{url}confirm/", HTTP_IF_MATCH=fresh)
    assert confirmed.status_code == 200
    assert confirmed["ETag"] not in (fresh, None)
    void = signed_in(organiser).post(
        f"{url}void/", {"reason": "Wrong scenario"}, format="json", HTTP_IF_MATCH=fresh
    )
    assert void.status_code == 412  # confirmed since: not the battle that was seen
    assert Battle.objects.get(pk=battle.pk).status == Battle.Status.CONFIRMED
