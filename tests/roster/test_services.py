"""Saved forces: services write, selectors read, the stored evaluation stays fresh."""

import random

import pytest
from django.http import Http404

from dbd_site.errors import Conflict, Invalid, PreconditionFailed
from roster import member_rows, selectors, services
from roster.models import Force, Member, SkillRoll
from tests.roster.builders import emma, legal_force, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db


def assert_cache_fresh(force: Force) -> None:
    force = selectors.get_force(user=force.owner, force_id=force.pk)
    assert force.evaluation == selectors.evaluate_force(force=force).as_dict()


def test_import_then_export_gives_the_same_document(owner):
    document = legal_force()
    force = services.import_force(owner=owner, document=document)
    force = selectors.get_force(user=owner, force_id=force.pk)
    assert selectors.force_document(force=force) == document
    assert force.evaluation["valid"] is True
    assert force.rules_version == "dbd-core-1"
    assert_cache_fresh(force)


def test_a_bad_import_creates_nothing(owner):
    document = legal_force()
    document["members"][1]["base"] = "strong"
    with pytest.raises(Invalid) as raised:
        services.import_force(owner=owner, document=document)
    assert [p.pointer for p in raised.value.problems] == ["/members/1/base"]
    assert not Force.objects.exists()


def test_every_write_keeps_the_stored_evaluation_fresh(owner):
    force = services.create_force(owner=owner, name="Fresh")
    assert_cache_fresh(force)
    member = services.add_member(force=force, actor=None, data=emma())
    assert_cache_fresh(force)
    for name in ("Ann", "Ben", "Cat"):
        services.add_member(force=force, actor=None, data=student(name))
    assert_cache_fresh(force)
    assert Force.objects.get(pk=force.pk).is_legal
    changed = emma()
    changed["equipment"] = ["simple-weapon", "medical-kit", "tool-kit"]
    services.update_member(force=member.force, actor=None, member_id=member.pk, data=changed)
    assert_cache_fresh(force)
    services.update_force_details(force=force, actor=None, name="Fresh", resources=3)
    assert_cache_fresh(force)
    assert not Force.objects.get(pk=force.pk).is_legal
    services.remove_member(force=member.force, actor=None, member_id=member.pk)
    assert_cache_fresh(force)


def test_members_keep_their_order(owner):
    force = services.create_force(owner=owner, name="Order")
    for name in ("Zed", "Amy", "Kim"):
        services.add_member(force=force, actor=None, data=student(name))
    force = selectors.get_force(user=owner, force_id=force.pk)
    assert [m["name"] for m in selectors.force_document(force=force)["members"]] == [
        "Zed",
        "Amy",
        "Kim",
    ]


def test_duplicate_copies_members_and_rolls(owner):
    force = services.import_force(owner=owner, document=legal_force())
    member = force.members.get(name="Ann")
    services.update_member(
        force=member.force,
        actor=None,
        member_id=member.pk,
        data=student("Ann", free_advancements=[{"line": 4}, {"line": 3}]),
    )
    services.roll_skill(
        force=member.force,
        member_id=member.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(2),
    )
    copy = services.duplicate_force(
        force=selectors.get_force(user=owner, force_id=force.pk),
        owner=owner,
    )
    copy = selectors.get_force(user=owner, force_id=copy.pk)
    assert copy.name == f"{force.name} (copy)"
    assert (
        selectors.force_document(force=copy)["members"]
        == selectors.force_document(force=selectors.get_force(user=owner, force_id=force.pk))[
            "members"
        ]
    )
    assert SkillRoll.objects.filter(member__force=copy).count() == 1
    assert copy.evaluation["members"][1]["unverified_rolls"] == 0


def test_others_cannot_read_a_force(owner, stranger):
    force = services.create_force(owner=owner, name="Mine")
    with pytest.raises(Http404):
        selectors.get_force(user=stranger, force_id=force.pk)
    assert list(selectors.forces_for(user=stranger)) == []


def test_share_link_on_and_off(owner):
    force = services.create_force(owner=owner, name="Shared")
    services.set_share_link(force=force, actor=None, enabled=True)
    token = force.share_token
    assert len(token) >= 40
    assert selectors.get_shared_force(token=token).pk == force.pk
    services.set_share_link(force=force, actor=None, enabled=False)
    with pytest.raises(Http404):
        selectors.get_shared_force(token=token)


