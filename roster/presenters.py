"""The engine's answers arranged for the builder's templates: member cards with every
problem in its place (R12), the free advancement slots and their rolls, the builder's
URLs. Nothing here works out a cost or a rule; it reads the stored evaluation and
`roster.options`.
"""

import re
from dataclasses import dataclass, field, replace
from typing import Any

from django.urls import reverse

from dbd_site.inputs import is_whole_number
from roster import engine, options
from roster.demo import demo_force
from roster.models import Member, SkillRoll
from rules.catalogue import Catalogue, Society
from rules.loader import get_catalogue

MEMBER_POINTER = re.compile(r"^/members/\d+(/|$)")


def member_evaluation(evaluation: dict[str, Any], index: int) -> dict[str, Any]:
    """All a member card takes from the force's stored evaluation: member `index`'s
    result and the errors and warnings inside that member (R12 pointers)."""
    at = f"/members/{index}"
    results = evaluation.get("members") or []
    return {
        "at": at,
        "result": results[index] if index < len(results) else None,
        **{
            kind: [
                p
                for p in evaluation.get(kind, [])
                if p["pointer"] == at or p["pointer"].startswith(at + "/")
            ]
            for kind in ("errors", "warnings")
        },
    }


class _ProblemPool:
    """One member's problems (`member_evaluation`), handed out to the things they
    concern (R12 pointers); whatever is left is shown at the top of the card."""

    def __init__(self, shown: dict[str, Any]) -> None:
        self.items = [
            {**p, "kind": kind[:-1]} for kind in ("errors", "warnings") for p in shown[kind]
        ]
        self.prefix = shown["at"]

    def take(self, *relative: str) -> list[dict[str, Any]]:
        prefixes = [f"{self.prefix}/{r}" for r in relative]
        taken = [
            p
            for p in self.items
            if any(p["pointer"] == x or p["pointer"].startswith(x + "/") for x in prefixes)
        ]
        self.items = [p for p in self.items if p not in taken]
        return taken


@dataclass(slots=True)
class Entry:
    """One thing on a member card, with what the engine said about it."""

    label: str
    detail: str = ""
    cost: int | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)
    item: Any = None  # the catalogue's Equipment, Spell or Skill


@dataclass(slots=True)
class RollEntry:
    roll: SkillRoll
    slot_label: str
    table: str
    outcome: str
    by: str


@dataclass(slots=True)
class MemberCard:
    member: Member
    index: int
    pointer: str
    result: dict[str, Any] | None
    society: str
    skills: list[Any]
    advancements: list[Entry]
    purchases: list[Entry]
    equipment: list[Entry]
    core_schools: list[Entry]
    spells: list[Entry]
    spell_extras: list[Entry]
    level_ups: list[Entry]
    rolls: list[RollEntry]
    problems: dict[str, list[dict[str, Any]]]

    @property
    def error_count(self) -> int:
        return sum(1 for p in self.all_problems if p["kind"] == "error")

    @property
    def problem_counts(self) -> dict[str, int]:
        """Errors per builder step (its own and its entries'), for the steps' headings."""
        entries_by_step = {
            "free": self.advancements,
            "purchases": self.purchases,
            "equipment": self.equipment,
            "spells": (*self.core_schools, *self.spells, *self.spell_extras),
        }
        return {
            step: sum(
                1
                for p in (
                    *self.problems.get(step, ()),
                    *(p for entry in entries_by_step.get(step, ()) for p in entry.problems),
                )
                if p["kind"] == "error"
            )
            for step in ("basics", "club", "free", "purchases", "equipment", "spells")
        }

    @property
    def all_problems(self) -> list[dict[str, Any]]:
        """Every error and warning of the member, wherever it is shown on the card."""
        entries = (
            *self.advancements,
            *self.level_ups,
            *self.purchases,
            *self.equipment,
            *self.core_schools,
            *self.spells,
            *self.spell_extras,
        )
        return [
            *(p for problems in self.problems.values() for p in problems),
            *(p for entry in entries for p in entry.problems),
        ]


def _slot_label(slot: str) -> str:
    kind, _, index = slot.partition("/")
    number = int(index) + 1 if is_whole_number(index) else index
    return {"free_advancements": "Free advancement", "level_ups": "Level-up"}.get(
        kind, kind
    ) + f" {number}"


