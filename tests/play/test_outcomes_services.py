"""The services apply what `play.table` returns for Protective Wall, Earth Ward, Dispel
Magic, Angelic Healing, Blast and the players' part of a spell or item; undo restores it."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from play import services
from play.table.attacks import AttackDeclaration
from play.table.state import Change
from roster import services as roster_services
from tests.play import acting
from tests.play.conftest import Dice, against_blue, figure_state, ids, play_force, two_players
from tests.roster.builders import emma, force, student

pytestmark = pytest.mark.django_db


@pytest.fixture
def battle(alice, bob):
    """Alice: Emma (CA 4; Healing Spring, Earth Ward, Protective Wall, Dispel Magic) and
    Angel (Angelic Healing, Medical Kit, FR 3); Bob: the play force (Ann: Light Pistol)."""
    wards = emma() | {
        "spells": ["healing-spring", "earth-ward", "protective-wall", "dispel-magic"]
    }
    angel = student(
        "Angel",
        free_advancements=[
            {"line": 5, "skill": "support/angelic-healing", "method": "picked"},
            {"line": 2, "choice": "HP"},
        ],
        equipment=["medical-kit"],
    )
    return against_blue(alice, bob, wards, angel, student("Cy"), student("Di"), name="Wards")


def shoot(battle, by, attacker, target, die):
    return acting.attack(
        battle=battle,
        by=by,
        declaration=AttackDeclaration(attacker, target, "ranged", "light-pistol"),
        rng=Dice(die),
    )


def test_earth_ward_cast_then_halves_the_next_damage_and_undo_restores(battle, alice, bob):
    f = ids(battle)
    emma_id, ann = f["0:Emma"], f["1:Ann"]
    # CA 4 at Difficulty 9: 9, 9, 9, 1 is 3 successes: two Earth Ward markers.
    cast = acting.cast_spell(
        battle=battle, by=alice, caster=emma_id, spell="earth-ward", rng=Dice(9, 9, 9, 1)
    )
    assert cast.detail["tier"] == 1
    assert figure_state(battle, emma_id)["markers"] == {"earth-ward": 2}
    before = figure_state(battle, emma_id)
    # Ann RA 4 against Emma's DF 8, moved: needs 4; 12 is Success Rating 8: halved to 4.
    action = shoot(battle, bob, ann, emma_id, 12)
    after = figure_state(battle, emma_id)
    assert after["hp"] == before["hp"] - 4
    assert after["markers"] == {"earth-ward": 1}
    assert "Earth Ward halves 8 damage to 4." in action.words
    services.undo(battle=battle, by=bob)
    assert figure_state(battle, emma_id) == before


def test_a_wall_reflects_onto_the_attacker_and_undo_restores(battle, alice, bob):
    f = ids(battle)
    emma_id, ann = f["0:Emma"], f["1:Ann"]
    acting.change_figure(
        battle=battle, by=alice, change=Change(figure=emma_id, markers={"wall": 2})
    )
    ann_before = figure_state(battle, ann)
    action = shoot(battle, bob, ann, emma_id, 10)
    assert figure_state(battle, emma_id)["markers"] == {}
    assert figure_state(battle, ann)["hp"] == ann_before["hp"] - 2
    assert "Wall: 2 markers discarded; Ann suffers 2 damage." in action.words
    services.undo(battle=battle, by=bob)
    assert figure_state(battle, ann) == ann_before
    assert figure_state(battle, emma_id)["markers"] == {"wall": 2}


def test_a_miss_keeps_the_wards(battle, alice, bob):
    f = ids(battle)
    acting.change_figure(
        battle=battle, by=alice, change=Change(figure=f["0:Emma"], markers={"wall": 1})
    )
    action = shoot(battle, bob, f["1:Ann"], f["0:Emma"], 1)
    assert figure_state(battle, f["0:Emma"])["markers"] == {"wall": 1}
    assert "Wall" not in action.words


def test_dispel_magic_removes_what_the_tier_says(battle, alice, bob):
    f = ids(battle)
    emma_id, ann = f["0:Emma"], f["1:Ann"]
    acting.change_figure(
        battle=battle, by=bob, change=Change(figure=ann, markers={"fortify": 1, "inspire": 2})
    )
    # Difficulty 6: two successes is tier 0: two kinds of marker, so the players choose.
    told = acting.cast_spell(
        battle=battle,
        by=alice,
        caster=emma_id,
        spell="dispel-magic",
        target=ann,
        rng=Dice(6, 6, 1, 1),
    )
    assert figure_state(battle, ann)["markers"] == {"fortify": 1, "inspire": 2}
    assert told.words.endswith(
        "At the table: Choose the spell effect to remove and take its markers off with "
        '"Change a figure".'
    )
    # Three successes: every spell effect goes.
    action = acting.cast_spell(
        battle=battle,
        by=alice,
        caster=emma_id,
        spell="dispel-magic",
        target=ann,
        rng=Dice(6, 6, 6, 1),
    )
    assert figure_state(battle, ann)["markers"] == {}
    assert "1 Fortify removed from Ann; 2 Inspire removed from Ann." in action.words
    services.undo(battle=battle, by=alice)
    assert figure_state(battle, ann)["markers"] == {"fortify": 1, "inspire": 2}


def test_angelic_healing_rerolls_a_failed_revive_only(battle, alice):
    f = ids(battle)
    angel, emma_id = f["0:Angel"], f["0:Emma"]
    acting.change_figure(
        battle=battle, by=alice, change=Change(figure=emma_id, hp=0, status="unconscious")
    )
    fr = figure_state(battle, emma_id)  # Emma's FR 3: 12 fails, 2 revives
    action = acting.revive(battle=battle, by=alice, reviver=angel, target=emma_id, rng=Dice(12, 2))
    assert action.dice == [12, 2]
    assert "rolled 12, re-rolled 2 (Angelic Healing)" in action.words
    assert figure_state(battle, emma_id)["status"] == "active"
    services.undo(battle=battle, by=alice)
    assert figure_state(battle, emma_id) == fr
    services.undo(battle=battle, by=alice)  # Emma awake again
    # Emma has no Angelic Healing: her failed Heal stands (one die).
    acting.change_figure(battle=battle, by=alice, change=Change(figure=angel, hp=5))
    plain = acting.heal(battle=battle, by=alice, healer=emma_id, target=angel, rng=Dice(3, 12))
    assert plain.dice == [3]


def test_angelic_healing_rerolls_a_heal_that_heals_nothing(battle, alice):
    f = ids(battle)
    angel, ann_ally = f["0:Angel"], f["0:Emma"]
    acting.change_figure(battle=battle, by=alice, change=Change(figure=ann_ally, hp=5))
    nothing_then_some = acting.heal(
        battle=battle, by=alice, healer=angel, target=ann_ally, rng=Dice(4, 7)
    )
    assert nothing_then_some.dice == [4, 7]
    assert nothing_then_some.detail["amount"] == 2
    kept = acting.heal(battle=battle, by=alice, healer=angel, target=ann_ally, rng=Dice(9, 1))
    assert kept.dice == [9]  # healed something: no re-roll
    entered = acting.heal(battle=battle, by=alice, healer=angel, target=ann_ally, dice=[1])
    assert entered.dice == [1]  # entered dice: the table made any re-roll itself


def test_a_discarded_item_tells_the_players(alice, bob):
    mine = play_force(alice, "Red")
    smoke = student("Sam", equipment=["smoke-grenade"])
    theirs = roster_services.import_force(
        owner=bob, document=force(smoke, student("Cy"), student("Di"), student("Ed"), name="Smoke")
    )
    assert theirs.is_legal, theirs.evaluation["errors"]
    battle = two_players(alice, [mine, theirs], "Smoke", bob)
    sam = ids(battle)["1:Sam"]
    action = acting.change_figure(
        battle=battle, by=bob, change=Change(figure=sam, discard="smoke-grenade")
    )
    assert action.words == (
        'Sam: discards smoke grenade. At the table: Place a 5" smoke template; it blocks '
        "line of sight until the turn ends."
    )


def test_the_api_answers_the_warded_state(battle, alice, bob):
    f = ids(battle)
    acting.change_figure(
        battle=battle, by=alice, change=Change(figure=f["0:Emma"], markers={"earth-ward": 1})
    )
    api = APIClient()
    api.force_login(bob)
    response = api.post(
        f"/api/v1/battles/{battle.pk}/actions/",
        {
            "type": "attack",
            "figure": f["1:Ann"],
            "target": f["0:Emma"],
            "kind": "ranged",
            "weapon": "light-pistol",
            "dice": [12],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    emma_json = next(
        fig for fig in response.json()["sides"][0]["figures"] if fig["name"] == "Emma"
    )
    assert emma_json["markers"] == {}
    attack = next(line for line in response.json()["log"] if line["kind"] == "attack")
    assert "Earth Ward halves 8 damage to 4." in attack["words"]
    undone = api.post(f"/api/v1/battles/{battle.pk}/undo/", format="json")
    assert undone.status_code in (200, 201), undone.json()
    emma_json = next(fig for fig in undone.json()["sides"][0]["figures"] if fig["name"] == "Emma")
    assert emma_json["markers"] == {"earth-ward": 1}


def test_the_change_form_forgets_a_spell(battle, alice):
    """Mana Obliteration's target forgets a spell of the caster's choice, declared on the
    screen's change form."""
    page = Client()
    page.force_login(alice)
    emma_id = ids(battle)["0:Emma"]
    screen = page.get(f"/play/{battle.pk}/?figure={emma_id}&do=change").content.decode()
    assert '<option value="earth-ward">Earth Ward</option>' in screen
    response = page.post(
        f"/play/{battle.pk}/act/", {"type": "change", "figure": emma_id, "forget": "earth-ward"}
    )
    assert response.status_code == 302
    assert figure_state(battle, emma_id)["forgotten"] == ["earth-ward"]
    refused = page.post(
        f"/play/{battle.pk}/act/",
        {"type": "change", "figure": ids(battle)["0:Angel"], "forget": "earth-ward"},
        HTTP_HX_REQUEST="true",
    )
    assert refused.status_code == 400
    assert "Not a spell the figure knows." in refused.content.decode()
