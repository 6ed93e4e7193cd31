"""The one write path for saved forces: nothing else writes forces, members or rolls.

Every command runs `_write`, in one transaction:
1. the force's policy (`roster.policy`) takes its own locks, then the force row is
   locked, and the version the caller made the change on is checked (`If-Match`, or
   the builder's `version`): a stale one changes nothing;
2. the policy permits the command (who, when);
3. the change is applied to the force as plain data (its members' dbd-roster/1 JSON);
4. the document is parsed (a malformed one is refused, R12) and evaluated **once**;
5. the command's own check and the policy's judgement run on that evaluation (what);
6. members, rolls and the evaluation are stored, the version moves on, and the policy
   settles its own records (a campaign's ledger and log) in the same transaction.

Rules versions (issue #13): the evaluation is stored with the catalogue's content
version. A force built under another edition than the catalogue's (`rules_version`)
refuses its player's changes (409 `rules-update-pending`) until they move it with
`move_to_rules`, after `preview_rules_update` showed them the difference; the app's own
bookkeeping (a campaign's XP, a change of house rules) still runs. `refresh_evaluation`
works a stored evaluation out again after the rules' content changed, moving the version
only when the answer changed.

Refusals raise `dbd_site.errors.DomainError` kinds; callers render them. Real dice are
`rules.dice.server_dice()`; tests inject a seeded or scripted `random.Random`.
"""

import copy
import itertools
import random
import re
import secrets
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Generic, TypeVar

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone

from dbd_site.errors import (
    Conflict,
    DomainError,
    Invalid,
    Kind,
    NotFound,
    PreconditionFailed,
    Problem,
    declare_codes,
    pointer,
    under,
)
from dbd_site.inputs import is_whole_number
from roster import documents, engine, member_rows, signals
from roster.models import Force, Member, SkillRoll
from roster.policy import Command, MemberState, Proposal, Verdict, policy_for
from rules.catalogue import Catalogue
from rules.loader import get_catalogue

T = TypeVar("T")
SLOT_KINDS = ("free_advancements", "level_ups")

CODES = declare_codes(
    {
        "no-such-slot": "The member has no advancement at that slot.",
        "not-a-skill-slot": "Only a skill line is rolled for or picked.",
        "roll-refused": "The rules do not allow that roll or pick now (R5, R5a).",
        "table-required": "After a natural 12, name the table to roll on (R5).",
        "reroll-fr": "A re-roll may not take FR below 0 (R3, R5a).",
        "not-a-choice": "That skill is not one the roll lets the student pick freely (R5).",
        "unknown-skill-choice": "No skill has that name.",
    }
)

NOT_FOUND_CODES = declare_codes(
    {
        "no-such-member": "The force has no such member (any more).",
    },
    Kind.NOT_FOUND,
)

CONFLICT_CODES = declare_codes(
    {
        "rules-update-pending": "The force was built under an older edition of the rules: "
        "review the new edition's difference and move the force to it before changing it.",
        "rules-up-to-date": "The force is already on the current edition of the rules.",
    },
    Kind.CONFLICT,
)


# --- the draft a command changes ---------------------------------------------------------


@dataclass(slots=True)
class Draft:
    """The force as plain data under the lock, for a command to change in place.

    `members` hold each member's JSON (and its id; None for a new one), `rolls` the
    stored rolls of each existing member by id, `new_rolls` the rolls to store.
    """

    name: str
    resources: int
    members: list[MemberState]
    rolls: dict[int, list[SkillRoll]]
    new_rolls: list[tuple[MemberState, SkillRoll]] = field(default_factory=list)

    def member(self, member_id: int) -> MemberState:
        for state in self.members:
            if state.id == member_id:
                return state
        raise NotFound("no-such-member", "This force has no such member (any more).")

    def index_of(self, state: MemberState) -> int:
        return next(i for i, s in enumerate(self.members) if s is state)

    def rolls_of(self, state: MemberState, slot: str) -> list[SkillRoll]:
        stored = [r for r in self.rolls.get(state.id, []) if r.slot == slot] if state.id else []
        return stored + [r for s, r in self.new_rolls if s is state and r.slot == slot]


@dataclass(frozen=True, slots=True)
class Written(Generic[T]):
    """What a command did: the force as stored now, and the command's own value.

    `members` are its member rows as stored, in order (those read under the lock keep
    their stored rolls; rolls the command made are not among them)."""

    force: Force
    value: T
    members: list[Member] = field(default_factory=list)


Check = Callable[[engine.Evaluation, Draft], None]


