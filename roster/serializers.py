"""Serializers that describe the roster API's answers in the OpenAPI schema.

They compute nothing: every number comes from `roster.engine`.
"""

from rest_framework import serializers

from roster import documents, engine

SHAPE_CODES = sorted(set(documents.SHAPE_CODES.values()) | {"invalid", "parse-error"})


class ProblemSerializer(serializers.Serializer):
    pointer = serializers.CharField(help_text="JSON Pointer into the document (R12).")
    code = serializers.ChoiceField(choices=sorted({**engine.ERROR_CODES, **engine.WARNING_CODES}))
    message = serializers.CharField()


class ShapeProblemSerializer(serializers.Serializer):
    pointer = serializers.CharField(help_text="JSON Pointer to the offending value or key.")
    code = serializers.ChoiceField(choices=SHAPE_CODES)
    message = serializers.CharField()


class ShapeErrorsSerializer(serializers.Serializer):
    errors = ShapeProblemSerializer(many=True)


class StatsSerializer(serializers.Serializer):
    ME = serializers.IntegerField()
    RA = serializers.IntegerField()
    CA = serializers.IntegerField()
    DF = serializers.IntegerField()
    HP = serializers.IntegerField()
    FR = serializers.IntegerField()


class DefenceSerializer(serializers.Serializer):
    melee = serializers.IntegerField()
    ranged = serializers.IntegerField()


class SpellSlotsSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    used = serializers.IntegerField()


class CostSerializer(serializers.Serializer):
    advancements = serializers.IntegerField()
    equipment = serializers.IntegerField()
    total = serializers.IntegerField()


class MemberResultSerializer(serializers.Serializer):
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=["student", "mentor"])
    level = serializers.IntegerField()
    stats = StatsSerializer(help_text="After society, advancements and level-ups; no equipment.")
    defence = DefenceSerializer(help_text="DF with armour and shields (R8), at most 16.")
    skills = serializers.ListField(child=serializers.CharField())
    spell_slots = SpellSlotsSerializer()
    cost = CostSerializer()
    unverified_rolls = serializers.IntegerField(
        help_text="Rolled skills not backed by a roll the server made (R5)."
    )
    purchase_costs = serializers.ListField(child=serializers.IntegerField())
    equipment_costs = serializers.ListField(child=serializers.IntegerField())


class EvaluationSerializer(serializers.Serializer):
    valid = serializers.BooleanField(help_text="True exactly when `errors` is empty.")
    rules_version = serializers.CharField()
    resources = serializers.IntegerField()
    total_cost = serializers.IntegerField()
    remaining = serializers.IntegerField()
    errors = ProblemSerializer(many=True)
    warnings = ProblemSerializer(many=True)
    members = MemberResultSerializer(many=True)
