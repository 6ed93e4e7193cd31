"""Verifiable dice through the services, the API and the pages: a battle commits to its
dice when it starts, draws every server die from its seed, and reveals the seed when it
ends; the revealed seed reproduces every server die of the log (docs/play.md)."""

import hashlib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from play import selectors, services
from play.models import Battle, BattleAction
from play.table.attacks import AttackDeclaration
from play.table.commitment import LoggedDie, check_snippet, commitment_of
from play.table.state import Change
from tests.play import acting
from tests.play.conftest import against_blue, ids, play_force
from tests.roster.builders import emma, student

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_battle(alice):
    """Two forces of Alice's, so she acts for both sides whoever's turn it is."""
    return services.start_battle(
        by=alice,
        forces=[play_force(alice, "Red Club"), play_force(alice, "Blue Club")],
        scenario="Practice",
    )


def server_dice(battle) -> list[int]:
    """Every die the server rolled, in the log's order, undone actions' included."""
    return [
        die
        for action in battle.actions.filter(entered=False).order_by("seq")
        for die in action.dice
    ]


def checked(battle):
    battle.refresh_from_db()
    return selectors.dice_check(battle=battle)


def end(battle, by):
    services.end_battle(battle=battle, by=by, winner=None)
    battle.refresh_from_db()


def test_a_battle_commits_to_a_fresh_seed_when_it_starts(own_battle, alice):
    other = services.start_battle(
        by=alice,
        forces=[play_force(alice, "Green"), play_force(alice, "Gold")],
        scenario="Again",
    )
    assert len(own_battle.dice_seed) == 64
    assert own_battle.dice_seed != other.dice_seed
    assert own_battle.dice_commitment == (
        hashlib.sha256(bytes.fromhex(own_battle.dice_seed)).hexdigest()
    )
    assert own_battle.dice_next == 0


def test_the_revealed_seed_reproduces_every_server_roll_of_a_battle(own_battle, alice):
    battle, f = own_battle, ids(own_battle)
    acting.roll_initiative(battle=battle, by=alice)
    smg = acting.attack(
        battle=battle,
        by=alice,
        declaration=AttackDeclaration(f["0:Cat"], f["1:Ann"], "ranged", "submachine-gun"),
    )
    assert len(smg.dice) > 1  # several attack dice in one action
    acting.attack(
        battle=battle,
        by=alice,
        declaration=AttackDeclaration(f["0:Ann"], f["1:Ben"], "ranged", "light-pistol"),
    )
    undone = services.undo(battle=battle, by=alice)
    redone = acting.attack(
        battle=battle,
        by=alice,
        declaration=AttackDeclaration(f["0:Ann"], f["1:Ben"], "ranged", "light-pistol"),
    )
    # The undone attack's dice stay in the stream: the attack again rolls new ones.
    assert redone.dice_drawn[0][0] > undone.dice_drawn[-1][0]
    acting.cast_spell(battle=battle, by=alice, caster=f["0:Emma"], spell="healing-spring")
    acting.change_figure(battle=battle, by=alice, change=Change(figure=f["0:Ben"], hp=3))
    acting.heal(battle=battle, by=alice, healer=f["0:Emma"], target=f["0:Ben"])
    acting.jump(battle=battle, by=alice, figure=f["0:Ben"], distance=2)
    acting.roll_d12(battle=battle, by=alice, count=3, reason="objectives")
    entered = acting.roll_d12(battle=battle, by=alice, count=2, dice=[12, 12])
    assert entered.dice_drawn == []
    before_end = checked(battle)
    assert before_end.seed is None
    assert before_end.verification is None
    end(battle, alice)

    check = checked(battle)
    assert check.seed == battle.dice_seed
    assert check.verification.seed_matches
    assert check.verification.verified
    assert [d.value for d in check.dice] == server_dice(battle)
    assert [c.derived for c in check.verification.checks] == server_dice(battle)
    rolled = BattleAction.objects.filter(battle=battle, seq__in={d.seq for d in check.dice})
    kinds = {action.kind for action in rolled}
    assert kinds == {"initiative", "attack", "spell", "heal", "jump", "roll"}
    assert any(d.undone for d in check.dice)
    assert 12 not in [d.faces for d in check.dice if d.seq == entered.seq]  # not checked
    # The program anyone can run agrees (Python 3, standard library only).
    exec(check_snippet(check.seed, check.commitment, check.dice), {})