@dataclass(frozen=True, slots=True)
class RulesUpdate:
    """What moving a force to the current edition would change (`preview_rules_update`):
    its stored evaluation (`before`, worked out under its own edition) against the one
    the move would store (`after`), and what would refuse the move now."""

    from_version: str
    to_version: str
    before: dict[str, Any]
    after: dict[str, Any]
    refusals: list[Problem]

    def as_dict(self) -> dict[str, Any]:
        def diff(kind: str) -> dict[str, list[dict[str, str]]]:
            old, new = self.before.get(kind, []), self.after.get(kind, [])
            return {
                "added": [p for p in new if p not in old],
                "removed": [p for p in old if p not in new],
            }

        def pair(before: Any, after: Any) -> dict[str, Any]:
            return {"before": before, "after": after}

        return {
            "rules_version": pair(self.from_version, self.to_version),
            "cost": pair(self.before.get("total_cost"), self.after["total_cost"]),
            "resources": pair(self.before.get("resources"), self.after["resources"]),
            "legal": pair(bool(self.before.get("valid")), self.after["valid"]),
            "errors": diff("errors"),
            "warnings": diff("warnings"),
            "refusals": [p.as_dict() for p in self.refusals],
        }


class _DryRun(Exception):
    """Not an error: how a dry run leaves its transaction (so nothing it did is kept),
    carrying its answer."""

    def __init__(self, update: RulesUpdate) -> None:
        super().__init__("dry run")
        self.update = update


def _member_rows(force: Force) -> list[Member]:
    rolls = Prefetch("rolls", queryset=SkillRoll.objects.order_by("created_at", "id"))
    return list(
        Member.objects.filter(force=force).order_by("position", "id").prefetch_related(rolls)
    )


def _verified(draft: Draft) -> set[str]:
    """R5: pointers of rolled advancements whose skill the server's last roll gave."""
    verified: set[str] = set()
    for index, state in enumerate(draft.members):
        for kind in SLOT_KINDS:
            for k, advancement in enumerate(state.data.get(kind, [])):
                rolls = draft.rolls_of(state, f"{kind}/{k}")
                if member_rows.roll_is_evidence(rolls, advancement):
                    verified.add(f"/members/{index}/{kind}/{k}")
    return verified


def _check_version(force: Force, *, if_match: int | None, made_on: int | None) -> None:
    if if_match is not None and if_match != force.version:
        named = f"version {if_match}" if if_match >= 0 else "no version of this force"
        raise PreconditionFailed(
            "precondition-failed",
            f"If-Match names {named}; the force is at version {force.version}. Read it "
            "again (its ETag) and resend the change.",
        )
    if made_on is not None and made_on != force.version:
        raise Conflict(
            "stale-version",
            "This force changed since this page was loaded (in another tab or by another "
            "device); nothing was changed. Here it is as it is now: make the change again.",
            pointer="/version",
        )


def _check_rules(locked: Force, command: Command, catalogue: Catalogue) -> None:
    """A force on an older edition waits for its player to move it (issue #13); the app's
    own bookkeeping (no actor) runs, so a campaign never waits on a player."""
    if command.kind == "move-to-rules":
        if locked.rules_version == catalogue.rules_version:
            raise Conflict(
                "rules-up-to-date",
                f"{locked.name} is already on the current rules ({catalogue.rules_version}).",
            )
    elif command.actor is not None and locked.rules_version != catalogue.rules_version:
        raise Conflict(
            "rules-update-pending",
            f"{locked.name} was built under the rules {locked.rules_version}; the site now "
            f"plays {catalogue.rules_version}. Review the difference and move the force to "
            "the new rules before changing it.",
        )


def _unchanged(
    locked: Force, rows: list[Member], draft: Draft, evaluation: dict[str, Any]
) -> bool:
    """Whether storing the draft would change nothing but the content version."""
    return (
        evaluation == locked.evaluation
        and draft.name == locked.name
        and draft.resources == locked.resources
        and not draft.new_rolls
        and [(s.id, s.data) for s in draft.members]
        == [(m.pk, member_rows.member_json(m)) for m in rows]
    )


