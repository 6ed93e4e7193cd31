"""Reading a battle costs a fixed number of queries, however long its log: the poll's
304, the state panel, the API's state."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from play import services
from tests.play.conftest import Dice, ids
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


def queries(do) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = do()
    assert response.status_code in (200, 304)
    return len(captured)


def counts(battle, alice):
    page, api = Client(), signed_in(alice)
    page.force_login(alice)
    etag = f'W/"{battle.version}"'
    return (
        queries(lambda: page.get(f"/play/{battle.pk}/state/", HTTP_IF_NONE_MATCH=etag)),
        queries(lambda: page.get(f"/play/{battle.pk}/state/")),
        queries(lambda: page.get(f"/play/{battle.pk}/")),
        queries(lambda: api.get(f"/api/v1/battles/{battle.pk}/")),
    )


def test_reads_do_not_grow_with_the_log(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    services.roll_d12(battle=battle, by=alice, rng=Dice(5))
    short = counts(battle, alice)
    for _ in range(20):
        services.attack(
            battle=battle,
            by=alice,
            declaration=services.AttackDeclaration(
                f["0:Ann"], f["1:Emma"], "ranged", "light-pistol"
            ),
            rng=Dice(1),
        )
        services.roll_d12(battle=battle, by=alice, rng=Dice(5))
    assert counts(battle, alice) == short
    # The idle poll: the session, the user, and the battle the user may see.
    assert short[0] <= 3
