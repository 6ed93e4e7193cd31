"""Spell attacks (issue #12) in a battle: a cast's attacks from the roll to the record (P6),
through the service, the API and the screen. Their rules, tier by tier, are in
`test_spell_attack_rules.py`."""

import pytest

from dbd_site.errors import Invalid
from play import services, table
from play.models import Battle
from tests.play import acting
from tests.play.conftest import Dice, figure_state, ids, storm
from tests.play.tables import codes
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


# --- in a battle ------------------------------------------------------------------------------


@pytest.fixture
def battle(alice, bob):
    return storm(alice, bob)


def cast(battle, by, caster, spell, *dice):
    return acting.cast_spell(battle=battle, by=by, caster=caster, spell=spell, rng=Dice(*dice))


def test_seraphic_bolt_from_the_cast_to_the_damage(battle, alice):
    f = ids(battle)
    eve, ann = f["0:Eve"], f["1:Ann"]
    # CA 4 at Difficulty 6: 6, 6, 6, 1 is 3 successes: ROF 2, Acc +0.
    told = cast(battle, alice, eve, "seraphic-bolt", 6, 6, 6, 1)
    assert told.words == (
        "Eve casts Seraphic Bolt (Difficulty 6, 4 dice). Rolled 6, 6, 6, 1: 3 successes. "
        'As 2 Successes, with ROF 2. Its attacks: one target, range 15": ROF 2, Acc +0; '
        "roll them next, one target at a time."
    )
    assert battle.state["spell_attacks"] == {
        "caster": str(eve),
        "spell": "seraphic-bolt",
        "tier": 2,
        "successes": 3,
        "chosen": None,
        "attacked": [],
    }
    # RA 1 against Ann's DF 10: needs 9. 12 is Success Rating 3; 8 misses.
    action = acting.spell_attack(battle=battle, by=alice, target=ann, rng=Dice(12, 8))
    assert action.kind == "spell-attack"
    assert action.words == (
        "Eve attacks Ann (ranged, Seraphic Bolt; needs 9+): rolled 12. Hit, Success Rating 3: "
        '3 damage, the target Dodges for Cover 2". rolled 8. Miss: nothing happens. '
        "Blue Club may transfer some of the 3 damage (Friendship). Seraphic Bolt's attacks "
        "are done."
    )
    assert figure_state(battle, ann)["hp"] == 8
    assert "spell_attacks" not in battle.state
    with pytest.raises(Invalid) as error:
        acting.spell_attack(battle=battle, by=alice, target=ann)
    assert codes(error) == [("/type", "no-spell-attacks")]


def test_refusals_change_nothing(battle, alice):
    f = ids(battle)
    cast(battle, alice, f["0:Eve"], "seraphic-bolt", 6, 1, 1, 1)
    version = battle.version
    for target, expected in [
        (f["0:Al"], [("/target", "same-side")]),
        (f["0:Eve"], [("/target", "same-side")]),
        (999999, [("/target", "not-found")]),
    ]:
        with pytest.raises(Invalid) as error:
            acting.spell_attack(battle=battle, by=alice, target=target)
        assert codes(error) == expected
    with pytest.raises(Invalid) as error:
        acting.spell_attack(battle=battle, by=alice, target=f["1:Ann"], dice=[12, 12])
    assert codes(error) == [("/dice", "wrong-dice-count")]
    battle.refresh_from_db()
    assert battle.version == version
    assert battle.state["spell_attacks"]["attacked"] == []


def test_thunder_gods_bolt_attacks_each_target_once(battle, alice):
    f = ids(battle)
    cast(battle, alice, f["0:Eve"], "thunder-gods-bolt", 8, 9, 1, 1)  # 2 successes
    first = acting.spell_attack(battle=battle, by=alice, target=f["1:Ann"], rng=Dice(1))
    assert first.words.endswith("Miss: nothing happens. Thunder God's Bolt may attack 1 more.")
    with pytest.raises(Invalid) as error:
        acting.spell_attack(battle=battle, by=alice, target=f["1:Ann"])
    assert codes(error) == [("/target", "already-attacked")]
    acting.spell_attack(battle=battle, by=alice, target=f["1:Ben"], rng=Dice(1))
    battle.refresh_from_db()
    assert "spell_attacks" not in battle.state


def test_god_or_demon_attack_hits_the_caster_at_one_or_two_successes(battle, alice):
    f = ids(battle)
    eve = f["0:Eve"]
    cast(battle, alice, eve, "god-or-demon-attack", 10, 1, 1, 1)  # 1 success
    # Eve attacks herself: 12 + RA 1 + Acc 1 against her own DF 8 is Success Rating 6.
    hit = acting.spell_attack(battle=battle, by=alice, target=eve, rng=Dice(12))
    assert hit.words == (
        "Eve attacks Eve (ranged, God Or Demon Attack; needs 6+): rolled 12. Hit, Success "
        'Rating 6: 6 damage, the target Dodges for Cover 2". Storm may transfer some of the 6 '
        "damage (Friendship)."
    )
    assert figure_state(battle, eve)["hp"] == 12 - 6
    # The radius stays open: any number of figures, once each, until the activation ends.
    acting.spell_attack(battle=battle, by=alice, target=f["0:Al"], rng=Dice(1))
    acting.spell_attack(battle=battle, by=alice, target=f["1:Ann"], rng=Dice(1))
    assert battle.state["spell_attacks"]["attacked"] == [str(eve), str(f["0:Al"]), str(f["1:Ann"])]
    acting.end_activation(battle=battle, by=alice, figure=eve)
    assert "spell_attacks" not in battle.state


