"""Issue #30's rules through the API, each at both sides of its boundary: durations and
Determination (P8), Climbing Gear, re-rolls, Friendship after several dice (P3), spell
tier odds, the skills that change a roll, one initiative a turn, and the sides and their
decisions (P9). Red (Alice, side 0) and Blue (Bob, side 1) are the play force: Emma
(ME1 RA1 CA4 DF8 HP12 FR3, Healing Spring, Medical Kit), Ann (RA4, Light Pistol), Ben
(ME1, Hand Weapon), Cat (RA4, Submachine Gun); the students DF10 HP11 FR5."""

import pytest
from rest_framework.test import APIClient

from campaign.models import Battle as CampaignBattle
from play import services
from play.models import BattleFigure
from tests.play.conftest import ids, play_force
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def battle(campaign_battle):
    return campaign_battle


@pytest.fixture
def f(battle):
    return ids(battle)


def give(fid, **more):
    """More of each list of a figure's numbers in this battle's copy (skills, spells...)."""
    figure = BattleFigure.objects.get(pk=fid)
    figure.numbers = {
        **figure.numbers,
        **{key: [*figure.numbers[key], *values] for key, values in more.items()},
    }
    figure.save()


def post(client, battle, body, status=201, tail="actions/"):
    response = client.post(f"/api/v1/battles/{battle.pk}/{tail}", body, format="json")
    assert response.status_code == status, (body, response.json())
    return response.json()


def errors(answer):
    return [(e["pointer"], e["code"]) for e in answer["errors"]]


def figure_of(answer, fid):
    return next(x for side in answer["sides"] for x in side["figures"] if x["id"] == fid)


def shoot(client, battle, attacker, target, *dice, weapon="light-pistol", status=201, **situation):
    return post(
        client,
        battle,
        {
            "type": "attack",
            "figure": attacker,
            "target": target,
            "kind": "ranged",
            "weapon": weapon,
            "dice": list(dice),
            "situation": situation,
        },
        status,
    )


def odds(client, battle, attacker, target, kind="ranged", weapon="light-pistol", status=200, **s):
    body = {"figure": attacker, "target": target, "kind": kind, "weapon": weapon, "situation": s}
    return post(client, battle, body, status, tail="odds/")


# --- P8 ---------------------------------------------------------------------------------------


def test_fortify_on_oneself_runs_to_the_next_activation(battle, f, alice_api, bob_api):
    give(f["0:Emma"], spells=["fortify"])
    cast = {"type": "spell", "figure": f["0:Emma"], "spell": "fortify", "dice": [8, 8, 1, 1]}
    answer = post(alice_api, battle, cast)
    assert figure_of(answer, f["0:Emma"])["markers"] == {"fortify": 1}
    assert figure_of(answer, f["0:Emma"])["lapses"] == {"fortify": 2}
    answer = post(alice_api, battle, {"type": "activate", "figure": f["0:Emma"]})
    assert figure_of(answer, f["0:Emma"])["markers"] == {"fortify": 1}
    assert odds(bob_api, battle, f["1:Ann"], f["0:Emma"])["target_df"] == 10
    post(bob_api, battle, {"type": "next-turn"})
    answer = post(alice_api, battle, {**cast, "dice": [1, 1, 1, 1]})
    assert answer["log"][0]["words"].startswith("Fortify lapsed as Emma activates.")
    assert figure_of(answer, f["0:Emma"])["markers"] == {}
    assert odds(bob_api, battle, f["1:Ann"], f["0:Emma"])["target_df"] == 8


def test_determination_takes_its_student_out_after_the_activation(battle, f, alice_api, bob_api):
    give(f["0:Ben"], skills=["movement/determination"])
    post(
        alice_api,
        battle,
        {"type": "change", "figure": f["0:Ben"], "hp": 0, "status": "unconscious"},
    )
    answer = post(
        alice_api, battle, {"type": "jump", "figure": f["0:Ben"], "distance": 0, "dice": [9]}
    )
    assert "Ben acts through Determination: Out of Action after it." in answer["log"][0]["words"]
    assert (answer["activating"], figure_of(answer, f["0:Ben"])["status"]) == (
        f["0:Ben"],
        "unconscious",
    )
    answer = post(alice_api, battle, {"type": "activate", "figure": f["0:Ben"]})
    assert figure_of(answer, f["0:Ben"])["status"] == "out-of-action"
    ended = post(alice_api, battle, {"winner": None}, 200, tail="end/")
    line = next(m for m in ended["record"]["sides"][0]["members"] if m["name"] == "Ben")
    assert (line["unconscious"], line["out_of_action"]) == (True, True)