def _write(
    force: Force,
    command: Command,
    change: Callable[[Draft], T],
    *,
    if_match: int | None = None,
    made_on: int | None = None,
    check: Check | None = None,
    quiet: bool = False,
    dry_run: bool = False,
) -> Written[T]:
    """Run one command through the write path (see the module's docstring).

    `quiet`: when the change leaves the force and its evaluation as they were, only the
    content version is stored, and the version does not move (a client's `If-Match`
    still holds). `dry_run`: everything but storing, with the policy's refusals
    collected rather than raised; the answer leaves as `_DryRun`.

    Long because it is the write path's steps (the module's docstring) in their order, in
    one transaction.
    """
    catalogue = get_catalogue()
    refusals: list[Problem] = []
    with transaction.atomic():
        policy = policy_for(force)
        policy.lock()
        locked = Force.objects.select_for_update().get(pk=force.pk)
        _check_version(locked, if_match=if_match, made_on=made_on)
        try:
            policy.permit(command, locked)
        except DomainError as exc:
            if not dry_run:
                raise
            refusals += exc.problems
        _check_rules(locked, command, catalogue)
        rows = _member_rows(locked)
        before = [MemberState(m.pk, member_rows.member_json(m)) for m in rows]
        draft = Draft(
            name=locked.name,
            resources=locked.resources,
            members=[MemberState(s.id, copy.deepcopy(s.data)) for s in before],
            rolls={m.pk: list(m.rolls.all()) for m in rows},
        )
        value = change(draft)
        if callable(command.description):
            command = replace(command, description=command.description())
        document = {
            "format": documents.FORMAT,
            "name": draft.name,
            "resources": draft.resources,
            "members": [state.data for state in draft.members],
        }
        try:
            roster = documents.parse(document)
        except documents.MalformedDocument as exc:
            raise Invalid.of(exc.problems) from exc
        for state, parsed in zip(draft.members, roster.members, strict=True):
            state.data = documents.export_member(parsed)  # stored canonical
        evaluation = engine.evaluate_roster(
            roster,
            catalogue,
            verified_rolls=_verified(draft),
            level_thresholds=policy.level_thresholds(),
        )
        if check is not None:
            check(evaluation, draft)
        proposal = Proposal(
            command=command,
            force=locked,
            before_members=before,
            after_members=draft.members,
            before=locked.evaluation or {},
            after=evaluation,
            resources=draft.resources,
        )
        try:
            verdict = policy.judge(proposal)
        except DomainError as exc:
            if not dry_run:
                raise
            refusals += exc.problems
            verdict = Verdict()
        if verdict.resources is not None and verdict.resources != draft.resources:
            draft.resources = verdict.resources
            evaluation = engine.with_resources(evaluation, verdict.resources)
            proposal.after = evaluation
        if dry_run:
            update = RulesUpdate(
                from_version=locked.rules_version,
                to_version=catalogue.rules_version,
                before=locked.evaluation or {},
                after=evaluation.as_dict(),
                refusals=refusals,
            )
            raise _DryRun(update)
        if quiet and _unchanged(locked, rows, draft, evaluation.as_dict()):
            locked.evaluation_version = engine.evaluation_version(catalogue)
            locked.save(update_fields=["evaluation_version"])
            stored = rows
        else:
            if command.kind == "move-to-rules":
                locked.rules_version = catalogue.rules_version
            stored = _store(locked, rows, before, draft, evaluation, catalogue)
            policy.settle(proposal, verdict)
            signals.force_changed.send(
                Force, force=locked, command=command, policy=policy, deleted=False
            )
        _show_on(force, locked)
        return Written(locked, value, stored)


# The force row's fields a stored evaluation writes, and (with the share link, which
# `_touch` writes) what a write shows on the caller's own instance too.
_STORED_FIELDS = (
    "name",
    "resources",
    "rules_version",
    "evaluation",
    "evaluation_version",
    "version",
    "updated_at",
)
_FORCE_FIELDS = (*_STORED_FIELDS, "share_token")


def _show_on(given: Force, stored: Force) -> None:
    if given is not stored:
        for name in _FORCE_FIELDS:
            setattr(given, name, getattr(stored, name))


def _store(
    force: Force,
    rows: list[Member],
    before: Sequence[MemberState],
    draft: Draft,
    evaluation: engine.Evaluation,
    catalogue: Catalogue,
) -> list[Member]:
    """Members, rolls and the evaluation as the draft has them; the version moves on.
    Returns the member rows as stored, in order."""
    by_id = {m.pk: m for m in rows}
    kept = {s.id for s in draft.members if s.id is not None}
    gone = [pk for pk in by_id if pk not in kept]
    if gone:
        Member.objects.filter(pk__in=gone).delete()
    was = {s.id: s.data for s in before}
    # Positions are unique in a force: members that move go out of the way first.
    moving = [
        (i, by_id[s.id])
        for i, s in enumerate(draft.members)
        if s.id is not None and by_id[s.id].position != i
    ]
    for i, row in moving:
        Member.objects.filter(pk=row.pk).update(position=10_000 + i)
    for i, state in enumerate(draft.members):
        if state.id is None:
            continue
        row = by_id[state.id]
        if state.data != was[state.id] or row.position != i:
            for column, value in documents.member_columns(state.data).items():
                setattr(row, column, value)
            row.position = i
            row.save()
    for i, state in enumerate(draft.members):
        if state.id is None:
            row = Member.objects.create(
                force=force, position=i, **documents.member_columns(state.data)
            )
            state.id = row.pk
            by_id[row.pk] = row
    for state, roll in draft.new_rolls:
        roll.member_id = _saved(state)
    SkillRoll.objects.bulk_create([roll for _, roll in draft.new_rolls])
    force.name = draft.name
    force.resources = draft.resources
    force.evaluation = evaluation.as_dict()
    force.evaluation_version = engine.evaluation_version(catalogue)
    force.version += 1
    force.updated_at = timezone.now()
    force.save(update_fields=_STORED_FIELDS)
    return [by_id[_saved(state)] for state in draft.members]


def _saved(state: MemberState) -> int:
    """The id of a member `_store` has saved (every member has one once it has run)."""
    assert state.id is not None
    return state.id


def _touch(force: Force, command: Command, change: Callable[[Force], None]) -> Force:
    """A command that changes nothing the rules see (a share link): lock, permit, change,
    move the version."""
    with transaction.atomic():
        policy = policy_for(force)
        policy.lock()
        locked = Force.objects.select_for_update().get(pk=force.pk)
        policy.permit(command, locked)
        change(locked)
        locked.version += 1
        locked.save()
        signals.force_changed.send(
            Force, force=locked, command=command, policy=policy, deleted=False
        )
        _show_on(force, locked)
        return locked


