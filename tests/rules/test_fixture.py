"""The rules fixture (`rules/fixtures/rules.yaml`) against the rulebook and RULINGS.md."""

import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils.text import slugify

from rules import models

pytestmark = pytest.mark.django_db

RULINGS_MD = Path("/work/shared/rules/RULINGS.md")

# Copied from RULINGS.md "Identifiers (slugs)", so the suite runs without the shared folder;
# `test_slug_lists_match_rulings_md` checks the copy whenever the file is there.
EQUIPMENT_SLUGS = [
    "simple-weapon",
    "hand-weapon",
    "subdual-weapon",
    "heavy-weapon-1h",
    "heavy-weapon-2h",
    "great-weapon",
    "polearm",
    "light-pistol",
    "heavy-pistol",
    "submachine-gun",
    "grenades-bombs",
    "traditional-ranged-weapon",
    "shotgun",
    "light-machine-gun",
    "heavy-machine-gun",
    "assault-rifle",
    "sniper-rifle",
    "grenade-launcher",
    "rocket-launcher",
    "light-armour",
    "heavy-armour",
    "light-shield",
    "heavy-shield",
    "vision-goggles",
    "medical-kit",
    "escape-kit",
    "climbing-gear",
    "smoke-grenade",
    "tool-kit",
]
SCHOOL_SLUGS = ["restoration", "manipulation", "destruction", "amplification"]
SOCIETY_SLUGS = ["academic", "sporting", "technical"]
CATEGORY_TABLES = {
    "movement": 10,
    "melee": 11,
    "ranged": 8,
    "spellcasting": 10,
    "support": 7,
    "technical": 7,
}


def test_fixture_loads_again_without_duplicates():
    call_command("loaddata", "rules", verbosity=0)
    assert models.RulesVersion.objects.count() == 1
    assert models.Skill.objects.count() == 50
    assert models.SpellOutcome.objects.count() == 57


def test_rules_version():
    version = models.RulesVersion.objects.get()
    assert (version.code, version.title) == ("dbd-core-1", "DBD core rules")


def test_counts():
    assert models.Society.objects.count() == 3
    assert models.AdvancementLine.objects.count() == 18
    assert models.SkillCategory.objects.count() == 6
    assert models.Skill.objects.count() == 50
    assert models.Equipment.objects.count() == 29
    assert models.SpellSchool.objects.count() == 4
    assert models.Spell.objects.filter(school__isnull=False).count() == 24
    assert list(
        models.Spell.objects.filter(school__isnull=True).values_list("slug", flat=True)
    ) == ["dragon-slayer"]


def test_slug_lists_match_rulings_md():
    if not RULINGS_MD.exists():
        pytest.skip("RULINGS.md is not available here")
    text = RULINGS_MD.read_text()
    equipment = re.search(r"- equipment: (.*?)\n- spell schools", text, re.S).group(1)
    schools = re.search(r"- spell schools: (.*?)\n", text).group(1)
    assert equipment.replace("`", "").split() == EQUIPMENT_SLUGS
    assert schools.replace("`", "").split() == SCHOOL_SLUGS


def test_slugs_are_exactly_those_of_the_rulings():
    assert list(models.Society.objects.values_list("slug", flat=True)) == SOCIETY_SLUGS
    assert list(models.SkillCategory.objects.values_list("slug", flat=True)) == list(
        CATEGORY_TABLES
    )
    assert list(models.Equipment.objects.values_list("slug", flat=True)) == EQUIPMENT_SLUGS
    assert list(models.SpellSchool.objects.values_list("slug", flat=True)) == SCHOOL_SLUGS


