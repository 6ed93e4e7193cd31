"""Campaign reads: filtered by who asks, standings and charts from confirmed battles only,
and a fixed number of queries whether a campaign has 1 battle or 200."""

import datetime

import pytest
from django.http import Http404
from django.utils import timezone

from campaign import selectors, services
from campaign.models import Battle, BattleForce, BattleMemberResult, CampaignForce, LedgerEntry
from campaign.tallies import recount_standings
from roster import services as roster_services
from roster.models import Member
from tests.campaign.conftest import TODAY, everyone, make_user, record
from tests.roster.builders import student

pytestmark = pytest.mark.django_db


def test_campaigns_are_seen_by_their_players_only(campaign, organiser, alice):
    outsider = make_user("eve")
    assert list(selectors.campaigns_for(user=alice)) == [campaign]
    assert list(selectors.campaigns_for(user=organiser)) == [campaign]
    assert list(selectors.campaigns_for(user=outsider)) == []
    with pytest.raises(Http404):
        selectors.get_campaign(user=outsider, campaign_id=campaign.pk)
    assert selectors.get_campaign(user=alice, campaign_id=campaign.pk) == campaign
    assert selectors.get_campaign_by_invite(token=campaign.invite_token) == campaign
    with pytest.raises(Http404):
        selectors.get_campaign_by_invite(token="nope")


def test_standings_count_confirmed_battles(campaign, organiser, alice, bob, red, blue):
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner="blue"), by=bob)
    services.confirm_battle(battle=record(campaign, bob, red, blue, winner=None), by=alice)
    services.confirm_battle(battle=record(campaign, bob, red, blue, winner="blue"), by=alice)
    voided = record(campaign, alice, red, blue, winner="red")
    services.confirm_battle(battle=voided, by=bob)
    services.void_battle(battle=voided, by=organiser, reason="Replayed")
    record(campaign, alice, red, blue, winner="red")  # pending: does not count
    rows = selectors.standings(campaign=campaign)
    table = [(r.name, r.player, r.played, r.won, r.drawn, r.lost, r.points) for r in rows]
    assert table == [
        ("Blue Club", "bob", 3, 2, 1, 0, 7),
        ("Red Club", "alice", 3, 0, 1, 2, 1),
    ]
    # Resources: 45 + 10 + 7 + 10 for Blue; 45 + 5 + 7 + 5 for Red (R15).
    assert [(r.resources, r.rating) for r in rows] == [(72, 5), (62, 5)]


def test_the_points_settings_change_the_standings(campaign, organiser, alice, bob, red, blue):
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner="red"), by=bob)
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner=None), by=bob)
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner=None), by=bob)
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner=None), by=bob)
    services.update_house_rules(campaign=campaign, by=organiser, points_for_loss=3)
    assert [(r.name, r.points) for r in selectors.standings(campaign=campaign)] == [
        ("Red Club", 6),
        ("Blue Club", 6),
    ]
    services.update_house_rules(campaign=campaign, by=organiser, points_for_loss=4)
    assert selectors.standings(campaign=campaign)[0].name == "Blue Club"


def test_recent_and_pending_battles(campaign, organiser, alice, bob, red, blue):
    first = record(campaign, alice, red, blue, played_on=TODAY - datetime.timedelta(days=2))
    services.confirm_battle(battle=first, by=bob)
    pending = record(campaign, alice, red, blue)
    assert [b.pk for b in selectors.recent_battles(campaign=campaign)] == [first.pk]
    assert [b.pk for b in selectors.pending_confirmations(campaign=campaign, user=bob)] == [
        pending.pk
    ]
    assert selectors.pending_confirmations(campaign=campaign, user=alice) == []  # recorder
    assert [b.pk for b in selectors.pending_confirmations(campaign=campaign, user=organiser)] == [
        pending.pk
    ]
    assert selectors.pending_confirmations(campaign=campaign, user=make_user("eve")) == []


def test_resources_history_follows_confirmed_battles(campaign, organiser, alice, bob, red, blue):
    one = record(campaign, alice, red, blue, scenario="One")
    services.confirm_battle(battle=one, by=bob)
    services.spend(campaign_force=red, amount=5, reason="Kit", by=alice)
    two = record(campaign, alice, red, blue, scenario="Two", winner=None)
    services.confirm_battle(battle=two, by=bob)
    three = record(campaign, alice, red, blue, scenario="Three", winner="blue")
    services.confirm_battle(battle=three, by=bob)
    services.void_battle(battle=two, by=organiser, reason="Never happened")
    history = selectors.resources_history(campaign=campaign)
    assert history["labels"] == ["Start", "2025-03-01 One", "2025-03-01 Three"]
    series = {s["name"]: s["values"] for s in history["series"]}
    assert series == {
        "Red Club": [45, 55, 50 + 5],  # the spend after One shows at Three
        "Blue Club": [45, 50, 60],
    }
    assert series["Red Club"][-1] == selectors.balance(campaign_force=red)


