"""The campaign REST API under /api/v1/campaigns/.

Everything here is for signed-in players of a campaign: anyone else gets 404 for all of
a campaign (its existence does not leak), an anonymous caller 401. The organiser's own
actions (house rules, invitation link, adjustments, export) answer other players 403.

Views are thin: reads go through `campaign.selectors`, writes through
`campaign.services`, which keep the rules (R14-R18). A write the rules refuse answers
400 in the project's error shape, pointing at the field it is about where that is
clear from the request (or "" for the request as a whole); one the caller may not do
answers 403.
"""

from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers as drf_serializers
from rest_framework.exceptions import ErrorDetail, NotFound, ValidationError
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from campaign import exports, selectors, serializers, services, tags
from campaign import policy as campaign_policy
from campaign.models import Battle, Campaign, CampaignForce
from campaign.schema import CAMPAIGN_DOCUMENT_REF, CAMPAIGN_DOCUMENT_SCHEMA
from campaign.services import common
from dbd_site import preconditions
from dbd_site.api_codes import serializer_codes
from dbd_site.errors import NOT_ALLOWED_CODES, Invalid, Kind, NotAllowed, also, declare_codes
from dbd_site.parsers import JSONParser
from dbd_site.schema import answers, etag_header
from idempotency.decorators import idempotent
from idempotency.schema import IDEMPOTENCY_KEY
from roster import documents
from roster import engine as roster_engine
from roster import policy as roster_policy
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.api import etag_of as roster_etag
from roster.models import Member
from roster.policy import policy_codes
from roster.serializers import ApiErrorsSerializer, evaluation_summary
from rules import dice

TAGS = ["campaigns"]
ERRORS = ApiErrorsSerializer
COMMON_ERRORS = {401: ERRORS, 429: ERRORS}
REFUSED = {400: ERRORS, 415: ERRORS}
# What the writes may answer besides the common codes (`dbd_site.schema.answers`), from
# the groups the campaign's services and policy declare.
CAMPAIGN_CODES = services.CODES
NOT_ALLOWED = common.NOT_ALLOWED_CODES
NOT_FOUND_CODES = common.NOT_FOUND_CODES
NOT_FOUND = {404: ERRORS}
ENTRY_CODES = (
    common.ENTRY_CODES,
    common.CONFLICT_CODES.only("already-in-campaign"),
    CAMPAIGN_CODES.only("force-not-ready"),
    NOT_ALLOWED.only("not-a-player"),
    roster_policy.CODES,  # not-owner
    also(Kind.INVALID, "not-found"),  # no such force of yours, at /force
)
RETIRE_CODES = (campaign_policy.CONFLICT_CODES, roster_policy.CODES)
LEDGER_CODES = (
    CAMPAIGN_CODES.only("not-a-whole-number", "required", "too-long"),
    campaign_policy.CODES.only("insufficient-resources"),
)
RECORD_CODES = (
    CAMPAIGN_CODES,
    also(Kind.INVALID, "not-found"),  # a force or member id that is not the battle's
    NOT_ALLOWED.only("not-in-battle"),
    campaign_policy.CONFLICT_CODES.only("battle-pending", "force-retired"),
)
CONFIRM_CODES = (
    common.CONFLICT_CODES.only("battle-not-pending"),
    NOT_ALLOWED.only("not-in-battle", "own-battle"),
)
VOID_CODES = (
    policy_codes,
    CAMPAIGN_CODES.only("too-long", "void-overdraws"),
    NOT_ALLOWED.only("not-organiser"),
)
IMPORT_CODES = declare_codes(
    {"campaign-import": "The dbd-campaign/1 document cannot be imported; the message says why."}
)
LEVEL_UP_CODES = (
    CAMPAIGN_CODES.only("no-level-up-waiting", "required", "unknown-line", "unknown-action"),
    NOT_FOUND_CODES.only("no-such-level-up"),
    roster_services.CODES,
    roster_services.NOT_FOUND_CODES,
    roster_services.CONFLICT_CODES.only("rules-update-pending"),  # the player's own write
    roster_engine.CODES,
    policy_codes,
)


def _path(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.INT, OpenApiParameter.PATH, description=description)


