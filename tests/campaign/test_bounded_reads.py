"""On PostgreSQL, a campaign's reads touch only its own rows, however many the site has.

The world that once made the standings read the whole battle table: beside the measured
campaign, one unrelated campaign of many battles among three forces. Few forces with
thousands of battles each make PostgreSQL's estimate for "the battles of some force"
(the table's rows over its distinct forces) large, and a plan built on that estimate,
as a correlated subquery's is, hashed every confirmed battle on the site once per
force and outcome. Statistics are taken with ANALYZE inside the test's transaction
(tables below ANALYZE's sample size, so they are exact and the plans repeatable).

Nothing is timed: each query the reads run is explained with ANALYZE, and the rows
every scan of a large table reads (returned plus filtered out, times its loops) are
summed and held to the campaign's own rows of that table.
"""

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone

from campaign import selectors, services
from campaign.management.commands.seed_scale import Side, bulk_battles
from campaign.models import (
    Battle,
    BattleForce,
    BattleMemberResult,
    Campaign,
    CampaignEvent,
    LedgerEntry,
)
from roster.models import Member
from tests.campaign.conftest import freeform_force, make_user
from tests.query_plans import read_by, reads_beyond_own

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="query plans are PostgreSQL's (CI runs it)"
    ),
    pytest.mark.django_db,
]

OTHER_BATTLES = 3000  # the unrelated campaign: 6,000 battle rows among three forces
OWN_BATTLES = 20
# Other players' campaigns, each organised by a user of its own: enough that reading
# every campaign (or hashing every user) costs the planner more than two index reads.
ELSEWHERE = 2000

# The tables that grow with battles, and how to count one campaign's rows in each.
LARGE: dict[str, Callable[[Campaign], int]] = {
    "campaign_battle": lambda c: Battle.objects.filter(campaign=c).count(),
    "campaign_battleforce": lambda c: BattleForce.objects.filter(battle__campaign=c).count(),
    "campaign_battlememberresult": lambda c: BattleMemberResult.objects.filter(
        battle_force__battle__campaign=c
    ).count(),
    "campaign_ledgerentry": lambda c: LedgerEntry.objects.filter(campaign=c).count(),
    "campaign_campaignevent": lambda c: CampaignEvent.objects.filter(campaign=c).count(),
}


def league(name: str, players: int, confirmed: int, pending: int) -> Campaign:
    """A campaign of `players` forces of four with battles written as the services
    would leave them (the bench's bulk writer)."""
    users = [make_user(f"{name}-{i}") for i in range(players)]
    campaign = services.create_campaign(organiser=users[0], name=name)
    sides = []
    for user in users:
        if user is not users[0]:
            services.join_campaign(user=user, token=campaign.invite_token)
        cf = services.enter_force(
            campaign=campaign, player=user, force=freeform_force(user, f"{name} club {user.pk}")
        )
        sides.append(Side(cf, user.pk, list(Member.objects.filter(force_id=cf.force_id))))
    bulk_battles(
        campaign,
        sides,
        confirmed=confirmed,
        pending=pending,
        last_played=timezone.localdate(),
        rules=campaign.house_rules,
    )
    return campaign


@pytest.fixture
def world() -> Campaign:
    league("other", players=3, confirmed=OTHER_BATTLES, pending=0)
    measured = league("measured", players=3, confirmed=OWN_BATTLES, pending=3)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return measured


READS: dict[str, Callable[[Campaign], Any]] = {
    "standings": lambda c: selectors.standings(campaign=c),
    "dashboard": lambda c: selectors.dashboard(campaign=c),
    "pending_battles": lambda c: selectors.pending_battles(campaign=c),
    "pending_confirmations": lambda c: selectors.pending_confirmations(
        campaign=c, user=c.forces.order_by("id")[1].player
    ),
    "campaign_summaries": lambda c: selectors.campaign_summaries(user=c.organiser),
    "campaign_forces_with_members": lambda c: list(
        selectors.campaign_forces_with_members(campaign=c)
    ),
    "resources_history": lambda c: selectors.resources_history(campaign=c),
    "xp_history": lambda c: selectors.xp_history(campaign=c),
    "force_progress": lambda c: selectors.force_progress(
        campaign_force=c.forces.select_related("campaign").first()
    ),
    "ledger_with_running_balance": lambda c: list(
        selectors.ledger_with_running_balance(campaign_force=c.forces.first())
    ),
}


def test_campaign_reads_touch_only_the_campaigns_rows(world):
    own = {table: count(world) for table, count in LARGE.items()}
    assert own["campaign_battle"] == OWN_BATTLES + 3
    # Each row of the campaign may be read a few times, never the other campaign's: it
    # alone holds 3,000 battles and 6,000 battle rows.
    reads = {name: lambda read=read: read(world) for name, read in READS.items()}
    over = reads_beyond_own(reads, own)
    assert over == {}, f"reads beyond their campaign's rows (read, own): {over}"


def test_the_old_standings_shape_is_what_this_catches(world):
    """The check can fail: a correlated count per force, as the standings were written,
    reads the other campaign's battles in this world."""
    from django.db.models import Count, IntegerField, OuterRef, Subquery

    wins = (
        BattleForce.objects.filter(
            campaign_force=OuterRef("pk"), battle__status=Battle.Status.CONFIRMED, outcome="win"
        )
        .order_by()
        .values("campaign_force")
        .annotate(n=Count("pk"))
        .values("n")
    )
    read_rows = read_by(
        lambda: list(world.forces.annotate(wins=Subquery(wins, output_field=IntegerField())))
    )
    assert read_rows["campaign_battle"] >= OTHER_BATTLES


def test_the_standings_read_no_battles_and_no_ledger(world):
    """The standings read the tallies on the campaign's forces (`campaign.tallies`): no
    row of a table that grows with battles, however many the campaign or site has."""
    read_rows = read_by(lambda: selectors.standings(campaign=world))
    assert {table: read_rows[table] for table in LARGE} == dict.fromkeys(LARGE, 0)


def test_my_campaigns_read_only_the_viewers_campaigns(world):
    """The list of a player's campaigns reads their campaigns (found through two indexes)
    and those campaigns' organisers, not every campaign and user on the site; and it
    counts no battles played (the count the services keep), only the pending ones it
    shows as waiting."""
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"elsewhere-{i}") for i in range(ELSEWHERE)
    )
    Campaign.objects.bulk_create(
        Campaign(name=f"Elsewhere {i}", organiser=user, invite_token=f"elsewhere-{i}")
        for i, user in enumerate(users)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    viewer = world.organiser
    mine = Campaign.objects.filter(players__user=viewer).count()
    assert mine == 1
    read_rows = read_by(lambda: selectors.campaign_summaries(user=viewer))
    assert read_rows["campaign_campaign"] <= 3 * mine + 10  # 2,002 on the site
    assert read_rows["auth_user"] <= 3 * mine + 10  # 2,006 on the site
    assert read_rows["campaign_battle"] == 3  # the pending ones, of 3,026
    summary = selectors.campaign_summaries(user=viewer)
    assert [(s.campaign, s.battles_played, s.pending_for_me) for s in summary] == [
        (world, OWN_BATTLES, 3)
    ]
