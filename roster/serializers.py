"""Serializers that describe the roster API's answers in the OpenAPI schema.

They compute nothing: every number comes from `roster.engine` (for saved forces, the
evaluation it stored), and every document from `roster.selectors`.
"""

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from dbd_site import inputs
from dbd_site.compression import shows_secret
from dbd_site.serializers import StrictSerializer
from idempotency import decorators as idempotency_keys
from roster import documents, engine, selectors
from roster.models import Force, SkillRoll
from roster.schema import DOCUMENT_REF

# The document's own shape codes, the refusals of the JSON parser (dbd_site.inputs) and
# of an Idempotency-Key.
SHAPE_CODES = sorted(
    set(documents.SHAPE_CODES.values())
    | {"invalid"}
    | set(inputs.CODES)
    | set(idempotency_keys.CODES)
)


RULE_CODES = sorted({**engine.ERROR_CODES, **engine.WARNING_CODES})


class ProblemSerializer(StrictSerializer):
    pointer = serializers.CharField(help_text="JSON Pointer into the document (R12).")
    code = serializers.ChoiceField(choices=RULE_CODES)
    message = serializers.CharField()


class ShapeProblemSerializer(StrictSerializer):
    pointer = serializers.CharField(help_text="JSON Pointer to the offending value or key.")
    code = serializers.ChoiceField(choices=SHAPE_CODES)
    message = serializers.CharField()


class ShapeErrorsSerializer(StrictSerializer):
    errors = ShapeProblemSerializer(many=True)


class StatsSerializer(StrictSerializer):
    ME = serializers.IntegerField()
    RA = serializers.IntegerField()
    CA = serializers.IntegerField()
    DF = serializers.IntegerField()
    HP = serializers.IntegerField()
    FR = serializers.IntegerField()


class DefenceSerializer(StrictSerializer):
    melee = serializers.IntegerField()
    ranged = serializers.IntegerField()


class SpellSlotsSerializer(StrictSerializer):
    total = serializers.IntegerField()
    used = serializers.IntegerField()


class CostSerializer(StrictSerializer):
    advancements = serializers.IntegerField()
    equipment = serializers.IntegerField()
    total = serializers.IntegerField()


class MemberResultSerializer(StrictSerializer):
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


class EvaluationSerializer(StrictSerializer):
    valid = serializers.BooleanField(help_text="True exactly when `errors` is empty.")
    rules_version = serializers.CharField()
    resources = serializers.IntegerField()
    total_cost = serializers.IntegerField()
    remaining = serializers.IntegerField()
    errors = ProblemSerializer(many=True)
    warnings = ProblemSerializer(many=True)
    members = MemberResultSerializer(many=True)


# --- saved forces (/api/v1/rosters/) ---------------------------------------------------


class ApiErrorSerializer(StrictSerializer):
    pointer = serializers.CharField(
        help_text="JSON Pointer into the request body; empty for the request as a whole."
    )
    code = serializers.CharField(help_text="A stable code, e.g. `not-found`, `roll-refused`.")
    message = serializers.CharField()


class ApiErrorsSerializer(StrictSerializer):
    errors = ApiErrorSerializer(many=True)


class RulesUpdatePairSerializer(StrictSerializer):
    before = serializers.IntegerField(allow_null=True)
    after = serializers.IntegerField()


class RulesUpdateEditionsSerializer(StrictSerializer):
    before = serializers.CharField(help_text="The edition the force was built under.")
    after = serializers.CharField(help_text="The edition the site plays now.")


class RulesUpdateLegalSerializer(StrictSerializer):
    before = serializers.BooleanField()
    after = serializers.BooleanField()


class RulesUpdateProblemsSerializer(StrictSerializer):
    added = ProblemSerializer(many=True, help_text="Problems the move brings.")
    removed = ProblemSerializer(many=True, help_text="Problems the move takes away.")


class RulesUpdateSerializer(StrictSerializer):
    """What moving a force to the current edition of the rules would change (issue #13)."""

    rules_version = RulesUpdateEditionsSerializer()
    cost = RulesUpdatePairSerializer(help_text="The force's total cost (R7) before and after.")
    resources = RulesUpdatePairSerializer(
        help_text="Its Resources (a campaign copy's follow its cost, R15)."
    )
    legal = RulesUpdateLegalSerializer()
    errors = RulesUpdateProblemsSerializer()
    warnings = RulesUpdateProblemsSerializer()
    refusals = ApiErrorSerializer(
        many=True, help_text="What refuses the move now (a campaign copy's pending battle)."
    )


class EvaluationSummarySerializer(StrictSerializer):
    valid = serializers.BooleanField()
    total_cost = serializers.IntegerField()
    remaining = serializers.IntegerField()


def evaluation_summary(evaluation: dict | None) -> dict:
    """The stored evaluation's headline numbers (the engine's, not recomputed)."""
    evaluation = evaluation or {}
    return {
        "valid": bool(evaluation.get("valid")),
        "total_cost": evaluation.get("total_cost"),
        "remaining": evaluation.get("remaining"),
    }