def test_climbing_gear_discarded_gives_nothing_afterwards(battle, f, alice_api):
    give(f["0:Ann"], equipment=["climbing-gear"])
    jump = {"type": "jump", "figure": f["0:Ann"], "distance": 6}
    answer = post(alice_api, battle, {**jump, "discard_climbing_gear": True, "dice": [2]})
    assert answer["result"]["detail"]["needed"] == 6
    assert figure_of(answer, f["0:Ann"])["discarded"] == ["climbing-gear"]
    answer = post(alice_api, battle, {**jump, "dice": [6]})
    assert (answer["result"]["detail"]["needed"], figure_of(answer, f["0:Ann"])["hp"]) == (7, 10)


def test_invigorate_rolls_a_second_die_and_goes(battle, f, alice_api):
    post(alice_api, battle, {"type": "change", "figure": f["0:Ben"], "markers": {"invigorate": 1}})
    melee = {"figure": f["0:Ben"], "target": f["1:Emma"], "kind": "melee", "weapon": "hand-weapon"}
    before = post(alice_api, battle, melee, 200, tail="odds/")
    # ME 1 against DF 8: needs 7; best of two: 1 - (6/12)^2 = 3/4.
    assert (before["needed"], before["chance_to_hit"], before["best_of_two"]) == (7, "3/4", True)
    refused = post(alice_api, battle, {"type": "attack", **melee, "dice": [3]}, 400)
    assert errors(refused) == [("/dice", "wrong-dice-count")]
    answer = post(alice_api, battle, {"type": "attack", **melee, "dice": [3, 9]})
    assert answer["result"]["detail"]["results"] == [
        {"roll": 9, "success_rating": 2, "damage": 2, "hit": True, "rolls": [3, 9]}
    ]
    assert answer["result"]["dice"] == [3, 9]
    assert figure_of(answer, f["0:Ben"])["markers"] == {}
    assert post(alice_api, battle, melee, 200, tail="odds/")["best_of_two"] is False


# --- P3 and P9: Friendship after several dice, waiting for the defender -----------------------


def test_a_transfer_after_several_dice_is_the_defenders_and_waits(battle, f, alice_api, bob_api):
    answer = shoot(bob_api, battle, f["1:Cat"], f["0:Ann"], 12, 11, weapon="submachine-gun")
    # RA 4, ACC -1 against DF 10: Success Ratings 5 and 4; Ann 11 -> 2.
    assert figure_of(answer, f["0:Ann"])["hp"] == 2
    transfer, dodge = answer["decisions"]
    assert transfer == {
        "id": transfer["id"],
        "kind": "transfer",
        "side": 0,
        "figure": f["0:Ann"],
        "attacker": f["1:Cat"],
        "damage": 9,
        "inches": None,
        "friends": [
            {"figure": f["0:Emma"], "limit": 3},
            {"figure": f["0:Ben"], "limit": 5},
            {"figure": f["0:Cat"], "limit": 5},
        ],
        "yours": False,  # Bob reads it: it is Alice's to answer
        "words": "Ann took 9 damage: move some onto friends (Friendship), or pass.",
    }
    assert (dodge["kind"], dodge["side"], dodge["inches"]) == ("dodge", 0, 2)
    # The attacker moves on: the decision waits.
    post(bob_api, battle, {"type": "activate", "figure": f["1:Cat"]})
    theirs = {"type": "transfer", "transfers": [{"figure": f["1:Ben"], "amount": 1}]}
    refused = post(bob_api, battle, theirs, 403)
    assert errors(refused) == [("/decision", "not-your-figure")]
    blocked = shoot(bob_api, battle, f["1:Ann"], f["0:Ann"], 12, status=409)
    assert errors(blocked) == [("", "decision-pending")]
    moved = {"type": "transfer", "transfers": [{"figure": f["0:Ben"], "amount": 5}]}
    answer = post(alice_api, battle, moved)
    assert answer["log"][0]["words"] == "Friendship: Ann transfers 5 to Ben."
    assert (figure_of(answer, f["0:Ann"])["hp"], figure_of(answer, f["0:Ben"])["hp"]) == (7, 6)
    assert [d["kind"] for d in answer["decisions"]] == ["dodge"]
    assert answer["decisions"][0]["yours"] is True
    post(alice_api, battle, {"type": "dodge"})
    shoot(bob_api, battle, f["1:Ann"], f["0:Ann"], 1)  # a miss: on it goes


