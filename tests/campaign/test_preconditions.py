"""ETags on every write answer and `If-Match` compared strongly, on forces and on the
campaign objects that can race: house rules and a pending battle's confirmation (issue
#32; docs/api.md, "Preconditions")."""

import pytest

from campaign.models import Battle
from tests.campaign.conftest import ann_takes_an_enemy_out, freeform_force, member, record
from tests.roster.builders import legal_force, signed_in
from tests.roster.test_rolls import ScriptedDice

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


# --- campaign forces, their ledger entries and level-ups ----------------------------------------


def strong(etag: str) -> bool:
    return etag.startswith('"') and etag.endswith('"')


def test_entering_and_retiring_answer_the_campaign_forces_tag(campaign, alice):
    api = signed_in(alice)
    force = freeform_force(alice, "Red Club")
    entered = api.post(
        f"/api/v1/campaigns/{campaign.pk}/forces/", {"force": force.pk}, format="json"
    )
    url = entered["Location"]
    assert (entered.status_code, strong(entered["ETag"])) == (201, True)
    assert entered["ETag"] == api.get(url)["ETag"]
    retired = api.post(f"{url}retire/")
    assert retired.status_code == 200
    assert retired["ETag"] not in (entered["ETag"], None)
    assert retired["ETag"] == api.get(url)["ETag"]


def test_a_ledger_entry_answers_its_own_tag_and_moves_its_forces(campaign, organiser, alice, red):
    url = f"/api/v1/campaigns/{campaign.pk}/forces/{red.pk}/"
    before = signed_in(alice).get(url)["ETag"]
    spent = signed_in(alice).post(
        f"{url}spends/", {"amount": 1, "reason": "Hired help"}, format="json"
    )
    prize = {"amount": 2, "reason": "Best painted"}
    adjusted = signed_in(organiser).post(f"{url}adjustments/", prize, format="json")
    assert (spent.status_code, adjusted.status_code) == (201, 201)
    assert strong(spent["ETag"])
    assert strong(adjusted["ETag"])
    assert spent["ETag"] != adjusted["ETag"]  # two entries, two tags
    assert signed_in(alice).get(url)["ETag"] not in (before, spent["ETag"], adjusted["ETag"])


def test_a_level_up_answers_its_rosters_tag_for_if_match_there(
    monkeypatch, campaign, alice, bob, red, blue
):
    ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    monkeypatch.setattr("rules.dice.server_dice", lambda: ScriptedDice(12, 10))
    api = signed_in(alice)
    level_ups = f"/api/v1/campaigns/{campaign.pk}/forces/{red.pk}/members/"
    level_ups += f"{member(red, 'Ann').pk}/level-ups/"
    roster = f"/api/v1/rosters/{red.force_id}/"
    taken = api.post(level_ups, {"line": 4}, format="json")  # a natural 12: roll again
    assert (taken.status_code, taken["ETag"]) == (201, api.get(roster)["ETag"])
    rolled = api.post(f"{level_ups}0/rolls/", {"action": "roll", "table": "melee"}, format="json")
    assert (rolled.status_code, rolled["ETag"]) == (201, api.get(roster)["ETag"])
    assert rolled["ETag"] != taken["ETag"]
    renamed = api.patch(roster, {"name": "Red Again"}, format="json", HTTP_IF_MATCH=rolled["ETag"])
    assert renamed.status_code == 200, renamed.content
    stale = api.patch(roster, {"name": "Nope"}, format="json", HTTP_IF_MATCH=taken["ETag"])
    assert (stale.status_code, codes(stale)) == (412, ["precondition-failed"])