class RosterSerializer(serializers.ModelSerializer):
    """A saved force in the list: its headline numbers from the stored evaluation."""

    url = serializers.HyperlinkedIdentityField(
        view_name="roster-api-detail", lookup_url_kwarg="force_id"
    )
    valid = serializers.BooleanField(source="is_legal", read_only=True)
    total_cost = serializers.SerializerMethodField()
    member_count = serializers.IntegerField(read_only=True)
    shared = serializers.SerializerMethodField()

    class Meta:
        model = Force
        fields = [
            "id",
            "url",
            "name",
            "resources",
            "rules_version",
            "valid",
            "total_cost",
            "member_count",
            "created_at",
            "updated_at",
            "shared",
        ]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.INT)
    def get_total_cost(self, force: Force) -> int | None:
        return (force.evaluation or {}).get("total_cost")

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_shared(self, force: Force) -> bool:
        return force.share_token is not None


SHARED_PAGE = "/forces/shared/{token}/"


class RosterDetailSerializer(serializers.ModelSerializer):
    """A saved force: its document, the engine's stored answer and its share link."""

    url = serializers.HyperlinkedIdentityField(
        view_name="roster-api-detail", lookup_url_kwarg="force_id"
    )
    document = serializers.SerializerMethodField()
    evaluation = serializers.SerializerMethodField()
    share_url = serializers.SerializerMethodField()
    rules_update_url = serializers.SerializerMethodField()

    class Meta:
        model = Force
        fields = [
            "id",
            "url",
            "document",
            "evaluation",
            "rules_version",
            "rules_update_url",
            "share_url",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    @extend_schema_field(DOCUMENT_REF)
    def get_document(self, force: Force) -> dict:
        return selectors.force_document(force=force)

    @extend_schema_field(EvaluationSerializer)
    def get_evaluation(self, force: Force) -> dict | None:
        return force.evaluation

    @extend_schema_field(
        serializers.URLField(
            allow_null=True,
            help_text="Where to review and accept the move to the current edition of the "
            "rules, while the force is on an older one (its changes wait); null otherwise.",
        )
    )
    def get_rules_update_url(self, force: Force) -> str | None:
        if not selectors.is_on_old_rules(force):
            return None
        path = reverse("roster-api-rules-update", kwargs={"force_id": force.pk})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    @extend_schema_field(
        serializers.URLField(allow_null=True, help_text="The read-only page; null while off.")
    )
    def get_share_url(self, force: Force) -> str | None:
        if force.share_token is None:
            return None
        path = SHARED_PAGE.format(token=force.share_token)
        request = self.context.get("request")
        if request is None:
            return path
        shows_secret(request)
        return request.build_absolute_uri(path)


class AdvancementSerializer(StrictSerializer):
    """A free advancement or level-up as the document holds it."""

    line = serializers.IntegerField()
    choice = serializers.CharField(required=False)
    skill = serializers.CharField(required=False)
    method = serializers.ChoiceField(choices=["rolled", "picked"], required=False)
    rerolls = serializers.IntegerField(required=False)
    natural_12 = serializers.BooleanField(required=False)


class SkillRollSerializer(serializers.ModelSerializer):
    """A d12 roll the server made and stored (R5)."""

    dice = serializers.ListField(child=serializers.IntegerField())
    choices = serializers.ListField(
        child=serializers.CharField(),
        help_text="For `pick-freely`: the skills the student may take instead, at no cost.",
    )
    rolled_by = serializers.SerializerMethodField()

    class Meta:
        model = SkillRoll
        fields = [
            "id",
            "slot",
            "table",
            "dice",
            "outcome",
            "skill",
            "choices",
            "rolled_by",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(
        serializers.CharField(allow_null=True, help_text="Username; null once deleted.")
    )
    def get_rolled_by(self, roll: SkillRoll) -> str | None:
        return roll.rolled_by.get_username() if roll.rolled_by else None


class ForceSkillRollSerializer(SkillRollSerializer):
    """A roll in the force's history, with whose it was."""

    member = serializers.CharField(source="member.name", read_only=True)
    member_index = serializers.SerializerMethodField()

    class Meta(SkillRollSerializer.Meta):
        fields = ["member", "member_index", *SkillRollSerializer.Meta.fields]
        read_only_fields = fields

    @extend_schema_field(
        serializers.IntegerField(help_text="The member's index in the document's `members`.")
    )
    def get_member_index(self, roll: SkillRoll) -> int | None:
        return self.context.get("member_indexes", {}).get(roll.member_id)


class NewRollSerializer(StrictSerializer):
    slot = serializers.CharField(
        max_length=40, help_text="The advancement: `free_advancements/0`, `level_ups/2`."
    )
    table = serializers.CharField(
        required=False,
        allow_null=True,
        max_length=30,
        help_text="After a natural 12: the skill category to roll on next.",
    )


class RollResultSerializer(SkillRollSerializer):
    """The roll, the member's advancement after it, and the force's new headline numbers.

    Describes the answer: the view adds `advancement` and `force` to the roll's fields.
    """

    advancement = AdvancementSerializer()
    force = EvaluationSummarySerializer()

    class Meta(SkillRollSerializer.Meta):
        fields = [*SkillRollSerializer.Meta.fields, "advancement", "force"]
        read_only_fields = fields


class SkillPickSerializer(StrictSerializer):
    slot = serializers.CharField(max_length=40)
    skill = serializers.CharField(max_length=100, help_text="`<category>/<slug>`.")
    free = serializers.BooleanField(
        default=False,
        help_text=(
            "True: take one of the skills a `pick-freely` roll offers, at no cost. "
            "False: pick the skill outright for -2 FR."
        ),
    )


class PickResultSerializer(StrictSerializer):
    slot = serializers.CharField()
    advancement = AdvancementSerializer()
    force = EvaluationSummarySerializer()
