"""Every refusal of the table's actions, in the pure package (no database): each declared
attack, cast, heal, change or answer the rules refuse, with every problem it names
(pointer, code and message, all at once: R12), and the battle left as it was. The same
actions, not refused, are in the other table tests: each limit from both sides."""

import pytest

from dbd_site.errors import Conflict, DomainError, Invalid, Problem
from play import table
from play.table.figures import (
    DEADLY_GAMBLE,
    HEAVY_MACHINE_GUN,
    HIDDEN_EXPLOSIVES,
    MEDICAL_KIT,
    OUT_OF_ACTION,
    UNCONSCIOUS,
)
from play.table.movement import Jump
from play.table.recovery import Recovery
from play.table.spell_attacks import SpellAttack
from play.table.state import Change, Roll
from tests.play.tables import Battle, decoded, figure


def club(catalogue) -> Battle:
    """Ann (side 0: RA 3, ME 3, CA 3; Light Pistol, Hand Weapon, Heavy Machine Gun;
    Inspire, Healing Spring, Dragon Slayer, Mana Obliteration), Hal (side 0: a Medical
    Kit), Fay (side 0), Eli (side 1: DF 10; Inspire)."""
    return Battle(
        catalogue,
        a=(
            0,
            figure(
                "Ann",
                RA=3,
                ME=3,
                CA=3,
                equipment=["light-pistol", "hand-weapon", HEAVY_MACHINE_GUN],
                spells=["inspire", "healing-spring", "dragon-slayer", "mana-obliteration"],
            ),
        ),
        h=(0, figure("Hal", equipment=[MEDICAL_KIT])),
        f=(0, figure("Fay")),
        e=(1, figure("Eli", DF=10, spells=["inspire"])),
    )


def shoots(**situation):
    return lambda b: b.attack("a", "e", "ranged", "light-pistol", 6, **situation)


def strikes(weapon="hand-weapon", **situation):
    return lambda b: b.attack("a", "e", "melee", weapon, 6, **situation)


def casts(spell, *faces, **options):
    return lambda b: b.cast("a", spell, *(faces or (1, 1, 1)), **options)


def changes(**change):
    return lambda b: b(table.state.change, Change("f", **change))


def status(fid, value):
    """Before the action: the figure's status (and 0 HP unless active)."""

    def put(b):
        b[fid].update(status=value, hp=0)

    return put


