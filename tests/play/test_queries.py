"""Reading a battle costs a fixed number of queries, however long its log: the poll's
304, the state panel, the API's state."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from play import table
from tests.play import acting
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
    etag = f'"{battle.version}"'
    return (
        queries(lambda: page.get(f"/play/{battle.pk}/state/", HTTP_IF_NONE_MATCH=etag)),
        queries(lambda: page.get(f"/play/{battle.pk}/state/")),
        queries(lambda: page.get(f"/play/{battle.pk}/")),
        queries(lambda: api.get(f"/api/v1/battles/{battle.pk}/")),
    )


def test_reads_do_not_grow_with_the_log(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    acting.roll_d12(battle=battle, by=alice, rng=Dice(5))
    short = counts(battle, alice)
    for _ in range(20):
        acting.attack(
            battle=battle,
            by=alice,
            declaration=table.attacks.AttackDeclaration(
                f["0:Ann"], f["1:Emma"], "ranged", "light-pistol"
            ),
            rng=Dice(1),
        )
        acting.roll_d12(battle=battle, by=alice, rng=Dice(5))
    assert counts(battle, alice) == short
    # The idle poll: the session, the user, and the battle the user may see.
    assert short[0] <= 3


def test_an_action_answers_from_the_battle_it_stored(campaign_battle, alice):
    """The answer to an action shows the battle as the action stored it, without reading
    the battle again or asking the log whether there is something to undo (there is:
    the action just stored)."""
    battle = campaign_battle
    page = Client()
    page.force_login(alice)
    before = page.get(f"/play/{battle.pk}/state/", HTTP_HX_REQUEST="true").content.decode()
    assert "disabled>Undo</button>" in before  # only the start so far
    with CaptureQueriesContext(connection) as captured:
        response = page.post(
            f"/play/{battle.pk}/act/", {"type": "roll", "count": "1"}, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 200
    battle.refresh_from_db()
    assert response["ETag"] == f'"{battle.version}"'
    answer = response.content.decode()
    assert 'class="button button--secondary">Undo: the roll of the dice</button>' in answer
    sql = [q["sql"] for q in captured.captured_queries]
    # The battle is read twice: the user's right to see it, then locked for the change.
    assert sum(s.startswith('SELECT "play_battle"."id"') for s in sql) == 2
    assert not any(s.startswith('SELECT 1 AS "a" FROM "play_battleaction"') for s in sql)