def test_replace_document_keeps_rolls_of_members_that_stay(owner):
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    force = services.import_force(owner=owner, document=document)
    ann = force.members.get(name="Ann")
    services.roll_skill(
        force=ann.force,
        member_id=ann.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(1),
    )
    force = selectors.get_force(user=owner, force_id=force.pk)
    document = selectors.force_document(force=force)
    document["members"][2]["name"] = "Bea"
    services.replace_document(force=force, actor=None, document=document)
    force = selectors.get_force(user=owner, force_id=force.pk)
    assert [m.name for m in force.members.all()] == ["Emma", "Ann", "Bea", "Cat"]
    assert force.members.all()[1].rolls.count() == 1
    assert_cache_fresh(force)


# --- rolls (R5) -------------------------------------------------------------------------


@pytest.fixture
def rolling(owner):
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]  # movement line
    force = services.import_force(owner=owner, document=document)
    return force.members.get(name="Ann")


def refreshed(member):
    member.refresh_from_db()
    return member


def test_a_roll_sets_the_skill_and_is_verified(rolling, owner):
    roll = services.roll_skill(
        force=rolling.force,
        member_id=rolling.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(11, 1),
    )
    assert (roll.table, roll.dice, roll.outcome, roll.skill) == (
        "movement",
        [11, 1],
        "skill",
        "movement/catfall",
    )
    assert roll.rolled_by == owner
    advancement = refreshed(rolling).free_advancements[0]
    assert advancement == {"line": 4, "skill": "movement/catfall", "method": "rolled"}
    evaluation = rolling.force.__class__.objects.get(pk=rolling.force_id).evaluation
    assert evaluation["members"][1]["unverified_rolls"] == 0
    assert evaluation["members"][1]["stats"]["FR"] == 5  # a rolled skill costs no FR


def test_rolling_again_is_a_reroll_costing_fr(rolling, owner):
    services.roll_skill(
        force=rolling.force,
        member_id=rolling.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(1),
    )
    services.roll_skill(
        force=rolling.force,
        member_id=rolling.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(2),
    )
    advancement = refreshed(rolling).free_advancements[0]
    assert advancement == {
        "line": 4,
        "skill": "movement/quick-mantle",
        "method": "rolled",
        "rerolls": 1,
    }
    force = Force.objects.get(pk=rolling.force_id)
    assert force.evaluation["members"][1]["unverified_rolls"] == 0


def test_a_natural_12_then_another_table(rolling, owner):
    first = services.roll_skill(
        force=rolling.force,
        member_id=rolling.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(12),
    )
    assert first.outcome == "natural-12"
    assert refreshed(rolling).free_advancements[0] == {
        "line": 4,
        "method": "rolled",
        "natural_12": True,
    }
    with pytest.raises(Invalid):
        services.roll_skill(
            force=rolling.force,
            member_id=rolling.pk,
            slot="free_advancements/0",
            actor=owner,
            rng=ScriptedDice(3),
        )
    second = services.roll_skill(
        force=rolling.force,
        member_id=rolling.pk,
        slot="free_advancements/0",
        actor=owner,
        table="melee",
        rng=ScriptedDice(10),
    )
    assert second.skill == "melee/dual-wield"
    assert refreshed(rolling).free_advancements[0] == {
        "line": 4,
        "skill": "melee/dual-wield",
        "method": "rolled",
        "natural_12": True,
    }
    force = Force.objects.get(pk=rolling.force_id)
    assert force.evaluation["valid"], force.evaluation["errors"]