def roll_outcome(roll: SkillRoll, catalogue: Catalogue) -> str:
    if roll.outcome == SkillRoll.Outcome.SKILL:
        skill = catalogue.skills.get(roll.skill)
        return skill.name if skill else roll.skill
    if roll.outcome == SkillRoll.Outcome.NATURAL_12:
        return "Natural 12: roll again on any table"
    return "Already owned or not allowed: pick freely"


def _table_name(slug: str, catalogue: Catalogue) -> str:
    category = catalogue.skill_categories.get(slug)
    return category.name if category else slug


def _society_label(society: Society | None, member: Member) -> str:
    if society is None:
        return member.society
    return f"{society.name} (choice {member.society_choice})"


def advancement_entry(adv: dict[str, Any], society: Society | None, catalogue: Catalogue) -> Entry:
    number = adv.get("line")
    line = society.lines.get(number) if society and isinstance(number, int) else None
    if line is None:
        return Entry(label=f"Line {number}")
    if line.kind == "statistic":
        option = line.option_for(adv.get("choice"))
        if option is not None and line.needs_choice:
            return Entry(label=options.statistic_label(option.amount, option.statistic))
        return Entry(label=line.label)
    skill = catalogue.skills.get(adv.get("skill") or "")
    how = []
    if adv.get("method"):
        how.append(adv["method"])
    if adv.get("rerolls"):
        rerolls = adv["rerolls"]
        how.append(f"{rerolls} re-roll{'s' if rerolls != 1 else ''}")
    if adv.get("natural_12"):
        how.append("after a natural 12")
    return Entry(
        label=f"{line.label}: {skill.name if skill else 'not chosen yet'}",
        detail=", ".join(how),
        item=skill,
    )


def member_card(
    member: Member,
    index: int,
    evaluation: dict[str, Any],
    catalogue: Catalogue,
    *,
    viewer_id: int | None = None,
) -> MemberCard:
    """One member as the engine sees it: stats, costs and every problem in its place.

    Long because the card shows every entry of the member in the document's order, each with
    its cost and problems.
    """
    shown = member_evaluation(evaluation, index)
    at, result = shown["at"], shown["result"]
    pool = _ProblemPool(shown)
    society = catalogue.societies.get(member.society)
    purchase_costs = result["purchase_costs"] if result else []
    equipment_costs = result["equipment_costs"] if result else []

    advancements = []
    for k, adv in enumerate(member.free_advancements):
        entry = advancement_entry(adv, society, catalogue)
        entry.problems = pool.take(f"free_advancements/{k}")
        advancements.append(entry)
    level_ups = []
    for k, adv in enumerate(member.level_ups):
        entry = advancement_entry(adv, society, catalogue)
        entry.problems = pool.take(f"level_ups/{k}")
        level_ups.append(entry)

    purchases = []
    for k, purchase in enumerate(member.purchases):
        if "skill" in purchase:
            skill = catalogue.skills.get(purchase["skill"])
            entry = Entry(label=skill.name if skill else purchase["skill"], item=skill)
            if skill is not None:
                entry.detail = f"{catalogue.skill_categories[skill.category].name} skill"
        else:
            entry = advancement_entry(purchase, society, catalogue)
        entry.cost = purchase_costs[k] if k < len(purchase_costs) else None
        entry.problems = pool.take(f"purchases/{k}")
        purchases.append(entry)

    equipment = []
    for k, slug in enumerate(member.equipment):
        item = catalogue.equipment.get(slug)
        equipment.append(
            Entry(
                label=item.name if item else slug,
                cost=equipment_costs[k] if k < len(equipment_costs) else None,
                problems=pool.take(f"equipment/{k}"),
                item=item,
            )
        )

    core_schools = [
        Entry(
            label=catalogue.spell_schools.get(slug, slug),
            problems=pool.take(f"core_schools/{k}"),
        )
        for k, slug in enumerate(member.core_schools)
    ]
    spells = []
    for k, slug in enumerate(member.spells):
        spell = catalogue.spells.get(slug)
        spells.append(
            Entry(
                label=spell.name if spell else slug,
                problems=pool.take(f"spells/{k}"),
                item=spell,
            )
        )
    spell_extras = []
    if member.spell_focus:
        spell_extras.append(Entry(label="Spell Focus", problems=pool.take("spell_focus")))
    if member.mastery:
        mastered = catalogue.spells.get(member.mastery)
        spell_extras.append(
            Entry(
                label="Mastery",
                detail=mastered.name if mastered else member.mastery,
                problems=pool.take("mastery"),
            )
        )

    problems = {
        "basics": pool.take("name", "role", "base"),
        "club": pool.take("club"),
        "free": pool.take("free_advancements"),
        "purchases": pool.take("purchases"),
        "equipment": pool.take("equipment"),
        "spells": pool.take("core_schools", "spells", "spell_focus", "mastery"),
        "levels": pool.take("xp", "level_ups"),
    }
    problems["other"] = pool.items

    rolls = [
        RollEntry(
            roll=roll,
            slot_label=_slot_label(roll.slot),
            table=_table_name(roll.table, catalogue),
            outcome=roll_outcome(roll, catalogue),
            by=(
                ""
                if viewer_id is None
                else "you"
                if roll.rolled_by_id == viewer_id
                else "a deleted account"
                if roll.rolled_by_id is None
                else "another player"
            ),
        )
        for roll in member.rolls.all()
    ]
    skills = [catalogue.skills[key] for key in (result["skills"] if result else [])]
    return MemberCard(
        member=member,
        index=index,
        pointer=at,
        result=result,
        society=_society_label(society, member),
        skills=skills,
        advancements=advancements,
        purchases=purchases,
        equipment=equipment,
        core_schools=core_schools,
        spells=spells,
        spell_extras=spell_extras,
        level_ups=level_ups,
        rolls=rolls,
        problems=problems,
    )


