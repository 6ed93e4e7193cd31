"""Spellcasting (P4): CA dice against the Difficulty, the outcome tier and its odds, the
markers a spell places, and what the players do at the table after it."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from dbd_site.errors import Invalid, Problem
from play.table.dice import DIE, Modifier, chance_at_least
from play.table.figures import (
    ACTIVE,
    ANATHEMA_AURA,
    DRAGON_SLAYER,
    EMPOWERED_BLESSINGS,
    EMPOWERED_SCHOOLS,
    LEADERSHIP,
    OUT_OF_ACTION,
    SEALED_POWER,
    Figure,
    clamp_active,
)
from play.table.recovery import restore_hp, wake
from play.table.spell_attacks import (
    attacks_with,
    open_spell_attacks,
    spell_attacks,
)
from play.table.state import (
    EAGLE_EYE,
    EMPOWERED,
    MARKERS,
    BattleState,
    Event,
    Outcome,
    Table,
    add_markers,
    close_spell_attacks,
    forget_spell,
    remove_markers,
)
from rules.catalogue import Spell, SpellOutcome


@dataclass(frozen=True, slots=True)
class SpellPlan:
    spell: str
    spell_name: str
    dice: int  # CA dice
    difficulty: int
    bonus_successes: int  # Supreme Spell Mastery
    modifiers: tuple[Modifier, ...]
    outcomes: tuple[SpellOutcome, ...]
    actions: int = 1

    @property
    def chance_per_die(self) -> Fraction:
        return chance_at_least(self.difficulty)

    def chance_of_successes(self, successes: int) -> Fraction:
        """Exact: the dice that succeed are binomial; Mastery adds a fixed success."""
        k = successes - self.bonus_successes
        if not 0 <= k <= self.dice:
            return Fraction(0)
        p = self.chance_per_die
        return comb(self.dice, k) * p**k * (1 - p) ** (self.dice - k)

    def tier_for(self, successes: int) -> SpellOutcome | None:
        return tier_for(self.outcomes, successes)

    def tier_odds(self) -> list[tuple[SpellOutcome | None, Fraction]]:
        """Each outcome tier with its chance, and None (no effect) first."""
        odds: dict[int | None, Fraction] = {}
        for n in range(self.bonus_successes, self.dice + self.bonus_successes + 1):
            tier = self.tier_for(n)
            key = None if tier is None else self.outcomes.index(tier)
            odds[key] = odds.get(key, Fraction(0)) + self.chance_of_successes(n)
        result: list[tuple[SpellOutcome | None, Fraction]] = [(None, odds.get(None, Fraction(0)))]
        result += [(o, odds.get(i, Fraction(0))) for i, o in enumerate(self.outcomes)]
        return result


def tier_for(outcomes: Sequence[SpellOutcome], successes: int) -> SpellOutcome | None:
    """The tier for a number of successes; above the top tier, the top tier; None: no effect."""
    for outcome in outcomes:
        top = outcome.max_successes
        if successes >= outcome.min_successes and (top is None or successes <= top):
            return outcome
    if outcomes and successes > max(o.max_successes or 0 for o in outcomes):
        best = max(outcomes, key=lambda o: o.min_successes)
        if successes >= best.min_successes:
            return best
    return None


def plan_spell(
    caster: Figure,
    spell: Spell,
    *,
    anathema_aura: bool = False,
    empowered: bool = False,
    chosen: int | None = None,
    statistic_penalty: int = 0,
    forgotten: Iterable[str] = (),
    sealed_power: bool = False,
    leader: Figure | None = None,
) -> SpellPlan:
    """P4: CA dice against the Difficulty (Spell Focus -1, Anathema Aura +1, Empowered
    Blessings +1), Supreme Spell Mastery +1 success; Terrifying Sealed Power +1 CA, a
    leader's CA for the caster's (Leadership), both declared (P2).

    Long because each modifier of P4 is one line, side by side.
    """
    problems: list[Problem] = []
    known = set(caster.spells) - set(forgotten)
    if spell.slug not in known:
        problems.append(
            Problem("/spell", "spell-not-known", f"{caster.name} cannot cast {spell.name}.")
        )
    mods: list[Modifier] = []
    actions = 1
    if spell.slug == DRAGON_SLAYER:
        actions = 2
        if chosen is None or isinstance(chosen, bool) or not 1 <= chosen <= 6:
            problems.append(
                Problem("/chosen", "invalid-chosen-value", "Choose a value from 1 to 6.")
            )
            difficulty = 12
        else:
            difficulty = chosen + 6
    else:
        if chosen is not None:
            problems.append(
                Problem("/chosen", "invalid-chosen-value", "Only Dragon Slayer takes a value.")
            )
        difficulty = spell.difficulty if spell.difficulty is not None else DIE
    if caster.spell_focus:
        mods.append(Modifier("DF", -1, "Spell Focus"))
    if anathema_aura:
        mods.append(Modifier("DF", 1, "Anathema Aura"))
    if empowered:
        if not caster.has(EMPOWERED_BLESSINGS):
            problems.append(
                Problem("/empowered", "skill-missing", "Empowered Blessings is a skill.")
            )
        if spell.school not in EMPOWERED_SCHOOLS:
            problems.append(
                Problem(
                    "/empowered",
                    "situation-not-applicable",
                    "Empowered Blessings works on Restoration and Amplification spells.",
                )
            )
        mods.append(Modifier("DF", 1, "Empowered Blessings"))
    bonus = 1 if caster.mastery == spell.slug else 0
    if bonus:
        mods.append(Modifier("statistic", 1, "Supreme Spell Mastery (+1 success)"))
    if statistic_penalty:
        mods.append(Modifier("statistic", -statistic_penalty, "Sudden Fatigue"))
    ca = caster.stats["CA"]
    if leader is not None:
        mods.append(
            Modifier("statistic", leader.stats["CA"] - ca, f"Leadership ({leader.name}'s CA)")
        )
        ca = leader.stats["CA"]
    if sealed_power:
        if not caster.has(SEALED_POWER):
            problems.append(
                Problem("/sealed_power", "skill-missing", f"{caster.name} lacks that skill.")
            )
        mods.append(Modifier("statistic", 1, "Terrifying Sealed Power"))
        ca += 1
    dice = clamp_active(ca - statistic_penalty)
    if dice < 1:
        problems.append(Problem("/figure", "cannot-cast", f"{caster.name} has CA 0."))
    if problems:
        raise Invalid.of(problems)
    # Difficulty: the text's "Difficulty" modifiers are carried as "DF" lines, as numbers.
    difficulty += sum(m.amount for m in mods if m.applies_to == "DF")
    return SpellPlan(
        spell=spell.slug,
        spell_name=spell.name,
        dice=dice,
        difficulty=difficulty,
        bonus_successes=bonus,
        modifiers=tuple(mods),
        outcomes=spell.outcomes,
        actions=actions,
    )


@dataclass(frozen=True, slots=True)
class SpellResult:
    dice: tuple[int, ...]
    successes: int
    tier: SpellOutcome | None

    def words(self) -> str:
        s = "success" if self.successes == 1 else "successes"
        effect = self.tier.effect if self.tier else "The spell has no effect."
        return f"Rolled {', '.join(map(str, self.dice))}: {self.successes} {s}. {effect}"


def cast(plan: SpellPlan, dice: Sequence[int]) -> SpellResult:
    """Successes are the dice at or above the Difficulty, plus Mastery's (P4)."""
    successes = sum(1 for d in dice if d >= plan.difficulty) + plan.bonus_successes
    return SpellResult(tuple(dice), successes, plan.tier_for(successes))