def test_a_roll_the_student_cannot_take_allows_a_free_pick(rolling, owner):
    services.roll_skill(
        force=rolling.force,
        member_id=rolling.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(1),
    )
    member = refreshed(rolling)
    member.level_ups = [{"line": 4}]
    member.xp = 3
    member.save()
    roll = services.roll_skill(
        force=member.force,
        member_id=member.pk,
        slot="level_ups/0",
        actor=owner,
        rng=ScriptedDice(1),
    )
    assert roll.outcome == "pick-freely"
    assert "movement/catfall" not in roll.choices
    with pytest.raises(Invalid):
        services.take_free_pick(
            force=member.force,
            actor=None,
            member_id=member.pk,
            slot="level_ups/0",
            skill="movement/catfall",
        )
    services.take_free_pick(
        force=member.force,
        actor=None,
        member_id=member.pk,
        slot="level_ups/0",
        skill="movement/wall-run",
    )
    assert refreshed(member).level_ups[0] == {
        "line": 4,
        "skill": "movement/wall-run",
        "method": "rolled",
    }
    force = Force.objects.get(pk=member.force_id)
    assert force.evaluation["members"][1]["unverified_rolls"] == 0


def test_picking_costs_two_fr_and_is_not_a_roll(rolling, owner):
    services.pick_skill(
        force=rolling.force,
        actor=None,
        member_id=rolling.pk,
        slot="free_advancements/0",
        skill="movement/catfall",
    )
    assert refreshed(rolling).free_advancements[0] == {
        "line": 4,
        "skill": "movement/catfall",
        "method": "picked",
    }


@pytest.mark.parametrize(
    "slot", ["free_advancements/1", "free_advancements/9", "spells/0", "free_advancements/x"]
)
def test_rolls_only_for_skill_lines_that_exist(rolling, owner, slot):
    with pytest.raises(Invalid):
        services.roll_skill(
            force=rolling.force,
            member_id=rolling.pk,
            slot=slot,
            actor=owner,
            rng=random.Random(1),
        )
    assert not SkillRoll.objects.exists()


def test_an_imported_rolled_skill_is_unverified(owner):
    document = legal_force()
    document["members"][0]["free_advancements"][0]["method"] = "rolled"
    force = services.import_force(owner=owner, document=document)
    assert force.evaluation["members"][0]["unverified_rolls"] == 1


# --- one change, as stored now ---------------------------------------------------------


def _in_hand(owner, force_id: int, name: str):
    force = selectors.get_force(user=owner, force_id=force_id)
    return force, next(m for m in force.members.all() if m.name == name)


@pytest.mark.parametrize("extra", [0, 3])
def test_a_member_change_costs_the_same_queries_whatever_the_force_size(
    owner, extra, django_assert_max_num_queries
):
    """The write path reads the force's members once, whatever their number: lock the
    force, read its members and rolls, write the member and the force."""
    document = legal_force()
    document["members"] += [student(f"Extra {i}") for i in range(extra)]
    built = services.import_force(owner=owner, document=document)
    force, ann = _in_hand(owner, built.pk, "Ann")
    with django_assert_max_num_queries(10):
        services.update_member(
            force=force,
            actor=owner,
            member_id=ann.pk,
            data=member_rows.member_json(ann) | {"equipment": ["tool-kit"]},
        )
    assert "tool-kit" in member_rows.member_json(Member.objects.get(pk=ann.pk))["equipment"]
    assert force.version == Force.objects.get(pk=built.pk).version  # shown on the caller's
    assert_cache_fresh(built)


def test_a_change_made_meanwhile_is_not_lost(owner):
    """Two requests read the force; the second to write applies its change to the force
    as stored then, so neither change is lost, nor missing from the stored evaluation
    (R11's Resources check would be wrong)."""
    built = services.import_force(owner=owner, document=legal_force())
    stale_force, ann = _in_hand(owner, built.pk, "Ann")
    _, ben = _in_hand(owner, built.pk, "Ben")
    services.change_member(
        force=ben.force,
        actor=owner,
        member_id=ben.pk,
        change=lambda data: data | {"equipment": [*data["equipment"], "tool-kit"]},
    )
    services.change_member(
        force=stale_force,
        actor=owner,
        member_id=ann.pk,
        change=lambda data: data | {"equipment": [*data["equipment"], "tool-kit"]},
    )
    stored = Force.objects.get(pk=built.pk)
    document = selectors.force_document(force=selectors.get_force(user=owner, force_id=built.pk))
    equipment = {m["name"]: m["equipment"] for m in document["members"]}
    assert equipment["Ben"] == [*ben.equipment, "tool-kit"]
    assert equipment["Ann"] == [*ann.equipment, "tool-kit"]
    assert stale_force.evaluation == stored.evaluation
    assert_cache_fresh(built)


