"""Writes to saved forces. Every write leaves the stored evaluation fresh.

Callers (views, API views) check permissions first, through `roster.selectors`;
the functions here trust the force or member they are given.
"""

import random
import secrets
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from dbd_site.inputs import is_whole_number
from roster import documents, engine, selectors
from roster.models import Force, Member, SkillRoll
from rules.loader import get_catalogue

SLOT_KINDS = ("free_advancements", "level_ups")


class RollRefused(ValueError):
    """A roll or pick the rules do not allow right now; the message says why.

    `field` names the input it is about ("slot", "table" or "skill"), for forms and the API.
    """

    def __init__(self, message: str, *, field: str = "slot") -> None:
        super().__init__(message)
        self.field = field


def refresh_evaluation(force: Force, *, members_in_hand: bool = False) -> Force:
    """Store the engine's answer for the force as it now is (the page and API read it).

    With `members_in_hand` the caller read the force with its members and their rolls and
    made its change on those very objects: the answer is worked out from them and stored
    only if nothing else has written to the force since it was read (its `updated_at`,
    which every write moves, is checked by the UPDATE itself). If something has, or
    without `members_in_hand`, the members are read again.
    """
    if members_in_hand:
        evaluation = selectors.evaluate_force(force=force).as_dict()
        now = timezone.now()
        unchanged = Force.objects.filter(pk=force.pk, updated_at=force.updated_at)
        if unchanged.update(evaluation=evaluation, updated_at=now):
            force.evaluation, force.updated_at = evaluation, now
            return force
    # The members as committed now (another request may have changed one of them), and
    # the campaign (for its level thresholds) as the caller read it, if it did.
    knows_campaign = Force.campaign_entry.is_cached(force)
    fresh = selectors.force_to_evaluate(force_id=force.pk, with_campaign=not knows_campaign)
    thresholds = selectors.level_thresholds_for(force=force if knows_campaign else fresh)
    force.evaluation = selectors.evaluate_force(force=fresh, level_thresholds=thresholds).as_dict()
    # .update() skips auto_now, and any change to a member is a change to the force.
    force.updated_at = timezone.now()
    Force.objects.filter(pk=force.pk).update(
        evaluation=force.evaluation, updated_at=force.updated_at
    )
    return force


def _member_fields(parsed: documents.Member) -> dict[str, Any]:
    """Model fields for a parsed member, its lists stored as canonical JSON."""
    canonical = documents.export_member(parsed)
    return {
        "name": parsed.name,
        "role": parsed.role,
        "club_name": parsed.club_name,
        "society": parsed.society,
        "society_choice": parsed.society_choice,
        "base_me": parsed.base["ME"],
        "base_ra": parsed.base["RA"],
        "base_ca": parsed.base["CA"],
        "base_df": parsed.base["DF"],
        "free_advancements": canonical["free_advancements"],
        "purchases": canonical["purchases"],
        "equipment": canonical["equipment"],
        "core_schools": canonical["core_schools"],
        "spells": canonical["spells"],
        "spell_focus": parsed.spell_focus,
        "mastery": parsed.mastery,
        "xp": parsed.xp,
        "level_ups": canonical["level_ups"],
    }


@transaction.atomic
def create_force(*, owner: AbstractBaseUser, name: str, resources: int = 50) -> Force:
    force = Force.objects.create(
        owner=owner,
        name=name,
        resources=resources,
        rules_version=get_catalogue().rules_version,
    )
    return refresh_evaluation(force)


@transaction.atomic
def update_force_details(*, force: Force, name: str, resources: int) -> Force:
    force.name = name
    force.resources = resources
    force.save(update_fields=["name", "resources", "updated_at"])
    return refresh_evaluation(force)


@transaction.atomic
def delete_force(*, force: Force) -> None:
    force.delete()


@transaction.atomic
def set_share_link(*, force: Force, enabled: bool) -> Force:
    """Turn the read-only link on (a new unguessable token) or off."""
    force.share_token = secrets.token_urlsafe(32) if enabled else None
    force.save(update_fields=["share_token", "updated_at"])
    return force