def test_every_slug_is_slugify_of_the_name():
    for model in (models.Society, models.SkillCategory, models.SpellSchool, models.Spell):
        for obj in model.objects.all():
            assert obj.slug == slugify(obj.name), obj
    for skill in models.Skill.objects.all():
        assert skill.slug == slugify(skill.name), skill
        assert skill.key == f"{skill.category_id}/{slugify(skill.name)}", skill
    for item in models.Equipment.objects.all():
        if item.name == "Heavy Weapon":
            assert item.slug == f"heavy-weapon-{item.hands}h"
        else:
            assert item.slug == slugify(item.name), item


def test_orders_are_consecutive():
    for model, expected in (
        (models.Society, 3),
        (models.SkillCategory, 6),
        (models.Equipment, 29),
        (models.SpellSchool, 4),
        (models.Spell, 25),
    ):
        assert list(model.objects.values_list("order", flat=True)) == list(range(1, expected + 1))


def test_d12_tables_are_filled_without_gaps_or_overlaps():
    total = 0
    for category in models.SkillCategory.objects.all():
        assert category.table_size == CATEGORY_TABLES[category.slug]
        results = []
        for skill in category.skills.all():
            assert skill.roll_min <= skill.roll_max
            results.extend(range(skill.roll_min, skill.roll_max + 1))
        assert results == list(range(1, category.table_size + 1)), category
        total += len(results)
    assert total == 53


def test_skill_counts_per_table():
    counts = {c.slug: c.skills.count() for c in models.SkillCategory.objects.all()}
    assert counts == {
        "movement": 10,
        "melee": 11,
        "ranged": 8,
        "spellcasting": 7,
        "support": 7,
        "technical": 7,
    }


def test_two_skills_share_a_name():
    dual = models.Skill.objects.filter(name="Dual Wield")
    assert sorted(dual.values_list("key", flat=True)) == ["melee/dual-wield", "ranged/dual-wield"]


def test_cost_statistics_per_category():
    assert {c.slug: c.cost_statistics for c in models.SkillCategory.objects.all()} == {
        "movement": ["ME", "RA"],
        "melee": ["ME"],
        "ranged": ["RA"],
        "spellcasting": ["CA"],
        "support": ["ME", "RA", "CA"],
        "technical": ["ME", "RA", "CA"],
    }


def test_societies_follow_r2():
    societies = {s.slug: s for s in models.Society.objects.all()}
    assert societies["academic"].choice_options == ["ME", "RA"]
    assert societies["academic"].modifiers == [
        {"statistic": "choice", "amount": -1},
        {"statistic": "CA", "amount": 1},
    ]
    assert societies["sporting"].choice_options == ["ME", "RA"]
    assert societies["sporting"].modifiers == [
        {"statistic": "CA", "amount": -1},
        {"statistic": "choice", "amount": 1},
    ]
    assert societies["technical"].choice_options == ["RA", "CA"]
    assert societies["technical"].modifiers == [
        {"statistic": "ME", "amount": -1},
        {"statistic": "choice", "amount": 1},
    ]


def _line(society: str, number: int) -> models.AdvancementLine:
    return models.AdvancementLine.objects.get(society_id=society, number=number)


def test_advancement_lines_are_well_formed():
    for society in SOCIETY_SLUGS:
        lines = models.AdvancementLine.objects.filter(society_id=society)
        assert list(lines.values_list("number", flat=True)) == [1, 2, 3, 4, 5, 6]
    for line in models.AdvancementLine.objects.all():
        if line.kind == "statistic":
            assert line.options, line
            assert line.skill_category_id is None, line
            for option in line.options:
                assert set(option) == {"statistic", "amount"}
                assert option["statistic"] in models.Statistic.values
                assert option["amount"] > 0
        else:
            assert line.kind == "skill"
            assert line.options == []
            assert line.label == f"{line.skill_category.name} Skill"


