"""Reads of saved forces. Every queryset here is filtered by who is asking.

A force read here never shows an evaluation worked out with other rules content than
the catalogue's, or with another version of the engine's code (issue #13, #33): a stale
one is worked out again through the write path (`roster.services.refresh_evaluation`)
before it is returned. Checking costs no query (the row carries its evaluation version);
a refresh happens once per force and change of the rules or the engine. Forces on
another edition keep the evaluation of their own edition.
"""

from collections.abc import Iterable
from typing import Any, TypeVar

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Player
from django.db.models import Count, Prefetch, QuerySet, prefetch_related_objects
from django.shortcuts import get_object_or_404

from roster import documents, member_rows, services
from roster.engine import Evaluation, evaluate, evaluation_version
from roster.models import Force, Member, SkillRoll
from roster.policy import policy_for
from rules.loader import get_catalogue

User = Player | AnonymousUser
Forces = TypeVar("Forces", bound=Iterable[Force])


def is_stale(force: Force) -> bool:
    """Whether the force's stored evaluation was worked out with other rules content than
    the catalogue's or by another version of the engine, on the force's own edition."""
    catalogue = get_catalogue()
    return (
        force.rules_version == catalogue.rules_version
        and force.evaluation_version != evaluation_version(catalogue)
    )


def stale_forces() -> QuerySet[Force]:
    """Every force `is_stale` would name, as one query (`manage.py refresh_evaluations`)."""
    catalogue = get_catalogue()
    return Force.objects.filter(rules_version=catalogue.rules_version).exclude(
        evaluation_version=evaluation_version(catalogue)
    )


def refreshed(forces: Forces) -> Forces:
    """`forces` (already read and authorised), each stale one's evaluation worked out
    again first (on the instances themselves)."""
    for force in forces:
        if is_stale(force):
            services.refresh_evaluation(force=force)
    return forces


def is_on_old_rules(force: Force) -> bool:
    """Whether the force was built under another edition than the catalogue's: its owner
    reviews the difference and moves it (`roster.services.move_to_rules`)."""
    return force.rules_version != get_catalogue().rules_version


def forces_for(*, user: User) -> QuerySet[Force]:
    """The forces `user` owns; nobody else's, and none for an anonymous visitor."""
    if not user.is_authenticated:
        return Force.objects.none()
    return Force.objects.filter(owner=user)


def _rolls() -> "Prefetch[str, QuerySet[SkillRoll], str]":
    return Prefetch("rolls", queryset=SkillRoll.objects.order_by("created_at", "id"))


def _members(*, with_rolls: bool = True) -> QuerySet[Member]:
    members = Member.objects.order_by("position", "id")
    if with_rolls:
        members = members.prefetch_related(_rolls())
    return members


def _with_members(forces: QuerySet[Force], *, with_rolls: bool = True) -> QuerySet[Force]:
    return forces.prefetch_related(Prefetch("members", queryset=_members(with_rolls=with_rolls)))


def get_force(
    *, user: User, force_id: int, with_members: bool = True, with_rolls: bool = True
) -> Force:
    """The owner's force with members (and their rolls), or 404 (also for other people's).

    Readers of the document and the stored evaluation alone skip the rolls; pages that
    keep rendered members in a cache skip the members (`members_of` when they need them).
    """
    forces = forces_for(user=user).select_related("campaign_entry__campaign")
    if with_members:
        forces = _with_members(forces, with_rolls=with_rolls)
    return refreshed([get_object_or_404(forces, pk=force_id)])[0]


def get_force_row(*, user: User, force_id: int) -> Force:
    """The owner's force alone, or 404 (also for other people's), for readers that keep
    their answer in a cache keyed on the force's version (every write to a force or its
    members moves `version`, `roster.services`): its members only through `members_of`.
    The stored evaluation comes with the row: a few KB to decode on every view costs less
    than a second query on each view after an edit. A campaign copy's entry comes along
    (its policy, for the page's controls), in the same query."""
    forces = forces_for(user=user).select_related("campaign_entry__campaign")
    return refreshed([get_object_or_404(forces, pk=force_id)])[0]