@transaction.atomic
def duplicate_force(*, force: Force, owner: AbstractBaseUser, name: str | None = None) -> Force:
    """A copy with its members and their roll history (so verified rolls stay verified)."""
    copy = Force.objects.create(
        owner=owner,
        name=name or f"{force.name} (copy)"[:100],
        resources=force.resources,
        rules_version=force.rules_version,
    )
    for member in force.members.all():
        rolls = list(member.rolls.all())
        member.pk = None
        member.force = copy
        member.save()
        for roll in rolls:
            roll.pk = None
            roll.member = member
        SkillRoll.objects.bulk_create(rolls)
    return refresh_evaluation(copy)


@transaction.atomic
def import_force(*, owner: AbstractBaseUser, document: Any) -> Force:
    """A new force from a dbd-roster/1 document; `MalformedDocument` creates nothing.

    Rolls cannot travel in a document, so every rolled skill in it is unverified (R5).
    """
    roster = documents.parse(document)
    force = Force.objects.create(
        owner=owner,
        name=roster.name,
        resources=roster.resources,
        rules_version=get_catalogue().rules_version,
    )
    Member.objects.bulk_create(
        Member(force=force, position=i, **_member_fields(m)) for i, m in enumerate(roster.members)
    )
    return refresh_evaluation(force)


@transaction.atomic
def replace_document(*, force: Force, document: Any) -> Force:
    """Make the force say what `document` says (the API's PUT).

    A member that keeps its place and name keeps its roll history.
    """
    roster = documents.parse(document)
    existing = {m.position: m for m in force.members.all()}
    force.name = roster.name
    force.resources = roster.resources
    force.save(update_fields=["name", "resources", "updated_at"])
    for i, parsed in enumerate(roster.members):
        fields = _member_fields(parsed)
        current = existing.pop(i, None)
        if current is not None and current.name == parsed.name:
            for key, value in fields.items():
                setattr(current, key, value)
            current.save()
        else:
            if current is not None:
                current.delete()
            Member.objects.create(force=force, position=i, **fields)
    for leftover in existing.values():
        leftover.delete()
    return refresh_evaluation(force)


@transaction.atomic
def add_member(*, force: Force, data: Any) -> Member:
    """Append a member from its dbd-roster/1 JSON; drafts may break rules, not the shape."""
    parsed = documents.parse_member(data)
    last = force.members.aggregate(last=Max("position"))["last"]
    member = Member.objects.create(
        force=force, position=0 if last is None else last + 1, **_member_fields(parsed)
    )
    refresh_evaluation(force)
    return member


@transaction.atomic
def update_member(*, member: Member, data: Any) -> Member:
    """Replace a member's JSON (keeping its place and its rolls)."""
    parsed = documents.parse_member(data)
    for key, value in _member_fields(parsed).items():
        setattr(member, key, value)
    member.save()
    refresh_evaluation(member.force, members_in_hand=_read_with(member.force, member))
    return member


def _read_with(force: Force, member: Member) -> bool:
    """Whether `force` was read with its members and their rolls (`selectors.get_force`)
    and `member` is one of those very objects, so a change to it is in hand."""
    members = getattr(force, "_prefetched_objects_cache", {}).get("members")
    return (
        members is not None
        and any(m is member for m in members)
        and all("rolls" in getattr(m, "_prefetched_objects_cache", {}) for m in members)
    )


@transaction.atomic
def remove_member(*, member: Member) -> None:
    force = member.force
    member.delete()
    refresh_evaluation(force)


# --- server-side skill rolls (R5, R17) ---------------------------------------------------


def _advancement_at(member: Member, slot: str) -> tuple[list[dict[str, Any]], int]:
    kind, _, index = slot.partition("/")
    if kind not in SLOT_KINDS or not is_whole_number(index):
        raise RollRefused(f"'{slot}' is not an advancement; use e.g. 'free_advancements/0'.")
    advancements = getattr(member, kind)
    position = int(index)
    if position >= len(advancements):
        raise RollRefused(f"{member.name} has no advancement at '{slot}'.")
    return advancements, position


def _skill_line_category(member: Member, advancement: dict[str, Any]) -> str:
    society = get_catalogue().societies.get(member.society)
    if society is None:
        raise RollRefused(f"Choose a society for {member.name} before rolling.")
    line = society.lines.get(advancement.get("line"))
    if line is None or line.kind != "skill":
        raise RollRefused("Only a skill line is rolled for; choose a skill line first.")
    return line.skill_category


def _current_sequence(rolls: list[SkillRoll]) -> list[SkillRoll]:
    """The rolls since the last finished result: a natural 12 leaves the roll open."""
    sequence: list[SkillRoll] = []
    for roll in rolls:
        if sequence and sequence[-1].outcome != SkillRoll.Outcome.NATURAL_12:
            sequence = []
        sequence.append(roll)
    return sequence


