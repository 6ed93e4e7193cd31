"""The standings' tallies (won, drawn, lost, balance on each campaign force) are what a
fresh count of the battles and the ledger gives, after anything the services do.

`campaign.tallies.recounted` is the definition (R14: a confirmed battle counts once per
force, by its outcome, a draw for every force when nobody won; R15a: a voided one counts
for nothing; R15: the balance is the ledger's sum). Runs on SQLite and on PostgreSQL
(DATABASE_URL). Each generated sequence runs in a savepoint rolled back afterwards, so
every example starts from the same campaign.
"""

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign import selectors, services
from campaign.models import Battle, Campaign, CampaignForce
from campaign.tallies import (
    TALLIES,
    battles_played,
    recount_battles_played,
    recount_standings,
    recounted,
)
from dbd_site.errors import DomainError
from tests.campaign.conftest import (
    TODAY,
    buy_equipment,
    everyone,
    freeform_force,
    make_user,
    record,
)

pytestmark = pytest.mark.django_db


def stored(campaign: Campaign) -> dict[int, dict[str, int]]:
    return {
        pk: dict(zip(TALLIES, values, strict=True))
        for pk, *values in campaign.forces.order_by("pk").values_list("pk", *TALLIES)
    }


def assert_tallies_recount(campaign: Campaign) -> None:
    """The stored tallies are the recount, and the standings show them."""
    fresh = recounted(campaign.forces.all())
    assert stored(campaign) == fresh
    shown = {
        row.campaign_force.pk: {
            "won": row.won,
            "drawn": row.drawn,
            "lost": row.lost,
            "balance": row.resources,
        }
        for row in selectors.standings(campaign=campaign)
    }
    assert shown == fresh
    for row in selectors.standings(campaign=campaign):
        assert row.played == row.won + row.drawn + row.lost
    # The campaign's count of battles played is its confirmed battles, as listed.
    confirmed = campaign.battles.filter(status=Battle.Status.CONFIRMED).count()
    campaign.refresh_from_db(fields=["battles_played"])
    assert campaign.battles_played == confirmed
    assert battles_played(Campaign.objects.filter(pk=campaign.pk)) == {campaign.pk: confirmed}
    listed = selectors.campaign_summaries(user=campaign.organiser)
    assert [s.battles_played for s in listed if s.campaign.pk == campaign.pk] == [confirmed]


@pytest.fixture
def green(campaign) -> CampaignForce:
    carol = make_user("carol")
    services.join_campaign(user=carol, token=campaign.invite_token)
    return services.enter_force(
        campaign=campaign, player=carol, force=freeform_force(carol, "Green Club")
    )


# One step: (what, a, b, c) with small numbers each step reads as it needs them.
STEP = st.tuples(
    st.sampled_from(
        ["record", "confirm", "dispute", "withdraw", "void", "spend", "adjust", "buy"]
    ),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
)

SEQUENCE_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SEQUENCE_SETTINGS
@given(steps=st.lists(STEP, min_size=1, max_size=10))
def test_after_any_sequence_the_tallies_are_a_fresh_recount(
    campaign, organiser, red, blue, green, steps
):
    forces = [red, blue, green]
    with transaction.atomic():
        for what, a, b, c in steps:
            try:
                with transaction.atomic():
                    apply(what, a, b, c, campaign, organiser, forces)
            except DomainError:
                pass  # refused, and nothing changed (the savepoint is rolled back)
            assert_tallies_recount(campaign)
        transaction.set_rollback(True)


def apply(what, a, b, c, campaign, organiser, forces) -> None:
    pending = list(campaign.battles.filter(status=Battle.Status.PENDING).order_by("id"))
    confirmed = list(campaign.battles.filter(status=Battle.Status.CONFIRMED).order_by("id"))
    if what == "record":
        # Two or three forces (R14); the winner one of them, or nobody (a draw).
        sides = [forces[a % 3], forces[(a + 1) % 3]] + ([forces[(a + 2) % 3]] if c == 3 else [])
        winner = sides[b] if b < len(sides) else None
        recorder = sides[0].player if c != 2 else organiser
        services.record_battle(
            campaign=campaign,
            by=recorder,
            played_on=TODAY,
            scenario=f"Skirmish {a}{b}{c}",
            winner=winner,
            results={cf: everyone(cf) for cf in sides},
        )
    elif what == "confirm" and pending:
        battle = pending[a % len(pending)]
        owners = [bf.campaign_force.player for bf in battle.battle_forces.all()]
        # An opponent in the battle (R14a), the organiser, or (refused) the recorder.
        by = [*owners, organiser, battle.recorded_by][b % (len(owners) + 2)]
        services.confirm_battle(battle=battle, by=by)
    elif what in ("dispute", "withdraw") and pending:
        battle = pending[a % len(pending)]
        owners = [bf.campaign_force.player for bf in battle.battle_forces.all()]
        by = battle.recorded_by if what == "withdraw" else owners[b % len(owners)]
        services.void_battle(battle=battle, by=by)
    elif what == "void" and confirmed:
        battle = confirmed[a % len(confirmed)]
        services.void_battle(battle=battle, by=organiser, reason="Played by the wrong rules")
    elif what == "spend":
        cf = forces[a % 3]
        services.spend(campaign_force=cf, amount=b + c + 1, reason="Snacks", by=cf.player)
    elif what == "adjust":
        cf = forces[a % 3]
        amount = (b + 1) * (1 if c % 2 else -1)
        services.adjust_resources(campaign_force=cf, amount=amount, reason="Fix", by=organiser)
    elif what == "buy":
        # A purchase between battles: the policy's ledger entry (R17a).
        buy_equipment(forces[a % 3], "Ann", "simple-weapon")