def test_undo_brings_the_cast_back(battle, alice):
    f = ids(battle)
    cast(battle, alice, f["0:Eve"], "seraphic-bolt", 6, 1, 1, 1)
    acting.spell_attack(battle=battle, by=alice, target=f["1:Ann"], rng=Dice(12))
    services.undo(battle=battle, by=alice)
    battle.refresh_from_db()
    assert battle.state["spell_attacks"]["attacked"] == []
    assert figure_state(battle, f["1:Ann"])["hp"] == 11


def test_friendship_after_a_spell_attack_keeps_the_cast_as_the_attack_left_it(battle, alice, bob):
    f = ids(battle)
    cast(battle, alice, f["0:Eve"], "god-or-demon-attack", 10, 10, 10, 1)  # 3: enemies
    acting.spell_attack(battle=battle, by=alice, target=f["1:Ann"], rng=Dice(12))
    # RA 1 + Acc 1 against DF 10: Success Rating 4; Ann moves 3 onto Ben (FR 5).
    acting.transfer_damage(battle=battle, by=bob, transfers={f["1:Ben"]: 3})
    assert (figure_state(battle, f["1:Ann"])["hp"], figure_state(battle, f["1:Ben"])["hp"]) == (
        10,
        8,
    )
    assert battle.state["spell_attacks"]["attacked"] == [str(f["1:Ann"])]


def test_a_spell_attack_that_takes_an_enemy_out_is_in_the_record(battle, alice, bob):
    f = ids(battle)
    eve, cat = f["0:Eve"], f["1:Cat"]
    for _ in range(3):  # Sword Rain: 4 successes, four attacks of Success Rating 3
        cast(battle, alice, eve, "unlimited-sword-rain", 6, 6, 6, 6)
        acting.spell_attack(battle=battle, by=alice, target=cat, rng=Dice(12))
        if figure_state(battle, cat)["status"] == table.figures.OUT_OF_ACTION:
            break
        acting.no_transfer(battle, bob)
    battle.refresh_from_db()
    record = services.record_from_log(battle)
    assert record[str(cat)].out_of_action
    assert record[str(eve)].enemies_out_of_action == 1


# --- the API and the screen ------------------------------------------------------------------


def test_the_api_shows_the_waiting_cast_its_odds_and_rolls_it(battle, alice):
    f = ids(battle)
    api = signed_in(alice)
    base = f"/api/v1/battles/{battle.pk}/"
    cast(battle, alice, f["0:Eve"], "unlimited-sword-rain", 6, 6, 6, 1)  # X = 3
    data = api.get(base).json()
    assert data["spell_attacks"] == {
        "caster": f["0:Eve"],
        "spell": "unlimited-sword-rain",
        "successes": 3,
        "rate_of_fire": 3,
        "accuracy": 0,
        "blast": None,
        "ignores_cover": True,
        "needs_line_of_sight": True,
        "friends_too": False,
        "caster_too": False,
        "targets": 1,
        "targets_left": 1,
        "attacked": [],
        "may_target": [f["1:Emma"], f["1:Ann"], f["1:Ben"], f["1:Cat"]],
        "words": 'one target, range 10": ROF 3, Acc +0, ignores Cover',
    }
    odds = api.post(
        base + "spell-attack-odds/",
        {"target": f["1:Ann"], "situation": {"obscured": "partial", "movement": "none"}},
        format="json",
    )
    assert odds.status_code == 200, odds.json()
    # RA 1 against DF 10 - 1 (did not move); Cover ignored: needs 8, 5 faces of 12.
    assert (odds.json()["needed"], odds.json()["chance_to_hit"]) == (8, "5/12")
    refused = api.post(base + "spell-attack-odds/", {"target": f["0:Al"]}, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "code": "same-side",
            "message": "Unlimited Sword Rain hits enemies.",
            "pointer": "/target",
        }
    ]
    rolled = api.post(
        base + "actions/",
        {"type": "spell-attack", "target": f["1:Ann"], "dice": [12, 1, 9]},
        format="json",
    )
    assert rolled.status_code == 201, rolled.json()
    ann = next(x for x in rolled.json()["sides"][1]["figures"] if x["name"] == "Ann")
    assert ann["hp"] == 8  # 12: Success Rating 3 (needs 9); 1 misses; 9 is Success Rating 0
    assert rolled.json()["spell_attacks"] is None
    again = api.post(
        base + "actions/", {"type": "spell-attack", "target": f["1:Ben"]}, format="json"
    )
    assert again.status_code == 400
    assert again.json()["errors"][0]["code"] == "no-spell-attacks"


def test_the_screen_offers_the_waiting_cast_and_rolls_it(battle, alice, client):
    f = ids(battle)
    client.force_login(alice)
    page = f"/play/{battle.pk}/"
    assert 'id="spell-attack"' not in client.get(page).content.decode()
    cast(battle, alice, f["0:Eve"], "seraphic-bolt", 6, 6, 6, 6)  # 4: ROF 2, Acc +1
    html = client.get(page).content.decode()
    assert "Eve's Seraphic Bolt: roll its attacks" in html
    # The first target offered is Bob's Emma: RA 1 + Acc 1 against DF 8.
    assert "needs 6+" in html
    odds = client.post(
        f"/play/{battle.pk}/spell-attack-odds/",
        {"target": f["1:Ben"], "situation_movement": "none"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "needs 7+" in odds
    client.post(
        f"/play/{battle.pk}/act/",
        {"type": "spell-attack", "target": f["1:Ben"], "obscured": "clear", "dice": "12 12"},
    )
    battle.refresh_from_db()
    assert figure_state(battle, f["1:Ben"])["hp"] == 11 - 4 - 4
    assert battle.status == Battle.Status.PLAYING
    assert 'id="spell-attack"' not in client.get(page).content.decode()
