"""`rules.loader.get_catalogue()`: the plain-data catalogue built from the rules tables."""

import dataclasses
from fractions import Fraction

import pytest

from rules import catalogue as c
from rules import models
from rules.loader import build_catalogue, get_catalogue


def test_rules_version(catalogue):
    assert isinstance(catalogue, c.Catalogue)
    assert catalogue.rules_version == "dbd-core-1"


@pytest.mark.django_db
def test_get_catalogue_is_cached(catalogue):
    assert get_catalogue() is get_catalogue()
    # Not `is catalogue`: a test that changes the rules (`rules_change`) clears the cache
    # after it, and the next read builds the same content again.
    assert get_catalogue().content_version == catalogue.content_version


@pytest.mark.django_db
def test_catalogue_matches_the_database(catalogue):
    assert list(catalogue.societies) == list(models.Society.objects.values_list("slug", flat=True))
    assert list(catalogue.skill_categories) == list(
        models.SkillCategory.objects.values_list("slug", flat=True)
    )
    assert set(catalogue.skills) == set(models.Skill.objects.values_list("key", flat=True))
    assert list(catalogue.equipment) == list(
        models.Equipment.objects.values_list("slug", flat=True)
    )
    assert list(catalogue.spells) == list(models.Spell.objects.values_list("slug", flat=True))
    assert dict(catalogue.spell_schools) == {
        "restoration": "Restoration",
        "manipulation": "Manipulation",
        "destruction": "Destruction",
        "amplification": "Amplification",
    }
    assert build_catalogue("dbd-core-1") == catalogue


def test_counts(catalogue):
    assert len(catalogue.societies) == 3
    assert len(catalogue.skill_categories) == 6
    assert len(catalogue.skills) == 50
    assert len(catalogue.equipment) == 29
    assert len(catalogue.spells) == 25
    assert sum(len(cat.skills) for cat in catalogue.skill_categories.values()) == 50


def test_skill_for_roll(catalogue):
    spellcasting = catalogue.skill_categories["spellcasting"]
    assert spellcasting.table_size == 10
    assert spellcasting.cost_statistics == ("CA",)
    for roll in (7, 8, 9, 10):
        assert spellcasting.skill_for_roll(roll).key == "spellcasting/additional-spell-slot"
    assert spellcasting.skill_for_roll(11) is None
    assert spellcasting.skill_for_roll(12) is None
    assert spellcasting.skill_for_roll(5).key == "spellcasting/dragon-slayer"
    for category in catalogue.skill_categories.values():
        for roll in range(1, category.table_size + 1):
            assert category.skill_for_roll(roll) is not None, (category.slug, roll)
        assert category.skill_for_roll(category.table_size + 1) is None
    assert catalogue.skill_categories["movement"].cost_statistics == ("ME", "RA")
    assert catalogue.skill_categories["support"].cost_statistics == ("ME", "RA", "CA")


def test_skills(catalogue):
    slot = catalogue.skills["spellcasting/additional-spell-slot"]
    assert slot.repeatable
    assert (slot.roll_min, slot.roll_max) == (7, 10)
    assert catalogue.skills["movement/determination"].excludes == frozenset(
        {"support/extreme-determination"}
    )
    assert catalogue.skills["support/extreme-determination"].excludes == frozenset(
        {"movement/determination"}
    )
    assert catalogue.skills["melee/dual-wield"].name == catalogue.skills["ranged/dual-wield"].name


def test_societies_and_lines(catalogue):
    academic = catalogue.societies["academic"]
    assert academic.choice_options == ("ME", "RA")
    assert academic.modifiers == (c.StatisticOption("choice", -1), c.StatisticOption("CA", 1))
    assert list(academic.lines) == [1, 2, 3, 4, 5, 6]
    assert academic.skill_categories == frozenset({"spellcasting", "movement", "support"})

    # Emma: academic line 2 is +2 HP and needs no choice.
    line2 = academic.lines[2]
    assert not line2.needs_choice
    assert line2.option_for(None) == c.StatisticOption("HP", 2)
    assert academic.lines[1].option_for("RA") == c.StatisticOption("RA", 1)
    assert academic.lines[1].option_for("ME") is None

    # Julius: sporting line 1 is +1 ME or RA.
    sporting = catalogue.societies["sporting"]
    assert sporting.lines[1].needs_choice
    assert sporting.lines[1].option_for("ME") == c.StatisticOption("ME", 1)
    assert sporting.lines[2].options == (c.StatisticOption("HP", 2), c.StatisticOption("DF", 1))
    assert sporting.skill_categories == frozenset({"melee", "ranged", "movement"})

    technical = catalogue.societies["technical"]
    assert technical.modifiers == (c.StatisticOption("ME", -1), c.StatisticOption("choice", 1))
    assert [o.statistic for o in technical.lines[1].options] == ["ME", "RA", "CA", "DF"]
    assert technical.lines[6].kind == "skill"
    assert technical.lines[6].skill_category == "technical"
    assert technical.lines[6].options == ()


