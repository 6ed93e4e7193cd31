"""Two phones acting at once: every action is kept, one after the other.

Real threads with their own connections against committed data, as in
tests/campaign/test_concurrency.py: on PostgreSQL the battle row's lock orders them, on
SQLite the write lock does.
"""

import pytest
from django.core.management import call_command

from play import services, table
from play.models import Battle, BattleAction
from rules.loader import clear_catalogue_cache
from tests.campaign.test_concurrency import at_once
from tests.play.conftest import Dice, ids, play_force

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _rules_loaded(transactional_db):
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def test_two_phones_acting_at_once_lose_nothing(alice, bob):
    battle = services.start_battle(
        by=alice,
        forces=[play_force(alice, "Red"), play_force(bob, "Blue")],
        scenario="Race",
    )
    f = ids(battle)
    players = [alice, bob] * 4
    shooters = [f["0:Ann"], f["1:Ann"]] * 4
    targets = [f["1:Emma"], f["0:Emma"]] * 4

    def act(i: int):
        mine = Battle.objects.get(pk=battle.pk)
        return services.attack(
            battle=mine,
            by=players[i],
            declaration=table.attacks.AttackDeclaration(
                shooters[i], targets[i], "ranged", "light-pistol"
            ),
            rng=Dice(9),  # RA 4 against Emma's DF 8: Success Rating 5, 5 damage each
        )

    results = at_once(8, act)
    assert [type(r) for r in results] == [BattleAction] * 8
    battle.refresh_from_db()
    assert battle.version == 9
    assert sorted(a.seq for a in battle.actions.all()) == list(range(1, 10))
    emmas = [battle.state["figures"][str(f[k])] for k in ("0:Emma", "1:Emma")]
    # 12 HP, four hits of 5 each: 12 -> 7 -> 2 -> 0 (Unconscious) -> Out of Action.
    assert [(e["hp"], e["status"]) for e in emmas] == [(0, "out-of-action")] * 2