# The markers a spell places on its target, per outcome tier (in the catalogue's tier
# order); "X" spells place one per success.
SPELL_MARKERS: Mapping[str, tuple[str, tuple[int, ...] | None]] = {
    "protective-wall": ("wall", (1, 2, 3)),
    "soul-bond": ("soul-bond", (1, 1)),
    "earth-ward": ("earth-ward", (1, 2)),
    "clock-down": ("clock-down", (1, 2, 3)),
    "sudden-fatigue": ("sudden-fatigue", (1, 2, 3)),
    "ultimate-bad-luck": ("bad-luck", (1, 2, 3)),
    "clock-up": ("clock-up", (1, 1)),
    "invigorate": ("invigorate", (1, 2, 2)),
    "inspire": ("inspire", (1, 2)),
    "fortify": ("fortify", (1, 1)),
    "eagle-eye": ("eagle-eye", (1, 2, 3)),
    "extreme-speed": ("extreme-speed", None),
}


HEALING_SPRING, REVIVING_BREATH, MANA_OBLITERATION = (
    "healing-spring",
    "reviving-breath",
    "mana-obliteration",
)


DISPEL_MAGIC = "dispel-magic"


def healing_spring_d3(tier_index: int | None) -> bool:
    """Whether the cast's tier rolls Healing Spring's 1d3 (3+ successes: 1d3 + 2 HP)."""
    return tier_index is not None and tier_index >= 1


