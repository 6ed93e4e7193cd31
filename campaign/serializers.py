"""Serializers of the campaign API (/api/v1/campaigns/): request bodies and answers.

Answers show what `campaign.selectors` read; request bodies are checked for shape only
(types, ranges, duplicates), so each mistake points at its field. The rules themselves
(R14-R18) are `campaign.services`' to keep.
"""

from typing import Any

from django.urls import reverse as django_reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from campaign import progression
from campaign.models import (
    Battle,
    BattleForce,
    BattleMemberResult,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
)
from campaign.progression import HouseRules, InvalidHouseRules
from dbd_site.compression import shows_secret
from dbd_site.serializers import (
    BoundedListField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from roster.models import Member
from roster.serializers import AdvancementSerializer, EvaluationSummarySerializer


def _username(user: Any) -> str | None:
    return user.get_username() if user is not None else None


def _url(name: str, request: Any, **kwargs: Any) -> str:
    return reverse(name, kwargs=kwargs, request=request)


USERNAME = serializers.CharField(allow_null=True, help_text="Username; null once deleted.")


@extend_schema_field(
    {
        "type": "integer",
        "minimum": -1_000_000,
        "maximum": 1_000_000,
        "not": {"const": 0},
        "description": "Up or down, not 0; the balance never goes below 0 (R15).",
    }
)
class AdjustmentAmountField(StrictIntegerField):
    """A whole number of Resources up or down: never 0, as its schema says."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=-1_000_000, max_value=1_000_000, **kwargs)

    def to_internal_value(self, data: Any) -> int:
        value = super().to_internal_value(data)
        if value == 0:
            raise serializers.ValidationError("An adjustment is not 0.", code="invalid")
        return value


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "integer", "minimum": 0, "maximum": progression.MAX_SETTING * 10},
        "minItems": 1,
        "maxItems": progression.MAX_LEVELS,
        "description": (
            "Total XP for levels 1, 2, ...: starts at 0, strictly increasing "
            f"(default {list(progression.DEFAULT_RULES.level_thresholds)})."
        ),
    }
)
class LevelThresholdsField(serializers.ListField):
    """The XP for each level (R16); the schema says what it can (starts at 0, bounds),
    the house rules' own check the rest (strictly increasing)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            child=StrictIntegerField(min_value=0), max_length=progression.MAX_LEVELS, **kwargs
        )


# --- house rules ---------------------------------------------------------------------------


def _number(name: str) -> serializers.IntegerField:
    default = getattr(progression.DEFAULT_RULES, name)
    return StrictIntegerField(
        min_value=1 if name == "starting_resources" else 0,
        max_value=progression.MAX_SETTING,
        help_text=f"{progression.LABELS[name]}; default {default}.",
    )


class HouseRulesSerializer(StrictSerializer):
    """A campaign's settings (R14-R18); every one has the rulings' number as default."""

    starting_resources = _number("starting_resources")
    resources_for_win = _number("resources_for_win")
    resources_for_draw = _number("resources_for_draw")
    resources_for_loss = _number("resources_for_loss")
    xp_for_taking_part = _number("xp_for_taking_part")
    xp_per_enemy_out_of_action = _number("xp_per_enemy_out_of_action")
    xp_per_objective = _number("xp_per_objective")
    xp_for_winning_side = _number("xp_for_winning_side")
    level_thresholds = LevelThresholdsField()
    points_for_win = _number("points_for_win")
    points_for_draw = _number("points_for_draw")
    points_for_loss = _number("points_for_loss")
    entered_rolls_allowed = StrictBooleanField(
        help_text=f"{progression.LABELS['entered_rolls_allowed']}: battles started in the "
        "campaign copy it; false means every roll is the server's (the play API then "
        "refuses `dice` with `entered-rolls-forbidden`); default true.",
    )