@dataclass(frozen=True, slots=True)
class CampaignGroup:
    """A campaign and the player's copies of forces entered into it."""

    campaign: Any
    forces: list[Any]


def group_forces(forces: Any) -> tuple[list[Any], list[CampaignGroup]]:
    """The player's own forces, then their campaign copies grouped under each campaign
    (a copy is a force of the same name: on its own it would look like a duplicate)."""
    freeform: list[Any] = []
    groups: dict[int, CampaignGroup] = {}
    for force in forces:
        entry = getattr(force, "campaign_entry", None)
        if entry is None:
            freeform.append(force)
            continue
        group = groups.setdefault(entry.campaign_id, CampaignGroup(entry.campaign, []))
        group.forces.append(force)
    return freeform, sorted(groups.values(), key=lambda g: g.campaign.name.casefold())


def name_shared(member: Member, members: list[Member], evaluation: dict[str, Any]) -> bool:
    """Whether the engine refused the force for members sharing a name (R10) and this
    member is one of them, so the builder can say so at the name field."""
    if not any(p["code"] == "duplicate-name" for p in evaluation.get("errors", [])):
        return False
    mine = member.name.strip().casefold()
    return any(m.pk != member.pk and m.name.strip().casefold() == mine for m in members)


def force_problems(evaluation: dict[str, Any]) -> list[dict[str, Any]]:
    """Problems of the whole force (`/members`, `/resources`, ...), not of one member."""
    return [
        {**p, "kind": kind[:-1]}
        for kind in ("errors", "warnings")
        for p in evaluation.get(kind, [])
        if not MEMBER_POINTER.match(p["pointer"])
    ]


# --- money ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Money:
    """A force's Resources as every figure of a page says them (the header's status, a
    campaign copy's "Between battles" box), so no two can disagree (issue #31).

    A campaign copy's Resources are its cost plus the ledger's balance (R11, R15): what is
    left is the ledger's balance itself, read from the policy, never worked out in a
    template. A force of one's own has what its stored evaluation says."""

    spent: int
    resources: int
    left: int
    from_ledger: bool

    @property
    def over_budget(self) -> int:
        """How far the cost is over the Resources (0 when it is not)."""
        return max(0, -self.left)


def force_money(evaluation: dict[str, Any], balance: int | None) -> Money:
    """The force's Resources from its stored evaluation and, for a campaign copy, the
    ledger's `balance` (`ForcePolicy.balance`; None for a force of one's own)."""
    spent = int(evaluation.get("total_cost", 0))
    if balance is None:
        return Money(
            spent=spent,
            resources=int(evaluation.get("resources", 0)),
            left=int(evaluation.get("remaining", 0)),
            from_ledger=False,
        )
    return Money(spent=spent, resources=spent + balance, left=balance, from_ledger=True)