def healing_spring_hp(tier_index: int, d3: int | None) -> int:
    """HP Healing Spring restores: 2 at 1-2 successes, 1d3 + 2 at 3+."""
    return 2 + (d3 or 0) if healing_spring_d3(tier_index) else 2


def dispelled(markers: Mapping[str, int], tier_index: int) -> list[str] | None:
    """Dispel Magic's markers removed from the target: every spell effect at 3+ successes
    (tier 1); at 1-2 (tier 0) one effect: the only kind of marker it has, or None when the
    players must choose among several (declared as a change)."""
    kinds = sorted(markers)
    if tier_index >= 1 or len(kinds) <= 1:
        return kinds
    return None


def spell_markers(spell: str, plan: SpellPlan, result: SpellResult) -> tuple[str, int] | None:
    """The markers a cast places on its target (P4), or None."""
    if result.tier is None or spell not in SPELL_MARKERS:
        return None
    marker, per_tier = SPELL_MARKERS[spell]
    if per_tier is None:
        return marker, result.successes
    return marker, per_tier[plan.outcomes.index(result.tier)]


# What the players do at the table after a spell (the site knows no positions, P2, and
# makes no choice the rulebook leaves to a player), by outcome tier index; "*" for any tier.
SPELL_AT_THE_TABLE: Mapping[str, Mapping[int | str, str]] = {
    "protective-wall": {2: "The three Wall markers may be shared among any number of targets."},
    "soul-bond": {
        "*": "The target may transfer damage to the caster at any distance (Friendship).",
        1: "Choose an additional target and give it a Soul Bond marker.",
    },
    "dispel-magic": {},
    "savage-exile": {"*": 'Push every figure within 5" X" directly away from the caster.'},
    "uncanny-avenue": {"*": 'Place the caster within 10", out of sight of every enemy.'},
    "clock-down": {"*": "At its next activation the target spends one action per marker."},
    "sudden-fatigue": {
        "*": "Choose the statistics at -1; declare the penalty on its rolls (one marker each)."
    },
    "ultimate-bad-luck": {"*": "Remove a marker at any time to force the figure to re-roll."},
    "mana-obliteration": {
        1: 'The target forgets one spell of the caster\'s choice: "Change a figure", Forget.',
        2: 'The target forgets one spell of the caster\'s choice: "Change a figure", Forget.',
    },
    # The Destruction spells' attacks are rolled by the site (`spell_attacks`); where they
    # fall (range, radius, Blast's push) is the players' to say, in the profile's words.
    DRAGON_SLAYER: {"*": "With no enemy in range, friendly figures must be its targets."},
    "clock-up": {"*": "The target has three actions at its next activation."},
    "invigorate": {
        "*": "Its next melee attack re-rolls and keeps the better (tick it on the attack).",
        2: "The spell may affect one more target: give it the markers too.",
    },
    "extreme-speed": {"*": '+1" on all its movement next activation per marker.'},
    "eagle-eye": {
        "*": 'Its next spell or ranged attack gains +5" range (re-roll to hit from 2 markers, '
        "ignores cover with 3); then remove the markers."
    },
}


def spell_at_the_table(spell: str, tier_index: int | None) -> str:
    """The players' part of a spell's outcome, in words ("" when the site applies it all)."""
    if tier_index is None:
        return ""
    words = SPELL_AT_THE_TABLE.get(spell, {})
    return " ".join(w for key in ("*", tier_index) if (w := words.get(key, "")))


# --- the cast -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cast:
    """A spell as a player declares it (P4): caster, spell, target (None: the caster), and
    what the caster chooses before rolling: Mana Obliteration's spell the target forgets,
    Dispel Magic's effect to remove when 1-2 successes take one of several."""

    caster: object  # ids as sent
    spell: str
    target: object = None
    anathema_aura: bool = False
    empowered: bool = False
    chosen: int | None = None
    sealed_power: bool = False
    leader: object = None
    forget: str | None = None
    dispel: str | None = None


