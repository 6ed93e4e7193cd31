"""The catalogue's content version (`rules.catalogue.content_digest`): it moves with any
change to the rules' content and with nothing else (issue #13)."""

import dataclasses
from fractions import Fraction

import pytest

from rules import catalogue as c
from rules import models
from rules.loader import build_catalogue

pytestmark = pytest.mark.django_db


def test_the_same_content_gives_the_same_version(catalogue):
    assert len(catalogue.content_version) == 16
    assert catalogue.content_version == c.content_digest(catalogue)
    assert build_catalogue("dbd-core-1").content_version == catalogue.content_version


def test_a_new_edition_name_alone_is_not_new_content(catalogue, rules_change):
    renamed = rules_change(edition="dbd-core-2")
    assert renamed.rules_version == "dbd-core-2"
    assert renamed.content_version == catalogue.content_version


def test_a_new_cost_is_new_content(catalogue, rules_change):
    changed = rules_change(equipment="medical-kit", cost_constant=2)
    assert changed.rules_version == catalogue.rules_version
    assert changed.content_version != catalogue.content_version
    # ...and back again, back to the same version.
    assert rules_change(equipment="medical-kit", cost_constant=0) == catalogue


@pytest.mark.parametrize(
    "change",
    [
        lambda: models.Society.objects.filter(slug="academic").update(name="Scholars"),
        lambda: models.AdvancementLine.objects.filter(society_id="academic", number=1).update(
            label="Another line"
        ),
        lambda: models.Skill.objects.filter(slug="catfall").update(roll_max=4),
        lambda: models.SkillCategory.objects.filter(slug="melee").update(table_size=9),
        lambda: models.Equipment.objects.filter(slug="simple-weapon").update(cost_multiplier="2"),
        lambda: models.Equipment.objects.filter(slug="simple-weapon").update(summary="Reworded."),
        lambda: models.Spell.objects.filter(slug="healing-spring").update(difficulty=9),
        lambda: models.SpellOutcome.objects.filter(spell_id="healing-spring").update(
            effect="Reworded."
        ),
        lambda: models.SpellSchool.objects.filter(slug="restoration").update(name="Healing"),
    ],
    ids=[
        "society",
        "advancement line",
        "skill",
        "skill table",
        "equipment cost",
        "equipment summary",
        "spell",
        "spell outcome",
        "spell school",
    ],
)
def test_any_change_to_the_rules_content_is_a_new_version(catalogue, change):
    assert change() >= 1  # the change did change a row
    assert build_catalogue(catalogue.rules_version).content_version != catalogue.content_version


def test_the_digest_reads_every_kind_of_value(catalogue):
    """Pure: numbers, fractions, sets and nested tables all count."""
    weapon = catalogue.equipment["simple-weapon"]
    dearer = dataclasses.replace(weapon, cost_multiplier=Fraction(3, 2))
    equipment = {**catalogue.equipment, "simple-weapon": dearer}
    assert c.content_digest(dataclasses.replace(catalogue, equipment=equipment)) != (
        catalogue.content_version
    )
    skill = catalogue.skills["movement/catfall"]
    others = dataclasses.replace(skill, excludes=frozenset({"movement/quick-mantle"}))
    skills = {**catalogue.skills, skill.key: others}
    assert c.content_digest(dataclasses.replace(catalogue, skills=skills)) != (
        catalogue.content_version
    )
    # The names of the catalogue are not its content.
    renamed = dataclasses.replace(catalogue, rules_version="x", content_version="y")
    assert c.content_digest(renamed) == catalogue.content_version