class HouseRulesChangeSerializer(HouseRulesSerializer):
    """Some house rules: only the settings sent change. Unknown keys are refused."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.required = False

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(self.initial_data) - set(self.fields))
        errors: dict[str, list[serializers.ErrorDetail]] = {
            key: [serializers.ErrorDetail(f"'{key}' is not a setting here.", "unknown-key")]
            for key in unknown
        }
        # Each setting is checked on its own by the rules' own check (R14-R18), so each
        # problem points at its setting.
        for name, value in attrs.items():
            if name not in progression.LABELS:
                continue
            try:
                HouseRules(**{name: value})
            except InvalidHouseRules as exc:
                errors[name] = [serializers.ErrorDetail(p, "invalid") for p in exc.problems]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class NewCampaignSerializer(HouseRulesChangeSerializer):
    name = StrictCharField(max_length=100)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].required = True


# --- campaigns and players -----------------------------------------------------------------


class CampaignSerializer(serializers.ModelSerializer):
    """A campaign in the list."""

    url = serializers.SerializerMethodField()
    organiser = serializers.SerializerMethodField()
    is_organiser = serializers.SerializerMethodField()

    class Meta:
        model = Campaign
        fields = ["id", "url", "name", "organiser", "is_organiser", "created_at"]
        read_only_fields = fields

    @extend_schema_field(serializers.URLField())
    def get_url(self, campaign: Campaign) -> str:
        return _url("campaign-api-detail", self.context.get("request"), campaign_id=campaign.pk)

    @extend_schema_field(USERNAME)
    def get_organiser(self, campaign: Campaign) -> str | None:
        return _username(campaign.organiser)

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_is_organiser(self, campaign: Campaign) -> bool:
        request = self.context.get("request")
        return request is not None and campaign.organiser_id == request.user.pk


class PlayerSerializer(serializers.ModelSerializer):
    username = serializers.SerializerMethodField()
    is_organiser = serializers.SerializerMethodField()

    class Meta:
        model = CampaignPlayer
        fields = ["username", "is_organiser", "joined_at"]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField())
    def get_username(self, player: CampaignPlayer) -> str:
        return player.user.get_username()

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_is_organiser(self, player: CampaignPlayer) -> bool:
        return player.user_id == self.context["campaign"].organiser_id


class CampaignLinksSerializer(StrictSerializer):
    forces = serializers.URLField()
    battles = serializers.URLField()
    standings = serializers.URLField()
    level_ups = serializers.URLField()
    log = serializers.URLField()
    export = serializers.URLField(help_text="The organiser's only.")


class CampaignDetailSerializer(CampaignSerializer):
    """A campaign: its house rules, players and invitation link (players only see it)."""

    house_rules = serializers.SerializerMethodField()
    players = serializers.SerializerMethodField()
    invite_token = serializers.CharField(read_only=True)
    invite_url = serializers.SerializerMethodField()
    links = serializers.SerializerMethodField()

    class Meta(CampaignSerializer.Meta):
        fields = [
            *CampaignSerializer.Meta.fields,
            "house_rules",
            "players",
            "invite_token",
            "invite_url",
            "links",
        ]
        read_only_fields = fields

    @extend_schema_field(HouseRulesSerializer)
    def get_house_rules(self, campaign: Campaign) -> dict[str, Any]:
        return campaign.house_rules.as_dict()

    @extend_schema_field(PlayerSerializer(many=True))
    def get_players(self, campaign: Campaign) -> list[dict[str, Any]]:
        context = {**self.context, "campaign": campaign}
        return PlayerSerializer(self.context["players"], many=True, context=context).data

    @extend_schema_field(
        serializers.URLField(help_text="Share it: whoever opens it signed in may join.")
    )
    def get_invite_url(self, campaign: Campaign) -> str:
        path = django_reverse("campaign:join", kwargs={"token": campaign.invite_token})
        request = self.context.get("request")
        if request is None:
            return path
        shows_secret(request)  # and `invite_token` beside it
        return request.build_absolute_uri(path)

    @extend_schema_field(CampaignLinksSerializer)
    def get_links(self, campaign: Campaign) -> dict[str, str]:
        request = self.context.get("request")
        return {
            key: _url(f"campaign-api-{name}", request, campaign_id=campaign.pk)
            for key, name in (
                ("forces", "forces"),
                ("battles", "battles"),
                ("standings", "standings"),
                ("level_ups", "level-ups"),
                ("log", "log"),
                ("export", "export"),
            )
        }


class JoinSerializer(StrictSerializer):
    token = StrictCharField(max_length=64, help_text="The invitation link's token.")


# --- campaign forces -----------------------------------------------------------------------


class CampaignMemberSerializer(serializers.ModelSerializer):
    """A member of a campaign force, with levels by the campaign's thresholds (R16, R17)."""

    level = serializers.SerializerMethodField()
    level_ups_taken = serializers.SerializerMethodField()
    level_ups_waiting = serializers.SerializerMethodField()

    class Meta:
        model = Member
        fields = ["id", "name", "role", "xp", "level", "level_ups_taken", "level_ups_waiting"]
        read_only_fields = fields

    def _rules(self) -> HouseRules:
        return self.context["rules"]

    @extend_schema_field(OpenApiTypes.INT)
    def get_level(self, member: Member) -> int:
        return progression.level_for_xp(member.xp, self._rules())

    @extend_schema_field(OpenApiTypes.INT)
    def get_level_ups_taken(self, member: Member) -> int:
        return len(member.level_ups)

    @extend_schema_field(OpenApiTypes.INT)
    def get_level_ups_waiting(self, member: Member) -> int:
        return progression.level_ups_waiting(member.xp, len(member.level_ups), self._rules())


