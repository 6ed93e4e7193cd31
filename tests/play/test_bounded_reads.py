"""On PostgreSQL, the battles a player lists and opens are read through their own rows,
however many battles the site holds.

Beside the viewer's two battles (a one-off and a campaign battle), the site holds
thousands of other players' battles: one-offs, and battles of a campaign the viewer is
not in. Statistics are taken with ANALYZE inside the test's transaction. Nothing is
timed: each query a read runs is explained with ANALYZE (`tests.query_plans`), and the
rows every scan of the battle and side tables reads are held to the viewer's own.
"""

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from campaign import services as campaign_services
from play import selectors
from play.models import Battle, BattleSide
from tests.conftest import make_user
from tests.query_plans import read_by, reads_beyond_own

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="query plans are PostgreSQL's (CI runs it)"
    ),
    pytest.mark.django_db,
]

OTHER_BATTLES = 3000  # half one-offs, half in a campaign the viewer is not in


@pytest.fixture
def site(campaign_battle, one_off, alice):
    """The viewer (alice) and the site's other battles, written in bulk with a real
    battle's state (no read below opens them)."""
    strangers = [make_user(f"stranger-{i}") for i in range(4)]
    elsewhere = campaign_services.create_campaign(organiser=strangers[0], name="Elsewhere")
    battles = Battle.objects.bulk_create(
        Battle(
            created_by=strangers[i % 4],
            campaign=elsewhere if i % 2 else None,
            scenario=f"Other {i}",
            status=Battle.Status.ENDED,
            spectator_token=f"other-{i}",
            state=one_off.state,
        )
        for i in range(OTHER_BATTLES)
    )
    BattleSide.objects.bulk_create(
        BattleSide(
            battle=battle,
            position=position,
            player=strangers[(i + position) % 4],
            force_name=f"Club {i}-{position}",
        )
        for i, battle in enumerate(battles)
        for position in (0, 1)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return alice


def own_rows(user) -> dict[str, int]:
    mine = list(selectors.battles_for(user=user).values_list("pk", flat=True))
    return {
        "play_battle": len(mine),
        "play_battleside": BattleSide.objects.filter(battle_id__in=mine).count(),
    }


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def reads(user, battle: Battle) -> dict[str, Callable[[], Any]]:
    client = client_of(user)
    return {
        "battle list page": lambda: client.get(reverse("play:list")),
        "battle list API": lambda: client.get("/api/v1/battles/"),
        "one battle": lambda: selectors.get_battle(user=user, battle_id=battle.pk),
        "a poll's version check": lambda: selectors.battle_version(user=user, battle_id=battle.pk),
    }


def test_a_player_s_battles_are_read_through_their_own_rows(site, one_off):
    own = own_rows(site)
    assert own == {"play_battle": 2, "play_battleside": 4}
    over = reads_beyond_own(reads(site, one_off), own)
    assert over == {}, f"reads beyond the player's rows (read, own): {over}"


def test_the_lists_show_the_player_s_battles_latest_first(site, campaign_battle, one_off):
    page = client_of(site).get(reverse("play:list")).content.decode()
    assert page.index("Practice") < page.index("Rooftop Duel")
    assert "Other 0" not in page
    answer = client_of(site).get("/api/v1/battles/").json()
    assert answer["count"] == 2
    assert [b["id"] for b in answer["results"]] == [one_off.pk, campaign_battle.pk]


def test_the_lookup_s_or_as_a_list_is_what_this_catches(site):
    """The check can fail: the lookup's `OR` of the ways to see a battle (`battles_for`),
    read as a list, reads every battle on the site."""
    read_rows = read_by(lambda: list(selectors.battles_for(user=site)[:50]))
    assert read_rows["play_battle"] >= OTHER_BATTLES
