"""Level-ups (R16, R17): taking one, and a skill roll carried on."""

import random
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from campaign import progression
from campaign.models import (
    CampaignForce,
)
from dbd_site.errors import Invalid, NotFound
from dbd_site.inputs import is_whole_number
from roster import services as roster_services
from roster.models import Member
from rules import dice
from rules.loader import get_catalogue


def _member_of(campaign_force: CampaignForce, member: Member) -> Member:
    try:
        return Member.objects.get(pk=member.pk, force_id=campaign_force.force_id)
    except Member.DoesNotExist as exc:
        raise NotFound("no-such-member", f"{member.name} is not in this force.") from exc


@transaction.atomic
def take_level_up(
    *,
    campaign_force: CampaignForce,
    by: User,
    member: Member,
    line: int,
    choice: str | None = None,
    method: str = "rolled",
    skill: str | None = None,
    rng: random.Random | None = None,
) -> Member:
    """R17: one free advancement per level gained, from the member's society table.

    A statistic line takes `choice` on an "or" line. A skill line is rolled on the
    server (`method="rolled"`, the roll stored like a creation roll, R5) or picked
    (`method="picked"`, `skill`, -2 FR). After a roll that needs a decision (a natural
    12 or a free pick) use `continue_level_up_roll`. A level-up is free: if it raises
    a statistic that prices equipment, the new price is not charged (R17a).
    """
    current = _member_of(campaign_force, member)
    rules = campaign_force.campaign.house_rules
    if progression.level_ups_waiting(current.xp, len(current.level_ups), rules) < 1:
        level = progression.level_for_xp(current.xp, rules)
        raise Invalid(
            "no-level-up-waiting",
            f"{current.name} has no level-up waiting (level {level}).",
            pointer="/line",
        )
    society = get_catalogue().societies.get(current.society)
    table_line = society.lines.get(line) if society else None
    if table_line is None:
        raise Invalid(
            "unknown-line",
            f"Line {line} is not on {current.name}'s society table.",
            pointer="/line",
        )
    advancement: dict[str, Any] = {"line": line}
    if table_line.kind == "statistic":
        if skill is not None:  # not silently dropped: the caller meant something else
            raise Invalid(
                "invalid",
                f"Line {line} raises a statistic; a skill is taken on a skill line.",
                pointer="/skill",
            )
        if choice is not None:
            advancement["choice"] = choice
    elif method == "picked":
        if not skill:
            raise Invalid("required", "Name the skill to pick.", pointer="/skill")
        advancement.update(skill=skill, method="picked")
    return roster_services.take_level_up(
        force=campaign_force.force,
        actor=by,
        member_id=current.pk,
        advancement=advancement,
        rng=rng,
        description=f"{current.name} took a level-up (line {line})",
    )


@transaction.atomic
def continue_level_up_roll(
    *,
    campaign_force: CampaignForce,
    by: User,
    member: Member,
    slot: str,
    action: str,
    table: str | None = None,
    skill: str | None = None,
    rng: random.Random | None = None,
) -> Member:
    """Finish or redo a level-up's skill roll (R5, R5a): `action` is "roll" (after a
    natural 12, on `table`; otherwise a re-roll at -1 FR), "free-pick" (`skill` among the
    roll's choices) or "pick" (`skill` outright, -2 FR)."""
    current = _member_of(campaign_force, member)
    kind, _, index = slot.partition("/")
    if kind != "level_ups" or not is_whole_number(index) or int(index) >= len(current.level_ups):
        raise NotFound("no-such-level-up", f"{current.name} has no level-up at '{slot}'.")
    force = campaign_force.force
    if action == "roll":
        roster_services.roll_skill(
            force=force,
            actor=by,
            member_id=current.pk,
            slot=slot,
            table=table,
            rng=rng or dice.server_dice(),
        )
    elif action == "free-pick":
        roster_services.take_free_pick(
            force=force, actor=by, member_id=current.pk, slot=slot, skill=skill or ""
        )
    elif action == "pick":
        roster_services.pick_skill(
            force=force, actor=by, member_id=current.pk, slot=slot, skill=skill or ""
        )
    else:
        raise Invalid("unknown-action", "Roll, free-pick or pick.", pointer="/action")
    return Member.objects.get(pk=current.pk)