class CampaignForceSerializer(serializers.ModelSerializer):
    """A campaign's copy of a player's force: its Resources (the ledger's balance, R15)
    and rating (the engine's total cost, R11)."""

    url = serializers.SerializerMethodField()
    name = serializers.CharField(source="force.name", read_only=True)
    player = serializers.SerializerMethodField()
    force = serializers.IntegerField(source="force_id", read_only=True)
    force_url = serializers.SerializerMethodField()
    balance = serializers.IntegerField(read_only=True, help_text="Resources to spend (R15).")
    rating = serializers.SerializerMethodField()
    valid = serializers.BooleanField(source="force.is_legal", read_only=True)
    retired = serializers.SerializerMethodField()
    members = serializers.SerializerMethodField()
    ledger_url = serializers.SerializerMethodField()

    class Meta:
        model = CampaignForce
        fields = [
            "id",
            "url",
            "name",
            "player",
            "force",
            "force_url",
            "balance",
            "rating",
            "valid",
            "retired",
            "entered_at",
            "retired_at",
            "members",
            "ledger_url",
        ]
        read_only_fields = fields

    def _ids(self, cf: CampaignForce) -> dict[str, int]:
        return {"campaign_id": cf.campaign_id, "campaign_force_id": cf.pk}

    @extend_schema_field(serializers.URLField())
    def get_url(self, cf: CampaignForce) -> str:
        return _url("campaign-api-force", self.context.get("request"), **self._ids(cf))

    @extend_schema_field(serializers.CharField())
    def get_player(self, cf: CampaignForce) -> str:
        return cf.player.get_username()

    @extend_schema_field(
        serializers.URLField(
            help_text="The force in the roster API: its document (the player's own only)."
        )
    )
    def get_force_url(self, cf: CampaignForce) -> str:
        return _url("roster-api-detail", self.context.get("request"), force_id=cf.force_id)

    @extend_schema_field(
        serializers.IntegerField(help_text="The force's total cost (R11), the engine's answer.")
    )
    def get_rating(self, cf: CampaignForce) -> int:
        return int((cf.force.evaluation or {}).get("total_cost", 0))

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_retired(self, cf: CampaignForce) -> bool:
        return cf.retired_at is not None

    @extend_schema_field(CampaignMemberSerializer(many=True))
    def get_members(self, cf: CampaignForce) -> list[dict[str, Any]]:
        return CampaignMemberSerializer(
            cf.force.members.all(), many=True, context=self.context
        ).data

    @extend_schema_field(serializers.URLField())
    def get_ledger_url(self, cf: CampaignForce) -> str:
        return _url("campaign-api-ledger", self.context.get("request"), **self._ids(cf))


class EnterForceSerializer(StrictSerializer):
    force = StrictIntegerField(
        help_text="The id of one of your own (freeform) forces in the roster API; the "
        "campaign takes its own copy."
    )


# --- Resources (R15) -------------------------------------------------------------------------


class LedgerEntrySerializer(serializers.ModelSerializer):
    running_balance = serializers.IntegerField(read_only=True, help_text="The balance after it.")
    battle = serializers.IntegerField(source="battle_id", read_only=True, allow_null=True)
    reverses = serializers.IntegerField(source="reverses_id", read_only=True, allow_null=True)
    created_by = serializers.SerializerMethodField()

    class Meta:
        model = LedgerEntry
        fields = [
            "id",
            "kind",
            "amount",
            "reason",
            "running_balance",
            "battle",
            "reverses",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields

    @extend_schema_field(USERNAME)
    def get_created_by(self, entry: LedgerEntry) -> str | None:
        return _username(entry.created_by)


class AmountSerializer(StrictSerializer):
    amount = StrictIntegerField(min_value=1, max_value=1_000_000)
    reason = StrictCharField(max_length=200, help_text="Shown in the ledger and the log.")


class AdjustmentSerializer(AmountSerializer):
    amount = AdjustmentAmountField()


# --- battles (R14) ---------------------------------------------------------------------------


class BattleMemberResultSerializer(serializers.ModelSerializer):
    member = serializers.IntegerField(
        source="member_id", read_only=True, allow_null=True, help_text="Null once removed."
    )
    name = serializers.CharField(source="member_name", read_only=True)

    class Meta:
        model = BattleMemberResult
        fields = [
            "member",
            "name",
            "unconscious",
            "out_of_action",
            "enemies_out_of_action",
            "objectives",
            "xp_awarded",
        ]
        read_only_fields = fields


class BattleForceSerializer(serializers.ModelSerializer):
    force = serializers.IntegerField(source="campaign_force_id", read_only=True)
    name = serializers.CharField(source="campaign_force.force.name", read_only=True)
    player = serializers.SerializerMethodField()
    result = serializers.ChoiceField(
        source="outcome",
        choices=BattleForce.Outcome.choices,
        read_only=True,
        help_text="The force's result; no winner is a draw for every force.",
    )
    members = BattleMemberResultSerializer(source="member_results", many=True, read_only=True)

    class Meta:
        model = BattleForce
        fields = ["force", "name", "player", "result", "members"]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField())
    def get_player(self, bf: BattleForce) -> str:
        return bf.campaign_force.player.get_username()