def catalogue_spell(spells: Mapping[str, Spell], slug: str) -> Spell:
    if slug not in spells:
        raise Invalid("spell-not-known", f"No spell {slug!r}.", pointer="/spell")
    return spells[slug]


def plan_declared(
    state: BattleState, figures: Mapping[str, Figure], d: Cast, spells: Mapping[str, Spell]
) -> SpellPlan:
    """The cast as declared in this battle, before rolling: the caster's forgotten spells,
    its HP (Terrifying Sealed Power), its leader (Leadership), and Anathema Aura only when
    an enemy of the caster has it.

    Long because each thing the cast depends on in the battle is read in one place.
    """
    caster_id = str(d.caster)
    if caster_id not in figures or caster_id not in state["figures"]:
        raise Invalid("not-found", f"No figure {d.caster} in this battle.", pointer="/figure")
    caster, current = figures[caster_id], state["figures"][caster_id]
    spell = catalogue_spell(spells, d.spell)
    problems: list[Problem] = []
    if d.anathema_aura and not any(
        figures[fid].has(ANATHEMA_AURA)
        for fid, f in state["figures"].items()
        if fid in figures and f["side"] != current["side"] and f["status"] != OUT_OF_ACTION
    ):
        problems.append(
            Problem(
                "/anathema_aura",
                "skill-missing",
                f"No enemy of {caster.name} in this battle has Anathema Aura.",
            )
        )
    if d.sealed_power and 2 * current["hp"] >= caster.stats["HP"]:
        problems.append(
            Problem(
                "/sealed_power",
                "situation-not-applicable",
                f"Terrifying Sealed Power needs more than half of {caster.name}'s HP lost.",
            )
        )
    leader: Figure | None = None
    if d.leader is not None:
        key = str(d.leader)
        friend = state["figures"].get(key)
        if (
            friend is None
            or key not in figures
            or key == caster_id
            or friend["side"] != current["side"]
            or friend["status"] != ACTIVE
            or not figures[key].has(LEADERSHIP)
        ):
            problems.append(
                Problem(
                    "/leader",
                    "skill-missing",
                    "The leader is an active friend with Super High School Level Leadership.",
                )
            )
        else:
            leader = figures[key]
    if d.dispel is not None and d.dispel not in MARKERS:
        problems.append(Problem("/dispel", "unknown-marker", f"No marker {d.dispel!r}."))
    if problems:
        raise Invalid.of(problems)
    return plan_spell(
        caster,
        spell,
        anathema_aura=d.anathema_aura,
        empowered=d.empowered,
        chosen=d.chosen,
        forgotten=current["forgotten"],
        sealed_power=d.sealed_power,
        leader=leader,
    )