def first_seed_where(battle, act, happened, *, tries: int = 200):
    """Play `act` under the seeds test-0, test-1, ... (set before the battle's first
    server die) until `happened(action)`; every try before that is rolled back."""
    assert battle.dice_next == 0
    for attempt in range(tries):
        seed = hashlib.sha256(f"test-{attempt}".encode()).hexdigest()
        with transaction.atomic():
            Battle.objects.filter(pk=battle.pk).update(
                dice_seed=seed, dice_commitment=commitment_of(seed)
            )
            battle.refresh_from_db()
            action = act()
            if happened(action):
                return action
            transaction.set_rollback(True)
    raise AssertionError(f"Nothing in {tries} seeds did it.")


@pytest.fixture
def wards(alice, bob):
    """Alice: Emma (CA 4, Healing Spring) and Angel (Angelic Healing, Medical Kit)."""
    angel = student(
        "Angel",
        free_advancements=[
            {"line": 5, "skill": "support/angelic-healing", "method": "picked"},
            {"line": 2, "choice": "HP"},
        ],
        equipment=["medical-kit"],
    )
    mage = emma() | {"spells": ["healing-spring", "earth-ward"]}
    return against_blue(alice, bob, mage, angel, student("Cy"), student("Di"), name="Wards")


def test_a_healing_springs_d3_is_drawn_from_the_stream_with_three_faces(wards, alice, bob):
    f = ids(wards)
    acting.change_figure(battle=wards, by=alice, change=Change(figure=f["0:Cy"], hp=2))
    cast = first_seed_where(
        wards,
        lambda: acting.cast_spell(
            battle=wards, by=alice, caster=f["0:Emma"], spell="healing-spring", target=f["0:Cy"]
        ),
        lambda action: action.detail["tier"] is not None and action.detail["tier"] >= 1,
    )
    assert cast.dice_drawn[-1][1] == 3  # the d3 after the CA dice
    assert [faces for _, faces in cast.dice_drawn[:-1]] == [12] * (len(cast.dice) - 1)
    end(wards, bob)
    assert checked(wards).verification.verified


def test_an_angelic_healing_re_roll_is_drawn_from_the_stream(wards, alice):
    f = ids(wards)
    acting.change_figure(
        battle=wards, by=alice, change=Change(figure=f["0:Emma"], hp=0, status="unconscious")
    )
    revive = first_seed_where(
        wards,
        lambda: acting.revive(battle=wards, by=alice, reviver=f["0:Angel"], target=f["0:Emma"]),
        lambda action: len(action.dice) == 2,
    )
    assert "(Angelic Healing)" in revive.words
    end(wards, alice)
    check = checked(wards)
    assert check.verification.verified
    assert [d.value for d in check.dice] == revive.dice


def initiative_and_a_shot(battle, by):
    f = ids(battle)
    acting.roll_initiative(battle=battle, by=by)
    acting.attack(
        battle=battle,
        by=by,
        declaration=AttackDeclaration(f["0:Ann"], f["1:Ben"], "ranged", "light-pistol"),
    )


def played_and_ended(battle, by):
    initiative_and_a_shot(battle, by)
    acting.roll_d12(battle=battle, by=by, count=4)
    end(battle, by)


def test_a_changed_roll_fails_the_check(own_battle, alice):
    played_and_ended(own_battle, alice)
    roll = own_battle.actions.get(kind="roll")
    changed = [roll.dice[0] % 12 + 1, *roll.dice[1:]]
    BattleAction.objects.filter(pk=roll.pk).update(dice=changed)
    check = checked(own_battle)
    assert not check.verification.verified
    assert check.verification.seed_matches
    failed = [c for c in check.verification.checks if not c.matches]
    assert [(c.die.seq, c.die.position, c.die.value) for c in failed] == [
        (roll.seq, 0, changed[0])
    ]
    assert failed[0].problem == f"The seed gives {roll.dice[0]} at index {roll.dice_drawn[0][0]}."
    snippet = check_snippet(check.seed, check.commitment, check.dice)
    with pytest.raises(AssertionError, match=f"index {roll.dice_drawn[0][0]} does not match"):
        exec(snippet, {})