def test_equipment(catalogue):
    hand = catalogue.equipment["hand-weapon"]
    assert hand.cost_multiplier == Fraction(3, 2)
    assert isinstance(hand.cost_multiplier, Fraction)
    assert (hand.cost_statistic, hand.cost_constant, hand.cost_label) == ("ME", 0, "1.5xME")
    assert hand.is_weapon
    assert hand.held_in_hand

    light_armour = catalogue.equipment["light-armour"]
    assert (light_armour.cost_multiplier, light_armour.cost_statistic) == (Fraction(1), "DF")
    assert light_armour.cost_constant == -5
    assert not light_armour.is_weapon
    assert not light_armour.held_in_hand

    goggles = catalogue.equipment["vision-goggles"]
    assert goggles.cost_multiplier == 0
    assert goggles.cost_statistic is None
    assert goggles.cost_constant == 3

    assert catalogue.equipment["medical-kit"].cost_multiplier == Fraction(3, 2)
    assert catalogue.equipment["assault-rifle"].cost_multiplier == Fraction(5, 2)

    lmg = catalogue.equipment["light-machine-gun"]
    assert lmg.fire_modes == (c.FireMode(2, 0), c.FireMode(3, -1))
    sniper = catalogue.equipment["sniper-rifle"]
    assert (sniper.range_inches, sniper.fire_modes, sniper.hands) == (30, (c.FireMode(1, 2),), 2)
    assert catalogue.equipment["rocket-launcher"].blast == 5
    assert catalogue.equipment["heavy-shield"].df_bonus_melee == 2
    assert catalogue.equipment["heavy-shield"].df_bonus_ranged == 1
    assert catalogue.equipment["subdual-weapon"].to_hit == -2


@pytest.mark.parametrize(
    ("slug", "hands", "profile"),
    [
        ("hand-weapon", "1H", "Melee weapon"),  # no bonus to hit
        ("subdual-weapon", "1H", "-2 to hit"),
        ("heavy-weapon-2h", "2H", "+2 to hit"),
        ("light-pistol", "1H", '10" · ROF 1 · ACC +0'),
        ("light-machine-gun", "2H", '15" · ROF 2/3 · ACC +0/-1'),  # two modes
        ("rocket-launcher", "2H", '25" · ROF 1 · ACC -1 · Blast 5'),
        ("light-armour", "", "DF +1"),
        ("light-shield", "1H", "DF +1 in melee only"),
        ("heavy-shield", "1H", "DF +2 in melee, +1 against ranged"),
    ],
)
def test_equipment_profiles_as_printed(catalogue, slug, hands, profile):
    item = catalogue.equipment[slug]
    assert (item.hands_label, item.profile) == (hands, profile)


def test_an_item_s_profile_is_its_summary(catalogue):
    kit = catalogue.equipment["medical-kit"]
    assert (kit.hands_label, kit.profile) == ("", kit.summary)
    assert kit.summary


def test_spells(catalogue):
    spring = catalogue.spells["healing-spring"]
    assert (spring.school, spring.difficulty, spring.range_kind, spring.range_inches) == (
        "restoration",
        7,
        "inches",
        5,
    )
    assert [(o.label, o.min_successes, o.max_successes) for o in spring.outcomes] == [
        ("1-2", 1, 2),
        ("3+", 3, None),
    ]
    assert catalogue.spells["soul-bond"].range_kind == "fr"
    assert catalogue.spells["uncanny-avenue"].range_kind == "self"

    dragon = catalogue.spells["dragon-slayer"]
    assert dragon.school is None
    assert dragon.forbidden
    assert dragon.required_skill == "spellcasting/dragon-slayer"
    assert dragon.required_skill in catalogue.skills
    assert dragon.difficulty is None
    for spell in catalogue.spells.values():
        assert spell.outcomes, spell.slug
        assert spell.school is None or spell.school in catalogue.spell_schools


def test_catalogue_is_immutable(catalogue):
    with pytest.raises(dataclasses.FrozenInstanceError):
        catalogue.rules_version = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        catalogue.equipment["tool-kit"] = catalogue.equipment["escape-kit"]  # type: ignore[index]
    with pytest.raises(TypeError):
        catalogue.societies["academic"].lines[7] = catalogue.societies["academic"].lines[1]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        catalogue.skills["movement/catfall"].summary = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        catalogue.spells["healing-spring"].outcomes[0].effect = "changed"  # type: ignore[misc]


@pytest.mark.django_db
def test_the_fixture_read_without_a_database_is_the_catalogue_of_the_tables(catalogue):
    """The `catalogue` fixture reads rules.yaml directly, so the engine's tests need no
    database; it must be what `loaddata rules` + `get_catalogue` give, order included
    (messages list societies and schools in it)."""
    from_tables = build_catalogue("dbd-core-1")
    assert catalogue == from_tables
    assert catalogue.content_version == from_tables.content_version
    for name in ("societies", "skill_categories", "skills", "equipment", "spell_schools"):
        assert list(getattr(catalogue, name)) == list(getattr(from_tables, name))
    assert list(catalogue.spells) == list(from_tables.spells)
    for society in catalogue.societies.values():
        assert list(society.lines) == list(from_tables.societies[society.slug].lines)