@dataclass(frozen=True, slots=True)
class Confirmation:
    """A between-battles purchase asked about before it is made (issue #31): it is paid
    from the campaign's ledger and never refunded (R17a, R18), so the builder asks once,
    on the option's own row, with what it costs and what is left."""

    step: str  # the change: "purchase-add" or "equipment-add"
    key: str
    name: str
    cost: int
    left: int  # the ledger's balance before paying

    @property
    def section(self) -> str:
        """The builder step the purchase is made in."""
        return "purchases" if self.step == "purchase-add" else "equipment"

    @property
    def notice(self) -> str:
        return (
            f"Buying {self.name} takes {self.cost} of the {self.left} Resources left, and "
            "cannot be undone: confirm beside it."
        )


def purchase_confirmation(
    step: str, key: str, groups: tuple[options.OptionGroup, ...], money: Money
) -> Confirmation | None:
    """The question for buying `key` from `groups` (the step's options), or None when
    there is nothing to ask: not an option that can be bought now (its row says why), or
    more than the Resources left (`within_balance` says so on its row)."""
    option = next(
        (o for group in groups for o in group.options if o.key == key and o.available), None
    )
    if option is None or option.cost is None:
        return None
    return Confirmation(step=step, key=key, name=option.name, cost=option.cost, left=money.left)


def within_balance(
    groups: tuple[options.OptionGroup, ...], money: Money
) -> tuple[options.OptionGroup, ...]:
    """Between battles each purchase is paid from the ledger (R15, R17a): an option that
    costs more than the Resources left says so on its row, as the ledger would refuse it,
    instead of offering a button that cannot work."""

    def judged(option: options.Option) -> options.Option:
        if option.available and option.cost is not None and option.cost > money.left:
            return replace(option, reason=f"Costs {option.cost}; {money.left} Resources left.")
        return option

    return tuple(
        replace(group, options=tuple(judged(o) for o in group.options)) for group in groups
    )


# --- the member builder ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RerollCosts:
    """What re-rolling and picking a skill advancement cost now (R5, R5a), for the member
    builder and a campaign's level-up page alike: re-rolls already paid for stay paid, and
    a re-roll is not offered when it would take FR below 0 (R3)."""

    rerolls_paid: int  # FR
    can_reroll: bool
    reroll: int = engine.REROLL_FR_COST
    pick: int = engine.PICK_FR_COST

    @property
    def pick_total(self) -> int:
        """What picking costs in all, re-rolls already paid included."""
        return self.rerolls_paid + self.pick


def reroll_costs(rerolls: int, fr_now: int | None) -> RerollCosts:
    """The costs for an advancement re-rolled `rerolls` times, of a member with `fr_now`
    FR as the stored evaluation says (None when there is none: a re-roll is offered)."""
    return RerollCosts(
        rerolls_paid=rerolls * engine.REROLL_FR_COST,
        can_reroll=fr_now is None or fr_now >= engine.REROLL_FR_COST,
    )


def roll_state(advancement: dict[str, Any] | None, last: SkillRoll | None) -> str:
    """Where a skill advancement's roll stands (R5), for the builder's free slots and a
    campaign's level-ups alike: "picked" or "rolled" once it has its skill, "natural-12"
    (roll again on any table), "pick-freely" (the die chose a skill it cannot take), else
    "to-roll"."""
    adv = advancement or {}
    if adv.get("skill"):
        return "picked" if adv.get("method") == "picked" else "rolled"
    if last and last.outcome == SkillRoll.Outcome.NATURAL_12 and adv.get("natural_12"):
        return "natural-12"
    if last and last.outcome == SkillRoll.Outcome.PICK_FREELY:
        return "pick-freely"
    return "to-roll"


def free_choices(state: str, last: SkillRoll | None, catalogue: Catalogue) -> list[Any]:
    """The skills a roll left to pick from, free (R5), while its state is "pick-freely"."""
    if state != "pick-freely" or last is None:
        return []
    return [catalogue.skills[k] for k in last.choices if k in catalogue.skills]


@dataclass(slots=True)
class FreeSlot:
    """A free advancement slot of the builder (R4, R5) and where its roll stands."""

    index: int
    slot: str
    advancement: dict[str, Any] | None
    entry: Entry | None
    current_key: str | None
    category: Any  # the skill line's SkillCategory, or None
    state: str  # empty | statistic | to-roll | natural-12 | pick-freely | rolled | picked
    last_roll: SkillRoll | None
    last_roll_table: str
    last_roll_outcome: str
    has_rolls: bool
    line_options: tuple[options.Option, ...]
    pick_options: tuple[options.Option, ...]
    free_choices: list[Any]
    can_clear: bool
    costs: RerollCosts

    @property
    def rerolls_paid(self) -> int:
        return self.costs.rerolls_paid

    @property
    def can_reroll(self) -> bool:
        return self.costs.can_reroll

    @property
    def pick_total(self) -> int:
        return self.costs.pick_total


