"""How the campaign pages show what the selectors read: a battle's actions for the viewer,
a level-up's choices and its open skill roll, the charts' tables.

A level-up is offered as the member builder offers a free advancement: the same options
(`roster.options`: each line in the builder's words, each skill of the line's own table
with its effect and why not), the same roll states (`roster.presenters.roll_state`) and
the same re-roll and pick costs (`roster.presenters.reroll_costs`).
Nothing here writes or decides a rule."""

from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from campaign import charts, services
from campaign.models import Battle, CampaignForce
from roster import member_rows, options
from roster.models import Member, SkillRoll
from roster.presenters import RerollCosts, free_choices, reroll_costs, roll_state
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


@dataclass(frozen=True, slots=True)
class PageAction:
    """A button of a page: what it says, where it goes, and whether it is the main one."""

    label: str
    url: str
    primary: bool = False


def dashboard_actions(campaign: Any, board: Any) -> list[PageAction]:
    """The dashboard's buttons, the obvious next step first and the only solid one
    (issue #31): entering a force while the viewer has none in, recording a battle once
    theirs and another are in, else their force's page."""
    my_force = board.my_force
    playing = sum(1 for row in board.standings if not row.retired)
    record = PageAction("Record a battle", reverse("campaign:record_battle", args=[campaign.pk]))
    live = PageAction("Play a battle live", f"{reverse('play:new')}?campaign={campaign.pk}")
    if my_force is None:
        enter = reverse("campaign:enter_force", args=[campaign.pk])
        return [PageAction("Enter a force", enter, primary=True), record, live]
    own = PageAction(f"Your force: {my_force.force.name}", my_force.url)
    if playing >= 2:
        return [PageAction(record.label, record.url, primary=True), live, own]
    return [PageAction(own.label, own.url, primary=True), record, live]


@dataclass(frozen=True, slots=True)
class SkillLinePicks:
    """A skill line of the society's table and the skills of its own table to pick (R5)."""

    key: str  # the line's number, as the form posts it
    name: str  # the builder's words: "Movement Skill"
    table_name: str
    picks: tuple[options.Option, ...]


@dataclass(frozen=True, slots=True)
class LevelUpPicker:
    """The next level-up's choices as the builder offers a free advancement's (R17): each
    line in the builder's words with why not, and for each skill line the skills of its
    own table to pick, each with its effect, unavailable ones with the reason."""

    society_name: str
    lines: tuple[options.Option, ...]
    skill_lines: tuple[SkillLinePicks, ...]

    @property
    def keys(self) -> list[tuple[str, str]]:
        """The lines' keys and names, for the form's choices."""
        return [(o.key, o.name) for o in self.lines]

    @property
    def skill_keys(self) -> set[str]:
        return {line.key for line in self.skill_lines}

    @property
    def skills(self) -> list[tuple[str, str]]:
        """Every skill some skill line offers, for the form's choices."""
        return [(o.key, o.name) for line in self.skill_lines for o in line.picks]


def level_up_picker(member: Member) -> LevelUpPicker:
    catalogue = get_catalogue()
    society = catalogue.societies.get(member.society)
    data = member_rows.member_json(member)
    skill_lines = tuple(
        SkillLinePicks(
            key=str(line.number),
            name=line.label,
            table_name=catalogue.skill_categories[line.skill_category].name,
            picks=options.level_up_pick_options(data, catalogue, line.number),
        )
        for line in (society.lines.values() if society else ())
        if line.kind == "skill" and line.skill_category in catalogue.skill_categories
    )
    return LevelUpPicker(
        society_name=society.name if society else member.society,
        lines=options.level_up_options(data, catalogue),
        skill_lines=skill_lines,
    )


@dataclass(frozen=True, slots=True)
class PickGroup:
    """The skills of one table to pick for an open roll (R5), with effects and reasons."""

    table_name: str
    options: tuple[options.Option, ...]


@dataclass(frozen=True, slots=True)
class OpenRoll:
    """A level-up whose skill roll waits for the owner (R5): its slot and last roll.

    `state` is the builder's (`roster.presenters.roll_state`), so a level-up's roll and a
    free advancement's are told apart the same way."""

    slot: str
    label: str
    roll: SkillRoll | None
    state: str  # natural-12 | pick-freely | to-roll | rolled | picked
    table_name: str
    free_choices: list[Any]  # the skills a roll left to pick, free (R5)
    category: str
    skill_name: str  # the skill the level-up has now ("" while the roll is open)
    picks: tuple[PickGroup, ...] = ()  # the line's own table (R5)
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
    state = roll_state(advancement, last)
    table = catalogue.skill_categories.get(last.table) if last else None
    # A pick comes from the line's own table alone (R5: a natural 12's table is rolled on).
    pick_tables = [t for t in (line.skill_category,) if t in catalogue.skill_categories]
    data = member_rows.member_json(member)
    return OpenRoll(
        slot=slot,
        label=line.label,
        roll=last,
        state=state,
        table_name=table.name if table else "",
        free_choices=free_choices(state, last, catalogue),
        category=line.skill_category or "",
        skill_name=(
            catalogue.skills[advancement["skill"]].name
            if advancement.get("skill") in catalogue.skills
            else ""
        ),
        picks=tuple(
            PickGroup(
                table_name=catalogue.skill_categories[t].name,
                options=options.pick_options(data, catalogue, "level_ups", line_item.index, t),
            )
            for t in pick_tables
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