def test_advancement_tables_as_printed():
    expected = {
        "academic": ["+1 CA or RA", "+2 HP", "+2 FR", "spellcasting", "movement", "support"],
        "sporting": ["+1 ME or RA", "+2 HP or +1 DF", "+1 FR", "melee", "ranged", "movement"],
        "technical": ["+1 to any Statistic", "+1 HP or +1 FR", "+2 DF", "movement", "support",
                      "technical"],
    }  # fmt: skip
    for society, rows in expected.items():
        lines = models.AdvancementLine.objects.filter(society_id=society).order_by("number")
        assert [line.skill_category_id or line.label for line in lines] == rows


def test_or_lines_follow_r4():
    def options(society, number):
        return [(o["statistic"], o["amount"]) for o in _line(society, number).options]

    assert options("academic", 1) == [("CA", 1), ("RA", 1)]
    assert options("academic", 2) == [("HP", 2)]  # Emma's +2 HP
    assert options("sporting", 1) == [("ME", 1), ("RA", 1)]  # Julius's +1 ME
    assert options("sporting", 2) == [("HP", 2), ("DF", 1)]
    assert options("technical", 1) == [("ME", 1), ("RA", 1), ("CA", 1), ("DF", 1)]
    assert options("technical", 2) == [("HP", 1), ("FR", 1)]
    assert options("technical", 3) == [("DF", 2)]


def test_additional_spell_slot_is_7_to_10_and_the_only_repeatable_skill():
    slot = models.Skill.objects.get(key="spellcasting/additional-spell-slot")
    assert (slot.roll_min, slot.roll_max, slot.roll_label) == (7, 10, "7-10")
    assert list(models.Skill.objects.filter(repeatable=True)) == [slot]


def test_determination_and_extreme_determination_exclude_each_other():
    determination = models.Skill.objects.get(key="movement/determination")
    extreme = models.Skill.objects.get(key="support/extreme-determination")
    assert list(determination.excludes.all()) == [extreme]
    assert list(extreme.excludes.all()) == [determination]
    others = models.Skill.objects.exclude(pk__in=[determination.pk, extreme.pk])
    assert not others.filter(excludes__isnull=False).exists()


def test_skill_spot_checks():
    def skill_at(category, roll):
        return models.Skill.objects.get(
            category_id=category, roll_min__lte=roll, roll_max__gte=roll
        )

    assert skill_at("movement", 10).key == "movement/super-high-school-level-athletics"
    assert skill_at("melee", 8).key == "melee/the-basics-of-cqc"
    assert skill_at("melee", 11).name == "Super High School Level Martial Arts"
    assert skill_at("ranged", 2).key == "ranged/follow-up-shot"
    assert skill_at("spellcasting", 5).key == "spellcasting/dragon-slayer"
    assert skill_at("support", 1).key == "support/extreme-determination"
    assert skill_at("technical", 7).key == "technical/super-high-school-level-chess-skill"


def test_summaries_are_short_and_present():
    texts = [
        *models.Society.objects.values_list("summary", flat=True),
        *models.Skill.objects.values_list("summary", flat=True),
        *models.Equipment.objects.values_list("summary", flat=True),
        *models.Spell.objects.values_list("summary", flat=True),
    ]
    for text in texts:
        assert text.strip(), "empty summary"
        assert len(text) <= 160, text
        assert "\n" not in text.strip(), text
    for effect in models.SpellOutcome.objects.values_list("effect", flat=True):
        assert effect.strip()
        assert len(effect) <= 180, effect


# --- Equipment ----------------------------------------------------------------------


def test_equipment_kinds_and_hands():
    by_kind = {}
    for item in models.Equipment.objects.all():
        by_kind.setdefault(item.kind, []).append(item)
        if item.kind in ("armour", "item"):
            assert item.hands == 0, item
        elif item.kind == "shield":
            assert item.hands == 1, item
        else:
            assert item.hands in (1, 2), item
    assert {kind: len(items) for kind, items in by_kind.items()} == {
        "melee": 7,
        "ranged": 12,
        "armour": 2,
        "shield": 2,
        "item": 6,
    }