@transaction.atomic
def roll_skill(
    *,
    member: Member,
    slot: str,
    user: AbstractBaseUser | None,
    table: str | None = None,
    rng: random.Random | None = None,
) -> SkillRoll:
    """Roll 1d12 on the server for the skill advancement at `slot` and store the roll.

    After a natural 12, `table` names the table to roll on next (any of them). Rolling
    again after a result is a re-roll: -1 FR, counted in the advancement's `rerolls`.
    Real rolls use `random.SystemRandom()`; tests inject a seeded or scripted Random.
    """
    member = Member.objects.select_for_update().get(pk=member.pk)
    advancements, position = _advancement_at(member, slot)
    advancement = dict(advancements[position])
    line_category = _skill_line_category(member, advancement)
    earlier = list(member.rolls.filter(slot=slot).order_by("created_at", "id"))
    sequence = _current_sequence(earlier)
    catalogue = get_catalogue()

    continuing = bool(sequence) and sequence[-1].outcome == SkillRoll.Outcome.NATURAL_12
    if continuing:
        if table not in catalogue.skill_categories:
            names = ", ".join(catalogue.skill_categories)
            raise RollRefused(
                f"A natural 12: choose the table to roll on ({names}).", field="table"
            )
        category = table
    else:
        if earlier:
            advancement["rerolls"] = advancement.get("rerolls", 0) + 1
        category = line_category

    owned = engine_skills(member, exclude_slot=slot)
    result = engine.roll_skill(
        catalogue.skill_categories[category], owned, rng or random.SystemRandom()
    )
    roll = SkillRoll.objects.create(
        member=member,
        rolled_by=user,
        slot=slot,
        table=result.table,
        dice=list(result.dice),
        outcome=result.outcome,
        skill=result.skill or "",
        choices=list(result.choices),
    )

    advancement.pop("skill", None)
    advancement["method"] = "rolled"
    natural_12 = continuing or result.outcome == SkillRoll.Outcome.NATURAL_12
    if natural_12:
        advancement["natural_12"] = True
    else:
        advancement.pop("natural_12", None)
    if result.skill:
        advancement["skill"] = result.skill
    if not advancement.get("rerolls"):
        advancement.pop("rerolls", None)
    advancements[position] = advancement
    member.save()
    refresh_evaluation(member.force)
    return roll


def engine_skills(member: Member, *, exclude_slot: str | None = None) -> list[str]:
    """Skills the member has from its advancements, for 'already owned' on a roll (R5)."""
    skills = []
    for kind in SLOT_KINDS:
        for i, advancement in enumerate(getattr(member, kind)):
            if f"{kind}/{i}" != exclude_slot and advancement.get("skill"):
                skills.append(advancement["skill"])
    skills.extend(p["skill"] for p in member.purchases if "skill" in p)
    return skills


@transaction.atomic
def take_free_pick(*, member: Member, slot: str, skill: str) -> Member:
    """After a roll the student cannot take, choose among its choices at no cost (R5)."""
    member = Member.objects.select_for_update().get(pk=member.pk)
    advancements, position = _advancement_at(member, slot)
    last = member.rolls.filter(slot=slot).order_by("-created_at", "-id").first()
    if last is None or last.outcome != SkillRoll.Outcome.PICK_FREELY:
        raise RollRefused("A free pick follows a roll whose skill could not be taken.")
    if skill not in last.choices:
        raise RollRefused(
            f"'{skill}' is not one of the skills this roll lets you pick.", field="skill"
        )
    advancement = dict(advancements[position])
    advancement.update(skill=skill, method="rolled")
    advancements[position] = advancement
    member.save()
    refresh_evaluation(member.force)
    return member


@transaction.atomic
def pick_skill(*, member: Member, slot: str, skill: str) -> Member:
    """Choose the skill outright for -2 FR (R5); re-rolls already paid for stay paid."""
    member = Member.objects.select_for_update().get(pk=member.pk)
    advancements, position = _advancement_at(member, slot)
    advancement = dict(advancements[position])
    _skill_line_category(member, advancement)
    advancement.update(skill=skill, method="picked")
    advancement.pop("natural_12", None)
    advancements[position] = advancement
    member.save()
    refresh_evaluation(member.force)
    return member