REFUSALS = [
    # --- attacks (P2): what the declared situation cannot be -----------------------------
    (
        "unknown weapon",
        None,
        lambda b: b.attack("a", "e", "ranged", "laser", 6),
        [Problem("/weapon", "weapon-not-carried", "No weapon 'laser'.")],
    ),
    (
        "opponents in melee, ranged",
        None,
        shoots(opponents_in_melee=2),
        [
            Problem(
                "/situation/opponents_in_melee",
                "situation-not-applicable",
                "'opponents in melee' does not apply to a ranged attack.",
            )
        ],
    ),
    (
        "an unseeing target, not a bow",
        None,
        shoots(target_cannot_see_attacker=True),
        [
            Problem(
                "/situation/target_cannot_see_attacker",
                "situation-not-applicable",
                "'target cannot see attacker' does not apply to a non-bow attack.",
            )
        ],
    ),
    (
        "double range without Ballistics",
        None,
        shoots(double_range=True),
        [
            Problem(
                "/situation/double_range",
                "skill-missing",
                "Doubling a weapon's range needs Super High School Level Ballistics.",
            )
        ],
    ),
    (
        "Quickdraw without the skill",
        None,
        lambda b: b.attack("a", "e", "ranged", HEAVY_MACHINE_GUN, 6, 6, 6, quickdraw=True),
        [Problem("/situation/quickdraw", "skill-missing", "Quickdraw is a skill.")],
    ),
    (
        "Quickdraw, a one-action weapon",
        None,
        shoots(quickdraw=True),
        [
            Problem(
                "/situation/quickdraw",
                "situation-not-applicable",
                "'quickdraw' does not apply to a one-action attack.",
            )
        ],
    ),
    (
        "Invigorate's bonus on a ranged attack",
        None,
        shoots(to_hit_bonus=1),
        [
            Problem(
                "/situation/to_hit_bonus",
                "situation-not-applicable",
                "'to hit bonus' does not apply to a ranged attack.",
            )
        ],
    ),
    (
        "a negative penalty",
        None,
        shoots(statistic_penalty=-1),
        [Problem("/situation/statistic_penalty", "invalid", "A penalty is 0 or more.")],
    ),
    (
        "a melee attack after running, no charge",
        None,
        strikes(movement="ran"),
        [
            Problem(
                "/situation/movement",
                "situation-not-applicable",
                "'movement' does not apply to a melee attack.",
            )
        ],
    ),
    (
        "no opponent in melee",
        None,
        strikes(opponents_in_melee=0),
        [
            Problem(
                "/situation/opponents_in_melee",
                "invalid",
                "A figure in melee has at least one opponent.",
            )
        ],
    ),
    (
        "Flurry of Blows without the skill or a charge",
        None,
        strikes(flurry_of_blows=True),
        [
            Problem("/situation/flurry_of_blows", "skill-missing", "Ann lacks that skill."),
            Problem(
                "/situation/flurry_of_blows",
                "situation-conflict",
                "Flurry of Blows follows a charge.",
            ),
        ],
    ),
    (
        "Air Assassination without the skill or a charge",
        None,
        strikes(air_assassination=True),
        [
            Problem("/situation/air_assassination", "skill-missing", "Ann lacks that skill."),
            Problem(
                "/situation/air_assassination",
                "situation-conflict",
                "Air Assassination follows a charge.",
            ),
        ],
    ),
    (
        "Mighty Attack without the skill or a two-handed weapon",
        None,
        strikes(mighty_attack=True),
        [
            Problem("/situation/mighty_attack", "skill-missing", "Mighty Attack is a skill."),
            Problem(
                "/situation/mighty_attack",
                "needs-equipment",
                "Mighty Attack needs a two-handed weapon.",
            ),
        ],
    ),
    (
        "Terrifying Sealed Power without the skill, at full HP",
        None,
        shoots(sealed_power=True),
        [
            Problem("/situation/sealed_power", "skill-missing", "Ann lacks that skill."),
            Problem(
                "/situation/sealed_power",
                "situation-not-applicable",
                "Terrifying Sealed Power needs more than half of Ann's HP lost.",
            ),
        ],
    ),
    (
        "Hidden Explosives without the skill",
        None,
        lambda b: b.attack("a", "e", "ranged", HIDDEN_EXPLOSIVES, 6),
        [Problem("/weapon", "skill-missing", "Ann lacks Hidden Explosives.")],
    ),
    (
        "a friend attacked",
        None,
        lambda b: b.attack("a", "f", "ranged", "light-pistol", 6),
        [Problem("/target", "same-side", "Attack an enemy figure.")],
    ),
    (
        "a target Out of Action",
        status("e", OUT_OF_ACTION),
        shoots(),
        [Problem("/target", "figure-not-active", "Eli is Out of Action.")],
    ),
    (
        "an Unconscious attacker",
        status("a", UNCONSCIOUS),
        shoots(),
        [Problem("/figure", "figure-not-active", "Ann is Unconscious and cannot act.")],
    ),
    (
        "no such attacker",
        None,
        lambda b: b.attack("x", "e", "ranged", "light-pistol", 6),
        [Problem("/figure", "not-found", "No figure x in this battle.")],
    ),
    # --- Heal and Revive ("Other Actions") --------------------------------------------------
    (
        "a Heal without a Medical Kit",
        None,
        lambda b: b(table.recovery.heal, Recovery("f", "a"), faces=(6,)),
        [Problem("/figure", "needs-equipment", "Healing needs a Medical Kit.")],
    ),
    (
        "a Heal on an Unconscious figure (Revive it)",
        status("f", UNCONSCIOUS),
        lambda b: b(table.recovery.heal, Recovery("h", "f"), faces=(6,)),
        [Problem("/target", "figure-not-active", "Fay is Unconscious.")],
    ),
    (
        "an Unconscious healer",
        status("h", UNCONSCIOUS),
        lambda b: b(table.recovery.heal, Recovery("h", "f"), faces=(6,)),
        [Problem("/figure", "figure-not-active", "Hal is Unconscious and cannot act.")],
    ),
    # --- spells (P4) ----------------------------------------------------------------------------
    (
        "no such spell",
        None,
        casts("fireball"),
        [Problem("/spell", "spell-not-known", "No spell 'fireball'.")],
    ),
    (
        "a spell the caster does not know",
        None,
        casts("fortify"),
        [Problem("/spell", "spell-not-known", "Ann cannot cast Fortify.")],
    ),
    (
        "a forgotten spell",
        lambda b: b["a"]["forgotten"].append("inspire"),
        casts("inspire"),
        [Problem("/spell", "spell-not-known", "Ann cannot cast Inspire.")],
    ),
    (
        "Empowered Blessings without the skill, on a Destruction spell",
        lambda b: b.figures.update(a=figure("Ann", CA=3, spells=["seraphic-bolt"])),
        casts("seraphic-bolt", empowered=True),
        [
            Problem("/empowered", "skill-missing", "Empowered Blessings is a skill."),
            Problem(
                "/empowered",
                "situation-not-applicable",
                "Empowered Blessings works on Restoration and Amplification spells.",
            ),
        ],
    ),
    (
        "Terrifying Sealed Power on a cast, at full HP",
        None,
        casts("inspire", sealed_power=True),
        [
            Problem(
                "/sealed_power",
                "situation-not-applicable",
                "Terrifying Sealed Power needs more than half of Ann's HP lost.",
            )
        ],
    ),
    (
        "a leader without Leadership",
        None,
        casts("inspire", leader="f"),
        [
            Problem(
                "/leader",
                "skill-missing",
                "The leader is an active friend with Super High School Level Leadership.",
            )
        ],
    ),
    (
        "no such marker to dispel",
        None,
        casts("inspire", dispel="glow"),
        [Problem("/dispel", "unknown-marker", "No marker 'glow'.")],
    ),
    (
        "a value for a spell other than Dragon Slayer",
        None,
        casts("inspire", chosen=3),
        [Problem("/chosen", "invalid-chosen-value", "Only Dragon Slayer takes a value.")],
    ),
    (
        "Dragon Slayer without a value",
        None,
        casts("dragon-slayer"),
        [Problem("/chosen", "invalid-chosen-value", "Choose a value from 1 to 6.")],
    ),
    (
        "Dragon Slayer above 6",
        None,
        casts("dragon-slayer", chosen=7),
        [Problem("/chosen", "invalid-chosen-value", "Choose a value from 1 to 6.")],
    ),
    (
        "Dragon Slayer below 1",
        None,
        casts("dragon-slayer", chosen=0),
        [Problem("/chosen", "invalid-chosen-value", "Choose a value from 1 to 6.")],
    ),
    (
        "a spell to forget, not Mana Obliteration's",
        None,
        casts("inspire", target="e", forget="inspire"),
        [
            Problem(
                "/forget",
                "spell-not-known",
                "Mana Obliteration's target forgets a spell it knows; Eli does not know "
                "'inspire'.",
            )
        ],
    ),
    (
        "a spell to forget the target does not know",
        None,
        casts("mana-obliteration", target="e", forget="fortify"),
        [
            Problem(
                "/forget",
                "spell-not-known",
                "Mana Obliteration's target forgets a spell it knows; Eli does not know "
                "'fortify'.",
            )
        ],
    ),
    (
        "CA 0",
        lambda b: b.figures.update(a=figure("Ann", CA=0, spells=["inspire"])),
        casts("inspire"),
        [Problem("/figure", "cannot-cast", "Ann has CA 0.")],
    ),
    # --- a declared change (P2) ---------------------------------------------------------------
    (
        "no such status",
        None,
        changes(status="asleep"),
        [Problem("/status", "invalid", "Status is active, unconscious or out-of-action.")],
    ),
    (
        "no such marker",
        None,
        changes(markers={"fortify": 1, "glow": 1}),
        [Problem("/markers/glow", "unknown-marker", "No marker 'glow'.")],  # R12: where sent
    ),
    (
        "no such spell to forget",
        None,
        changes(forget="inspire"),
        [Problem("/forget", "spell-not-known", "Not a spell the figure knows.")],
    ),
    (
        "no such item",
        None,
        changes(discard="smoke-grenade"),
        [Problem("/discard", "unknown-item", "Fay has no smoke-grenade to discard.")],
    ),
    (
        "nothing to change",
        None,
        changes(note="just so"),
        [Problem("", "invalid", "Nothing to change.")],
    ),
    # --- a spell's attacks (P7) ------------------------------------------------------------
    (
        "no cast waiting for its attacks",
        None,
        lambda b: b(table.spell_attacks.spell_attack, SpellAttack("e"), faces=(6,)),
        [
            Problem(
                "/type",
                "no-spell-attacks",
                "No spell's attacks are waiting: cast a Destruction spell first.",
            )
        ],
    ),
    # --- dice entered at the table (P5) -------------------------------------------------------
    (
        "Healing Spring's d3 not entered",
        None,
        lambda b: b.cast("a", "healing-spring", target="f", entered=[7, 7, 7]),
        [
            Problem(
                "/dice",
                "wrong-dice-count",
                "3 successes heal 1d3 + 2 HP: enter the d3 (1-3) after the 3 dice.",
            )
        ],
    ),
    (
        "a d3 entered for 2 successes",
        None,
        lambda b: b.cast("a", "healing-spring", target="f", entered=[7, 7, 1, 2]),
        [
            Problem(
                "/dice",
                "wrong-dice-count",
                "Only 3 or more successes roll Healing Spring's d3; enter 3 dice.",
            )
        ],
    ),
    (
        "a d3 of 4",
        None,
        lambda b: b.cast("a", "healing-spring", target="f", entered=[7, 7, 7, 4]),
        [Problem("/dice/3", "invalid-roll", "4 is not a d3 result (1-3).")],
    ),
    (
        "a die of 13",
        None,
        lambda b: b(table.state.roll, Roll(2), entered=[13, 0]),
        [
            Problem("/dice/0", "invalid-roll", "13 is not a d12 result (1-12)."),
            Problem("/dice/1", "invalid-roll", "0 is not a d12 result (1-12)."),
        ],
    ),
    (
        "too few dice",
        None,
        lambda b: b(table.state.roll, Roll(2), entered=[3]),
        [Problem("/dice", "wrong-dice-count", "This roll takes 2 dice; 1 was entered.")],
    ),
    (
        "too many dice",
        None,
        lambda b: b(table.state.roll, Roll(1), entered=[3, 4]),
        [Problem("/dice", "wrong-dice-count", "This roll takes 1 die; 2 were entered.")],
    ),
    (
        "dice that are not a list",
        None,
        lambda b: b(table.state.roll, Roll(1), entered=7),
        [Problem("/dice", "invalid", "Dice are a list of d12 results.")],
    ),
    (
        "initiative not in rounds",
        None,
        lambda b: b(table.turn.initiative, entered=[7, 3]),
        [Problem("/dice", "invalid", "Rounds of dice, e.g. [[7, 7], [3, 9]].")],
    ),
    (
        "initiative still tied",
        None,
        lambda b: b(table.turn.initiative, entered=[[7, 6]]),  # Blue: +1 for fewer figures
        [Problem("/dice", "wrong-dice-count", "Initiative is still tied: roll again.")],
    ),
    (
        "initiative rolled on after it was settled",
        None,
        lambda b: b(table.turn.initiative, entered=[[9, 3], [1, 2]]),
        [Problem("/dice/1", "wrong-dice-count", "Initiative was settled before the last round.")],
    ),
    (
        "a round of initiative with a die short",
        None,
        lambda b: b(table.turn.initiative, entered=[[9]]),
        [Problem("/dice/0", "wrong-dice-count", "Round 1 of initiative takes 2 dice.")],
    ),
    # --- Jump and Drop checks -----------------------------------------------------------------
    (
        "a jump over 36 inches",
        None,
        lambda b: b(table.movement.jump, Jump("a", 37), faces=(6,)),
        [Problem("/distance", "invalid-distance", "The distance is 0 to 36 inches.")],
    ),
    (
        "a jump under 0 inches",
        None,
        lambda b: b(table.movement.jump, Jump("a", -1), faces=(6,)),
        [Problem("/distance", "invalid-distance", "The distance is 0 to 36 inches.")],
    ),
    (
        "Climbing Gear not carried",
        None,
        lambda b: b(table.movement.jump, Jump("a", 3, discard_climbing_gear=True), faces=(6,)),
        [Problem("/discard_climbing_gear", "unknown-item", "Ann has no Climbing Gear.")],
    ),
    # --- the turn (P1, P8) ----------------------------------------------------------------------
    (
        "Deadly Gamble naming a friend",
        lambda b: b.figures.update(a=figure("Ann", skills=[DEADLY_GAMBLE])),
        lambda b: b(table.turn.deadly_gamble, table.turn.Gamble("a", "f")),
        [Problem("/target", "same-side", "Fay is a friend: name an enemy.")],
    ),
    (
        "an activation ended twice",
        lambda b: b["f"].update(activated=True),
        lambda b: b.activated("f"),
        [Problem("/figure", "invalid", "Fay has activated this turn.")],
    ),
    (
        "Deadly Gamble without the skill",
        None,
        lambda b: b(table.turn.deadly_gamble, table.turn.Gamble("a", "e")),
        [Problem("/figure", "skill-missing", "Ann lacks Deadly Gamble.")],
    ),
    (
        "initiative rolled twice",
        lambda b: b(table.turn.initiative, faces=(9, 3)),
        lambda b: b(table.turn.initiative, faces=(9, 3)),
        [
            Problem(
                "", "initiative-rolled", "Turn 1's initiative is rolled; undo it to roll again."
            )
        ],
    ),
    # --- answers (P9) ---------------------------------------------------------------------------
    (
        "a transfer with nothing to transfer",
        None,
        lambda b: b(table.decisions.transfer, table.decisions.Transfer((("f", 1),))),
        [
            Problem(
                "/transfers",
                "nothing-to-transfer",
                "No attack's damage is waiting for a Friendship transfer.",
            )
        ],
    ),
    (
        "a pass with nothing waiting",
        None,
        lambda b: b.passes(),
        [Problem("/decision", "no-decision", "No such decision is waiting.")],
    ),
    (
        "a Dodge for Cover with nothing waiting",
        None,
        lambda b: b(table.decisions.dodge, table.decisions.Answer(7)),
        [Problem("/decision", "no-decision", "No such decision is waiting.")],
    ),
]


@pytest.mark.parametrize(
    ("setup", "action", "expected"),
    [pytest.param(setup, action, expected, id=name) for name, setup, action, expected in REFUSALS],
)
def test_a_refused_action_names_every_problem_and_changes_nothing(
    catalogue, setup, action, expected
):
    b = club(catalogue)
    if setup is not None:
        setup(b)
    before = decoded(b.state)
    with pytest.raises(DomainError) as error:
        action(b)
    assert list(error.value.problems) == expected
    assert isinstance(
        error.value, Conflict if expected[0].code == "initiative-rolled" else Invalid
    )
    assert b.state == before