def _cost(item: models.Equipment, stats: dict[str, int]) -> int:
    base = item.cost_multiplier * stats[item.cost_statistic] if item.cost_statistic else 0
    return int(base // 1) + item.cost_constant


def test_equipment_costs():
    costs = {
        e.slug: (str(e.cost_multiplier.normalize()), e.cost_statistic, e.cost_constant,
                 e.cost_label)
        for e in models.Equipment.objects.all()
    }  # fmt: skip
    assert costs["simple-weapon"] == ("1", "ME", 0, "1xME")
    assert costs["hand-weapon"] == ("1.5", "ME", 0, "1.5xME")
    assert costs["great-weapon"] == ("3", "ME", 0, "3xME")
    assert costs["assault-rifle"] == ("2.5", "RA", 0, "2.5xRA")
    assert costs["light-armour"] == ("1", "DF", -5, "DF-5")
    assert costs["heavy-armour"] == ("1", "DF", -2, "DF-2")
    assert costs["light-shield"] == ("1", "ME", 0, "1xME")
    assert costs["heavy-shield"] == ("1.5", "ME", 0, "1.5xME")
    assert costs["medical-kit"] == ("1.5", "FR", 0, "1.5xFR")
    flat = {slug: c[2] for slug, c in costs.items() if c[1] == ""}
    assert flat == {
        "vision-goggles": 3,
        "escape-kit": 5,
        "climbing-gear": 5,
        "smoke-grenade": 3,
        "tool-kit": 10,
    }
    for slug in flat:
        assert costs[slug][0] == "0"
        assert costs[slug][3] == str(flat[slug])
    for item in models.Equipment.objects.all():
        if item.kind in ("melee", "ranged", "shield"):
            assert item.cost_statistic in ("ME", "RA"), item
            assert item.cost_label == f"{item.cost_multiplier.normalize()}x{item.cost_statistic}"

    stats = {"ME": 3, "RA": 3, "DF": 8, "FR": 3}
    equipment = {e.slug: e for e in models.Equipment.objects.all()}
    assert _cost(equipment["hand-weapon"], stats) == 4  # floor(4.5)
    assert _cost(equipment["light-armour"], stats) == 3
    assert _cost(equipment["heavy-armour"], stats) == 6
    assert _cost(equipment["medical-kit"], stats) == 4
    assert _cost(equipment["tool-kit"], stats) == 10


def test_melee_weapons():
    melee = {
        e.slug: (e.hands, e.to_hit, e.cost_statistic, e.cost_multiplier)
        for e in models.Equipment.objects.filter(kind="melee")
    }
    assert melee == {
        "simple-weapon": (1, 0, "ME", Decimal(1)),
        "hand-weapon": (1, 0, "ME", Decimal("1.5")),
        "subdual-weapon": (1, -2, "ME", Decimal("1.5")),
        "heavy-weapon-1h": (1, 1, "ME", Decimal(2)),
        "heavy-weapon-2h": (2, 2, "ME", Decimal(2)),
        "great-weapon": (2, 1, "ME", Decimal(3)),
        "polearm": (2, 0, "ME", Decimal(3)),
    }
    for item in models.Equipment.objects.filter(kind="melee"):
        assert item.range_inches is None
        assert item.fire_modes == []
        assert item.blast is None
    assert '1"' in models.Equipment.objects.get(slug="great-weapon").summary
    assert '2"' in models.Equipment.objects.get(slug="polearm").summary


def test_ranged_weapons():
    ranged = {
        e.slug: (
            e.hands,
            e.cost_label,
            e.range_inches,
            [(m["rof"], m["accuracy"]) for m in e.fire_modes],
            e.blast,
        )
        for e in models.Equipment.objects.filter(kind="ranged")
    }
    assert ranged == {
        "light-pistol": (1, "1xRA", 10, [(1, 0)], None),
        "heavy-pistol": (1, "1.5xRA", 10, [(1, 1)], None),
        "submachine-gun": (1, "2xRA", 10, [(2, -1)], None),
        "grenades-bombs": (1, "2xRA", 5, [(1, 0)], 2),
        "traditional-ranged-weapon": (2, "1.5xRA", 20, [(1, 0)], None),
        "shotgun": (2, "2xRA", 10, [(1, 1)], 1),
        "light-machine-gun": (2, "2xRA", 15, [(2, 0), (3, -1)], None),
        "heavy-machine-gun": (2, "3xRA", 15, [(3, 0)], None),
        "assault-rifle": (2, "2.5xRA", 20, [(2, 0)], None),
        "sniper-rifle": (2, "3xRA", 30, [(1, 2)], None),
        "grenade-launcher": (2, "2.5xRA", 15, [(1, 0)], 3),
        "rocket-launcher": (2, "3xRA", 25, [(1, -1)], 5),
    }
    for item in models.Equipment.objects.filter(kind="ranged"):
        assert item.to_hit == 0
        assert item.df_bonus_melee == item.df_bonus_ranged == 0


def test_sniper_rifle():
    rifle = models.Equipment.objects.get(slug="sniper-rifle")
    assert rifle.range_inches == 30
    assert rifle.fire_modes == [{"rof": 1, "accuracy": 2}]
    assert (rifle.cost_multiplier, rifle.cost_statistic, rifle.cost_label) == (3, "RA", "3xRA")
    assert rifle.hands == 2


def test_light_machine_gun_has_two_modes():
    lmg = models.Equipment.objects.get(slug="light-machine-gun")
    assert lmg.fire_modes == [{"rof": 2, "accuracy": 0}, {"rof": 3, "accuracy": -1}]


def test_armour_and_shield_bonuses():
    bonuses = {
        e.slug: (e.df_bonus_melee, e.df_bonus_ranged)
        for e in models.Equipment.objects.filter(df_bonus_melee__gt=0)
        | models.Equipment.objects.filter(df_bonus_ranged__gt=0)
    }
    assert bonuses == {
        "light-armour": (1, 1),
        "heavy-armour": (2, 2),
        "light-shield": (1, 0),
        "heavy-shield": (2, 1),
    }
    assert "Dash" in models.Equipment.objects.get(slug="heavy-armour").summary


# --- Spells -------------------------------------------------------------------------


def test_spells_in_printed_order():
    names = list(models.Spell.objects.values_list("name", flat=True))
    assert names == [
        "Healing Spring", "Reviving Breath", "Protective Wall", "Soul Bond", "Earth Ward",
        "Dispel Magic",
        "Savage Exile", "Uncanny Avenue", "Clock Down", "Sudden Fatigue", "Ultimate Bad Luck",
        "Mana Obliteration",
        "Seraphic Bolt", "Infernal Orb", "Unlimited Sword Rain", "Unerring Fate's Arrow",
        "Thunder God's Bolt", "God Or Demon Attack",
        "Clock Up", "Invigorate", "Inspire", "Fortify", "Extreme Speed", "Eagle Eye",
        "Dragon Slayer",
    ]  # fmt: skip
    for school in models.SpellSchool.objects.all():
        assert school.spells.count() == 6


def test_spell_difficulties_and_ranges():
    table = {
        s.slug: (s.difficulty, s.range_label)
        for s in models.Spell.objects.filter(school__isnull=False)
    }
    assert table == {
        "healing-spring": (7, '5"'),
        "reviving-breath": (10, '5"'),
        "protective-wall": (8, '5"'),
        "soul-bond": (7, "FR"),
        "earth-ward": (9, '5"'),
        "dispel-magic": (6, '5"'),
        "savage-exile": (6, '5"'),
        "uncanny-avenue": (7, "Self"),
        "clock-down": (9, '10"'),
        "sudden-fatigue": (8, '10"'),
        "ultimate-bad-luck": (8, '10"'),
        "mana-obliteration": (10, '15"'),
        "seraphic-bolt": (6, '10"'),
        "infernal-orb": (7, '7"'),
        "unlimited-sword-rain": (6, '10"'),
        "unerring-fates-arrow": (8, '20"'),
        "thunder-gods-bolt": (8, '10"'),
        "god-or-demon-attack": (10, "Self"),
        "clock-up": (9, "Self"),
        "invigorate": (8, '5"'),
        "inspire": (6, "Self"),
        "fortify": (8, "Self"),
        "extreme-speed": (4, '5"'),
        "eagle-eye": (6, '5"'),
    }
    for spell in models.Spell.objects.filter(school__isnull=False):
        assert spell.difficulty_label == str(spell.difficulty)
        assert not spell.forbidden
        assert spell.required_skill_id is None
        assert (spell.range_inches is not None) == (spell.range_kind == "inches"), spell


def test_clock_down():
    spell = models.Spell.objects.get(slug="clock-down")
    assert (spell.difficulty, spell.range_kind, spell.range_inches) == (9, "inches", 10)
    assert [o.successes_label for o in spell.outcomes.all()] == ["2", "3-4", "5"]


def test_dragon_slayer():
    spell = models.Spell.objects.get(slug="dragon-slayer")
    assert spell.school is None
    assert spell.forbidden
    assert spell.required_skill_id == "spellcasting/dragon-slayer"
    assert spell.difficulty is None
    assert "6" in spell.difficulty_label
    assert "12" in spell.difficulty_label
    assert (spell.range_kind, spell.range_inches) == ("inches", 15)
    outcomes = list(
        spell.outcomes.values_list("successes_label", "min_successes", "max_successes")
    )
    assert outcomes == [("X", 1, None)]


def test_every_spell_has_outcomes():
    for spell in models.Spell.objects.all():
        assert spell.outcomes.exists(), spell


def test_outcome_tiers_are_consistent():
    for spell in models.Spell.objects.all():
        previous_max = 0
        outcomes = list(spell.outcomes.all())
        for i, outcome in enumerate(outcomes):
            label, low, high = (
                outcome.successes_label,
                outcome.min_successes,
                outcome.max_successes,
            )
            if label == "X":
                assert (low, high) == (1, None)
            elif label.endswith("+"):
                assert (low, high) == (int(label[:-1]), None)
            elif "-" in label:
                assert [low, high] == [int(n) for n in label.split("-")]
            else:
                assert low == high == int(label)
            assert low > previous_max, outcome  # ascending, no overlaps
            previous_max = high if high is not None else 99
            if high is None:
                assert i == len(outcomes) - 1, outcome  # only the last tier is open-ended


def test_healing_spring_tiers():
    outcomes = list(models.Spell.objects.get(slug="healing-spring").outcomes.all())
    assert [(o.successes_label, o.min_successes, o.max_successes) for o in outcomes] == [
        ("1-2", 1, 2),
        ("3+", 3, None),
    ]
    assert "2 HP" in outcomes[0].effect
    assert "1d3+2 HP" in outcomes[1].effect


def test_tiers_printed_with_a_stray_bullet_belong_to_their_spell():
    def labels(slug):
        return [o.successes_label for o in models.Spell.objects.get(slug=slug).outcomes.all()]

    assert labels("protective-wall") == ["1", "2-3", "4+"]
    assert labels("ultimate-bad-luck") == ["1", "2-3", "4+"]
    assert labels("mana-obliteration") == ["1-2", "3-4", "5"]
    assert labels("infernal-orb") == ["1-2", "3", "4+"]
    assert labels("unerring-fates-arrow") == ["1-2", "3+"]
    assert labels("seraphic-bolt") == ["1", "2", "3", "4+"]
    assert labels("eagle-eye") == ["1", "2-3", "4"]
    assert models.SpellOutcome.objects.count() == 57