def cast_spell(t: Table, d: Cast) -> Outcome:
    """P4: CA dice against the Difficulty; the outcome tier; its markers on the target,
    Healing Spring's and Reviving Breath's HP, Mana Obliteration's forgetting, Dispel
    Magic's removals, and a Destruction tier's attacks to roll (P7). The caster's Eagle
    Eye markers go with its next spell (their re-roll and Cover for its attacks).

    Long because each outcome of P4 and P7 is applied in one place, side by side.
    """
    caster_id, caster = t.own(d.caster, "/figure")
    spell = catalogue_spell(t.catalogue.spells, d.spell)
    plan = plan_declared(t.state, t.figures, d, t.catalogue.spells)
    target_id = caster_id if d.target is None else t.figure(d.target, "/target")[0]
    target_name = t.name(target_id)
    if d.forget is not None and (
        d.spell != MANA_OBLITERATION or d.forget not in t.figures[target_id].spells
    ):
        raise Invalid(
            "spell-not-known",
            f"Mana Obliteration's target forgets a spell it knows; {target_name} does not "
            f"know {d.forget!r}.",
            pointer="/forget",
        )
    t.actor(d.caster, "/figure")
    eagle_eye = remove_markers(t.state, caster_id, EAGLE_EYE)
    rolls = t.dice.d12(plan.dice)
    result = cast(plan, rolls)
    events: list[Event] = []
    effects: list[str] = []
    if eagle_eye:
        effects.append(f"{caster.name}'s Eagle Eye is spent (+5\" range)")
    placed = spell_markers(d.spell, plan, result)
    if placed is not None:
        add_markers(t.state, target_id, *placed)
        effects.append(f"{placed[1]} {MARKERS[placed[0]]} on {target_name}")
    if result.tier is not None and d.empowered:
        add_markers(t.state, target_id, EMPOWERED, 1)
        effects.append(f"Empowered on {target_name}")
    tier_index = plan.outcomes.index(result.tier) if result.tier else None
    target_state = t.state["figures"][target_id]
    d3: int | None = None
    if d.spell == HEALING_SPRING and healing_spring_d3(tier_index):
        if t.dice.left() == 0:
            raise Invalid(
                "wrong-dice-count",
                f"{result.successes} successes heal 1d3 + 2 HP: enter the d3 (1-3) "
                f"after the {plan.dice} dice.",
                pointer="/dice",
            )
        d3 = t.dice.d3()
    elif d.spell == HEALING_SPRING and t.dice.left():
        raise Invalid(
            "wrong-dice-count",
            f"Only 3 or more successes roll Healing Spring's d3; enter {plan.dice} dice.",
            pointer="/dice",
        )
    if d.spell == HEALING_SPRING and tier_index is not None:
        amount = healing_spring_hp(tier_index, d3)
        if target_state["status"] == ACTIVE:
            restore_hp(t.state, target_id, amount)
            rolled = f" (2 + {d3} on the d3)" if d3 is not None else ""
            effects.append(f"{target_name} recovers {amount} HP{rolled}")
    if d.spell == REVIVING_BREATH and tier_index is not None:
        hp = {0: 1, 1: target_state["max_hp"] // 2}.get(tier_index, target_state["max_hp"])
        events += wake(t.state, target_id, hp)
        if events:
            effects.append(f"{target_name} wakes with {t.state['figures'][target_id]['hp']} HP")
    at_the_table = spell_at_the_table(d.spell, tier_index)
    if d.spell == MANA_OBLITERATION and tier_index is not None:
        if tier_index < 2:
            forget_spell(t.state, caster_id, d.spell)
            effects.append(f"{caster.name} forgets {spell.name}")
        if tier_index >= 1 and d.forget is not None:
            forget_spell(t.state, target_id, d.forget)
            effects.append(f"{target_name} forgets {t.catalogue.spells[d.forget].name}")
            at_the_table = ""
    # A new cast ends the last one's attacks; a Destruction tier opens its own.
    close_spell_attacks(t.state)
    attacks = (
        None
        if tier_index is None
        else spell_attacks(spell, tier_index, result.successes, d.chosen)
    )
    if attacks is not None:
        open_spell_attacks(
            t.state, caster_id, d.spell, tier_index or 0, result.successes, d.chosen
        )
        if eagle_eye:
            t.state["spell_attacks"]["eagle_eye"] = eagle_eye
        effects.append(f"Its attacks: {attacks.words()}; roll them next, one target at a time")
    if d.spell == DISPEL_MAGIC and tier_index is not None:
        removed = dispelled(target_state["markers"], tier_index)
        if removed is None and d.dispel in target_state["markers"]:
            removed = [d.dispel]
        elif removed is None:
            at_the_table = (
                'Choose the spell effect to remove and take its markers off with "Change a '
                'figure".'
            )
        for marker in removed or ():
            count = remove_markers(t.state, target_id, marker)
            effects.append(f"{count} {MARKERS[marker]} removed from {target_name}")
    return Outcome(
        f"{caster.name} casts {plan.spell_name} (Difficulty {plan.difficulty}, "
        f"{plan.dice} dice)"
        # A spell that attacks names its targets as its attacks are rolled.
        + ("" if attacks_with(spell) else f" on {target_name}")
        + f". {result.words()}"
        + (" " + "; ".join(effects) + "." if effects else "")
        + (f" At the table: {at_the_table}" if at_the_table else ""),
        detail={
            "caster": caster_id,
            "target": target_id,
            "spell": d.spell,
            "difficulty": plan.difficulty,
            "successes": result.successes,
            "tier": tier_index,
        },
        events=events,
    )