CAMPAIGN_ID = _path("campaign_id", "The campaign's id.")
CAMPAIGN_FORCE_ID = _path("campaign_force_id", "The campaign force's id (not the roster force's).")
BATTLE_ID = _path("battle_id", "The battle's id.")
MEMBER_ID = _path("member_id", "The member's id, as the campaign's forces list it.")
LEVEL_UP_INDEX = _path("level_up_index", "Which level-up of the member: 0 for the first.")
STATUS = OpenApiParameter(
    "status",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    enum=[value for value, _ in Battle.Status.choices],
    description="Only battles with this status.",
)
CAMPAIGN_ETAG = etag_header(
    "The version of the campaign's name and house rules (a strong tag): send it "
    "back in `If-Match` to change the house rules only as you saw them.",
)
BATTLE_ETAG = etag_header(
    "The version of the battle: its status and the house rules it would be "
    "scored with now (a strong tag). Send it back in `If-Match` to confirm or void it "
    "only as you saw it.",
)
FORCE_ETAG = etag_header(
    "The version of the campaign force (a strong tag): its members and levels, "
    "Resources, record and retirement. Every write to it answers its new tag.",
)
LEVEL_UP_ETAG = etag_header(
    "The version of the campaign copy's roster (a strong tag, as "
    "`/api/v1/rosters/{id}/` answers it): send it in `If-Match` to change that roster "
    "only as the level-up left it.",
)
ENTRY_ETAG = etag_header(
    "The ledger entry's tag (a strong tag; entries never change, R15).",
    statuses=(201,),
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The `ETag` you read: 412, nothing changed, if it has changed since. "
    "Compared strongly: a weak tag (`W/...`) never matches.",
)
CAMPAIGN = [CAMPAIGN_ID]
FORCE = [CAMPAIGN_ID, CAMPAIGN_FORCE_ID]
BATTLE = [CAMPAIGN_ID, BATTLE_ID]
MEMBER = [CAMPAIGN_ID, CAMPAIGN_FORCE_ID, MEMBER_ID]


# --- errors ----------------------------------------------------------------------------


def _at(pointer: str, errors: list[ErrorDetail]) -> Any:
    """The error detail DRF nests for a JSON Pointer: "/a/0/b" -> {"a": {"0": {"b": [...]}}}."""
    detail: Any = errors
    for part in reversed(pointer.split("/")[1:] if pointer else []):
        detail = {part: detail}
    return detail


def _invalid(pointer: str, message: str, code: str) -> ValidationError:
    return ValidationError(_at(pointer, [ErrorDetail(message, code)]))


# --- shared ------------------------------------------------------------------------------