def test_a_three_force_battle_counts_once_for_each_force(
    campaign, organiser, alice, bob, red, blue, green
):
    """R14: the winner wins, every other force loses; a draw is a draw for all three."""
    won = services.record_battle(
        campaign=campaign,
        by=alice,
        played_on=TODAY,
        scenario="Melee",
        winner=blue,
        results={cf: everyone(cf) for cf in (red, blue, green)},
    )
    services.confirm_battle(battle=won, by=bob)
    drawn = services.record_battle(
        campaign=campaign,
        by=alice,
        played_on=TODAY,
        scenario="Stalemate",
        winner=None,
        results={cf: everyone(cf) for cf in (red, blue, green)},
    )
    services.confirm_battle(battle=drawn, by=green.player)
    counts = {pk: (t["won"], t["drawn"], t["lost"]) for pk, t in stored(campaign).items()}
    assert counts == {red.pk: (0, 1, 1), blue.pk: (1, 1, 0), green.pk: (0, 1, 1)}
    # R15: 50 to start, 5 for the roster, then the battle rewards (loss 5, win 10, draw 7).
    balances = {pk: t["balance"] for pk, t in stored(campaign).items()}
    assert balances == {red.pk: 57, blue.pk: 62, green.pk: 57}
    assert_tallies_recount(campaign)


def test_pending_and_voided_battles_count_for_nothing(campaign, organiser, alice, bob, red, blue):
    """R14a, R15a: a confirmed battle counts; voiding it takes the count and the reward
    back; a pending one never counts."""
    before = stored(campaign)
    battle = record(campaign, alice, red, blue, winner="red")
    assert stored(campaign) == before
    services.confirm_battle(battle=battle, by=bob)
    assert (stored(campaign)[red.pk]["won"], stored(campaign)[blue.pk]["lost"]) == (1, 1)
    campaign.refresh_from_db(fields=["battles_played"])
    assert campaign.battles_played == 1
    services.void_battle(battle=battle, by=organiser, reason="Replayed")
    assert stored(campaign) == before
    campaign.refresh_from_db(fields=["battles_played"])
    assert campaign.battles_played == 0
    assert_tallies_recount(campaign)


def test_recount_puts_wrong_tallies_right(campaign, alice, bob, red, blue):
    """What the migration and the bulk seeds do: tallies written wrong (here, by hand)
    are recounted from the battles and the ledger; the check above sees the difference."""
    services.confirm_battle(battle=record(campaign, alice, red, blue, winner=None), by=bob)
    right = stored(campaign)
    CampaignForce.objects.filter(pk=red.pk).update(won=3, drawn=0, balance=999)
    with pytest.raises(AssertionError):
        assert_tallies_recount(campaign)
    assert recount_standings(campaign.forces.all()) == 2
    assert stored(campaign) == right
    assert right[red.pk] == {"won": 0, "drawn": 1, "lost": 0, "balance": 52}
    assert_tallies_recount(campaign)


def test_recount_puts_a_wrong_battles_played_right(campaign, alice, bob, red, blue):
    """The migration's and the bulk seeds' recount of the campaigns' battles played, and
    one campaign's recount leaves another's count alone."""
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    record(campaign, alice, red, blue)  # pending: not played yet
    other = services.create_campaign(organiser=alice, name="Other League")
    Campaign.objects.update(battles_played=7)
    with pytest.raises(AssertionError):
        assert_tallies_recount(campaign)
    assert recount_battles_played(Campaign.objects.filter(pk=campaign.pk)) == 1
    assert_tallies_recount(campaign)
    assert Campaign.objects.get(pk=campaign.pk).battles_played == 2
    assert Campaign.objects.get(pk=other.pk).battles_played == 7
    assert battles_played(Campaign.objects.filter(pk=other.pk)) == {other.pk: 0}


def test_recount_reads_only_the_forces_it_is_given(campaign, alice, bob, red, blue):
    """A recount of one force leaves the others' tallies as they are."""
    services.confirm_battle(battle=record(campaign, alice, red, blue), by=bob)
    CampaignForce.objects.update(won=0, lost=0)
    assert recount_standings(CampaignForce.objects.filter(pk=red.pk)) == 1
    counts = {pk: (t["won"], t["lost"]) for pk, t in stored(campaign).items()}
    assert counts == {red.pk: (1, 0), blue.pk: (0, 0)}


def test_a_force_with_no_battles_has_its_start_balance(campaign, alice, red):
    assert stored(campaign) == {red.pk: {"won": 0, "drawn": 0, "lost": 0, "balance": 45}}
    assert recounted(campaign.forces.all()) == stored(campaign)
