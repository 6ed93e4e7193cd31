"""Plain-words explanations of the binding rulings, for the rules-notes page.

Each ruling keeps the id it has in RULINGS.md (R1..R18, the amendments R5a..R18a
placed right after the ruling they refine, and the table rulings P1..P9), so code,
error messages and tests can link to `/rules/notes/#r6`, `#r17a`, `#p3` and the like.
"""

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Ruling:
    id: str  # "R1", "R17a", "P3"
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
    """A student built step by step, in words, with the numbers the words state.

    The numbers are the roster engine's answer for that student: a test evaluates the
    rulebook's student with the engine and checks them, and checks that the steps say them.
    """

    name: str
    steps: tuple[str, ...]
    stats: Mapping[str, int]  # after creation (before equipment)
    purchase_costs: tuple[int, ...]  # each purchase, in order (R6)

    @property
    def advancement_cost(self) -> int:
        return sum(self.purchase_costs)


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
        "R5a",
        "Re-rolls and what they cost",
        "A re-roll is not allowed if paying its 1 FR would leave the student below 0 FR. "
        "Whatever was paid stays paid: a student who re-rolls once and then decides to pick has "
        "spent 3 FR in all, 1 for the re-roll and 2 for picking, and the builder says so before "
        "you pick. However many times a student rolls, their page, their export and the force "
        "keep working.",
    ),
    Ruling(
        "R6",
        "Buying advancements",
        "Extra advancements cost Resources and come from the student's own society table. Buy "
        "statistics first, skills after. At creation the same statistic line cannot be taken "
        "twice, counting the free ones. A statistic costs twice its current value. A skill "
        "costs its category's statistic times a multiplier: 1.5 when it is the student's first "
        "of that category, then 2, then 2.5, rising by a half for each one after, free skills "
        "included. Skills are chosen, not rolled, and only Additional Spell Slot may be owned "
        "more than once.",
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
        "Weapons and shields in hand may use two hands at most. On top of that a student may "
        "carry one extra piece: a backup weapon, one armour or one item. So a two-handed weapon "
        "plus Light Armour leaves no room for a Medical Kit. Heavy Armour rules out Dash. "
        "Shields help differently in melee and against shooting, so the builder shows three "
        "figures: plain DF, DF when fighting in melee and DF when being shot at.",
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
        "Everything bought for the force, advancements and equipment for every member, must fit "
        "within its Resources. In a campaign every force begins with 50. For a one-off battle "
        "the players agree a positive whole number.",
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
        "R14a",
        "Who confirms a battle",
        "A recorded battle counts only once someone else agrees to it: a player whose force "
        "also fought in it, or the organiser, as long as the organiser neither recorded it nor "
        "has a force in it. No one can both record and confirm a battle on their own.",
    ),
    Ruling(
        "R14b",
        "A record that adds up",
        "Anyone marked Out of Action must also be listed as having fought. The enemies a "
        "force's members claim to have taken Out of Action cannot outnumber the opposing "
        "members recorded as Out of Action. Each member scores from 0 to 10 objectives, and a "
        "force's results can only mention its own members. A record that does not add up is "
        "turned down, with each problem shown beside its field.",
    ),
    Ruling(
        "R14c",
        "Which house rules score a battle",
        "A battle's XP and Resources are worked out with the campaign's house rules as they "
        "stand at the moment the battle is confirmed, not when it was recorded, so a setting "
        "changed while a battle waits for confirmation already applies to it.",
    ),
    Ruling(
        "R15",
        "Earning and spending Resources",
        "By default a win earns 10 Resources, a draw 7 and a loss 5. Every change to a "
        "force's Resources is written down as a new line in its ledger and never edited "
        "afterwards. The balance is the total of that ledger and cannot go below zero.",
    ),
    Ruling(
        "R15a",
        "Voiding a battle",
        "When a confirmed battle is voided, everything it handed out comes back: its Resources, "
        "through new ledger lines that cancel the old ones, and its XP. A member who drops a "
        "level as a result loses their most recent level-ups beyond the new level, and whatever "
        "those gave them. The organiser sees the list before confirming the void, and the "
        "campaign log keeps it. Anything bought with Resources in the meantime is kept. No "
        "force is left breaking the rules by a void, and a void that would push a balance below "
        "zero is refused.",
    ),
    Ruling(
        "R16",
        "Experience",
        "By default a member earns 1 XP for fighting, 1 for each enemy they put out of action, "
        "1 for each objective and 1 more if their side won. Levels arrive at 3, 7, 12, 18, 25, "
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
        "R17a",
        "Shopping between battles",
        "Between battles the owner of the force can buy further statistic advancements and "
        "skills, chosen from the student's own society table, at R6 prices worked out from the "
        "student's statistics at that moment, taken in the order listed. A statistic line can "
        "be bought again, and the rule that statistics come before skills applies only at "
        "creation. Equipment can be bought at R7 prices or thrown away. Each purchase is its "
        "own line in the ledger, at its own price. You pay for a piece of equipment a single "
        "time, on the day you buy it: if a statistic changes later, nothing is charged or given "
        "back, though the force's rating may show what it would cost today. A purchase the "
        "balance cannot cover is refused, with the code insufficient-resources pointing at the "
        "Resources, and nothing changes.",
    ),
    Ruling(
        "R18",
        "Changes between battles",
        "Recruiting, retiring, buying or throwing away equipment must leave the force "
        "legal under the size rule. Discarded equipment is not refunded.",
    ),
    Ruling(
        "R18a",
        "Recruiting and retiring",
        "A new recruit goes through the same creation steps as every student and is paid for "
        "from the ledger. A student who retires leaves the force, but the battles they fought "
        "in still show them. After each change the force must still have four to six students "
        "and at most one mentor.",
    ),
)