class BattleSerializer(serializers.ModelSerializer):
    """A battle (R14). Pending ones count for nothing until an opponent confirms them."""

    url = serializers.SerializerMethodField()
    winner = serializers.IntegerField(
        source="winner_id", read_only=True, allow_null=True, help_text="Null for a draw."
    )
    recorded_by = serializers.SerializerMethodField()
    confirmed_by = serializers.SerializerMethodField()
    voided_by = serializers.SerializerMethodField()
    forces = BattleForceSerializer(source="battle_forces", many=True, read_only=True)
    can_confirm = serializers.SerializerMethodField()

    class Meta:
        model = Battle
        fields = [
            "id",
            "url",
            "played_on",
            "scenario",
            "status",
            "winner",
            "forces",
            "recorded_by",
            "created_at",
            "confirmed_by",
            "confirmed_at",
            "voided_by",
            "voided_at",
            "void_reason",
            "can_confirm",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.URLField())
    def get_url(self, battle: Battle) -> str:
        return _url(
            "campaign-api-battle",
            self.context.get("request"),
            campaign_id=battle.campaign_id,
            battle_id=battle.pk,
        )

    @extend_schema_field(USERNAME)
    def get_recorded_by(self, battle: Battle) -> str | None:
        return _username(battle.recorded_by)

    @extend_schema_field(USERNAME)
    def get_confirmed_by(self, battle: Battle) -> str | None:
        return _username(battle.confirmed_by)

    @extend_schema_field(USERNAME)
    def get_voided_by(self, battle: Battle) -> str | None:
        return _username(battle.voided_by)

    @extend_schema_field(
        serializers.BooleanField(help_text="Whether you may confirm it now (pending only).")
    )
    def get_can_confirm(self, battle: Battle) -> bool:
        may_confirm = self.context.get("may_confirm")
        return bool(may_confirm and may_confirm(battle))


class NewMemberResultSerializer(StrictSerializer):
    member = StrictIntegerField(help_text="The member's id (see the campaign's forces).")
    unconscious = StrictBooleanField(default=False)
    out_of_action = StrictBooleanField(default=False)
    enemies_out_of_action = StrictIntegerField(min_value=0, max_value=99, default=0)
    objectives = StrictIntegerField(min_value=0, max_value=10, default=0)


class NewBattleForceSerializer(StrictSerializer):
    force = StrictIntegerField(help_text="The campaign force's id.")
    members = BoundedListField(
        child=NewMemberResultSerializer(),
        min_length=1,
        max_length=progression.MAX_FORCE_MEMBERS,
        help_text="Every member who took part.",
    )


def _error(message: str, code: str) -> list[serializers.ErrorDetail]:
    return [serializers.ErrorDetail(message, code)]