class CampaignApiView(GenericAPIView):
    """Signed-in players only, JSON in; everything looked up inside the caller's campaign."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    def get_queryset(self):
        return selectors.campaigns_for(user=self.request.user)

    def get_campaign(self) -> Campaign:
        """The campaign in the URL, read once per request; 404 unless the caller plays."""
        if not hasattr(self, "_campaign"):
            self._campaign = selectors.get_campaign(
                user=self.request.user, campaign_id=self.kwargs["campaign_id"]
            )
        return self._campaign

    def require_organiser(self, doing: str) -> Campaign:
        campaign = self.get_campaign()
        if campaign.organiser_id != self.request.user.pk:
            raise NotAllowed("not-organiser", f"Only the organiser can {doing}.")
        return campaign

    def get_campaign_force(self) -> CampaignForce:
        return selectors.get_campaign_force(
            campaign=self.get_campaign(), campaign_force_id=self.kwargs["campaign_force_id"]
        )

    def require_owner(self, campaign_force: CampaignForce, doing: str) -> None:
        if campaign_force.player_id != self.request.user.pk:
            raise NotAllowed("not-owner", f"Only the force's owner can {doing}.")

    def get_battle(self) -> Battle:
        return selectors.get_battle(
            campaign=self.get_campaign(), battle_id=self.kwargs["battle_id"]
        )

    def body(self, serializer_class: type) -> dict[str, Any]:
        body = serializer_class(data=self.request.data, context=self.get_serializer_context())
        body.is_valid(raise_exception=True)
        return body.validated_data

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        campaign = getattr(self, "_campaign", None)  # once the caller is known to play
        if campaign is not None:
            user = self.request.user
            context["rules"] = campaign.house_rules

            def may_confirm(battle: Battle) -> bool:
                owners = [bf.campaign_force.player_id for bf in battle.battle_forces.all()]
                return battle.status == Battle.Status.PENDING and services.may_confirm(
                    battle, user, owners
                )

            context["may_confirm"] = may_confirm
        return context

    def listed(self, queryset: Any) -> Response:
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    # Answers after a write read everything again through the selectors.

    def campaign_answer(self, campaign_id: int, status: int = 200, **headers: str) -> Response:
        campaign = selectors.get_campaign(user=self.request.user, campaign_id=campaign_id)
        return self.campaign_data(campaign, status=status, **headers)

    def campaign_data(self, campaign: Campaign, status: int = 200, **headers: str) -> Response:
        context = {
            **super().get_serializer_context(),
            "players": selectors.players(campaign=campaign),
        }
        data = serializers.CampaignDetailSerializer(campaign, context=context).data
        etag = preconditions.strong(tags.campaign_tag(campaign))
        return Response(data, status=status, headers={"ETag": etag, **headers})

    def force_answer(self, campaign_force_id: int, status: int = 200, **headers: str) -> Response:
        cf = selectors.get_campaign_force_with_members(
            campaign=self.get_campaign(), campaign_force_id=campaign_force_id
        )
        data = serializers.CampaignForceSerializer(cf, context=self.get_serializer_context())
        etag = preconditions.strong(tags.campaign_force_tag(cf))
        return Response(data.data, status=status, headers={"ETag": etag, **headers})

    def battle_answer(self, battle_id: int, status: int = 200, **headers: str) -> Response:
        battle = selectors.get_battle(campaign=self.get_campaign(), battle_id=battle_id)
        data = serializers.BattleSerializer(battle, context=self.get_serializer_context())
        etag = preconditions.strong(tags.battle_tag(battle))
        return Response(data.data, status=status, headers={"ETag": etag, **headers})


# --- campaigns ---------------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_list",
        summary="List the campaigns you organise or play in",
        description="Newest first.",
        responses={200: serializers.CampaignSerializer(many=True), **COMMON_ERRORS},
        tags=TAGS,
    ),
    post=extend_schema(
        operation_id="campaigns_create",
        parameters=[IDEMPOTENCY_KEY, CAMPAIGN_ETAG],
        summary="Start a campaign: you organise it and are its first player",
        description=(
            "A name and, optionally, house rules; any setting left out has the rulings' "
            "default (R11, R14-R18). Answers 201 with the campaign and a `Location`."
        ),
        request=serializers.NewCampaignSerializer,
        responses={201: serializers.CampaignDetailSerializer, **REFUSED, **COMMON_ERRORS},
        examples=[
            OpenApiExample(
                "Spring League, a richer start",
                value={"name": "Spring League", "starting_resources": 60},
                request_only=True,
            )
        ],
        tags=TAGS,
    ),
)
class CampaignListView(CampaignApiView):
    serializer_class = serializers.CampaignSerializer

    def get(self, request: Request) -> Response:
        return self.listed(self.get_queryset())

    @answers(CAMPAIGN_CODES.only("required", "too-long", "invalid-house-rules"))
    @idempotent
    def post(self, request: Request) -> Response:
        data = dict(self.body(serializers.NewCampaignSerializer))
        name = data.pop("name")
        campaign = services.create_campaign(organiser=request.user, name=name, **data)
        location = reverse(
            "campaign-api-detail", kwargs={"campaign_id": campaign.pk}, request=request
        )
        return self.campaign_answer(campaign.pk, status=201, Location=location)


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_retrieve",
        summary="A campaign: house rules, players, invitation link",
        parameters=[*CAMPAIGN, CAMPAIGN_ETAG],
        responses={200: serializers.CampaignDetailSerializer, **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    ),
    patch=extend_schema(
        operation_id="campaigns_house_rules_update",
        summary="Change house rules (the organiser)",
        description=(
            "Only the settings sent change; each change is in the campaign log with its old "
            "and new value. New level thresholds are refused if a member would have taken "
            "more level-ups than their level allows (R17)."
        ),
        parameters=[*CAMPAIGN, IDEMPOTENCY_KEY, IF_MATCH, CAMPAIGN_ETAG],
        request=serializers.HouseRulesChangeSerializer,
        responses={
            200: serializers.CampaignDetailSerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        examples=[
            OpenApiExample("Bigger wins", value={"resources_for_win": 12}, request_only=True)
        ],
        tags=TAGS,
    ),
)
class CampaignDetailView(CampaignApiView):
    def get_serializer_class(self):
        if self.request.method == "PATCH":
            return serializers.HouseRulesChangeSerializer
        return serializers.CampaignDetailSerializer

    def get(self, request: Request, campaign_id: int) -> Response:
        return self.campaign_data(self.get_campaign())

    @answers(CAMPAIGN_CODES.only("invalid-house-rules"), NOT_ALLOWED.only("not-organiser"))
    @idempotent
    def patch(self, request: Request, campaign_id: int) -> Response:
        campaign = self.require_organiser("change the house rules")
        changes = self.body(serializers.HouseRulesChangeSerializer)
        # The one refusal beyond the settings' own checks is about level thresholds.
        services.update_house_rules(
            campaign=campaign, by=request.user, if_match=preconditions.if_match(request), **changes
        )
        return self.campaign_answer(campaign.pk)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_join",
        parameters=[IDEMPOTENCY_KEY, CAMPAIGN_ETAG],
        summary="Join a campaign with its invitation token",
        description="Joining a campaign you already play in changes nothing.",
        request=serializers.JoinSerializer,
        responses={200: serializers.CampaignDetailSerializer, **REFUSED, **COMMON_ERRORS},
        tags=TAGS,
    )
)
class JoinView(CampaignApiView):
    serializer_class = serializers.JoinSerializer

    @answers(NOT_FOUND_CODES.only("invalid-invite"))
    @idempotent
    def post(self, request: Request) -> Response:
        token = self.body(serializers.JoinSerializer)["token"]
        player = services.join_campaign(user=request.user, token=token)
        return self.campaign_answer(player.campaign_id)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_invite_reset",
        summary="Replace the invitation link (the organiser); the old one stops working",
        parameters=[*CAMPAIGN, IDEMPOTENCY_KEY, CAMPAIGN_ETAG],
        request=None,
        responses={200: serializers.CampaignDetailSerializer, **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    )
)
class InviteResetView(CampaignApiView):
    serializer_class = serializers.CampaignDetailSerializer

    @answers(NOT_ALLOWED.only("not-organiser"))
    @idempotent
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.require_organiser("change the invitation link")
        services.reset_invite_token(campaign=campaign, by=request.user)
        return self.campaign_answer(campaign.pk)


# --- campaign forces -------------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_forces_list",
        summary="The campaign's forces: Resources, rating, members and their levels",
        description="In the order they entered; retired forces stay listed.",
        parameters=CAMPAIGN,
        responses={
            200: serializers.CampaignForceSerializer(many=True),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
    post=extend_schema(
        operation_id="campaigns_forces_create",
        summary="Enter one of your forces: the campaign takes its own copy",
        description=(
            "The force must be yours, legal with the starting Resources (R10, R11) and new "
            "to campaigns (no XP, no level-ups, R16); one active force per player. Your "
            "original stays as it is. The ledger starts with the starting Resources and "
            "the roster's cost spent."
        ),
        parameters=[*CAMPAIGN, IDEMPOTENCY_KEY, FORCE_ETAG],
        request=serializers.EnterForceSerializer,
        responses={
            201: serializers.CampaignForceSerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
)
class ForceListView(CampaignApiView):
    serializer_class = serializers.CampaignForceSerializer

    def get(self, request: Request, campaign_id: int) -> Response:
        return self.listed(selectors.campaign_forces_with_members(campaign=self.get_campaign()))

    @answers(*ENTRY_CODES)
    @idempotent
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.get_campaign()
        force_id = self.body(serializers.EnterForceSerializer)["force"]
        try:
            force = roster_selectors.get_force(user=request.user, force_id=force_id)
        except Http404:
            raise _invalid("/force", "You have no force with this id.", "not-found") from None
        entry = services.enter_force(campaign=campaign, player=request.user, force=force)
        kwargs = {"campaign_id": campaign.pk, "campaign_force_id": entry.pk}
        location = reverse("campaign-api-force", kwargs=kwargs, request=request)
        return self.force_answer(entry.pk, status=201, Location=location)


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_forces_retrieve",
        summary="A campaign force",
        parameters=[*FORCE, FORCE_ETAG],
        responses={200: serializers.CampaignForceSerializer, **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    )
)
class ForceDetailView(CampaignApiView):
    serializer_class = serializers.CampaignForceSerializer

    def get(self, request: Request, campaign_id: int, campaign_force_id: int) -> Response:
        self.get_campaign()
        return self.force_answer(campaign_force_id)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_forces_retire",
        summary="Retire a force (its owner or the organiser); its record and ledger stay",
        description="Refused while the force has a battle waiting for confirmation.",
        parameters=[*FORCE, IDEMPOTENCY_KEY, FORCE_ETAG],
        request=None,
        responses={
            200: serializers.CampaignForceSerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class ForceRetireView(CampaignApiView):
    serializer_class = serializers.CampaignForceSerializer

    @answers(*RETIRE_CODES)
    @idempotent
    def post(self, request: Request, campaign_id: int, campaign_force_id: int) -> Response:
        cf = self.get_campaign_force()
        services.retire_campaign_force(campaign_force=cf, by=request.user)
        return self.force_answer(cf.pk)


# --- Resources (R15) -------------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_forces_ledger_list",
        summary="The force's Resources ledger, oldest first, with the balance after each entry",
        description=(
            "Append-only (R15): a mistake is corrected by a new entry; a voided battle's "
            "rewards by `reversal` entries."
        ),
        parameters=FORCE,
        responses={
            200: serializers.LedgerEntrySerializer(many=True),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class LedgerView(CampaignApiView):
    serializer_class = serializers.LedgerEntrySerializer

    def get(self, request: Request, campaign_id: int, campaign_force_id: int) -> Response:
        cf = self.get_campaign_force()
        return self.listed(selectors.ledger_with_running_balance(campaign_force=cf))


class LedgerWriteView(CampaignApiView):
    serializer_class = serializers.LedgerEntrySerializer

    def entry_answer(self, cf: CampaignForce, entry_id: int) -> Response:
        """201 with the entry; `Location` is the ledger that lists it."""
        entry = selectors.ledger_entry_with_running_balance(campaign_force=cf, entry_id=entry_id)
        kwargs = {"campaign_id": cf.campaign_id, "campaign_force_id": cf.pk}
        location = reverse("campaign-api-ledger", kwargs=kwargs, request=self.request)
        etag = preconditions.strong(tags.ledger_entry_tag(entry))
        return Response(
            self.get_serializer(entry).data,
            status=201,
            headers={"Location": location, "ETag": etag},
        )


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_forces_adjustments_create",
        summary="Adjust a force's Resources up or down, with a reason (the organiser)",
        description="Refused (`insufficient-resources`) if the balance would go below 0 (R15).",
        parameters=[*FORCE, IDEMPOTENCY_KEY, ENTRY_ETAG],
        request=serializers.AdjustmentSerializer,
        responses={
            201: serializers.LedgerEntrySerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        examples=[
            OpenApiExample(
                "A prize", value={"amount": 5, "reason": "Best painted"}, request_only=True
            )
        ],
        tags=TAGS,
    )
)
class AdjustmentView(LedgerWriteView):
    @answers(*LEDGER_CODES, NOT_ALLOWED.only("not-organiser"))
    @idempotent
    def post(self, request: Request, campaign_id: int, campaign_force_id: int) -> Response:
        self.require_organiser("adjust Resources")
        cf = self.get_campaign_force()
        data = self.body(serializers.AdjustmentSerializer)
        entry = services.adjust_resources(campaign_force=cf, by=request.user, **data)
        return self.entry_answer(cf, entry.pk)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_forces_spends_create",
        summary="Spend your force's Resources, with a reason (its owner)",
        description=(
            "For what the roster does not price (say, a scenario's hired help). Refused "
            "(`insufficient-resources`) beyond the balance (R15: never below 0)."
        ),
        parameters=[*FORCE, IDEMPOTENCY_KEY, ENTRY_ETAG],
        request=serializers.AmountSerializer,
        responses={
            201: serializers.LedgerEntrySerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class SpendView(LedgerWriteView):
    @answers(*LEDGER_CODES, *RETIRE_CODES)
    @idempotent
    def post(self, request: Request, campaign_id: int, campaign_force_id: int) -> Response:
        cf = self.get_campaign_force()
        self.require_owner(cf, "spend its Resources")
        data = self.body(serializers.AmountSerializer)
        entry = services.spend(campaign_force=cf, by=request.user, **data)
        return self.entry_answer(cf, entry.pk)


# --- battles (R14, R15, R16) ---------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_battles_list",
        summary="The campaign's battles, newest first, with every member's results",
        parameters=[*CAMPAIGN, STATUS],
        responses={200: serializers.BattleSerializer(many=True), **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    ),
    post=extend_schema(
        operation_id="campaigns_battles_create",
        summary="Record a battle (R14); it counts once an opponent confirms it",
        description=(
            "Two or more active, legal forces of the campaign, each with the members who "
            "took part; `winner` is one of them, or null for a draw. You must own one of "
            "the forces or organise the campaign. A force is in one pending battle at a "
            "time, and is frozen until it is confirmed or voided."
        ),
        parameters=[*CAMPAIGN, IDEMPOTENCY_KEY, BATTLE_ETAG],
        request=serializers.NewBattleSerializer,
        responses={201: serializers.BattleSerializer, **REFUSED, **NOT_FOUND, **COMMON_ERRORS},
        examples=[
            OpenApiExample(
                "Red beats Blue",
                value={
                    "played_on": "2025-03-01",
                    "scenario": "Capture the Flag",
                    "winner": 1,
                    "results": [
                        {
                            "force": 1,
                            "members": [
                                {"member": 11, "enemies_out_of_action": 1, "objectives": 1},
                                {"member": 12, "unconscious": True},
                            ],
                        },
                        {"force": 2, "members": [{"member": 21, "out_of_action": True}]},
                    ],
                },
                request_only=True,
            )
        ],
        tags=TAGS,
    ),
)
class BattleListView(CampaignApiView):
    serializer_class = serializers.BattleSerializer

    @answers(serializer_codes)  # the status filter
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self.get_campaign()
        query = serializers.BattleStatusFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        status = query.validated_data.get("status")
        return self.listed(selectors.battles(campaign=campaign, status=status))

    @answers(*RECORD_CODES)
    @idempotent
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = self.get_campaign()
        data = self.body(serializers.NewBattleSerializer)
        results, errors = self.resolve(campaign, data["results"])
        if errors:
            raise ValidationError({"results": errors})
        by_id = {cf.pk: cf for cf in results}
        winner = by_id[data["winner"]] if data["winner"] is not None else None
        battle = services.record_battle(
            campaign=campaign,
            by=request.user,
            played_on=data["played_on"],
            scenario=data["scenario"],
            winner=winner,
            results=results,
        )
        kwargs = {"campaign_id": campaign.pk, "battle_id": battle.pk}
        location = reverse("campaign-api-battle", kwargs=kwargs, request=request)
        return self.battle_answer(battle.pk, status=201, Location=location)

    @staticmethod
    def resolve(
        campaign: Campaign, given: list[dict[str, Any]]
    ) -> tuple[dict[CampaignForce, list[services.MemberOutcome]], dict[int, Any]]:
        """The body's ids as the campaign's forces and their members; errors by position."""
        results: dict[CampaignForce, list[services.MemberOutcome]] = {}
        errors: dict[int, Any] = {}
        for i, result in enumerate(given):
            try:
                cf = selectors.get_campaign_force(
                    campaign=campaign, campaign_force_id=result["force"]
                )
            except Http404:
                missing = [ErrorDetail("This campaign has no force with this id.", "not-found")]
                errors[i] = {"force": missing}
                continue
            members = {m.pk: m for m in selectors.members_of(campaign_force=cf)}
            outcomes = []
            for j, outcome in enumerate(result["members"]):
                member: Member | None = members.get(outcome["member"])
                if member is None:
                    message = f"{cf.force.name} has no member with this id."
                    missing = [ErrorDetail(message, "not-found")]
                    errors.setdefault(i, {}).setdefault("members", {})[j] = {"member": missing}
                    continue
                outcomes.append(services.MemberOutcome(**{**outcome, "member": member}))
            results[cf] = outcomes
        return results, errors


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_battles_retrieve",
        summary="A battle with every member's results",
        parameters=[*BATTLE, BATTLE_ETAG],
        responses={200: serializers.BattleSerializer, **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    )
)
class BattleDetailView(CampaignApiView):
    serializer_class = serializers.BattleSerializer

    def get(self, request: Request, campaign_id: int, battle_id: int) -> Response:
        self.get_campaign()
        return self.battle_answer(battle_id)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_battles_confirm",
        summary="Confirm a pending battle (an opponent or the organiser): it counts now",
        description=(
            "Applies the battle all at once: every member's XP (R16) and every force's "
            "Resources (R15). The player who recorded it cannot confirm it (403)."
        ),
        parameters=[*BATTLE, IDEMPOTENCY_KEY, IF_MATCH, BATTLE_ETAG],
        request=None,
        responses={200: serializers.BattleSerializer, **REFUSED, **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    )
)
class BattleConfirmView(CampaignApiView):
    serializer_class = serializers.BattleSerializer

    @answers(*CONFIRM_CODES, policy_codes)
    @idempotent
    def post(self, request: Request, campaign_id: int, battle_id: int) -> Response:
        battle = self.get_battle()
        services.confirm_battle(
            battle=battle, by=request.user, if_match=preconditions.if_match(request)
        )
        return self.battle_answer(battle.pk)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_battles_void",
        summary="Void a battle: withdraw or dispute a pending one, or undo a confirmed one",
        description=(
            "Pending: the recorder (withdrawing it), an opponent (disputing it) or the "
            "organiser; nothing had been applied. Confirmed: the organiser only, with a "
            "`reason`; every ledger entry it made is reversed by a new entry and every XP "
            "given back, refused (`insufficient-resources`) if a force has already spent "
            "what it would give back (R15)."
        ),
        parameters=[*BATTLE, IDEMPOTENCY_KEY, IF_MATCH, BATTLE_ETAG],
        request=serializers.VoidSerializer,
        responses={200: serializers.BattleSerializer, **REFUSED, **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    )
)
class BattleVoidView(CampaignApiView):
    serializer_class = serializers.BattleSerializer

    @answers(*CONFIRM_CODES, *VOID_CODES)
    @idempotent
    def post(self, request: Request, campaign_id: int, battle_id: int) -> Response:
        battle = self.get_battle()
        reason = self.body(serializers.VoidSerializer)["reason"]
        services.void_battle(
            battle=battle, by=request.user, reason=reason, if_match=preconditions.if_match(request)
        )
        return self.battle_answer(battle.pk)


# --- standings, level-ups waiting, log, export ---------------------------------------------


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_standings",
        summary="The standings: confirmed battles only, by points, then wins, then name",
        parameters=CAMPAIGN,
        responses={
            200: serializers.StandingSerializer(many=True),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class StandingsView(CampaignApiView):
    serializer_class = serializers.StandingSerializer
    pagination_class = None  # one row per force, ranked: the whole table

    def get(self, request: Request, campaign_id: int) -> Response:
        rows = selectors.standings(campaign=self.get_campaign())
        return Response(self.get_serializer(rows, many=True).data)


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_level_ups_waiting",
        summary="Members of active forces with level-ups to take (R17)",
        parameters=CAMPAIGN,
        responses={
            200: serializers.LevelUpWaitingSerializer(many=True),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class LevelUpsWaitingView(CampaignApiView):
    serializer_class = serializers.LevelUpWaitingSerializer
    pagination_class = None

    def get(self, request: Request, campaign_id: int) -> Response:
        rows = selectors.level_ups_waiting(campaign=self.get_campaign())
        return Response(self.get_serializer(rows, many=True).data)


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_log_list",
        summary="The campaign log: who did what, when, newest first",
        parameters=CAMPAIGN,
        responses={200: serializers.EventSerializer(many=True), **NOT_FOUND, **COMMON_ERRORS},
        tags=TAGS,
    )
)
class LogView(CampaignApiView):
    serializer_class = serializers.EventSerializer

    def get(self, request: Request, campaign_id: int) -> Response:
        return self.listed(selectors.campaign_log(campaign=self.get_campaign()))


@extend_schema_view(
    get=extend_schema(
        operation_id="campaigns_export",
        summary="The whole campaign as a dbd-campaign/1 document (the organiser)",
        description=(
            "House rules, players, every force as a dbd-roster/1 document with its roll "
            "history, the ledger, the battles and the log. No ids and no invitation token."
        ),
        parameters=CAMPAIGN,
        responses={
            200: OpenApiResponse(
                response=CAMPAIGN_DOCUMENT_REF, description="A dbd-campaign/1 document."
            ),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class ExportView(CampaignApiView):
    @answers(NOT_ALLOWED.only("not-organiser"))
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = self.require_organiser("export the campaign")
        document = exports.export_campaign(campaign=campaign)
        filename = f"campaign-{campaign.pk}.json"
        return Response(
            document, headers={"Content-Disposition": f'inline; filename="{filename}"'}
        )


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_import",
        summary="Bring in a whole campaign from a dbd-campaign/1 document (site staff)",
        description=(
            "What `campaigns_export` gives, as `manage.py import_campaign` takes it: the "
            "campaign, its players (by username; the users are made, with no password, "
            "and a name already on this site is refused), every force, battle, ledger "
            "entry and log entry; all or nothing. The document is checked against its "
            "schema first (each problem at its pointer), then by the import "
            "(`campaign-import`). Site staff only (403 otherwise): it makes accounts and "
            "puts people in a campaign."
        ),
        parameters=[IDEMPOTENCY_KEY, CAMPAIGN_ETAG],
        request={"application/json": CAMPAIGN_DOCUMENT_REF},
        responses={
            201: inline_serializer(
                "ImportedCampaign",
                {
                    "id": drf_serializers.IntegerField(),
                    "name": drf_serializers.CharField(),
                    "organiser": drf_serializers.CharField(),
                    "players": drf_serializers.ListField(child=drf_serializers.CharField()),
                    "url": drf_serializers.URLField(),
                },
            ),
            **REFUSED,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class ImportView(CampaignApiView):
    @answers(NOT_ALLOWED_CODES, IMPORT_CODES, documents.DOCUMENT_CODES)
    @idempotent
    def post(self, request: Request) -> Response:
        data = request.data  # read first: a body that cannot be read is 400 for anyone
        if not request.user.is_staff:
            raise NotAllowed("not-allowed", "Only the site's staff import campaigns.")
        problems = documents.schema_problems(data, _IMPORT_VALIDATOR)
        if problems:
            raise Invalid.of(problems)
        try:
            campaign = exports.import_campaign(data=data)
        except exports.CampaignImportError as error:
            raise Invalid("campaign-import", str(error)) from None
        url = reverse("campaign-api-detail", kwargs={"campaign_id": campaign.pk}, request=request)
        players = campaign.players.select_related("user").order_by("joined_at", "id")
        answer = {
            "id": campaign.pk,
            "name": campaign.name,
            "organiser": campaign.organiser.get_username(),
            "players": [p.user.get_username() for p in players],
            "url": url,
        }
        etag = preconditions.strong(tags.campaign_tag(campaign))  # the campaign's, at `Location`
        return Response(answer, status=201, headers={"Location": url, "ETag": etag})


_IMPORT_VALIDATOR = documents.strict_validator(CAMPAIGN_DOCUMENT_SCHEMA)


# --- level-ups (R17) -------------------------------------------------------------------------


class LevelUpApiView(CampaignApiView):
    serializer_class = serializers.LevelUpResultSerializer

    def get_member(self, cf: CampaignForce) -> Member:
        return selectors.get_member(campaign_force=cf, member_id=self.kwargs["member_id"])

    def level_up_answer(self, cf: CampaignForce, member: Member, index: int, status: int):
        """The level-up at `index` as now stored, its last roll, the force's totals."""
        fresh = selectors.get_campaign_force_with_members(
            campaign=self.get_campaign(), campaign_force_id=cf.pk
        )
        member = next(m for m in fresh.force.members.all() if m.pk == member.pk)
        slot = f"level_ups/{index}"
        rolls = roster_selectors.rolls_of(force=fresh.force, member=member)
        last = [r for r in rolls if r.slot == slot][-1:]
        context = self.get_serializer_context()
        data = {
            "slot": slot,
            "advancement": member.level_ups[index],
            "roll": serializers.SkillRollSummarySerializer(last[0]).data if last else None,
            "member": serializers.CampaignMemberSerializer(member, context=context).data,
            "force": evaluation_summary(fresh.force.evaluation),
        }
        # The campaign copy's roster version, as `/api/v1/rosters/{id}/` tags it: send it in
        # `If-Match` with the purchases made between battles there (R17a).
        headers = {"ETag": roster_etag(fresh.force)}
        if status == 201:
            kwargs = {"campaign_id": cf.campaign_id, "campaign_force_id": cf.pk}
            headers["Location"] = reverse(
                "campaign-api-force", kwargs=kwargs, request=self.request
            )
        return Response(data, status=status, headers=headers)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_members_level_ups_create",
        summary="Take a level-up (R17): one free advancement per level gained",
        description=(
            "From the member's society table (the force's owner only). A statistic line "
            "takes `choice` on an 'or' line. A skill line is rolled on the server (R5) or "
            "picked with `method: picked` and `skill` (-2 FR). A roll that needs a decision "
            "(a natural 12, a free pick) is finished with the level-up's rolls endpoint. "
            "Refused while a battle of the force is pending."
        ),
        parameters=[*MEMBER, IDEMPOTENCY_KEY, LEVEL_UP_ETAG],
        request=serializers.NewLevelUpSerializer,
        responses={
            201: serializers.LevelUpResultSerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        examples=[
            OpenApiExample("+1 ME", value={"line": 1, "choice": "ME"}, request_only=True),
            OpenApiExample("Roll a skill", value={"line": 4}, request_only=True),
        ],
        tags=TAGS,
    )
)
class LevelUpView(LevelUpApiView):
    @answers(*LEVEL_UP_CODES)
    @idempotent
    def post(
        self, request: Request, campaign_id: int, campaign_force_id: int, member_id: int
    ) -> Response:
        cf = self.get_campaign_force()
        member = self.get_member(cf)
        self.require_owner(cf, "take its level-ups")
        data = self.body(serializers.NewLevelUpSerializer)
        index = len(member.level_ups)
        services.take_level_up(
            campaign_force=cf, by=request.user, member=member, rng=dice.server_dice(), **data
        )
        return self.level_up_answer(cf, member, index, status=201)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaigns_members_level_ups_rolls_create",
        summary="Finish or redo a level-up's skill roll (R5)",
        description=(
            "`roll`: after a natural 12 on `table`, otherwise a re-roll (-1 FR); "
            "`free-pick`: one of the last roll's `choices`; `pick`: `skill` outright (-2 FR). "
            "Answers 201 when the server rolled, 200 for a pick."
        ),
        parameters=[*MEMBER, LEVEL_UP_INDEX, IDEMPOTENCY_KEY, LEVEL_UP_ETAG],
        request=serializers.LevelUpRollSerializer,
        responses={
            200: serializers.LevelUpResultSerializer,
            201: serializers.LevelUpResultSerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        examples=[
            OpenApiExample(
                "After a natural 12", value={"action": "roll", "table": "melee"}, request_only=True
            )
        ],
        tags=TAGS,
    )
)
class LevelUpRollView(LevelUpApiView):
    @answers(*LEVEL_UP_CODES)
    @idempotent
    def post(
        self,
        request: Request,
        campaign_id: int,
        campaign_force_id: int,
        member_id: int,
        level_up_index: int,
    ) -> Response:
        cf = self.get_campaign_force()
        member = self.get_member(cf)
        if level_up_index >= len(member.level_ups):
            raise NotFound(f"{member.name} has no level-up {level_up_index}; they count from 0.")
        self.require_owner(cf, "take its level-ups")
        data = self.body(serializers.LevelUpRollSerializer)
        services.continue_level_up_roll(
            campaign_force=cf,
            by=request.user,
            member=member,
            slot=f"level_ups/{level_up_index}",
            rng=dice.server_dice(),
            **data,
        )
        status = 201 if data["action"] == "roll" else 200
        return self.level_up_answer(cf, member, level_up_index, status=status)