AT_THE_TABLE = (
    Ruling(
        "P1",
        "Initiative",
        "At the start of each turn both sides roll a d12. The side with fewer figures still in "
        "play, meaning neither Unconscious nor Out of Action, adds 1 to its roll. Equal totals "
        "mean both sides roll again.",
    ),
    Ruling(
        "P2",
        "Saying what applies to a roll",
        "Figures' positions are not tracked, so the player says what applies: the target is "
        "obscured, the attack comes from its rear arc, the attacker moved or charged, the "
        "target is in melee, the attacker has no weapon, and so on. The rulebook's modifiers "
        "for those are then added, along with the weapon's accuracy (ACC) or its to-hit bonus, "
        "shields, armour and any skill that changes the roll. The number needed and the chance "
        "of hitting are shown before the die is thrown.",
    ),
    Ruling(
        "P3",
        "Damage and passing it on",
        "An attack whose Success Rating is above 0 deals that much damage. The defender may "
        "pass some of it to friendly figures within 5 inches that the player names; none of "
        "them can take more than its own FR, and one with The True Power of Friendship takes "
        "half of what it is given, rounded down. A figure left with 0 HP is Unconscious; if it "
        "is hit again while Unconscious, any Success Rating of 1 or more puts it Out of Action.",
    ),
    Ruling(
        "P4",
        "Casting a spell",
        "Every die that equals or beats the spell's Difficulty is a success. Using the Spell "
        "Focus slot lowers the Difficulty by 1, and the mastered spell earns one extra success. "
        "The outcome for that many successes is shown together with what it does. Markers a "
        "spell leaves on a figure stay there until they are removed.",
    ),
    Ruling(
        "P5",
        "Who rolls the dice",
        "Dice are either rolled by the server and kept, or typed in as they landed on the table "
        "and labelled that way; a campaign may insist on the server's rolls. Every roll goes "
        "into the battle's log, and rolls can be taken back one at a time, newest first.",
    ),
    Ruling(
        "P6",
        "From the log to the record",
        "Once the battle is over, its log fills in the record of R14: who fought, who ended "
        "Unconscious or Out of Action, and which figure took which out. The players then add "
        "the objectives and the result themselves.",
    ),
    Ruling(
        "P7",
        "Attacks made by spells",
        "When a spell's outcome calls for a ranged attack, the caster rolls it like any "
        "ranged attack: a d12 plus RA plus the outcome's Acc, against the target's DF at "
        "range, with the situation the player ticked. Several ROF means several dice at the "
        "same target, and a spell that ignores cover drops the obscured penalties. Range, "
        "radius, line of sight and any push are for the players to judge. Attacks still "
        "unrolled lapse when the caster finishes activating or casts again.",
    ),
    Ruling(
        "P8",
        "How long effects last",
        "An effect that runs until a figure's next activation counts from the activation in "
        "which it was placed: a figure that places it on itself keeps it while the other "
        "side acts and loses it in its own next activation, as the spell says. An item "
        "thrown away to pass a test helps no further. A student who keeps going on "
        "Determination is taken Out of Action when that activation is over. A re-roll from "
        "Invigorate or Eagle Eye rolls a second die; both dice go in the log, the better one "
        "counts, and the marker is used up.",
    ),
    Ruling(
        "P9",
        "Each player runs their own side",
        "Players act, and take back actions, only for the figures on their own side. Choices "
        "that belong to the defender, such as moving damage with Friendship or dodging for "
        "cover, wait in the battle until that player answers or lets them pass; the other "
        "side carrying on does not cancel them. Someone playing more than one side may act "
        "for each of them.",
    ),
)

SECTIONS = (
    RulingSection("Creating a student", CREATING_A_STUDENT),
    RulingSection("The force", THE_FORCE),
    RulingSection("Campaigns (house rules, adjustable per campaign)", CAMPAIGNS),
    RulingSection("At the table (play mode)", AT_THE_TABLE),
)

RULINGS: tuple[Ruling, ...] = CREATING_A_STUDENT + THE_FORCE + CAMPAIGNS + AT_THE_TABLE

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
        stats={"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3},
        purchase_costs=(),
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
        stats={"ME": 3, "RA": 2, "CA": 2, "DF": 8, "HP": 10, "FR": 1},
        purchase_costs=(4, 6),
    ),
)