def test_a_changed_seed_fails_the_check(own_battle, alice):
    played_and_ended(own_battle, alice)
    commitment = selectors.dice_commitment(own_battle)
    Battle.objects.filter(pk=own_battle.pk).update(dice_seed="ab" * 32)
    check = checked(own_battle)
    assert not check.verification.seed_matches
    assert not check.verification.verified
    # Checked against what was published at the start, the other seed is no seed of it.
    with pytest.raises(AssertionError, match="not the seed"):
        exec(check_snippet(check.seed, commitment, check.dice), {})


def test_a_battle_from_before_the_commitment_rolls_as_before(own_battle, alice):
    Battle.objects.filter(pk=own_battle.pk).update(dice_seed="", dice_commitment="")
    own_battle.refresh_from_db()
    roll = acting.roll_d12(battle=own_battle, by=alice, count=2)
    assert (len(roll.dice), roll.dice_drawn) == (2, [])
    end(own_battle, alice)
    check = checked(own_battle)
    assert (check.commitment, check.seed, check.verification) == (None, None, None)


# --- what the API and the pages show --------------------------------------------------------


def every_view_of(battle, alice) -> dict[str, str]:
    """Each answer a player, a spectator or the dice check gives about the battle."""
    player, spectator = APIClient(), Client()
    player.force_login(alice)
    page = Client()
    page.force_login(alice)
    token = battle.spectator_token
    return {
        "api": player.get(f"/api/v1/battles/{battle.pk}/").content.decode(),
        "api list": player.get("/api/v1/battles/").content.decode(),
        "api watch": spectator.get(f"/api/v1/battles/watch/{token}/").content.decode(),
        "api dice": player.get(f"/api/v1/battles/{battle.pk}/dice/").content.decode(),
        "api watch dice": spectator.get(f"/api/v1/battles/watch/{token}/dice/").content.decode(),
        "page": page.get(f"/play/{battle.pk}/").content.decode(),
        "state": page.get(f"/play/{battle.pk}/state/").content.decode(),
        "end page": page.get(f"/play/{battle.pk}/end/").content.decode(),
        "watch page": spectator.get(f"/play/watch/{token}/").content.decode(),
        "watch state": spectator.get(f"/play/watch/{token}/state/").content.decode(),
        "dice page": page.get(f"/play/{battle.pk}/dice/").content.decode(),
        "watch dice page": spectator.get(f"/play/watch/{token}/dice/").content.decode(),
    }


def test_the_seed_is_shown_nowhere_before_the_end(own_battle, alice):
    initiative_and_a_shot(own_battle, alice)
    seed, commitment = own_battle.dice_seed, selectors.dice_commitment(own_battle)
    views = every_view_of(own_battle, alice)
    assert {name: seed in text for name, text in views.items()} == dict.fromkeys(views, False)
    shown = {name for name, text in views.items() if commitment in text}
    assert shown == {
        "api",
        "api watch",
        "api dice",
        "api watch dice",
        "page",
        "watch page",
        "dice page",
        "watch dice page",
    }


def test_the_api_and_the_pages_reveal_the_seed_at_the_end(own_battle, alice):
    played_and_ended(own_battle, alice)
    seed = own_battle.dice_seed
    views = every_view_of(own_battle, alice)
    assert {name for name, text in views.items() if seed in text} == {
        "api",
        "api watch",
        "api dice",
        "api watch dice",
        "page",
        "state",
        "watch page",
        "watch state",
        "dice page",
        "watch dice page",
    }
    answer = APIClient()
    answer.force_login(alice)
    data = answer.get(f"/api/v1/battles/{own_battle.pk}/").json()
    token = own_battle.spectator_token
    assert data["dice_commitment"] == {
        "sha256": commitment_of(seed),
        "seed": seed,
        "check_url": f"http://testserver/api/v1/battles/watch/{token}/dice/",
    }
    logged = [line for line in data["log"] if line["dice"] and not line["entered"]]
    assert all(len(line["dice_drawn"]) == len(line["dice"]) for line in logged)


