"""Plain-words explanations of the binding rulings, for the rules-notes page.

Each ruling keeps the id it has in RULINGS.md (R1, R2, ...), so code, error
messages and tests can link to `/rules/notes/#r6` and the like.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Ruling:
    id: str  # "R1"
    title: str
    plain_explanation: str

    @property
    def anchor(self) -> str:
        return self.id.lower()


@dataclass(frozen=True, slots=True)
class RulingSection:
    title: str
    rulings: tuple[Ruling, ...]


@dataclass(frozen=True, slots=True)
class WorkedExample:
    name: str
    steps: tuple[str, ...]


CREATING_A_STUDENT = (
    Ruling(
        "R1",
        "Starting statistics",
        "Hand out 3, 2, 2 and 1 across ME, RA, CA and DF, one value each, in whatever order "
        "suits the student. Other numbers are not allowed. Then add 6 to DF. Everyone "
        "starts on 10 HP, 5 FR and level 1.",
    ),
    Ruling(
        "R2",
        "Club and society",
        "Give each student a club name (up to 60 characters) and say which society the "
        "club belongs to. Academic: lose 1 from ME or RA, gain 1 CA. Sporting: lose 1 CA, "
        "gain 1 in ME or RA. Technical: lose 1 ME, gain 1 in RA or CA. Where the society "
        "says 'or', you pick the statistic.",
    ),
    Ruling(
        "R3",
        "Limits on statistics",
        "ME, RA and CA must stay between 0 and 5, and DF may not pass 16, at every step of "
        "creation. A choice that would break a limit is refused rather than quietly "
        "trimmed. FR cannot drop below 0. Armour and shields that would lift DF past 16 "
        "are still allowed: DF simply stops at 16 and the builder warns you.",
    ),
    Ruling(
        "R4",
        "Two free advancements",
        "Every student takes two free advancements from their society's table of six, and "
        "they must be two different lines. Lines offering 'or' need you to pick one side. "
        "Technical line 1 ('+1 to any Statistic') can raise ME, RA, CA or DF.",
    ),
    Ruling(
        "R5",
        "Skills from free advancements",
        "A skill line gives a skill from its category. Roll for it and FR stays as it is, "
        "though each re-roll you ask for costs 1 FR; or simply pick the skill for 2 FR. "
        "The site rolls the d12: a number past the end of the table is rolled again for "
        "free, a natural 12 lets you roll on any skill table instead, and a skill the "
        "student already has (or cannot combine, like the two Determination skills) lets "
        "you pick freely from that table at no cost. Every roll is kept and shown; rolls "
        "in an imported document are marked as unchecked.",
    ),
    Ruling(
        "R6",
        "Buying advancements",
        "Extra advancements cost Resources and come from the student's own society table. "
        "Buy statistics first, skills after. At creation the same statistic line cannot "
        "be taken twice, counting the free ones. A statistic costs twice its current "
        "value. A skill costs its category's statistic times 1.5 for the first skill in "
        "that category, 2 for the second, 2.5 for the third and so on, free skills "
        "included. Skills are chosen, not rolled, and only Additional Spell Slot may be "
        "owned more than once.",
    ),
    Ruling(
        "R7",
        "Equipment prices",
        "Prices use the statistics after advancements but before any equipment bonus. "
        "'1.5xME' means 1.5 times ME, rounded down. Light Armour costs DF minus 5 and "
        "Heavy Armour DF minus 2; everything else is priced as printed. A weapon or shield "
        "priced from a statistic cannot be bought if that statistic is 0. Buying two of "
        "the same weapon is fine.",
    ),
    Ruling(
        "R8",
        "What a student can carry",
        "Weapons and shields in hand may use two hands at most. On top of that a student "
        "may carry one extra piece: a backup weapon, one armour or one item. So a "
        "two-handed weapon plus Light Armour leaves no room for a Medical Kit. Heavy "
        "Armour rules out Dash. Shields help differently in melee and against shooting, "
        "so the builder shows DF, DF in melee and DF against ranged attacks.",
    ),
    Ruling(
        "R9",
        "Learning spells",
        "Only students with CA 1 or more learn spells. They have as many spell slots as "
        "their final CA, plus one per Additional Spell Slot skill. Choose one core school "
        "(two with Spell Dilettante): its spells take one slot each, others take two. "
        "Spell Focus and Supreme Spell Mastery each use a slot and need their skill; the "
        "mastered spell must be one the student knows. Dragon Slayer needs its skill and "
        "takes no slot. No spell can be learnt twice.",
    ),
)

THE_FORCE = (
    Ruling(
        "R10",
        "Force size",
        "A force has four to six students. It may add one adult mentor, built the same "
        "way, who does not count towards that number. No two members may share a name.",
    ),
    Ruling(
        "R11",
        "Resources",
        "Everything bought for the force, advancements and equipment for every member, "
        "must fit within its Resources. A campaign force starts with 50. For a one-off "
        "battle the players agree a positive whole number.",
    ),
    Ruling(
        "R12",
        "How problems are reported",
        "When a force breaks a rule, the builder says exactly where (for example the "
        "second piece of equipment of the third member), gives a fixed code that programs "
        "can rely on and a sentence people can read. All problems are listed together, "
        "not one at a time.",
    ),
    Ruling(
        "R13",
        "Rounding",
        "Whenever a sum involves halves or other fractions, round down to a whole number, "
        "as the rulebook does everywhere.",
    ),
)

CAMPAIGNS = (
    Ruling(
        "R14",
        "Recording a battle",
        "Each battle keeps the forces involved, the scenario, the date and the result "
        "(who won, or a draw). For every member who fought it notes whether they were "
        "knocked out or taken out of action, how many enemies they took out of action "
        "and how many objectives they achieved.",
    ),
    Ruling(
        "R15",
        "Earning and spending Resources",
        "By default a win earns 10 Resources, a draw 7 and a loss 5. Every change to a "
        "force's Resources is written down as a new line in its ledger and never edited "
        "afterwards. The balance is the total of that ledger and cannot go below zero.",
    ),
    Ruling(
        "R16",
        "Experience",
        "By default a member earns 1 XP for fighting, 1 per enemy taken out of action, 1 "
        "per objective and 1 more if their side won. Levels arrive at 3, 7, 12, 18, 25, "
        "33, 42, 52 and 63 XP, so level 10 is the highest.",
    ),
    Ruling(
        "R17",
        "Levelling up",
        "Each new level brings one free advancement from the society table, with skills "
        "rolled or picked for the same FR price as at creation. Once the student exists, "
        "a statistic line may be taken again, but the limits on statistics still apply "
        "and a skill still cannot be owned twice. Between battles you may also buy "
        "advancements and equipment at the usual prices.",
    ),
    Ruling(
        "R18",
        "Changes between battles",
        "Recruiting, retiring, buying or throwing away equipment must leave the force "
        "legal under the size rule. Discarded equipment is not refunded.",
    ),
)

SECTIONS = (
    RulingSection("Creating a student", CREATING_A_STUDENT),
    RulingSection("The force", THE_FORCE),
    RulingSection("Campaigns (house rules, adjustable per campaign)", CAMPAIGNS),
)

RULINGS: tuple[Ruling, ...] = CREATING_A_STUDENT + THE_FORCE + CAMPAIGNS

WORKED_EXAMPLES = (
    WorkedExample(
        "Emma, Literature Club (academic)",
        (
            "She starts with ME 1, RA 2, CA 3 and DF 2, which becomes DF 8 (R1).",
            "Her society takes 1 from RA, her choice, and adds 1 to CA: ME 1, RA 1, CA 4, "
            "DF 8, HP 10, FR 5 (R2).",
            "For her free advancements she picks a Spellcasting skill, paying 2 FR, and "
            "takes +2 HP (R4, R5).",
            "She ends on ME 1, RA 1, CA 4, DF 8, HP 12, FR 3.",
        ),
    ),
    WorkedExample(
        "Julius, Riding Club (sporting)",
        (
            "His free advancements gave him a Melee skill and a Movement skill; he has "
            "ME 2 and RA 2.",
            "Buying +1 ME costs twice his ME, so 4 Resources (R6).",
            "A second Movement skill then costs 2 times the higher of ME 3 and RA 2, so "
            "6 Resources.",
            "Altogether he costs 10 Resources.",
        ),
    ),
)
