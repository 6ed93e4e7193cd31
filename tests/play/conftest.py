"""Play-mode fixtures: two players with a force each, in a campaign and out of it."""

import random

import pytest

from campaign import services as campaign_services
from play import services, sharing
from roster import services as roster_services
from tests.roster.builders import emma, force, student


class Dice(random.Random):
    """Dice that come up as listed, then repeat the last one; for exact service tests."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0) if len(self.faces) > 1 else self.faces[0]
        assert a <= face <= b
        return face


def play_force(owner, name: str):
    """A legal force of four with weapons: Emma (Simple Weapon, Medical Kit, Healing
    Spring), Ann (Light Pistol, RA 4), Ben (Hand Weapon, ME 1), Cat (Submachine Gun).
    The three students are technical: ME1 RA4 CA1 DF10 HP11 FR5."""
    document = force(
        emma(),
        student("Ann", equipment=["light-pistol"]),
        student("Ben", equipment=["hand-weapon"]),
        student("Cat", equipment=["submachine-gun"]),
        name=name,
    )
    made = roster_services.import_force(owner=owner, document=document)
    assert made.is_legal, made.evaluation["errors"]
    return made


@pytest.fixture
def red(campaign, alice):
    return campaign_services.enter_force(
        campaign=campaign, player=alice, force=play_force(alice, "Red Club")
    )


@pytest.fixture
def blue(campaign, bob):
    return campaign_services.enter_force(
        campaign=campaign, player=bob, force=play_force(bob, "Blue Club")
    )


@pytest.fixture
def campaign_battle(campaign, alice, red, blue):
    return services.start_battle(
        by=alice, forces=[red.force, blue.force], scenario="Rooftop Duel", campaign=campaign
    )


def two_players(starter, forces, scenario: str, *owners):
    """A one-off the starter began with others' forces (as from their share links), each
    owner having accepted to play their own side (`play.sharing`)."""
    battle = services.start_battle(by=starter, forces=forces, scenario=scenario)
    for owner in owners:
        battle = sharing.accept_invitation(battle_id=battle.pk, user=owner)
    return services.Battle.objects.get(pk=battle.pk)


@pytest.fixture
def one_off(alice, bob):
    mine = play_force(alice, "Alice's Club")
    theirs = play_force(bob, "Bob's Club")
    return two_players(alice, [mine, theirs], "Practice", bob)


def ids(battle) -> dict[str, int]:
    """Figure ids by "<side>:<name>", e.g. "0:Ann" for the first side's Ann."""
    return {
        f"{figure.side.position}:{figure.name}": figure.pk
        for figure in services.BattleFigure.objects.filter(side__battle=battle).select_related(
            "side"
        )
    }


def against_blue(alice, bob, *members, name: str):
    """A one-off between Alice's force of `members` (legal) and Bob's play force."""
    mine = roster_services.import_force(owner=alice, document=force(*members, name=name))
    assert mine.is_legal, mine.evaluation["errors"]
    return two_players(alice, [mine, play_force(bob, "Blue Club")], name, bob)


def storm(alice, bob):
    """Alice's Storm: Eve (Emma's numbers, RA 1, CA 4; core school Destruction: Seraphic
    Bolt, Thunder God's Bolt, God Or Demon Attack, Unlimited Sword Rain), Al, Bo, Cy;
    against Bob's play force (Emma; Ann, Ben, Cat: RA 4, DF 10, HP 11)."""
    eve = emma() | {
        "name": "Eve",
        "core_schools": ["destruction"],
        "spells": [
            "seraphic-bolt",
            "thunder-gods-bolt",
            "god-or-demon-attack",
            "unlimited-sword-rain",
        ],
    }
    return against_blue(alice, bob, eve, student("Al"), student("Bo"), student("Cy"), name="Storm")


def figure_state(battle, fid):
    """A figure's state as stored now."""
    battle.refresh_from_db()
    return battle.state["figures"][str(fid)]