def test_the_end_passes_what_still_waits(battle, f, alice_api, bob_api):
    shoot(alice_api, battle, f["0:Ann"], f["1:Ben"], 12)
    ended = post(alice_api, battle, {"winner": 0}, 200, tail="end/")
    assert ended["log"][0]["words"] == (
        "alice ended the battle: won by Red Club. Passed, unanswered: Friendship transfer for "
        "Ben; Dodge for Cover for Ben."
    )
    assert (ended["decisions"], ended["undo"]) == ([], None)
    assert errors(post(bob_api, battle, {"type": "pass"}, 409)) == [("", "battle-ended")]
    assert CampaignBattle.objects.count() == 1


# --- P9: each side its own ----------------------------------------------------------------


def test_a_player_acts_for_their_own_figures_only(battle, f, alice_api, bob_api):
    refused = shoot(
        alice_api, battle, f["1:Cat"], f["0:Ann"], 12, weapon="submachine-gun", status=403
    )
    assert errors(refused) == [("/figure", "not-your-figure")]
    refused = post(alice_api, battle, {"type": "change", "figure": f["1:Cat"], "hp": 1}, 403)
    assert errors(refused) == [("/figure", "not-your-figure")]
    battle.refresh_from_db()
    assert battle.version == 1


def test_undo_says_what_and_whose_and_is_the_owners(battle, f, alice_api, bob_api):
    assert alice_api.get(f"/api/v1/battles/{battle.pk}/").json()["undo"] is None
    shoot(alice_api, battle, f["0:Ann"], f["1:Ben"], 1)  # a miss
    seen = bob_api.get(f"/api/v1/battles/{battle.pk}/").json()["undo"]
    assert seen == {
        "seq": 2,
        "kind": "attack",
        "words": "Ann attacks Ben (ranged, Light Pistol; needs 6+): rolled 1. Miss: nothing "
        "happens. (dice entered as rolled)",
        "side": 0,
        "player": "alice",
        "yours": False,
    }
    refused = post(bob_api, battle, {}, 403, tail="undo/")
    assert errors(refused) == [("", "not-your-figure")]
    assert post(alice_api, battle, {}, 200, tail="undo/")["log"][0]["undone"] is True
    post(bob_api, battle, {"type": "initiative", "dice": [[8, 3]]})
    mine = alice_api.get(f"/api/v1/battles/{battle.pk}/").json()["undo"]
    assert (mine["kind"], mine["side"], mine["player"], mine["yours"]) == (
        "initiative",
        None,
        None,
        True,
    )
    post(alice_api, battle, {}, 200, tail="undo/")  # the battle's own: either player


def test_one_player_holding_both_sides_acts_for_both(alice):
    battle = services.start_battle(
        by=alice,
        forces=[play_force(alice, "First"), play_force(alice, "Second")],
        scenario="Drill",
    )
    f, alice_api = ids(battle), signed_in(alice)
    answer = shoot(alice_api, battle, f["0:Ann"], f["1:Ben"], 12)
    assert answer["my_sides"] == [0, 1]
    assert [d["yours"] for d in answer["decisions"]] == [True, True]
    post(
        alice_api, battle, {"type": "transfer", "transfers": [{"figure": f["1:Cat"], "amount": 2}]}
    )
    shoot(alice_api, battle, f["1:Cat"], f["0:Ann"], 1, 1, weapon="submachine-gun")
    post(alice_api, battle, {}, 200, tail="undo/")


