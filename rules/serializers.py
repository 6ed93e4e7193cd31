"""Read-only representations of the rules catalogue for the JSON API."""

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from rest_framework import serializers

from rules.models import (
    AdvancementLine,
    Equipment,
    Skill,
    SkillCategory,
    Society,
    Spell,
    SpellOutcome,
    SpellSchool,
    Statistic,
)

STATISTIC_OR_CHOICE = [*Statistic.values, "choice"]


class StatisticField(serializers.ChoiceField):
    """One of ME RA CA DF HP FR, documented as the shared `Statistic` schema component."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(choices=Statistic.values, **kwargs)


class StatisticFieldExtension(OpenApiSerializerFieldExtension):
    """One named enum for every list of statistics, instead of one per field name."""

    target_class = StatisticField

    def map_serializer_field(self, auto_schema: AutoSchema, direction: str) -> dict:
        component = ResolvedComponent(
            name="Statistic",
            type=ResolvedComponent.SCHEMA,
            object="rules.Statistic",
            schema={"type": "string", "enum": list(Statistic.values)},
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


class StatisticAmountSerializer(serializers.Serializer):
    """A statistic change; in a society's modifiers "choice" means the statistic picked."""

    statistic = serializers.ChoiceField(choices=STATISTIC_OR_CHOICE)
    amount = serializers.IntegerField()


class AdvancementLineSerializer(serializers.ModelSerializer):
    options = StatisticAmountSerializer(
        many=True, help_text="Statistic lines only; more than one option needs a choice (R4)."
    )
    skill_category = serializers.CharField(
        source="skill_category_id", read_only=True, allow_null=True, help_text="Skill lines only."
    )

    class Meta:
        model = AdvancementLine
        fields = ["number", "label", "kind", "options", "skill_category"]


class SocietySerializer(serializers.ModelSerializer):
    choice_options = serializers.ListField(
        child=StatisticField(),
        help_text="The statistics the society's 'or' lets the player pick between (R2).",
    )
    modifiers = StatisticAmountSerializer(many=True)
    lines = AdvancementLineSerializer(many=True, read_only=True)

    class Meta:
        model = Society
        fields = ["slug", "name", "order", "choice_options", "modifiers", "summary", "lines"]


class SkillSerializer(serializers.ModelSerializer):
    category = serializers.CharField(source="category_id", read_only=True)
    roll_label = serializers.CharField(read_only=True, help_text="d12 result(s), e.g. '7-10'.")
    excludes = serializers.SlugRelatedField(
        slug_field="key",
        many=True,
        read_only=True,
        help_text="Keys of skills that cannot be owned together with this one.",
    )

    class Meta:
        model = Skill
        fields = [
            "key",
            "category",
            "slug",
            "name",
            "roll_min",
            "roll_max",
            "roll_label",
            "summary",
            "repeatable",
            "excludes",
        ]


class SkillCategorySerializer(serializers.ModelSerializer):
    cost_statistics = serializers.ListField(
        child=StatisticField(),
        help_text="A bought skill is priced from the highest of these statistics (R6).",
    )
    skills = serializers.SlugRelatedField(slug_field="key", many=True, read_only=True)

    class Meta:
        model = SkillCategory
        fields = ["slug", "name", "order", "table_size", "cost_statistics", "skills"]


class CostFormulaSerializer(serializers.Serializer):
    """floor(multiplier x statistic) + constant (R7, R13); a flat cost has no statistic."""

    multiplier = serializers.DecimalField(
        source="cost_multiplier", max_digits=4, decimal_places=2, coerce_to_string=False
    )
    statistic = serializers.SerializerMethodField()
    constant = serializers.IntegerField(source="cost_constant")

    def get_statistic(self, obj: Equipment) -> str | None:
        return obj.cost_statistic or None


class FireModeSerializer(serializers.Serializer):
    rof = serializers.IntegerField(help_text="Rate of fire.")
    accuracy = serializers.IntegerField(help_text="Accuracy modifier to hit.")


class EquipmentSerializer(serializers.ModelSerializer):
    cost = serializers.CharField(source="cost_label", help_text="As printed, e.g. '1.5xME'.")
    cost_formula = CostFormulaSerializer(source="*")
    fire_modes = FireModeSerializer(
        many=True, help_text="Ranged weapons; the Light Machine Gun has two modes."
    )

    class Meta:
        model = Equipment
        fields = [
            "slug",
            "name",
            "order",
            "kind",
            "hands",
            "cost",
            "cost_formula",
            "range_inches",
            "fire_modes",
            "blast",
            "to_hit",
            "df_bonus_melee",
            "df_bonus_ranged",
            "summary",
        ]


class SpellOutcomeSerializer(serializers.ModelSerializer):
    class Meta:
        model = SpellOutcome
        fields = ["successes_label", "min_successes", "max_successes", "effect"]


class SpellSerializer(serializers.ModelSerializer):
    school = serializers.CharField(
        source="school_id", read_only=True, allow_null=True, help_text="Null for Dragon Slayer."
    )
    required_skill = serializers.CharField(
        source="required_skill_id",
        read_only=True,
        allow_null=True,
        help_text="Key of the skill needed to learn the spell, if any.",
    )
    range_label = serializers.CharField(read_only=True, help_text='e.g. 5", Self or FR.')
    outcomes = SpellOutcomeSerializer(many=True, read_only=True)

    class Meta:
        model = Spell
        fields = [
            "slug",
            "name",
            "order",
            "school",
            "difficulty",
            "difficulty_label",
            "range_kind",
            "range_inches",
            "range_label",
            "forbidden",
            "required_skill",
            "summary",
            "outcomes",
        ]


class SpellSchoolSerializer(serializers.ModelSerializer):
    spells = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)

    class Meta:
        model = SpellSchool
        fields = ["slug", "name", "order", "spells"]