def test_the_dice_check_answers_each_die_and_the_verdict(own_battle, alice):
    played_and_ended(own_battle, alice)
    check = checked(own_battle)
    data = APIClient().get(f"/api/v1/battles/watch/{own_battle.spectator_token}/dice/").json()
    assert (data["status"], data["seed_matches"], data["verified"]) == ("ended", True, True)
    assert (data["commitment"], data["seed"]) == (check.commitment, own_battle.dice_seed)
    assert data["dice"] == [
        {
            "seq": die.seq,
            "position": die.position,
            "value": die.value,
            "index": die.index,
            "faces": die.faces,
            "undone": False,
            "derived": die.value,
            "matches": True,
            "problem": "",
        }
        for die in check.dice
    ]
    page = Client().get(f"/play/watch/{own_battle.spectator_token}/dice/").content.decode()
    assert f"Every one of the {len(check.dice)} server dice matches the seed." in page
    assert page.count(">matches<") == len(check.dice)


def test_the_dice_page_shows_each_die_that_does_not_match(own_battle, alice):
    played_and_ended(own_battle, alice)
    roll = own_battle.actions.get(kind="roll")
    BattleAction.objects.filter(pk=roll.pk).update(dice=[roll.dice[0] % 12 + 1, *roll.dice[1:]])
    page = Client().get(f"/play/watch/{own_battle.spectator_token}/dice/").content.decode()
    assert "Some dice do not match the seed: see below." in page
    assert page.count(">does not match<") == 1
    assert f"The seed gives {roll.dice[0]} at index {roll.dice_drawn[0][0]}." in page


def test_the_dice_page_of_an_unknown_link_is_404(client):
    assert client.get("/play/watch/nope/dice/").status_code == 404
    assert client.get("/api/v1/battles/watch/nope/dice/").status_code == 404


# --- docs/play.md ------------------------------------------------------------------------------


def test_the_documented_program_is_the_one_the_dice_page_gives():
    docs = (Path(settings.BASE_DIR) / "docs" / "play.md").read_text()
    example = [LoggedDie(2, 0, 10, 0, 12), LoggedDie(2, 1, 6, 1, 12)]
    snippet = check_snippet("00" * 32, commitment_of("00" * 32), example)
    documented = re.search(r"## Verify the dice.*?```python\n(.*?)```", docs, re.S)
    assert documented is not None
    assert documented.group(1) == snippet
    exec(snippet, {})  # the example's dice are the example seed's


def test_the_dice_check_by_the_spectator_link_goes_uncompressed(own_battle, alice):
    """Its addresses hold the spectator link: sent as they are (BREACH)."""
    played_and_ended(own_battle, alice)
    token, gzip = own_battle.spectator_token, {"HTTP_ACCEPT_ENCODING": "gzip"}
    answers = {
        "api dice": Client().get(f"/api/v1/battles/watch/{token}/dice/", **gzip),
        "dice page": Client().get(f"/play/watch/{token}/dice/", **gzip),
    }
    assert {name: token in a.content.decode() for name, a in answers.items()} == dict.fromkeys(
        answers, True
    )
    assert {name: a.get("Content-Encoding") for name, a in answers.items()} == dict.fromkeys(
        answers
    )


def test_without_a_spectator_link_the_players_still_check_the_dice(own_battle, alice, eve):
    from play import sharing

    played_and_ended(own_battle, alice)
    sharing.withdraw_spectator_link(battle=own_battle, by=alice)
    player = APIClient()
    player.force_login(alice)
    data = player.get(f"/api/v1/battles/{own_battle.pk}/").json()
    check_url = f"http://testserver/api/v1/battles/{own_battle.pk}/dice/"
    assert data["dice_commitment"]["check_url"] == check_url
    assert player.get(check_url).json()["verified"] is True
    page = Client()
    page.force_login(alice)
    assert "matches the seed" in page.get(f"/play/{own_battle.pk}/dice/").content.decode()
    outsider = APIClient()
    outsider.force_login(eve)
    assert outsider.get(check_url).status_code == 404