def test_the_watchers_answer_offers_nothing(battle, f, alice_api):
    shoot(alice_api, battle, f["0:Ann"], f["1:Ben"], 12)
    watched = APIClient().get(f"/api/v1/battles/watch/{battle.spectator_token}/").json()
    assert watched["my_sides"] == []
    assert [d["yours"] for d in watched["decisions"]] == [False, False]
    assert watched["undo"]["yours"] is False


# --- spell tier odds, skills, the turn ------------------------------------------------------


def test_spell_tier_odds_in_the_api(battle, f, alice_api, bob_api):
    body = {"figure": f["0:Emma"], "spell": "healing-spring"}
    answer = post(alice_api, battle, body, 200, tail="spell-odds/")
    # 4 dice at Difficulty 7 (each 1/2): none 1/16; 1-2 successes 10/16; 3+ 5/16.
    assert answer == {
        "dice": 4,
        "difficulty": 7,
        "bonus_successes": 0,
        "modifiers": [],
        "tiers": [
            {"label": "No effect", "effect": "", "chance": "1/16", "percent": 6.2},
            {
                "label": "1-2 successes",
                "effect": "The target recovers 2 HP.",
                "chance": "5/8",
                "percent": 62.5,
            },
            {
                "label": "3+ successes",
                "effect": "The target recovers 1d3+2 HP.",
                "chance": "5/16",
                "percent": 31.2,
            },
        ],
    }
    refused = post(alice_api, battle, {**body, "anathema_aura": True}, 400, tail="spell-odds/")
    assert errors(refused) == [("/anathema_aura", "skill-missing")]
    give(f["1:Ann"], skills=["spellcasting/anathema-aura"])
    aura = post(alice_api, battle, {**body, "anathema_aura": True}, 200, tail="spell-odds/")
    assert (aura["difficulty"], aura["tiers"][0]["chance"]) == (8, "2401/20736")


@pytest.mark.parametrize(("hp", "status"), [(6, 400), (5, 200)])  # HP 11: more than half lost
def test_terrifying_sealed_power_through_the_odds(battle, f, alice_api, hp, status):
    give(f["0:Ann"], skills=["support/terrifying-sealed-power"])
    post(alice_api, battle, {"type": "change", "figure": f["0:Ann"], "hp": hp})
    answer = odds(alice_api, battle, f["0:Ann"], f["1:Ben"], status=status, sealed_power=True)
    if status == 200:
        assert answer["statistic_value"] == 5
    else:
        assert errors(answer) == [("/situation/sealed_power", "situation-not-applicable")]


def test_air_assassination_through_the_odds(battle, f, alice_api):
    melee = {"kind": "melee", "weapon": "hand-weapon", "charged": True}
    assert odds(alice_api, battle, f["0:Ben"], f["1:Ben"], **melee)["modified_df"] == 9
    refused = odds(alice_api, battle, f["0:Ben"], f["1:Ben"], status=400, air_assassination=True,
                   **melee)  # fmt: skip
    assert errors(refused) == [("/situation/air_assassination", "skill-missing")]
    give(f["0:Ben"], skills=["melee/air-assassination"])
    assert (
        odds(alice_api, battle, f["0:Ben"], f["1:Ben"], air_assassination=True, **melee)[
            "modified_df"
        ]
        == 7
    )


def test_a_jump_dashing_in_heavy_armour_is_a_refused_move(battle, f, alice_api):
    give(f["0:Ann"], equipment=["heavy-armour"])
    jump = {"type": "jump", "figure": f["0:Ann"], "distance": 2, "dice": [9]}
    refused = post(alice_api, battle, {**jump, "movement": "dashed"}, 400)
    assert errors(refused) == [("/movement", "movement-refused")]
    post(alice_api, battle, {**jump, "movement": "ran"})


def test_one_initiative_roll_a_turn(battle, alice_api, bob_api):
    post(alice_api, battle, {"type": "initiative", "dice": [[8, 3]]})
    refused = post(bob_api, battle, {"type": "initiative", "dice": [[3, 8]]}, 409)
    assert errors(refused) == [("", "initiative-rolled")]
    post(bob_api, battle, {"type": "next-turn"})
    post(bob_api, battle, {"type": "initiative", "dice": [[3, 8]]})
