"""How the campaign pages show what the selectors read: a battle's actions for the viewer,
a level-up's open skill roll and its choices (the re-roll and pick costs are the roster's,
`roster.presenters.reroll_costs`, shared with the member builder), the charts' tables.
Nothing here writes or decides a rule."""

from dataclasses import dataclass
from typing import Any

from campaign import charts, services
from campaign.models import Battle, CampaignForce
from roster.models import Member, SkillRoll
from roster.presenters import RerollCosts, reroll_costs
from rules.loader import get_catalogue


def battle_owners(battle: Battle) -> list[int]:
    return [bf.campaign_force.player_id for bf in battle.battle_forces.all()]


@dataclass(frozen=True, slots=True)
class BattleActions:
    """What the viewer may do with a battle, and what the void button is called."""

    battle: Battle
    may_confirm: bool
    may_void: bool
    void_label: str


def battle_actions(user: Any, battle: Battle) -> BattleActions:
    """What `user` may do with `battle` (R14a, R15a), and what the void button says."""
    owners = battle_owners(battle)
    pending = battle.status == Battle.Status.PENDING
    may_void = services.may_void(battle=battle, user=user, owners=owners)
    if not pending:
        label = "Void"
    elif user.pk == battle.recorded_by_id:
        label = "Withdraw"
    elif user.pk in owners:
        label = "Dispute"
    else:
        label = "Void"
    return BattleActions(
        battle=battle,
        may_confirm=pending and services.may_confirm(battle, user, owners),
        may_void=may_void,
        void_label=label,
    )


def advancement_choices(member: Member) -> tuple[list[tuple[str, str]], set[str]]:
    """The lines of the member's society table (R17), "or" lines split by choice."""
    catalogue = get_catalogue()
    society = catalogue.societies.get(member.society)
    choices: list[tuple[str, str]] = []
    skill_keys: set[str] = set()
    if society is None:
        return choices, skill_keys
    for line in society.lines.values():
        if line.kind == "statistic" and line.needs_choice:
            choices += [
                (
                    f"{line.number}:{o.statistic}",
                    f"Line {line.number}: {o.amount:+d} {o.statistic}",
                )
                for o in line.options
            ]
        else:
            choices.append((str(line.number), f"Line {line.number}: {line.label}"))
            if line.kind == "skill":
                skill_keys.add(str(line.number))
    return choices, skill_keys


def skill_choices(categories: list[str] | None = None) -> list[tuple[str, Any]]:
    """Skills grouped by table, for a <select> with optgroups."""
    catalogue = get_catalogue()
    groups = []
    for slug, category in catalogue.skill_categories.items():
        if categories is not None and slug not in categories:
            continue
        groups.append((category.name, [(s.key, s.name) for s in category.skills]))
    return groups


@dataclass(frozen=True, slots=True)
class OpenRoll:
    """A level-up whose skill roll waits for the owner (R5): its slot and last roll."""

    slot: str
    label: str
    roll: SkillRoll | None
    state: str  # natural-12 | pick-freely | rolled | picked
    table_name: str
    choices: list[tuple[str, str]]
    category: str
    skill_name: str  # the skill the level-up has now ("" while the roll is open)
    pick_tables: tuple[str, ...] = ()  # the line's table, and a natural 12's table (R5)
    rerolls: int = 0  # re-rolls paid for so far (R5a: they stay paid)


def open_roll_of(cf: CampaignForce, member: Member, progress: Any) -> OpenRoll | None:
    """The level-up the roll form is about: an unfinished one, or else the latest
    level-up if it is a skill line (a re-roll or a pick stays possible, R5)."""
    catalogue = get_catalogue()
    society = catalogue.societies.get(member.society)
    if not member.level_ups or society is None:
        return None
    line_item = progress.open_roll if progress.open_roll else progress.level_ups[-1]
    advancement = member.level_ups[line_item.index]
    line = society.lines.get(advancement.get("line"))
    if line is None or line.kind != "skill":
        return None
    slot = f"level_ups/{line_item.index}"
    rolls = [r for r in progress.rolls if r.slot == slot]
    last = rolls[-1] if rolls else None
    if advancement.get("skill"):
        state = "picked" if advancement.get("method") == "picked" else "rolled"
    elif last and last.outcome == SkillRoll.Outcome.NATURAL_12:
        state = "natural-12"
    elif last and last.outcome == SkillRoll.Outcome.PICK_FREELY:
        state = "pick-freely"
    else:
        state = "rolled"
    choices = []
    if state == "pick-freely" and last:
        choices = [(k, catalogue.skills[k].name) for k in last.choices if k in catalogue.skills]
    table = catalogue.skill_categories.get(last.table) if last else None
    return OpenRoll(
        slot=slot,
        label=line.label,
        roll=last,
        state=state,
        table_name=table.name if table else "",
        choices=choices,
        category=line.skill_category or "",
        skill_name=(
            catalogue.skills[advancement["skill"]].name
            if advancement.get("skill") in catalogue.skills
            else ""
        ),
        pick_tables=tuple(
            dict.fromkeys(
                t
                for t in (
                    line.skill_category,
                    last.table
                    if last and (advancement.get("natural_12") or state == "natural-12")
                    else None,
                )
                if t
            )
        ),
        rerolls=int(advancement.get("rerolls") or 0),
    )


@dataclass(frozen=True, slots=True)
class ForceXP:
    name: str
    chart: str
    series: list[charts.Series]
    chart_id: str
    rows: list[tuple[int, str, list[int | None]]]


def table_rows(
    labels: list[str], series: list[charts.Series]
) -> list[tuple[int, str, list[int | None]]]:
    """The chart's numbers turned round for a table: one row per label."""
    return [(i, label, [s.values[i] for s in series]) for i, label in enumerate(labels)]


def member_fr(cf: CampaignForce, member: Member) -> int | None:
    """The member's FR as the force's stored evaluation says, or None without one."""
    results = (cf.force.evaluation or {}).get("members") or []
    index = next((i for i, m in enumerate(cf.force.members.all()) if m.pk == member.pk), None)
    return results[index]["stats"]["FR"] if index is not None and index < len(results) else None


def level_up_costs(cf: CampaignForce, member: Member, open_roll: OpenRoll | None) -> RerollCosts:
    """What a re-roll and a pick of the open level-up roll cost now (R5, R5a)."""
    return reroll_costs(open_roll.rerolls if open_roll else 0, member_fr(cf, member))
