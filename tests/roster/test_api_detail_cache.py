"""GET /api/v1/rosters/<id>/ keeps its answer per version of the force and offers an ETag.

Every write, whichever way it comes (the API, the builder's services, a roll, a share
link, a campaign battle), shows in the very next answer, and an `If-None-Match` with the
last tag gets 304 only while nothing changed.
"""

import pytest

from campaign import services as campaign_services
from roster import member_rows, selectors, services
from roster.models import Force
from tests.campaign.conftest import freeform_force, make_user, record
from tests.roster.builders import legal_force, signed_in, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db
BASE = "/api/v1/rosters/"


@pytest.fixture
def saved(owner) -> Force:
    """A legal force whose second member (Ann) has a skill line to roll for."""
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    return services.import_force(owner=owner, document=document)


def detail(client, force: Force, **headers):
    return client.get(f"{BASE}{force.pk}/", **headers)


def member(force: Force, index: int):
    return selectors.get_force(user=force.owner, force_id=force.pk).members.all()[index]


# --- (a) no stale answers ------------------------------------------------------------------


def test_a_put_shows_at_once(owner_api, saved):
    before = detail(owner_api, saved)
    document = before.json()["document"]
    document["members"].append(student("Zoe", equipment=["medical-kit"]))
    assert owner_api.put(f"{BASE}{saved.pk}/", document, format="json").status_code == 200
    after = detail(owner_api, saved).json()
    assert [m["name"] for m in after["document"]["members"]][-1] == "Zoe"
    assert len(after["evaluation"]["members"]) == len(document["members"])
    assert after["evaluation"]["total_cost"] != before.json()["evaluation"]["total_cost"]


def test_a_patch_shows_at_once(owner_api, saved):
    detail(owner_api, saved)
    body = {"name": "Renamed", "resources": 77}
    assert owner_api.patch(f"{BASE}{saved.pk}/", body, format="json").status_code == 200
    after = detail(owner_api, saved).json()
    assert (after["document"]["name"], after["document"]["resources"]) == ("Renamed", 77)
    assert after["evaluation"]["resources"] == 77


def test_a_builder_change_through_the_services_shows_at_once(owner_api, saved):
    before = detail(owner_api, saved).json()
    ann = member(saved, 1)
    data = member_rows.member_json(ann)
    data["equipment"] = [*data["equipment"], "medical-kit"]
    services.update_member(force=ann.force, actor=None, member_id=ann.pk, data=data)
    after = detail(owner_api, saved).json()
    assert after["document"]["members"][1]["equipment"][-1] == "medical-kit"
    assert after["evaluation"]["total_cost"] > before["evaluation"]["total_cost"]
    assert after["updated_at"] > before["updated_at"]


def test_a_members_roll_shows_at_once(owner_api, saved, monkeypatch):
    monkeypatch.setattr("rules.dice.server_dice", lambda: ScriptedDice(3))
    before = detail(owner_api, saved).json()
    rolled = owner_api.post(
        f"{BASE}{saved.pk}/members/1/rolls/", {"slot": "free_advancements/0"}, format="json"
    )
    assert rolled.status_code == 201
    after = detail(owner_api, saved).json()
    advancement = after["document"]["members"][1]["free_advancements"][0]
    assert advancement == rolled.json()["advancement"]
    assert advancement["method"] == "rolled"
    assert after["evaluation"] != before["evaluation"]


def test_a_removed_member_and_a_share_link_show_at_once(owner_api, saved):
    detail(owner_api, saved)
    services.remove_member(
        force=(member(saved, 1)).force, actor=None, member_id=(member(saved, 1)).pk
    )
    services.set_share_link(force=Force.objects.get(pk=saved.pk), actor=None, enabled=True)
    after = detail(owner_api, saved).json()
    assert "Ann" not in [m["name"] for m in after["document"]["members"]]
    token = Force.objects.get(pk=saved.pk).share_token
    assert after["share_url"] == f"http://testserver/forces/shared/{token}/"


def test_a_confirmed_battle_shows_at_once_in_the_campaign_copy():
    """Confirming writes members' XP with .update(); the Resources sync moves the version."""
    organiser, alice, bob = make_user("olga"), make_user("alice"), make_user("bob")
    campaign = campaign_services.create_campaign(organiser=organiser, name="League")
    for player in (alice, bob):
        campaign_services.join_campaign(user=player, token=campaign.invite_token)
    red = campaign_services.enter_force(
        campaign=campaign, player=alice, force=freeform_force(alice, "Red")
    )
    blue = campaign_services.enter_force(
        campaign=campaign, player=bob, force=freeform_force(bob, "Blue")
    )
    alice_api = signed_in(alice)
    before = detail(alice_api, red.force).json()
    battle = record(campaign, alice, red, blue, winner="red")
    campaign_services.confirm_battle(battle=battle, by=bob)
    after = detail(alice_api, red.force).json()
    assert {m["xp"] for m in before["document"]["members"]} == {0}
    assert all(m["xp"] > 0 for m in after["document"]["members"])
    assert after["document"]["resources"] > before["document"]["resources"]
    assert after["evaluation"] == Force.objects.get(pk=red.force_id).evaluation


def test_each_host_gets_its_own_links(owner_api, saved):
    here = detail(owner_api, saved).json()
    there = detail(owner_api, saved, SERVER_NAME="localhost").json()
    assert here["url"] == f"http://testserver{BASE}{saved.pk}/"
    assert there["url"] == f"http://localhost{BASE}{saved.pk}/"


# --- (b) conditional GET -------------------------------------------------------------------


def test_the_detail_carries_a_strong_etag_and_is_revalidated(owner_api, saved):
    response = detail(owner_api, saved)
    assert response["ETag"].startswith('"')
    assert set(response["Cache-Control"].split(", ")) == {"private", "no-cache"}
    assert detail(owner_api, saved)["ETag"] == response["ETag"]


@pytest.mark.parametrize("sent", ["{etag}", "{bare}", '"other", {etag}', "*"])
def test_an_unchanged_force_answers_304(owner_api, saved, sent):
    etag = detail(owner_api, saved)["ETag"]
    header = sent.format(etag=etag, bare=etag.removeprefix("W/"))
    response = detail(owner_api, saved, HTTP_IF_NONE_MATCH=header)
    assert response.status_code == 304
    assert response.content == b""
    assert response["ETag"] == etag
    assert set(response["Cache-Control"].split(", ")) == {"private", "no-cache"}


def test_a_changed_force_answers_200_with_a_new_etag(owner_api, saved):
    etag = detail(owner_api, saved)["ETag"]
    services.update_force_details(
        force=Force.objects.get(pk=saved.pk),
        actor=None,
        name="Changed",
        resources=saved.resources,
    )
    response = detail(owner_api, saved, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["document"]["name"] == "Changed"
    assert response["ETag"] != etag
    assert detail(owner_api, saved, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


def test_a_stale_or_foreign_etag_answers_200(owner_api, saved):
    response = detail(owner_api, saved, HTTP_IF_NONE_MATCH='W/"not-this-one", garbage')
    assert response.status_code == 200
    assert response.json()["id"] == saved.pk


def test_other_peoples_forces_stay_404_whatever_is_sent(owner_api, saved):
    stranger = signed_in(make_user("stranger"))
    etag = detail(owner_api, saved)["ETag"]
    for sent in (etag, "*"):
        response = detail(stranger, saved, HTTP_IF_NONE_MATCH=sent)
        assert response.status_code == 404
        assert "ETag" not in response