def free_slots(
    member: Member, data: dict[str, Any], card: MemberCard, catalogue: Catalogue
) -> list[FreeSlot]:
    """Long because each slot's roll state, options and costs are worked out together from the
    same line and rolls."""
    society = catalogue.societies.get(member.society)
    advancements = data["free_advancements"]
    slots = []
    # R4: two slots; the second once the first is taken (and any extra an import brought).
    shown = max(min(len(advancements) + 1, engine.FREE_ADVANCEMENTS), len(advancements))
    for index in range(shown):
        slot = f"free_advancements/{index}"
        adv = advancements[index] if index < len(advancements) else None
        line = society.lines.get(adv["line"]) if (society and adv) else None
        rolls = [r for r in member.rolls.all() if r.slot == slot]
        last = rolls[-1] if rolls else None
        category = None
        state = "empty" if adv is None else "statistic"
        if line is not None and line.kind == "skill":
            category = catalogue.skill_categories.get(line.skill_category or "")
            state = roll_state(adv, last)
        current_key = None
        if adv is not None:
            choice = adv.get("choice")
            current_key = f"{adv['line']}:{choice}" if choice else str(adv["line"])
        slots.append(
            FreeSlot(
                index=index,
                slot=slot,
                advancement=adv,
                entry=card.advancements[index] if adv is not None else None,
                current_key=current_key,
                category=category,
                state=state,
                last_roll=last,
                last_roll_table=_table_name(last.table, catalogue) if last else "",
                last_roll_outcome=roll_outcome(last, catalogue) if last else "",
                has_rolls=bool(rolls),
                line_options=options.free_advancement_options(data, catalogue, index),
                pick_options=(
                    options.pick_options(
                        data, catalogue, "free_advancements", index, category.slug
                    )
                    if category is not None
                    else ()
                ),
                free_choices=free_choices(state, last, catalogue),
                can_clear=adv is not None and index == len(advancements) - 1,
                costs=reroll_costs(
                    int((adv or {}).get("rerolls") or 0),
                    card.result["stats"]["FR"] if card.result is not None else None,
                ),
            )
        )
    return slots


class BuilderUrls(dict[str, str]):
    """The member page's form and step URLs by name ("equipment_add" for the
    "equipment-add" change, "roll", "step_spells"), each reversed once per request and
    only if the page shows it: the step forms repeat them per row and group."""

    def __init__(self, force_id: int, member_id: int) -> None:
        super().__init__()
        self.ids = (force_id, member_id)

    def __missing__(self, name: str) -> str:
        if name == "page":
            url = reverse("roster:member", args=self.ids)
        elif name.startswith("step_"):
            url = reverse("roster:member_step", args=[*self.ids, name.removeprefix("step_")])
        elif name in ("roll", "pick", "free_pick"):
            url = reverse(f"roster:{name}", args=self.ids)
        else:
            url = reverse("roster:member_edit", args=[*self.ids, name.replace("_", "-")])
        self[name] = url
        return url


@dataclass(frozen=True, slots=True)
class ExampleMember:
    name: str
    role: str
    club: str
    stats: dict[str, int]
    cost: int


@dataclass(frozen=True, slots=True)
class Example:
    """The demo force as the engine sees it, for the visitors' home page."""

    name: str
    resources: int
    spent: int
    legal: bool
    members: tuple[ExampleMember, ...]


def demo_example() -> Example:
    """The demo force (roster.demo) evaluated by the engine, for a visitor's first look.

    Worked out again on each call (well under a millisecond's engine work for five
    members), so a change to the rules catalogue shows at once."""
    document = demo_force()
    evaluation = engine.evaluate(document, get_catalogue())
    return Example(
        name=document["name"],
        resources=document["resources"],
        spent=evaluation.total_cost,
        legal=evaluation.valid,
        members=tuple(
            ExampleMember(
                name=result.name,
                role=result.role,
                club=member["club"]["name"],
                stats=result.stats,
                cost=result.cost["total"],
            )
            for member, result in zip(document["members"], evaluation.members, strict=True)
        ),
    )