class NewBattleSerializer(StrictSerializer):
    played_on = serializers.DateField()
    scenario = StrictCharField(max_length=100)
    winner = StrictIntegerField(
        allow_null=True, help_text="The winning campaign force's id; null for a draw."
    )
    results = BoundedListField(
        child=NewBattleForceSerializer(),
        min_length=2,
        max_length=progression.MAX_BATTLE_FORCES,
        help_text=f"Two to {progression.MAX_BATTLE_FORCES} forces.",
    )

    def validate_played_on(self, value: Any) -> Any:
        if value > timezone.localdate():
            raise serializers.ValidationError(
                "A battle is recorded after it is played.", code="battle-in-future"
            )
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        errors: dict[str, Any] = {}
        results: dict[int, Any] = {}
        forces: set[int] = set()
        for i, result in enumerate(attrs["results"]):
            if result["force"] in forces:
                results[i] = {"force": _error("This force is listed twice.", "listed-twice")}
            forces.add(result["force"])
            members: set[int] = set()
            for j, outcome in enumerate(result["members"]):
                if outcome["member"] in members:
                    twice = _error("This member is listed twice.", "listed-twice")
                    results.setdefault(i, {}).setdefault("members", {})[j] = {"member": twice}
                members.add(outcome["member"])
        if results:
            errors["results"] = results
        if attrs["winner"] is not None and attrs["winner"] not in forces:
            errors["winner"] = _error("The winner is one of the battle's forces.", "invalid")
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class BattleStatusFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Battle.Status.choices, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # DRF reads an empty query value as "not sent"; the schema (an enum) says it is
        # not a status, so `?status=` is refused rather than ignored.
        if self.initial_data.get("status", None) == "":
            raise serializers.ValidationError(
                {"status": ["Choose confirmed, pending or void, or leave status out."]}
            )
        return attrs


class VoidSerializer(StrictSerializer):
    reason = StrictCharField(
        max_length=200,
        allow_blank=True,
        default="",
        help_text="Required to void a confirmed battle; optional for a pending one.",
    )


# --- standings, level-ups, log ---------------------------------------------------------------


class StandingSerializer(StrictSerializer):
    force = serializers.IntegerField(source="campaign_force.pk")
    name = serializers.CharField()
    player = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    drawn = serializers.IntegerField()
    lost = serializers.IntegerField()
    points = serializers.IntegerField()
    resources = serializers.IntegerField(help_text="The ledger's balance (R15).")
    rating = serializers.IntegerField(help_text="The force's total cost (R11).")
    retired = serializers.BooleanField()


class LevelUpWaitingSerializer(StrictSerializer):
    force = serializers.IntegerField(source="campaign_force.pk")
    force_name = serializers.CharField(source="campaign_force.force.name")
    player = serializers.CharField(source="campaign_force.player.get_username")
    member = serializers.IntegerField(source="member.pk")
    name = serializers.CharField(source="member.name")
    xp = serializers.IntegerField(source="member.xp")
    level = serializers.IntegerField()
    taken = serializers.IntegerField()
    waiting = serializers.IntegerField()


class EventSerializer(serializers.ModelSerializer):
    actor = serializers.SerializerMethodField()
    data = serializers.JSONField(read_only=True)

    class Meta:
        model = CampaignEvent
        fields = ["id", "kind", "message", "actor", "data", "created_at"]
        read_only_fields = fields

    @extend_schema_field(USERNAME)
    def get_actor(self, event: CampaignEvent) -> str | None:
        return _username(event.actor)


# --- level-ups (R17) -------------------------------------------------------------------------


class NewLevelUpSerializer(StrictSerializer):
    line = StrictIntegerField(min_value=1, help_text="The line of the society table.")
    choice = StrictCharField(
        required=False, max_length=10, help_text="On an 'or' statistic line: which statistic."
    )
    method = serializers.ChoiceField(
        choices=["rolled", "picked"],
        default="rolled",
        help_text="A skill line: rolled on the server (R5), or picked for -2 FR with `skill`.",
    )
    skill = StrictCharField(required=False, max_length=100, help_text="`<category>/<slug>`.")


class LevelUpRollSerializer(StrictSerializer):
    action = serializers.ChoiceField(
        choices=["roll", "free-pick", "pick"],
        help_text=(
            "`roll`: after a natural 12 roll on `table`, otherwise re-roll (-1 FR); "
            "`free-pick`: take `skill` among the last roll's choices; `pick`: take `skill` "
            "outright (-2 FR)."
        ),
    )
    table = StrictCharField(required=False, max_length=30)
    skill = StrictCharField(required=False, max_length=100)


class SkillRollSummarySerializer(StrictSerializer):
    table = serializers.CharField()
    dice = serializers.ListField(child=serializers.IntegerField())
    outcome = serializers.CharField()
    skill = serializers.CharField()
    choices = serializers.ListField(child=serializers.CharField())


class LevelUpResultSerializer(StrictSerializer):
    """Describes the answer: the level-up as the member now holds it."""

    slot = serializers.CharField(help_text="`level_ups/<k>`.")
    advancement = AdvancementSerializer()
    roll = SkillRollSummarySerializer(
        allow_null=True, help_text="The last server roll for this level-up, if any."
    )
    member = CampaignMemberSerializer()
    force = EvaluationSummarySerializer()