def test_xp_history_per_member(campaign, alice, bob, red, blue):
    services.confirm_battle(
        battle=record(
            campaign, alice, red, blue, red_results=everyone(red, Ann={"objectives": 2})
        ),
        by=bob,
    )
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner=None), by=bob)
    history = selectors.xp_history(campaign=campaign)
    assert len(history["labels"]) == 3
    lines = {(s["campaign_force"], s["name"]): s["values"] for s in history["series"]}
    assert lines[(red.pk, "Ann")] == [0, 4, 5]
    assert lines[(blue.pk, "Ann")] == [0, 1, 2]
    assert lines[(red.pk, "Ann")][-1] == Member.objects.get(force_id=red.force_id, name="Ann").xp


def test_member_history_and_a_retired_members_results(campaign, alice, bob, red, blue):
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    roster_services.add_member(force=red.force, actor=alice, data=student("Dan"))
    roster_services.remove_member(
        force=red.force,
        actor=alice,
        member_id=Member.objects.get(force_id=red.force_id, name="Ann").pk,
    )
    results = selectors.member_history(campaign_force=red)
    assert [(r.member_name, r.member_id is None, r.xp_awarded) for r in results][1] == (
        "Ann",
        True,
        2,
    )
    lines = {
        s["name"]: s["values"]
        for s in selectors.xp_history(campaign=campaign)["series"]
        if s["campaign_force"] == red.pk
    }
    assert lines["Ann"] == [0, 2]  # kept under the name she had
    assert lines["Dan"] == [0, 0]


# --- query counts --------------------------------------------------------------------------


def bulk_battles(campaign, red, blue, confirmer, n: int) -> None:
    """`n` confirmed and `n` pending battles, written in bulk (as the services would)."""
    now = timezone.now()
    members = {cf.pk: list(Member.objects.filter(force_id=cf.force_id)) for cf in (red, blue)}
    battles = Battle.objects.bulk_create(
        Battle(
            campaign=campaign,
            played_on=TODAY - datetime.timedelta(days=i % 300),
            scenario=f"Battle {i}",
            status=Battle.Status.CONFIRMED if i < n else Battle.Status.PENDING,
            recorded_by=blue.player,
            confirmed_by=confirmer if i < n else None,
            confirmed_at=now + datetime.timedelta(seconds=i) if i < n else None,
            winner=[red, blue, None][i % 3],
        )
        for i in range(2 * n)
    )
    entries = []
    battle_forces = []
    for battle in battles:
        for cf in (red, blue):
            if battle.winner_id is None:
                outcome = "draw"
            else:
                outcome = "win" if battle.winner_id == cf.pk else "loss"
            battle_forces.append(BattleForce(battle=battle, campaign_force=cf, outcome=outcome))
    battle_forces = BattleForce.objects.bulk_create(battle_forces)
    results = []
    for bf in battle_forces:
        confirmed = bf.battle.status == Battle.Status.CONFIRMED
        results += [
            BattleMemberResult(
                battle_force=bf, member=m, member_name=m.name, xp_awarded=1 if confirmed else 0
            )
            for m in members[bf.campaign_force_id]
        ]
        if confirmed:
            entries.append(
                LedgerEntry(
                    campaign=campaign,
                    campaign_force_id=bf.campaign_force_id,
                    amount=7,
                    kind="battle",
                    reason=bf.battle.scenario,
                    battle=bf.battle,
                )
            )
    BattleMemberResult.objects.bulk_create(results)
    LedgerEntry.objects.bulk_create(entries)
    Member.objects.filter(force_id__in=[red.force_id, blue.force_id]).update(xp=n)
    # The standings' tallies, as the services would have kept them.
    recount_standings(CampaignForce.objects.filter(pk__in=[red.pk, blue.pk]))


