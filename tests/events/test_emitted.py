"""Each kind of event, emitted by the real service call that causes it (through the
write path), to the right people and no one else: Eve, a stranger to the campaign and
to everyone's forces, receives none of their events."""

import pytest

from campaign import services
from events import kinds
from events.models import Event
from play import services as play_services
from roster import services as roster_services
from tests.campaign.conftest import ann_takes_an_enemy_out, freeform_force, record
from tests.events.conftest import events_since, last_event_id
from tests.play.conftest import play_force

pytestmark = pytest.mark.django_db


@pytest.fixture
def strangers_force(eve):
    """Eve plays too, on her own: her force makes events for her alone."""
    return freeform_force(eve, "Eve's Own")


def test_joining_through_the_invitation_tells_the_player_and_the_organiser(
    organiser, alice, strangers_force
):
    campaign = services.create_campaign(organiser=organiser, name="Autumn Cup")
    mark = last_event_id()
    services.join_campaign(user=alice, token=campaign.invite_token)
    assert events_since(mark) == [
        ("alice", kinds.INVITED, campaign.pk, None, None),
        ("olga", kinds.INVITED, campaign.pk, None, None),
    ]
    assert Event.objects.get(user=alice, kind=kinds.INVITED).data == {
        "to": "campaign",
        "campaign_name": "Autumn Cup",
        "player": "alice",
    }
    services.join_campaign(user=alice, token=campaign.invite_token)  # again: nothing new
    assert len(events_since(mark)) == 2


def test_a_battle_from_a_shared_force_invites_its_owner(alice, bob, eve):
    mine, theirs = play_force(alice, "Red"), play_force(bob, "Blue")
    roster_services.set_share_link(force=theirs, actor=bob, enabled=True)
    mark = last_event_id()
    battle = play_services.start_battle(by=alice, forces=[mine, theirs], scenario="Friendly")
    assert events_since(mark) == [("bob", kinds.INVITED, None, theirs.pk, None)]
    assert Event.objects.get(pk__gt=mark).data == {
        "to": "table-battle",
        "table_battle": battle.pk,
        "scenario": "Friendly",
        "force_name": "Blue",
        "by": "alice",
    }


def test_recording_tells_everyone_in_it_and_asks_those_who_may_confirm(
    campaign, alice, red, blue, strangers_force
):
    mark = last_event_id()
    battle = record(campaign, alice, red, blue)
    at = (campaign.pk, None, battle.pk)
    assert events_since(mark) == [
        ("alice", kinds.BATTLE_RECORDED, *at),
        ("bob", kinds.BATTLE_RECORDED, *at),
        ("bob", kinds.AWAITING_CONFIRMATION, *at),  # the opponent (R14a)
        ("olga", kinds.BATTLE_RECORDED, *at),
        ("olga", kinds.AWAITING_CONFIRMATION, *at),  # the organiser, not in it (R14a)
    ]
    assert Event.objects.filter(pk__gt=mark, kind=kinds.AWAITING_CONFIRMATION).first().data == {
        "scenario": "Capture the Flag",
        "played_on": "2025-03-01",
        "status": "pending",
        "forces": [
            {
                "campaign_force": red.pk,
                "force": red.force_id,
                "name": "Red Club",
                "outcome": "win",
            },
            {
                "campaign_force": blue.pk,
                "force": blue.force_id,
                "name": "Blue Club",
                "outcome": "loss",
            },
        ],
        "recorded_by": "alice",
    }


def test_the_organiser_recording_asks_the_players_only(campaign, organiser, red, blue):
    mark = last_event_id()
    battle = record(campaign, organiser, red, blue)
    waiting = [row[0] for row in events_since(mark) if row[1] == kinds.AWAITING_CONFIRMATION]
    assert waiting == ["alice", "bob"]  # never the recorder (R14a)
    assert battle.status == "pending"


def test_confirming_tells_everyone_and_each_owner_their_force_and_level_ups(
    campaign, alice, bob, red, blue, strangers_force
):
    mark = last_event_id()
    battle = ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    at = (campaign.pk, None, battle.pk)
    new = [row for row in events_since(mark) if row[1] != kinds.BATTLE_RECORDED]
    assert [row for row in new if row[1] != kinds.AWAITING_CONFIRMATION] == [
        ("alice", kinds.FORCE_CHANGED, campaign.pk, red.force_id, None),  # XP (R16)
        ("alice", kinds.BATTLE_CONFIRMED, *at),
        ("alice", kinds.LEVEL_UP_WAITING, campaign.pk, red.force_id, battle.pk),
        ("bob", kinds.FORCE_CHANGED, campaign.pk, blue.force_id, None),
        ("bob", kinds.BATTLE_CONFIRMED, *at),
        ("olga", kinds.BATTLE_CONFIRMED, *at),
    ]
    ann = red.force.members.get(name="Ann")
    assert Event.objects.get(kind=kinds.LEVEL_UP_WAITING).data == {
        "campaign_force": red.pk,
        "members": [{"member": ann.pk, "name": "Ann", "level": 2, "waiting": 1}],  # R17
    }
    confirmed = Event.objects.get(user=alice, kind=kinds.BATTLE_CONFIRMED).data
    assert [(f["name"], f["outcome"], f["xp_awarded"]) for f in confirmed["forces"]] == [
        ("Red Club", "win", 9),  # Ann 3, Ben, Cat and Emma 2 each (R16)
        ("Blue Club", "loss", 4),
    ]
    assert confirmed["confirmed_by"] == "bob"
    changed = Event.objects.get(user=alice, kind=kinds.FORCE_CHANGED, pk__gt=mark).data
    assert changed == {
        "name": "Red Club",
        "version": red.force.__class__.objects.get(pk=red.force_id).version,
        "change": "award-xp",
        "by": None,
        "deleted": False,
    }