def test_a_change_made_on_a_stale_version_changes_nothing(owner):
    """The builder's stale check (409) and If-Match (412): nothing is written."""
    built = services.import_force(owner=owner, document=legal_force())
    _, ann = _in_hand(owner, built.pk, "Ann")
    old = built.version
    services.update_force_details(force=built, actor=owner, name="Moved On")
    with pytest.raises(Conflict) as stale:
        services.change_member(
            force=built, actor=owner, member_id=ann.pk, change=lambda d: d, made_on=old
        )
    assert [(p.pointer, p.code) for p in stale.value.problems] == [("/version", "stale-version")]
    with pytest.raises(PreconditionFailed) as failed:
        services.replace_document(force=built, actor=owner, document=legal_force(), if_match=old)
    assert [(p.pointer, p.code) for p in failed.value.problems] == [("", "precondition-failed")]
    assert Force.objects.get(pk=built.pk).version == old + 1
    assert Force.objects.get(pk=built.pk).name == "Moved On"


# --- copies are named as copies -------------------------------------------------------------


def test_each_duplicate_is_named_as_the_next_copy(owner):
    original = services.create_force(owner=owner, name="Irregulars")
    names = [
        services.duplicate_force(force=original, owner=owner, actor=owner).name for _ in range(3)
    ]
    assert names == ["Irregulars (copy)", "Irregulars (copy 2)", "Irregulars (copy 3)"]
    # A copy of a copy counts on from the original's name, never "(copy) (copy)".
    first_copy = Force.objects.get(owner=owner, name="Irregulars (copy)")
    again = services.duplicate_force(force=first_copy, owner=owner, actor=owner)
    assert again.name == "Irregulars (copy 4)"


def test_a_copy_takes_the_first_free_number(owner):
    original = services.create_force(owner=owner, name="Irregulars")
    services.create_force(owner=owner, name="Irregulars (copy 2)")
    first = services.duplicate_force(force=original, owner=owner, actor=owner)
    assert first.name == "Irregulars (copy)"  # "(copy 2)" being taken does not matter yet
    assert services.duplicate_force(force=original, owner=owner, actor=owner).name == (
        "Irregulars (copy 3)"
    )


def test_only_the_owner_s_own_forces_count(owner, stranger):
    original = services.create_force(owner=owner, name="Irregulars")
    services.create_force(owner=stranger, name="Irregulars (copy)")
    copy = services.duplicate_force(force=original, owner=owner, actor=owner)
    assert copy.name == "Irregulars (copy)"
    # A campaign names its own copy as it likes (the original's name).
    kept = services.duplicate_force(force=original, owner=owner, name="Irregulars")
    assert kept.name == "Irregulars"


@pytest.mark.parametrize("length", [92, 93, 100])
def test_a_long_name_is_shortened_to_fit_its_suffix(owner, length):
    name = "x" * length
    original = services.create_force(owner=owner, name=name)
    copy = services.duplicate_force(force=original, owner=owner, actor=owner)
    assert copy.name == name[:93] + " (copy)"  # 100 characters at most (the column's size)
    second = services.duplicate_force(force=original, owner=owner, actor=owner)
    assert second.name == name[:91] + " (copy 2)"


def test_importing_one_s_own_export_names_a_copy_only_when_asked_and_needed(owner, stranger):
    document = legal_force()  # "Test Force"
    # Nothing of that name yet: the document's name, asked or not.
    first = services.import_force(owner=owner, document=document, as_copy=True)
    assert first.name == "Test Force"
    assert services.import_force(owner=stranger, document=document, as_copy=True).name == (
        "Test Force"
    )
    # The owner's own export brought back: a copy, then the next.
    second = services.import_force(owner=owner, document=document, as_copy=True)
    third = services.import_force(owner=owner, document=document, as_copy=True)
    assert (second.name, third.name) == ("Test Force (copy)", "Test Force (copy 2)")
    # Without `as_copy` (the API, a campaign's own import) the document's name stays.
    assert services.import_force(owner=owner, document=document).name == "Test Force"