# --- forces ---------------------------------------------------------------------------------


def _new_force(owner: User, name: str, resources: int, rules_version: str) -> Force:
    return Force.objects.create(
        owner=owner, name=name, resources=resources, rules_version=rules_version
    )


def _replace_members(draft: Draft, members: Sequence[dict[str, Any]]) -> None:
    """The draft's members become `members`; one that keeps its place and name keeps its
    id (and so its roll history)."""
    old = draft.members
    draft.members = [
        MemberState(
            old[i].id if i < len(old) and old[i].data.get("name") == data.get("name") else None,
            copy.deepcopy(data),
        )
        for i, data in enumerate(members)
    ]


FORCE_NAME_MAX = Force._meta.get_field("name").max_length or 100
_COPY_SUFFIX = re.compile(r" \(copy(?: \d+)?\)$")


def copy_name(owner: User, name: str) -> str:
    """A name for a copy of `name` that none of `owner`'s forces has: "Name (copy)", then
    "Name (copy 2)", "Name (copy 3)"... A copy of a copy counts on from the original's
    name, and a long name is shortened to leave room for the suffix."""
    original = _COPY_SUFFIX.sub("", name)
    # Every candidate starts with the original's first characters, whatever its suffix.
    stem = original[: FORCE_NAME_MAX - len(" (copy 999)")]
    taken = set(
        Force.objects.filter(owner=owner, name__startswith=stem).values_list("name", flat=True)
    )
    for number in itertools.count(1):
        suffix = " (copy)" if number == 1 else f" (copy {number})"
        candidate = original[: FORCE_NAME_MAX - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
    raise AssertionError("unreachable: itertools.count never ends")


def create_force(*, owner: User, name: str, resources: int = 50) -> Force:
    with transaction.atomic():
        force = _new_force(owner, name, resources, get_catalogue().rules_version)
        return _write(force, Command("create", owner), lambda draft: None).force


def import_force(*, owner: User, document: Any, as_copy: bool = False) -> Force:
    """A new force from a dbd-roster/1 document; a malformed one creates nothing (400).

    Rolls cannot travel in a document, so every rolled skill in it is unverified (R5).
    With `as_copy` (a player's own import), a document named like one of the owner's
    forces (their own export, brought back) gives a force named as a copy of it, so the
    two can be told apart wherever forces are listed.
    """
    try:
        roster = documents.parse(document)
    except documents.MalformedDocument as exc:
        raise Invalid.of(exc.problems) from exc
    with transaction.atomic():
        name = roster.name
        if as_copy and Force.objects.filter(owner=owner, name=name).exists():
            name = copy_name(owner, name)
        force = _new_force(owner, name, roster.resources, get_catalogue().rules_version)

        def change(draft: Draft) -> None:
            _replace_members(draft, document["members"])

        return _write(force, Command("import", owner), change).force


@dataclass(frozen=True, slots=True)
class RestoredRoll:
    """A server roll as an export holds it (`campaign.exports`): the member it was made
    for (an index into the document's members) and the roll as it was made."""

    member: int
    rolled_by: User | None
    slot: str
    table: str
    dice: list[int]
    outcome: str
    skill: str  # "" when the roll gave none
    choices: list[str]
    created_at: datetime


def restore_force(
    *, owner: User, document: Any, rules_version: str, rolls: Sequence[RestoredRoll]
) -> Force:
    """A force as an export holds it (a campaign's, `campaign.exports`): its document, the
    edition it was built under, and its server roll history, so its rolled skills stay
    verified (R5). A malformed document creates nothing (400).

    The app's own bookkeeping (no actor): a force on an older edition is restored as it
    was, for its player to move (issue #13)."""
    try:
        roster = documents.parse(document)
    except documents.MalformedDocument as exc:
        raise Invalid.of(exc.problems) from exc
    with transaction.atomic():
        force = _new_force(owner, roster.name, roster.resources, rules_version)
        made: list[SkillRoll] = []

        def change(draft: Draft) -> None:
            _replace_members(draft, document["members"])
            for roll in rolls:
                row = SkillRoll(
                    rolled_by=roll.rolled_by,
                    slot=roll.slot,
                    table=roll.table,
                    dice=roll.dice,
                    outcome=roll.outcome,
                    skill=roll.skill,
                    choices=roll.choices,
                )
                draft.new_rolls.append((draft.members[roll.member], row))
                made.append(row)

        written = _write(force, Command("import", None, "restored from an export"), change)
        for roll, row in zip(rolls, made, strict=True):
            # Stored at insert as now (`auto_now_add`): the time the roll was made replaces it.
            SkillRoll.objects.filter(pk=row.pk).update(created_at=roll.created_at)
        return written.force


def restore_times(*, force: Force, created_at: datetime, updated_at: datetime) -> None:
    """The last step of restoring a force from an export (`campaign.exports`): the times
    the export holds, which every write before this one moved. Nothing the rules see
    changes, and the version does not move (nothing has been shown of the force yet)."""
    Force.objects.filter(pk=force.pk).update(created_at=created_at, updated_at=updated_at)


def duplicate_force(
    *, force: Force, owner: User, name: str | None = None, actor: User | None = None
) -> Force:
    """A copy with its members and their roll history (so verified rolls stay verified).

    Named `name`, or as a copy among the owner's forces ("Name (copy)", "Name (copy 2)").
    `actor` is who asks (None when an app copies a force for itself, e.g. a campaign).
    """
    with transaction.atomic():
        copy_ = _new_force(
            owner, name or copy_name(owner, force.name), force.resources, force.rules_version
        )
        rows = _member_rows(force)
        for row in rows:
            rolls = list(row.rolls.all())
            row.pk = None
            row.force = copy_
            row.save()
            for roll in rolls:
                roll.pk = None
                roll.member = row
            SkillRoll.objects.bulk_create(rolls)
        return _write(copy_, Command("duplicate", actor), lambda draft: None).force


def refresh(*, force: Force, description: str = "") -> Force:
    """Evaluate the force again as it stands (its policy's numbers may have moved: a
    campaign's level thresholds or ledger). The app's own bookkeeping: no actor."""
    return _write(force, Command("refresh", None, description), lambda draft: None).force


def refresh_evaluation(*, force: Force) -> Force:
    """Work the stored evaluation out again with the current rules' content (after a new
    fixture was loaded: `manage.py refresh_evaluations`, or a read that finds it stale).

    The app's own bookkeeping through the write path, under the force's policy. When the
    answer is the same, only the content version is stored and the version stays (an
    `If-Match` a client holds still holds); when it changed, the version moves on like
    any write, so clients read the new answer before changing the force.
    """
    command = Command("rules-refresh", None, "the rules' content changed")
    return _write(force, command, lambda draft: None, quiet=True).force


def preview_rules_update(*, force: Force, actor: User | None) -> RulesUpdate:
    """What `move_to_rules` would store, worked out through the write path and not
    stored: the cost, Resources, legality, errors and warnings before and after, and
    the policy's refusals of the move now (a campaign copy with a battle pending)."""
    command = Command("move-to-rules", actor, "a preview")
    try:
        _write(force, command, lambda draft: None, dry_run=True)
    except _DryRun as answer:
        return answer.update
    raise AssertionError("a dry run always ends in _DryRun")  # pragma: no cover


def move_to_rules(
    *,
    force: Force,
    actor: User | None,
    if_match: int | None = None,
    made_on: int | None = None,
) -> Force:
    """Move the force to the current edition of the rules, once its player has seen the
    difference (`preview_rules_update`): the evaluation under the new edition is stored
    and the version moves on. The policy may refuse (a campaign copy's pending battle)."""
    to = get_catalogue().rules_version
    command = Command("move-to-rules", actor, f"moved to the rules {to}")
    return _write(force, command, lambda draft: None, if_match=if_match, made_on=made_on).force


def update_force_details(
    *,
    force: Force,
    actor: User | None,
    name: str | None = None,
    resources: int | None = None,
    if_match: int | None = None,
) -> Force:
    """Rename the force and/or change its Resources (R11)."""

    def change(draft: Draft) -> None:
        if name is not None:
            draft.name = name
        if resources is not None:
            draft.resources = resources

    kind = "set-resources" if resources is not None and resources != force.resources else "rename"
    return _write(force, Command(kind, actor), change, if_match=if_match).force


def replace_document(
    *,
    force: Force,
    actor: User | None,
    document: Any,
    if_match: int | None = None,
) -> Force:
    """Make the force say what `document` says (the API's PUT); a member that keeps its
    place and name keeps its roll history. A malformed document changes nothing."""
    try:
        roster = documents.parse(document)
    except documents.MalformedDocument as exc:
        raise Invalid.of(exc.problems) from exc

    def change(draft: Draft) -> None:
        draft.name = roster.name
        draft.resources = roster.resources
        _replace_members(draft, document["members"])

    command = Command("replace-document", actor, "a new version of the document")
    return _write(force, command, change, if_match=if_match).force


def patch_document(
    *,
    force: Force,
    actor: User | None,
    changes: Mapping[str, Any],
    if_match: int | None = None,
) -> Force:
    """Replace some top-level keys of the document: `name`, `resources`, `members` (the
    caller has refused any other key). A malformed value changes nothing."""

    def change(draft: Draft) -> None:
        if "name" in changes:
            draft.name = changes["name"]
        if "resources" in changes:
            draft.resources = changes["resources"]
        if "members" in changes:
            members = changes["members"]
            shape = {"format": documents.FORMAT, "name": "x", "resources": 1, "members": members}
            problems = documents.shape_problems(shape)
            if problems:
                raise Invalid.of(problems)
            _replace_members(draft, members)

    command = Command("replace-document", actor, "a new version of the document")
    return _write(force, command, change, if_match=if_match).force


def delete_force(*, force: Force, actor: User | None, if_match: int | None = None) -> None:
    with transaction.atomic():
        policy = policy_for(force)
        policy.lock()
        locked = Force.objects.select_for_update().get(pk=force.pk)
        _check_version(locked, if_match=if_match, made_on=None)
        command = Command("delete", actor)
        policy.permit(command, locked)
        signals.force_changed.send(
            Force, force=locked, command=command, policy=policy, deleted=True
        )
        locked.delete()


def set_share_link(*, force: Force, actor: User | None, enabled: bool) -> Force:
    """Turn the read-only link on (a new unguessable token) or off."""

    def change(locked: Force) -> None:
        locked.share_token = secrets.token_urlsafe(32) if enabled else None

    return _touch(force, Command("share", actor), change)


# --- members --------------------------------------------------------------------------------


def add_member(
    *,
    force: Force,
    actor: User | None,
    data: Any,
    made_on: int | None = None,
) -> Member:
    """Recruit: append a member from its dbd-roster/1 JSON (drafts may break rules, not
    the shape; the document holds at most 20 members)."""
    try:
        documents.parse_member(data)
    except documents.MalformedDocument as exc:
        raise Invalid.of(exc.problems) from exc

    def change(draft: Draft) -> MemberState:
        state = MemberState(None, copy.deepcopy(data))
        draft.members.append(state)
        return state

    command = Command("recruit", actor, f"recruited {data.get('name', 'a member')}")
    written = _write(force, command, change, made_on=made_on)
    return Member.objects.get(pk=_saved(written.value))


def change_member(
    *,
    force: Force,
    actor: User | None,
    member_id: int,
    change: Callable[[dict[str, Any]], dict[str, Any]],
    description: str | Callable[[], str] = "",
    made_on: int | None = None,
) -> Member:
    """Apply `change` (the member's JSON in, its new JSON out) to the member as stored
    now, under the lock: two changes made at once both land, one after the other.

    Returns the member as stored, with its rolls (a change makes none), read once: the
    row the write path changed, not read again. The caller's `force` shows its members
    as stored, in order (`force.members.all()` reads nothing more)."""

    def apply(draft: Draft) -> MemberState:
        state = draft.member(member_id)
        data = change(copy.deepcopy(state.data))
        try:
            documents.parse_member(data)
        except documents.MalformedDocument as exc:
            at = pointer("members", draft.index_of(state))
            raise Invalid.of(under(at, exc.problems)) from exc
        state.data = data
        return state

    command = Command("change-member", actor, description, member_id=member_id)
    written = _write(force, command, apply, made_on=made_on)
    member = next(m for m in written.members if m.pk == member_id)
    member.force = force  # the caller's instance, showing what was stored
    member_rows.show_members(force, written.members)
    return member


def update_member(*, force: Force, actor: User | None, member_id: int, data: Any) -> Member:
    """Replace a member's JSON (keeping its place and its rolls)."""
    return change_member(force=force, actor=actor, member_id=member_id, change=lambda _: data)


def remove_member(
    *, force: Force, actor: User | None, member_id: int, made_on: int | None = None
) -> None:
    """Retire a member from the force (R18a: their history stays in past battles)."""

    def change(draft: Draft) -> None:
        draft.members.remove(draft.member(member_id))

    _write(force, Command("retire", actor, member_id=member_id), change, made_on=made_on)


# --- skill rolls and picks (R5, R5a, R17) -------------------------------------------------


def _slot(
    draft: Draft, member_id: int, slot: str
) -> tuple[MemberState, list[dict[str, Any]], int]:
    state = draft.member(member_id)
    kind, _, index = slot.partition("/")
    if kind not in SLOT_KINDS or not is_whole_number(index):
        raise Invalid(
            "no-such-slot",
            f"'{slot}' is not an advancement; use e.g. 'free_advancements/0'.",
            pointer="/slot",
        )
    advancements = state.data[kind]
    position = int(index)
    if position >= len(advancements):
        raise Invalid(
            "no-such-slot",
            f"{state.data['name']} has no advancement at '{slot}'.",
            pointer="/slot",
        )
    return state, advancements, position


def _skill_table(
    catalogue: Catalogue, data: Mapping[str, Any], advancement: Mapping[str, Any]
) -> str | None:
    """The table an advancement's line rolls on (R5), or None when it is no skill line of
    the member's society."""
    society = catalogue.societies.get(data["club"]["society"])
    number: Any = advancement.get("line")  # as the caller sent it: not yet checked
    line = society.lines.get(number) if society else None
    return line.skill_category if line is not None and line.kind == "skill" else None


def _line_category(state: MemberState, advancement: dict[str, Any]) -> str:
    table = _skill_table(get_catalogue(), state.data, advancement)
    if table is None:
        raise Invalid(
            "not-a-skill-slot",
            "Only a skill line is rolled for; choose a skill line first.",
            pointer="/slot",
        )
    return table


def _sequence(rolls: list[SkillRoll]) -> list[SkillRoll]:
    """The rolls since the last finished result: a natural 12 leaves the roll open."""
    sequence: list[SkillRoll] = []
    for roll in rolls:
        if sequence and sequence[-1].outcome != SkillRoll.Outcome.NATURAL_12:
            sequence = []
        sequence.append(roll)
    return sequence


def owned_skills(data: Mapping[str, Any], *, exclude_slot: str | None = None) -> list[str]:
    """Skills the member has from advancements and purchases ('already owned', R5)."""
    skills = [
        advancement["skill"]
        for kind in SLOT_KINDS
        for i, advancement in enumerate(data.get(kind, []))
        if f"{kind}/{i}" != exclude_slot and advancement.get("skill")
    ]
    skills.extend(p["skill"] for p in data.get("purchases", []) if "skill" in p)
    return skills


def _no_new_fr_breach(member_id: int, slot: str, before: Collection[tuple[str, str]]) -> Check:
    """R5a: a re-roll (or pick) may not take FR below 0 at its advancement."""

    def check(evaluation: engine.Evaluation, draft: Draft) -> None:
        state = draft.member(member_id)
        at = pointer("members", draft.index_of(state), *slot.split("/"))
        breach = [
            p
            for p in evaluation.errors
            if p.pointer == at and p.code == "statistic-out-of-bounds" and "FR" in p.message
        ]
        if breach and (at, "statistic-out-of-bounds") not in before:
            raise Invalid(
                "reroll-fr",
                f"{state.data['name']} has no FR left to pay for this (R5a: FR may not go "
                "below 0).",
                pointer="/slot",
            )

    return check


def _stored_errors(force: Force) -> set[tuple[str, str]]:
    return {(p["pointer"], p["code"]) for p in (force.evaluation or {}).get("errors", [])}


def roll_skill(
    *,
    force: Force,
    actor: User | None,
    member_id: int,
    slot: str,
    table: str | None = None,
    rng: random.Random,
    made_on: int | None = None,
) -> SkillRoll:
    """Roll 1d12 on the server for the skill advancement at `slot` and store the roll.

    After a natural 12, `table` names the table to roll on next (any of them). Rolling
    again after a result is a re-roll: -1 FR, counted in the advancement's `rerolls`,
    refused when it would take FR below 0 (R5a).

    Long because a roll, a re-roll and a roll after a natural 12 share their checks and the
    stored roll (R5, R5a).
    """
    catalogue = get_catalogue()

    def change(draft: Draft) -> SkillRoll:
        state, advancements, position = _slot(draft, member_id, slot)
        advancement = dict(advancements[position])
        line_category = _line_category(state, advancement)
        earlier = draft.rolls_of(state, slot)
        sequence = _sequence(earlier)
        continuing = bool(sequence) and sequence[-1].outcome == SkillRoll.Outcome.NATURAL_12
        if continuing:
            if table is None or table not in catalogue.skill_categories:
                names = ", ".join(catalogue.skill_categories)
                raise Invalid(
                    "table-required",
                    f"A natural 12: choose the table to roll on ({names}).",
                    pointer="/table",
                )
            category = table
        else:
            if earlier:
                advancement["rerolls"] = advancement.get("rerolls", 0) + 1
            category = line_category
        owned = owned_skills(state.data, exclude_slot=slot)
        result = engine.roll_skill(catalogue.skill_categories[category], owned, rng)
        roll = SkillRoll(
            rolled_by=actor,
            slot=slot,
            table=result.table,
            dice=list(result.dice),
            outcome=result.outcome,
            skill=result.skill or "",
            choices=list(result.choices),
            created_at=timezone.now(),
        )
        draft.new_rolls.append((state, roll))
        advancement.pop("skill", None)
        advancement["method"] = "rolled"
        if continuing or result.outcome == SkillRoll.Outcome.NATURAL_12:
            advancement["natural_12"] = True
        else:
            advancement.pop("natural_12", None)
        if result.skill:
            advancement["skill"] = result.skill
        if not advancement.get("rerolls"):
            advancement.pop("rerolls", None)
        advancements[position] = advancement
        return roll

    command = Command("roll", actor, "a skill roll", member_id=member_id, slot=slot)
    check = _no_new_fr_breach(member_id, slot, _stored_errors(force))
    return _write(force, command, change, made_on=made_on, check=check).value


def take_free_pick(
    *,
    force: Force,
    actor: User | None,
    member_id: int,
    slot: str,
    skill: str,
    made_on: int | None = None,
) -> Member:
    """After a roll the student cannot take, choose among its choices at no cost (R5)."""

    def change(draft: Draft) -> None:
        state, advancements, position = _slot(draft, member_id, slot)
        rolls = draft.rolls_of(state, slot)
        last = rolls[-1] if rolls else None
        if last is None or last.outcome != SkillRoll.Outcome.PICK_FREELY:
            raise Invalid(
                "roll-refused",
                "A free pick follows a roll whose skill could not be taken.",
                pointer="/slot",
            )
        if skill not in last.choices:
            raise Invalid(
                "not-a-choice",
                "That is not one of the skills this roll lets you pick.",
                pointer="/skill",
            )
        advancements[position] = {**advancements[position], "skill": skill, "method": "rolled"}

    command = Command("free-pick", actor, "a free pick", member_id=member_id, slot=slot)
    _write(force, command, change, made_on=made_on)
    return Member.objects.get(pk=member_id)


def pick_skill(
    *,
    force: Force,
    actor: User | None,
    member_id: int,
    slot: str,
    skill: str,
    made_on: int | None = None,
) -> Member:
    """Choose the skill outright for -2 FR (R5); re-rolls already paid for stay paid
    (R5a), and the pick is refused if FR would go below 0."""
    if skill not in get_catalogue().skills:
        raise Invalid("unknown-skill-choice", "Choose one of the listed skills.", pointer="/skill")

    def change(draft: Draft) -> None:
        state, advancements, position = _slot(draft, member_id, slot)
        advancement = dict(advancements[position])
        _line_category(state, advancement)
        advancement.update(skill=skill, method="picked")
        advancement.pop("natural_12", None)
        advancements[position] = advancement

    command = Command("pick", actor, "a picked skill", member_id=member_id, slot=slot)
    check = _no_new_fr_breach(member_id, slot, _stored_errors(force))
    _write(force, command, change, made_on=made_on, check=check)
    return Member.objects.get(pk=member_id)


# --- level-ups and XP (R16, R17; the campaign's bookkeeping) ------------------------------


def take_level_up(
    *,
    force: Force,
    actor: User | None,
    member_id: int,
    advancement: dict[str, Any],
    rng: random.Random | None = None,
    description: str = "a level-up",
) -> Member:
    """Add a level-up (R17): `advancement` is `{"line": n}` (with `choice` on an "or"
    line) or a picked skill; a skill line without a skill is rolled on the server (R5).

    The new level-up must itself be legal (an open roll excepted): any new error at it
    refuses the whole change, pointing at what the caller sent.

    Long because the level-up, its roll and the check that it is itself legal run in one
    change.
    """
    catalogue = get_catalogue()
    slot_holder: dict[str, str] = {}

    def change(draft: Draft) -> None:
        state = draft.member(member_id)
        index = len(state.data["level_ups"])
        slot = f"level_ups/{index}"
        slot_holder["slot"] = slot
        state.data["level_ups"] = [*state.data["level_ups"], dict(advancement)]
        table = _skill_table(catalogue, state.data, advancement)
        if table is not None and "skill" not in advancement:
            if rng is None:
                raise Invalid("roll-refused", "A rolled skill needs the server's dice.")
            owned = owned_skills(state.data, exclude_slot=slot)
            result = engine.roll_skill(catalogue.skill_categories[table], owned, rng)
            draft.new_rolls.append(
                (
                    state,
                    SkillRoll(
                        rolled_by=actor,
                        slot=slot,
                        table=result.table,
                        dice=list(result.dice),
                        outcome=result.outcome,
                        skill=result.skill or "",
                        choices=list(result.choices),
                        created_at=timezone.now(),
                    ),
                )
            )
            rolled: dict[str, Any] = {**advancement, "method": "rolled"}
            if result.outcome == SkillRoll.Outcome.NATURAL_12:
                rolled["natural_12"] = True
            if result.skill:
                rolled["skill"] = result.skill
            state.data["level_ups"][index] = rolled

    before = _stored_errors(force)

    def check(evaluation: engine.Evaluation, draft: Draft) -> None:
        state = draft.member(member_id)
        at = pointer("members", draft.index_of(state), *slot_holder["slot"].split("/"))
        new = [
            p
            for p in evaluation.errors
            if (p.pointer == at or p.pointer.startswith(at + "/"))
            and (p.pointer, p.code) not in before
            and p.code != "skill-required"  # an open roll, finished with a pick or roll
        ]
        if new:
            # Pointers relative to what the caller sent: `/line`, `/choice`, `/skill`.
            raise Invalid.of([Problem(p.pointer[len(at) :] or "", p.code, p.message) for p in new])

    command = Command("take-level-up", actor, description, member_id=member_id)
    _write(force, command, change, check=check)
    return Member.objects.get(pk=member_id)


def award_xp(
    *,
    force: Force,
    xp: Mapping[int, int],
    keep_level_ups: Mapping[int, int] | None = None,
    description: str = "",
) -> Force:
    """The campaign's bookkeeping: add (or, for a void, take back) XP per member (R16);
    a member in `keep_level_ups` keeps only their first so many level-ups (R15a: the
    latest go, with their effects). A member no longer in the force is skipped."""
    keep = keep_level_ups or {}

    def change(draft: Draft) -> None:
        for state in draft.members:
            if state.id is None:
                continue
            if state.id in xp:
                state.data["xp"] = max(0, state.data["xp"] + xp[state.id])
            if state.id in keep:
                state.data["level_ups"] = state.data["level_ups"][: keep[state.id]]

    return _write(force, Command("award-xp", None, description), change).force


__all__ = [
    "DomainError",
    "Draft",
    "RestoredRoll",
    "Written",
    "add_member",
    "award_xp",
    "change_member",
    "create_force",
    "delete_force",
    "duplicate_force",
    "import_force",
    "move_to_rules",
    "owned_skills",
    "patch_document",
    "pick_skill",
    "preview_rules_update",
    "refresh",
    "refresh_evaluation",
    "remove_member",
    "replace_document",
    "restore_force",
    "restore_times",
    "roll_skill",
    "set_share_link",
    "take_free_pick",
    "take_level_up",
    "update_force_details",
    "update_member",
]