# What names a version of a force, and what `refreshed` needs to check it: enough for a
# reader whose whole answer is cached under that version (the API detail).
# The share token too: the answer of a force that has one is sent uncompressed.
VERSION_FIELDS = (
    "id",
    "owner_id",
    "version",
    "rules_version",
    "evaluation_version",
    "share_token",
)


def get_force_version(*, user: User, force_id: int) -> Force:
    """The owner's force, or 404 (also for other people's), with only `VERSION_FIELDS`
    read: a cache hit needs nothing else. One query of one narrow row."""
    forces = forces_for(user=user).only(*VERSION_FIELDS)
    return refreshed([get_object_or_404(forces, pk=force_id)])[0]


def members_of(*, force: Force) -> list[Member]:
    """An already-authorised force's members in order, with their rolls (two queries)."""
    members = list(_members().filter(force=force))
    for member in members:
        member.force = force  # already in hand: reading it again would cost a query each
    return members


def get_shared_force(*, token: str) -> Force:
    """A force whose owner turned its read-only link on, or 404 (members: `members_of`)."""
    return refreshed([get_object_or_404(Force.objects.all(), share_token=token)])[0]


def get_member(*, force: Force, member_id: int) -> Member:
    """A member of an already-authorised force (prefetched members are reused)."""
    for member in force.members.all():
        if member.pk == member_id:
            return member
    raise Member.DoesNotExist(f"No member {member_id} in force {force.pk}")


def with_rolls(member: Member) -> Member:
    """`member` (of an already-authorised force) with its rolls, oldest first, in one
    query: a page about one member needs no other member's rolls."""
    prefetch_related_objects([member], _rolls())
    return member


def force_document(*, force: Force) -> dict[str, Any]:
    """Export: the force as a canonical dbd-roster/1 document."""
    return {
        "format": documents.FORMAT,
        "name": force.name,
        "resources": force.resources,
        "members": [member_rows.member_json(m) for m in force.members.all()],
    }


def verified_roll_pointers(*, force: Force) -> set[str]:
    verified: set[str] = set()
    for index, member in enumerate(force.members.all()):
        by_slot: dict[str, list[SkillRoll]] = {}
        for roll in member.rolls.all():
            by_slot.setdefault(roll.slot, []).append(roll)
        for key in ("free_advancements", "level_ups"):
            for k, advancement in enumerate(getattr(member, key)):
                if member_rows.roll_is_evidence(by_slot.get(f"{key}/{k}", []), advancement):
                    verified.add(f"/members/{index}/{key}/{k}")
    return verified


def evaluate_force(*, force: Force) -> Evaluation:
    """A fresh evaluation from the engine, under the force's policy's level thresholds
    (the stored `force.evaluation` is a cache of this; tests compare the two)."""
    return evaluate(
        force_document(force=force),
        get_catalogue(),
        verified_rolls=verified_roll_pointers(force=force),
        level_thresholds=policy_for(force).level_thresholds(),
    )


def forces_listed_for(*, user: User) -> QuerySet[Force]:
    """`forces_for` with each force's member count, counted in the same query.

    Ordered explicitly: Django drops `Meta.ordering` from a query with GROUP BY.
    """
    return (
        forces_for(user=user)
        .annotate(member_count=Count("members"))
        .order_by(*(Force._meta.ordering or ()))
    )


def rolls_of(*, force: Force, member: Member | None = None) -> QuerySet[SkillRoll]:
    """The rolls of an already-authorised force (or one of its members), oldest first."""
    rolls = SkillRoll.objects.filter(member__force=force)
    if member is not None:
        rolls = rolls.filter(member=member)
    return rolls.select_related("rolled_by", "member").order_by("created_at", "id")