def test_lower_level_thresholds_tell_each_owner_of_the_level_ups_they_bring(
    campaign, organiser, alice, bob, red, blue
):
    """R16: after the battle Ann (3 XP) is level 2; Ben, Cat and Emma (2 XP) become level 2
    when level 2 starts at 2 XP; Blue's members (1 XP) stay level 1."""
    ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    mark = last_event_id()
    services.update_house_rules(
        campaign=campaign, by=organiser, level_thresholds=[0, 2, 7, 12, 18, 25, 33, 42, 52, 63]
    )
    new = Event.objects.filter(pk__gt=mark, kind=kinds.LEVEL_UP_WAITING)
    assert [(e.user_id, e.campaign_id, e.force_id, e.battle_id) for e in new] == [
        (alice.pk, campaign.pk, red.force_id, None)
    ]
    members = red.force.members.order_by("pk")
    assert new.get().data == {
        "campaign_force": red.pk,
        "members": [
            {"member": m.pk, "name": m.name, "level": 2, "waiting": 1}
            for m in members
            if m.name != "Ann"  # her level-up was waiting already
        ],
    }
    services.update_house_rules(campaign=campaign, by=organiser, resources_for_win=20)
    assert Event.objects.filter(pk__gt=new.get().pk, kind=kinds.LEVEL_UP_WAITING).count() == 0


def test_voiding_a_pending_battle_tells_everyone_in_it(campaign, alice, bob, red, blue):
    battle = record(campaign, alice, red, blue)
    mark = last_event_id()
    services.void_battle(battle=battle, by=bob, reason="Wrong scenario")
    at = (campaign.pk, None, battle.pk)
    assert events_since(mark) == [
        ("alice", kinds.BATTLE_VOIDED, *at),
        ("bob", kinds.BATTLE_VOIDED, *at),
        ("olga", kinds.BATTLE_VOIDED, *at),
    ]
    data = Event.objects.get(user=alice, pk__gt=mark).data
    assert (data["was"], data["reason"], data["voided_by"], data["status"]) == (
        "pending",
        "Wrong scenario",
        "bob",
        "void",
    )


def test_voiding_a_confirmed_battle_takes_back_and_says_so(
    campaign, organiser, alice, bob, red, blue
):
    battle = ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    mark = last_event_id()
    services.void_battle(battle=battle, by=organiser, reason="Played twice")
    at = (campaign.pk, None, battle.pk)
    assert events_since(mark) == [
        ("alice", kinds.FORCE_CHANGED, campaign.pk, red.force_id, None),  # XP back (R15a)
        ("alice", kinds.BATTLE_VOIDED, *at),
        ("bob", kinds.FORCE_CHANGED, campaign.pk, blue.force_id, None),
        ("bob", kinds.BATTLE_VOIDED, *at),
        ("olga", kinds.BATTLE_VOIDED, *at),
    ]
    assert Event.objects.get(user=organiser, pk__gt=mark).data["was"] == "confirmed"


def test_every_write_of_a_force_tells_its_owner_alone(alice, eve):
    mark = last_event_id()
    force = freeform_force(eve, "Night Shift")
    roster_services.update_force_details(force=force, actor=eve, name="Day Shift")
    roster_services.set_share_link(force=force, actor=eve, enabled=True)
    force_id = force.pk
    roster_services.delete_force(force=force, actor=eve)
    rows = Event.objects.filter(pk__gt=mark).order_by("id")
    assert [(e.user_id, e.kind, e.force_id, e.campaign_id) for e in rows] == [
        (eve.pk, kinds.FORCE_CHANGED, force_id, None)
    ] * 4
    assert [(e.data["change"], e.data["version"], e.data["deleted"]) for e in rows] == [
        ("import", 2, False),  # a new force is at version 1 until its first write
        ("rename", 3, False),
        ("share", 4, False),
        ("delete", 4, True),
    ]
    assert {e.data["by"] for e in rows} == {"eve"}


def test_a_refused_write_leaves_no_event(campaign, alice, bob, red, blue):
    """The event is written in the change's transaction: no change, no event."""
    battle = record(campaign, alice, red, blue)
    mark = last_event_id()
    with pytest.raises(services.battles.NotAllowed):
        services.confirm_battle(battle=battle, by=alice)  # one's own battle (R14a)
    assert events_since(mark) == []
