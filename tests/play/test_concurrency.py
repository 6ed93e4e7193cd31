"""Two phones acting at once: every action is kept, one after the other.

Real threads with their own connections against committed data, as in
tests/campaign/test_concurrency.py: on PostgreSQL the battle row's lock orders them, on
SQLite the write lock does.
"""

import pytest
from django.core.management import call_command

from play import table
from play.models import Battle, BattleAction
from rules.loader import clear_catalogue_cache
from tests.concurrency import at_once
from tests.play import acting
from tests.play.conftest import Dice, ids, play_force, two_players

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _rules_loaded(transactional_db):
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def test_two_phones_acting_at_once_lose_nothing(alice, bob):
    battle = two_players(alice, [play_force(alice, "Red"), play_force(bob, "Blue")], "Race", bob)
    f = ids(battle)
    players = [alice, bob] * 4
    shooters = [f["0:Ann"], f["1:Ann"]] * 4
    # Each shot at another figure: a Friendship decision waiting after a hit holds back
    # further changes to its target (P9), not to the others.
    names = ["Emma", "Ben", "Cat", "Ann"]
    targets = [f[f"{1 - i % 2}:{names[i // 2]}"] for i in range(8)]

    def act(i: int):
        mine = Battle.objects.get(pk=battle.pk)
        return acting.attack(
            battle=mine,
            by=players[i],
            declaration=table.attacks.AttackDeclaration(
                shooters[i], targets[i], "ranged", "light-pistol"
            ),
            rng=Dice(9),  # RA 4 against DF 8 (Emma) or 10: Success Rating 5 or 3
        )

    before = battle.version
    results = at_once(8, act)
    assert [type(r) for r in results] == [BattleAction] * 8
    battle.refresh_from_db()
    assert battle.version == before + 8
    assert sorted(a.seq for a in battle.actions.all()) == list(range(1, 10))
    lost = {
        key: figure["max_hp"] - figure["hp"]
        for key, fid in f.items()
        for figure in [battle.state["figures"][str(fid)]]
    }
    assert lost == {
        f"{side}:{name}": 5 if name == "Emma" else 3 for side in "01" for name in names
    }
