"""The game's canonical content, loaded from `rules/fixtures/rules.yaml`.

Slugs follow RULINGS.md (Django's slugify of the printed name) and serve as
primary keys, so fixtures, the API and roster documents all use the same words.
Skills are keyed `<category>/<slug>` because two skills share a name.
"""

from django.db import models


class Statistic(models.TextChoices):
    ME = "ME", "Melee"
    RA = "RA", "Ranged"
    CA = "CA", "Spellcasting"
    DF = "DF", "Defence"
    HP = "HP", "Hit Points"
    FR = "FR", "Friendship"


class RulesVersion(models.Model):
    code = models.CharField(primary_key=True, max_length=30)
    title = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.code


class Society(models.Model):
    slug = models.SlugField(primary_key=True)
    name = models.CharField(max_length=30)
    order = models.PositiveSmallIntegerField()
    # Statistics the player picks between for the society's "or" (R2).
    choice_options = models.JSONField(help_text='e.g. ["ME", "RA"]')
    # [{"statistic": "CA" | "choice", "amount": 1}, ...]; "choice" means the picked one.
    modifiers = models.JSONField()
    summary = models.TextField()

    class Meta:
        ordering = ["order"]
        verbose_name_plural = "societies"

    def __str__(self) -> str:
        return self.name


class SkillCategory(models.Model):
    slug = models.SlugField(primary_key=True)
    name = models.CharField(max_length=30)
    order = models.PositiveSmallIntegerField()
    # How many d12 results the table fills; a higher roll (other than 12) is re-rolled (R5).
    table_size = models.PositiveSmallIntegerField()
    # The skill-cost statistic S is the highest of these (R6).
    cost_statistics = models.JSONField(help_text='e.g. ["ME", "RA"]')

    class Meta:
        ordering = ["order"]
        verbose_name_plural = "skill categories"

    def __str__(self) -> str:
        return self.name


class AdvancementLine(models.Model):
    class Kind(models.TextChoices):
        STATISTIC = "statistic"
        SKILL = "skill"

    society = models.ForeignKey(Society, on_delete=models.CASCADE, related_name="lines")
    number = models.PositiveSmallIntegerField()
    label = models.CharField(max_length=40, help_text="As printed, e.g. '+2 HP or +1 DF'.")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # Statistic lines: [{"statistic": "HP", "amount": 2}, {"statistic": "DF", "amount": 1}];
    # more than one option means the line is an "or" and needs a choice (R4).
    options = models.JSONField(default=list, blank=True)
    skill_category = models.ForeignKey(
        SkillCategory, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["society__order", "number"]
        constraints = [
            models.UniqueConstraint(fields=["society", "number"], name="unique_line_per_society")
        ]

    def __str__(self) -> str:
        return f"{self.society_id} {self.number}: {self.label}"


class Skill(models.Model):
    key = models.CharField(primary_key=True, max_length=80, help_text="<category>/<slug>")
    category = models.ForeignKey(SkillCategory, on_delete=models.CASCADE, related_name="skills")
    slug = models.SlugField(max_length=60)
    name = models.CharField(max_length=60)
    roll_min = models.PositiveSmallIntegerField(help_text="First d12 result giving this skill.")
    roll_max = models.PositiveSmallIntegerField(help_text="Last d12 result giving this skill.")
    summary = models.TextField()
    repeatable = models.BooleanField(default=False)
    excludes = models.ManyToManyField("self", blank=True, symmetrical=True)

    class Meta:
        ordering = ["category__order", "roll_min"]

    def __str__(self) -> str:
        return self.key

    @property
    def roll_label(self) -> str:
        if self.roll_min == self.roll_max:
            return str(self.roll_min)
        return f"{self.roll_min}-{self.roll_max}"


class Equipment(models.Model):
    class Kind(models.TextChoices):
        MELEE = "melee"
        RANGED = "ranged"
        ARMOUR = "armour"
        SHIELD = "shield"
        ITEM = "item"

    slug = models.SlugField(primary_key=True, max_length=60)
    name = models.CharField(max_length=60)
    order = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    hands = models.PositiveSmallIntegerField(help_text="0 for armour and items.")
    # Cost = floor(cost_multiplier x cost_statistic) + cost_constant (R7, R13):
    # 1.5xME is (1.5, ME, 0); DF-5 is (1, DF, -5); a flat 3 is (0, "", 3).
    cost_multiplier = models.DecimalField(max_digits=4, decimal_places=2)
    cost_statistic = models.CharField(max_length=2, choices=Statistic.choices, blank=True)
    cost_constant = models.SmallIntegerField(default=0)
    cost_label = models.CharField(max_length=20, help_text="As printed, e.g. '1.5xME'.")
    range_inches = models.PositiveSmallIntegerField(null=True, blank=True)
    # Ranged weapons: [{"rof": 2, "accuracy": 0}]; the Light Machine Gun has two modes.
    fire_modes = models.JSONField(default=list, blank=True)
    blast = models.PositiveSmallIntegerField(null=True, blank=True)
    to_hit = models.SmallIntegerField(default=0, help_text="Melee to-hit bonus.")
    df_bonus_melee = models.PositiveSmallIntegerField(default=0)
    df_bonus_ranged = models.PositiveSmallIntegerField(default=0)
    summary = models.TextField()

    class Meta:
        ordering = ["order"]
        verbose_name_plural = "equipment"

    def __str__(self) -> str:
        return self.name


class SpellSchool(models.Model):
    slug = models.SlugField(primary_key=True)
    name = models.CharField(max_length=30)
    order = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return self.name


class Spell(models.Model):
    class RangeKind(models.TextChoices):
        INCHES = "inches"
        SELF = "self", "Self"
        FR = "fr", "FR"

    slug = models.SlugField(primary_key=True, max_length=60)
    name = models.CharField(max_length=60)
    order = models.PositiveSmallIntegerField()
    school = models.ForeignKey(
        SpellSchool, on_delete=models.PROTECT, null=True, blank=True, related_name="spells"
    )
    # Null for Dragon Slayer, whose difficulty the caster chooses (+6, at most 12).
    difficulty = models.PositiveSmallIntegerField(null=True, blank=True)
    difficulty_label = models.CharField(max_length=20)
    range_kind = models.CharField(max_length=10, choices=RangeKind.choices)
    range_inches = models.PositiveSmallIntegerField(null=True, blank=True)
    forbidden = models.BooleanField(default=False)
    required_skill = models.ForeignKey(
        Skill, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    summary = models.TextField(blank=True)

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return self.name

    @property
    def range_label(self) -> str:
        if self.range_kind == self.RangeKind.INCHES:
            return f'{self.range_inches}"'
        return self.get_range_kind_display()


class SpellOutcome(models.Model):
    spell = models.ForeignKey(Spell, on_delete=models.CASCADE, related_name="outcomes")
    # "1-2", "3+", "X": min_successes and max_successes (null = open-ended) drive lookups.
    successes_label = models.CharField(max_length=10)
    min_successes = models.PositiveSmallIntegerField()
    max_successes = models.PositiveSmallIntegerField(null=True, blank=True)
    effect = models.TextField()

    class Meta:
        ordering = ["spell__order", "min_successes"]

    def __str__(self) -> str:
        return f"{self.spell_id} {self.successes_label}"
