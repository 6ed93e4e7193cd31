"""Saved forces: services write, selectors read, the stored evaluation stays fresh."""

import random

import pytest
from django.http import Http404

from roster import selectors, services
from roster.documents import MalformedDocument
from roster.models import Force, SkillRoll
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
    with pytest.raises(MalformedDocument) as raised:
        services.import_force(owner=owner, document=document)
    assert [p.pointer for p in raised.value.problems] == ["/members/1/base"]
    assert not Force.objects.exists()


def test_every_write_keeps_the_stored_evaluation_fresh(owner):
    force = services.create_force(owner=owner, name="Fresh")
    assert_cache_fresh(force)
    member = services.add_member(force=force, data=emma())
    assert_cache_fresh(force)
    for name in ("Ann", "Ben", "Cat"):
        services.add_member(force=force, data=student(name))
    assert_cache_fresh(force)
    assert Force.objects.get(pk=force.pk).is_legal
    changed = emma()
    changed["equipment"] = ["simple-weapon", "medical-kit", "tool-kit"]
    services.update_member(member=member, data=changed)
    assert_cache_fresh(force)
    services.update_force_details(force=force, name="Fresh", resources=3)
    assert_cache_fresh(force)
    assert not Force.objects.get(pk=force.pk).is_legal
    services.remove_member(member=member)
    assert_cache_fresh(force)


def test_members_keep_their_order(owner):
    force = services.create_force(owner=owner, name="Order")
    for name in ("Zed", "Amy", "Kim"):
        services.add_member(force=force, data=student(name))
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
        member=member,
        data=student("Ann", free_advancements=[{"line": 4}, {"line": 3}]),
    )
    services.roll_skill(member=member, slot="free_advancements/0", user=owner, rng=ScriptedDice(2))
    copy = services.duplicate_force(
        force=selectors.get_force(user=owner, force_id=force.pk), owner=owner
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
    services.set_share_link(force=force, enabled=True)
    token = force.share_token
    assert len(token) >= 40
    assert selectors.get_shared_force(token=token).pk == force.pk
    services.set_share_link(force=force, enabled=False)
    with pytest.raises(Http404):
        selectors.get_shared_force(token=token)


def test_replace_document_keeps_rolls_of_members_that_stay(owner):
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    force = services.import_force(owner=owner, document=document)
    ann = force.members.get(name="Ann")
    services.roll_skill(member=ann, slot="free_advancements/0", user=owner, rng=ScriptedDice(1))
    force = selectors.get_force(user=owner, force_id=force.pk)
    document = selectors.force_document(force=force)
    document["members"][2]["name"] = "Bea"
    services.replace_document(force=force, document=document)
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
        member=rolling, slot="free_advancements/0", user=owner, rng=ScriptedDice(11, 1)
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
        member=rolling, slot="free_advancements/0", user=owner, rng=ScriptedDice(1)
    )
    services.roll_skill(
        member=rolling, slot="free_advancements/0", user=owner, rng=ScriptedDice(2)
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
        member=rolling, slot="free_advancements/0", user=owner, rng=ScriptedDice(12)
    )
    assert first.outcome == "natural-12"
    assert refreshed(rolling).free_advancements[0] == {
        "line": 4,
        "method": "rolled",
        "natural_12": True,
    }
    with pytest.raises(services.RollRefused):
        services.roll_skill(
            member=rolling, slot="free_advancements/0", user=owner, rng=ScriptedDice(3)
        )
    second = services.roll_skill(
        member=rolling, slot="free_advancements/0", user=owner, table="melee", rng=ScriptedDice(10)
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
        member=rolling, slot="free_advancements/0", user=owner, rng=ScriptedDice(1)
    )
    member = refreshed(rolling)
    member.level_ups = [{"line": 4}]
    member.xp = 3
    member.save()
    roll = services.roll_skill(member=member, slot="level_ups/0", user=owner, rng=ScriptedDice(1))
    assert roll.outcome == "pick-freely"
    assert "movement/catfall" not in roll.choices
    with pytest.raises(services.RollRefused):
        services.take_free_pick(member=member, slot="level_ups/0", skill="movement/catfall")
    services.take_free_pick(member=member, slot="level_ups/0", skill="movement/wall-run")
    assert refreshed(member).level_ups[0] == {
        "line": 4,
        "skill": "movement/wall-run",
        "method": "rolled",
    }
    force = Force.objects.get(pk=member.force_id)
    assert force.evaluation["members"][1]["unverified_rolls"] == 0


def test_picking_costs_two_fr_and_is_not_a_roll(rolling, owner):
    services.pick_skill(member=rolling, slot="free_advancements/0", skill="movement/catfall")
    assert refreshed(rolling).free_advancements[0] == {
        "line": 4,
        "skill": "movement/catfall",
        "method": "picked",
    }


@pytest.mark.parametrize(
    "slot", ["free_advancements/1", "free_advancements/9", "spells/0", "free_advancements/x"]
)
def test_rolls_only_for_skill_lines_that_exist(rolling, owner, slot):
    with pytest.raises(services.RollRefused):
        services.roll_skill(member=rolling, slot=slot, user=owner, rng=random.Random(1))
    assert not SkillRoll.objects.exists()


def test_an_imported_rolled_skill_is_unverified(owner):
    document = legal_force()
    document["members"][0]["free_advancements"][0]["method"] = "rolled"
    force = services.import_force(owner=owner, document=document)
    assert force.evaluation["members"][0]["unverified_rolls"] == 1


# --- a change made on the members in hand (update_member after selectors.get_force) -----


def _in_hand(owner, force_id: int, name: str):
    force = selectors.get_force(user=owner, force_id=force_id)
    return force, next(m for m in force.members.all() if m.name == name)


def test_a_change_to_members_in_hand_is_evaluated_without_reading_them_again(
    owner, django_assert_num_queries
):
    built = services.import_force(owner=owner, document=legal_force())
    force, ann = _in_hand(owner, built.pk, "Ann")
    # The member's UPDATE and the force's conditional UPDATE (plus the savepoint pair the
    # test's transaction adds): no members or rolls read again.
    with django_assert_num_queries(4):
        services.update_member(
            member=ann, data=selectors.member_json(ann) | {"equipment": ["tool-kit"]}
        )
    ann_result = next(m for m in force.evaluation["members"] if m["name"] == "Ann")
    assert len(ann_result["equipment_costs"]) == len(ann.equipment)
    assert "tool-kit" in ann.equipment
    assert Force.objects.get(pk=built.pk).updated_at == force.updated_at
    assert_cache_fresh(built)


def test_a_change_made_meanwhile_is_not_lost_from_the_evaluation(owner):
    """Two requests read the force; the second to write must not store an evaluation
    without the first one's change (R11's Resources check would be wrong)."""
    built = services.import_force(owner=owner, document=legal_force())
    stale_force, ann = _in_hand(owner, built.pk, "Ann")
    _, ben = _in_hand(owner, built.pk, "Ben")
    services.update_member(member=ben, data=selectors.member_json(ben) | {"equipment": ["pistol"]})
    services.update_member(
        member=ann, data=selectors.member_json(ann) | {"equipment": ["tool-kit"]}
    )
    stored = Force.objects.get(pk=built.pk).evaluation
    carried = {m["name"]: len(m["equipment_costs"]) for m in stored["members"]}
    assert carried["Ben"] == len(ben.equipment)  # the pistol, though Ann's request missed it
    assert carried["Ann"] == len(ann.equipment)
    assert stale_force.evaluation == stored
    assert_cache_fresh(built)