DASHBOARD_QUERIES = {
    # The forces with their tallies (won, drawn, lost, balance), whatever the battles.
    "standings": (lambda c, u: selectors.standings(campaign=c), 1),
    "recent_battles": (lambda c, u: selectors.recent_battles(campaign=c), 2),
    "pending_confirmations": (
        lambda c, u: selectors.pending_confirmations(campaign=c, user=u),
        3,
    ),
    "level_ups_waiting": (lambda c, u: selectors.level_ups_waiting(campaign=c), 1),
    "campaign_log": (lambda c, u: list(selectors.campaign_log(campaign=c, limit=10)), 1),
    # The forces, recent and pending battles, their sides, members with level-ups, the log.
    "dashboard": (lambda c, u: selectors.dashboard(campaign=c, user=u), 6),
    "resources_history": (lambda c, u: selectors.resources_history(campaign=c), 4),
    "xp_history": (lambda c, u: selectors.xp_history(campaign=c), 4),
}


@pytest.mark.parametrize("battles", [1, 200])
@pytest.mark.parametrize("read", sorted(DASHBOARD_QUERIES))
def test_dashboard_queries_do_not_grow_with_battles(
    read, battles, campaign, alice, bob, red, blue, django_assert_num_queries
):
    bulk_battles(campaign, red, blue, alice, battles)
    function, queries = DASHBOARD_QUERIES[read]
    with django_assert_num_queries(queries):
        result = function(campaign, alice)
    if read == "standings":
        assert sum(row.played for row in result) == 2 * battles
    if read == "pending_confirmations":
        assert len(result) == battles
    if read == "level_ups_waiting":
        assert len(result) == (8 if battles >= 3 else 0)


def test_lists_by_name_leave_the_forces_evaluations_in_the_database(
    campaign, alice, bob, red, blue
):
    """Battles and level-ups show forces by name; decoding each row's stored evaluation
    (kilobytes of JSON) was a third of what the dashboard's battle lists cost."""
    bulk_battles(campaign, red, blue, alice, 3)
    battles = [
        *selectors.recent_battles(campaign=campaign),
        *selectors.pending_confirmations(campaign=campaign, user=bob),
        selectors.get_battle(campaign=campaign, battle_id=Battle.objects.first().pk),
    ]
    forces = [bf.campaign_force.force for b in battles for bf in b.battle_forces.all()]
    waiting = selectors.level_ups_waiting(campaign=campaign)
    forces += [w.member.force for w in waiting]
    assert len(waiting) == 8
    assert all("evaluation" in force.get_deferred_fields() for force in forces)
    assert {force.name for force in forces} == {"Red Club", "Blue Club"}


def test_the_dashboard_shows_what_the_single_reads_show(
    campaign, alice, bob, red, blue, django_assert_num_queries
):
    """`dashboard` reads the forces once and names them from there: its lists are the
    standalone selectors' lists, and naming every side and level-up reads nothing more."""
    bulk_battles(campaign, red, blue, alice, 12)
    board = selectors.dashboard(campaign=campaign, user=bob, recent=10)
    assert board.standings == selectors.standings(campaign=campaign)
    assert [b.pk for b in board.recent_battles] == [
        b.pk for b in selectors.recent_battles(campaign=campaign, limit=10)
    ]
    assert [b.pk for b in board.pending_battles] == [
        b.pk for b in selectors.pending_battles(campaign=campaign)
    ]
    assert [(w.member.pk, w.level, w.taken, w.waiting) for w in board.level_ups_waiting] == [
        (w.member.pk, w.level, w.taken, w.waiting)
        for w in selectors.level_ups_waiting(campaign=campaign)
    ]
    assert board.my_force == selectors.active_force_of(campaign=campaign, user=bob)
    assert [e.pk for e in board.log] == [
        e.pk for e in selectors.campaign_log(campaign=campaign, limit=10)
    ]
    with django_assert_num_queries(0):
        sides = {
            (b.pk, bf.campaign_force.force.name, bf.campaign_force.player.get_username())
            for b in (*board.recent_battles, *board.pending_battles)
            for bf in b.battle_forces.all()
        }
        names = {
            (w.member.name, w.member.force.name, w.campaign_force.player.get_username())
            for w in board.level_ups_waiting
        }
        recorders = {b.recorded_by.get_username() for b in board.pending_battles}
        organiser = {b.campaign.organiser_id for b in board.pending_battles}
    assert len(sides) == 2 * (10 + 12)
    assert {name for _, name, _ in names} == {"Red Club", "Blue Club"}
    assert recorders == {blue.player.get_username()}
    assert organiser == {campaign.organiser_id}
    assert all(
        "evaluation" in w.member.force.get_deferred_fields() for w in board.level_ups_waiting
    )
