"""The play REST API under /api/v1/battles/: start a battle, read it (ETag, 304), post an
action and get the new state, see an attack's odds, undo, end.

Views are thin: reads through `play.selectors`, writes through `play.services`, the rules
in `play.table`. A refusal is a `DomainError` answered in the one error shape.
"""

from collections.abc import Mapping
from typing import Any

from django.db.models import prefetch_related_objects
from django.http import HttpResponseNotModified
from django.urls import reverse
from django.utils.cache import patch_cache_control
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from campaign import selectors as campaign_selectors
from campaign.models import CampaignForce
from dbd_site import preconditions
from dbd_site.compression import shows_secret
from dbd_site.errors import NOT_FOUND_CODES, Invalid, NotFound
from dbd_site.inputs import is_whole_number, whole_number
from dbd_site.parsers import JSONParser
from dbd_site.schema import answers, etag_header
from idempotency.decorators import idempotent
from idempotency.schema import IDEMPOTENCY_KEY
from play import actions, presenters, selectors, serializers, services, sharing, table
from play.models import BattleSide
from roster import selectors as roster_selectors
from roster.models import Force
from roster.serializers import ApiErrorsSerializer

TAGS = ["battles"]
ERRORS = ApiErrorsSerializer
COMMON = {401: ERRORS, 429: ERRORS}
REFUSED = {400: ERRORS, 415: ERRORS}
# What the writes may answer besides the common codes (`dbd_site.schema.answers`): the
# table's refusals of a move (P1-P9) and the battle's state and sides.
TABLE_CODES = (
    table.ERROR_CODES,
    table.NOT_ALLOWED_CODES,
    table.CONFLICT_CODES,
    table.FIGURE_CODES,
)
TURN_CODES = (services.CONFLICT_CODES, services.NOT_ALLOWED_CODES)
BATTLE_ID = OpenApiParameter(
    "battle_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The battle's id."
)
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The `ETag` of an earlier answer: 304, no body, while the battle is unchanged.",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="Act only if the battle is still at this `ETag` (else 412). Compared "
    "strongly: a weak tag (`W/...`) never matches.",
)
ETAG = etag_header(
    "The battle's version (a strong tag; `-gzip` at its end when the answer is compressed).",
    statuses=(200, 201, 304),
)


def etag_of(version: int) -> str:
    """The battle's strong tag (dbd_site.preconditions)."""
    return preconditions.strong(str(version))


# Shared with the battle page's poll (play.views).
unchanged_since = preconditions.unchanged_since


def if_match_version(request: Any) -> int | None:
    """The version an If-Match names (compared strongly: a weak tag names none, -1), or
    None when there is none."""
    sent = preconditions.if_match(request)
    if sent is None:
        return None
    if preconditions.ANY in sent:
        return None
    number = whole_number(sent[0]) if sent else None
    return -1 if number is None else number


def answer(
    request: Request, battle_id: int, status: int = 200, result: dict[str, Any] | None = None
) -> Response:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    mine = selectors.player_sides(battle=battle, user=request.user)
    view = selectors.battle_view(battle=battle, viewer_sides=mine)
    data = presenters.battle_json(view, may_act=bool(mine), absolute=request.build_absolute_uri)
    if result is not None:
        data["result"] = result
    shows_secret(request)  # the spectator link
    response = Response(data, status=status)
    response["ETag"] = etag_of(battle.version)
    if status == 201:  # a new battle, or a new action in its log
        response["Location"] = request.build_absolute_uri(
            reverse("play-api-battle", args=[battle.pk])
        )
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _body(serializer_class: type, request: Request) -> dict[str, Any]:
    body = serializer_class(data=request.data)
    body.is_valid(raise_exception=True)
    return dict(body.validated_data)


class BattleApiView(GenericAPIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]
    serializer_class = serializers.PlayBattleSerializer


@extend_schema_view(
    get=extend_schema(
        operation_id="battles_list",
        summary="Your battles (played, watched in your campaigns, ended)",
        responses={200: serializers.PlayBattleListItemSerializer(many=True), **COMMON},
        tags=TAGS,
    ),
    post=extend_schema(
        operation_id="battles_create",
        summary="Start a battle",
        description=(
            "One-off: `forces` holds your force and `opponent_link` another player's share "
            "link, or `forces` holds two of your own. Campaign: `campaign` and two or more of "
            "its active forces (their roster ids). Each figure's numbers are copied as they "
            "stand; only legal forces play."
        ),
        request=serializers.PlayNewBattleSerializer,
        responses={201: serializers.PlayBattleSerializer, **REFUSED, **COMMON},
        parameters=[IDEMPOTENCY_KEY, ETAG],
        tags=TAGS,
    ),
)
class BattleListView(BattleApiView):
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.battle_list_for(user=request.user))
        assert page is not None  # the API always paginates lists
        prefetch_related_objects(page, "sides")
        return self.get_paginated_response(
            [presenters.list_item(b, request.build_absolute_uri) for b in page]
        )

    @answers(services.CODES, services.NOT_ALLOWED_CODES, table.ERROR_CODES, NOT_FOUND_CODES)
    @idempotent
    def post(self, request: Request) -> Response:
        body = _body(serializers.PlayNewBattleSerializer, request)
        forces = _forces(request, body)
        campaign = None
        if "campaign" in body:
            campaign = campaign_selectors.get_campaign(
                user=request.user, campaign_id=body["campaign"]
            )
        battle = services.start_battle(
            by=request.user,
            forces=forces,
            scenario=body["scenario"],
            campaign=campaign,
            entered_rolls_allowed=body.get("entered_rolls_allowed"),
        )
        return answer(request, battle.pk, status=201)


def _forces(request: Request, body: Mapping[str, Any]) -> list[Force]:
    """The forces named: your own by id (in a campaign, its forces by roster id) and the
    opponent's by share link."""
    ids = list(body["forces"])
    if "campaign" in body:
        if "opponent_link" in body:
            raise Invalid(
                "invalid", "A campaign battle takes its forces by id.", pointer="/opponent_link"
            )
        campaign = campaign_selectors.get_campaign(user=request.user, campaign_id=body["campaign"])
        entries = {
            cf.force_id: cf.force
            for cf in CampaignForce.objects.filter(
                campaign=campaign, force_id__in=ids
            ).select_related("force")
        }
        missing = [i for i, pk in enumerate(ids) if pk not in entries]
        if missing:
            raise NotFound(
                "not-found", "Not a force of this campaign.", pointer=f"/forces/{missing[0]}"
            )
        return [entries[pk] for pk in ids]
    forces = []
    for i, pk in enumerate(ids):
        try:
            forces.append(roster_selectors.get_force(user=request.user, force_id=pk))
        except Exception as error:  # Http404: not yours
            raise NotFound(
                "not-found", "No such force of yours.", pointer=f"/forces/{i}"
            ) from error
    if "opponent_link" in body:
        forces.append(selectors.shared_force_from_link(link=body["opponent_link"]))
    return forces


@extend_schema_view(
    get=extend_schema(
        operation_id="battles_retrieve",
        summary="A battle as it stands: sides, figures, turn, initiative, log",
        description="Carries an `ETag`; send it back in `If-None-Match`: 304 while unchanged.",
        parameters=[BATTLE_ID, IF_NONE_MATCH, ETAG],
        responses={
            200: serializers.PlayBattleSerializer,
            304: OpenApiResponse(description="Not modified."),
            **COMMON,
        },
        tags=TAGS,
    )
)
class BattleDetailView(BattleApiView):
    def get(self, request: Request, battle_id: int) -> Response | HttpResponseNotModified:
        etag = etag_of(selectors.battle_version(user=request.user, battle_id=battle_id))
        if unchanged_since(request, etag):
            response = HttpResponseNotModified()
            response["ETag"] = etag
            patch_cache_control(response, private=True, no_cache=True)
            return response
        return answer(request, battle_id)


@extend_schema_view(
    get=extend_schema(
        operation_id="battles_watch",
        summary="A battle by its spectator link (read-only, no account needed)",
        parameters=[
            OpenApiParameter("token", OpenApiTypes.STR, OpenApiParameter.PATH),
            IF_NONE_MATCH,
            ETAG,
        ],
        responses={
            200: serializers.PlayBattleSerializer,
            304: OpenApiResponse(description="Not modified."),
            404: ERRORS,
            429: ERRORS,
        },
        tags=TAGS,
    )
)
class BattleWatchView(BattleApiView):
    permission_classes = [AllowAny]

    def get(self, request: Request, token: str) -> Response | HttpResponseNotModified:
        battle = selectors.get_battle_by_token(token=token)
        etag = etag_of(battle.version)
        if unchanged_since(request, etag):
            response = HttpResponseNotModified()
        else:
            data = presenters.battle_json(
                selectors.battle_view(battle=battle),
                may_act=False,
                absolute=request.build_absolute_uri,
            )
            shows_secret(request)  # the spectator link
            response = Response(data)
        response["ETag"] = etag
        patch_cache_control(response, no_cache=True)
        return response


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_actions_create",
        summary="Do something in the battle; answers the new state",
        description=(
            "`type` names the action; each reads its own keys (* needed). `figure` is the "
            "figure acting. Leave `dice` out for the server's dice; send the dice rolled at "
            "the table to enter them (marked so in the log). Only the battle's players act, "
            "each for their own side's figures and decisions (P9: `not-your-figure`, 403); "
            "an action that would change a figure a waiting Friendship decision concerns is "
            "refused with `decision-pending` (409). The answer is the battle and `result`, "
            "the action as its entry shows it.\n\n" + actions.described()
        ),
        parameters=[BATTLE_ID, IF_MATCH, IDEMPOTENCY_KEY, ETAG],
        request=actions.PlayActionSerializer,
        responses={201: serializers.PlayActionAnswerSerializer, **REFUSED, **COMMON},
        tags=TAGS,
    )
)
class BattleActionView(BattleApiView):
    @answers(*TABLE_CODES, *TURN_CODES)
    @idempotent
    def post(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        body = _body(actions.PlayActionSerializer, request)
        action = actions.perform(battle, request.user, body, if_match=if_match_version(request))
        shown = actions.REGISTRY[body["type"]].present(action)
        return answer(request, battle_id, status=201, result=shown)


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_odds",
        summary="An attack's odds before rolling: the needed roll, chance to hit, expected damage",
        parameters=[BATTLE_ID],
        request=serializers.PlayAttackDeclarationSerializer,
        responses={200: serializers.PlayAttackOddsSerializer, **REFUSED, **COMMON},
        tags=TAGS,
    )
)
class BattleOddsView(BattleApiView):
    serializer_class = serializers.PlayAttackOddsSerializer

    @answers(*TABLE_CODES)
    def post(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        body = _body(serializers.PlayAttackDeclarationSerializer, request)
        plan = services.plan_attack(
            battle,
            table.attacks.AttackDeclaration(
                body["figure"],
                body["target"],
                body["kind"],
                body.get("weapon"),
                body.get("mode", 0),
                actions.situation_of(body),
            ),
        )
        return Response(presenters.odds_json(plan))


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_spell_attack_odds",
        summary="A waiting spell attack's odds on one target, before rolling",
        description=(
            "The cast named by the battle's `spell_attacks` attacks as a ranged attack by its "
            "caster: RA plus the tier's Acc against the target's DF with the ticked "
            "situation. Refused with `no-spell-attacks` when no cast waits."
        ),
        parameters=[BATTLE_ID],
        request=serializers.PlaySpellAttackDeclarationSerializer,
        responses={200: serializers.PlayAttackOddsSerializer, **REFUSED, **COMMON},
        tags=TAGS,
    )
)
class BattleSpellAttackOddsView(BattleApiView):
    serializer_class = serializers.PlayAttackOddsSerializer

    @answers(*TABLE_CODES)
    def post(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        body = _body(serializers.PlaySpellAttackDeclarationSerializer, request)
        plan = services.plan_spell_attack(
            battle, table.spell_attacks.SpellAttack(body["target"], actions.situation_of(body))
        )
        return Response(presenters.odds_json(plan))


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_spell_odds",
        summary="A spell's odds before casting: its dice, Difficulty, each tier's chance",
        description=(
            "P4: CA dice against the Difficulty (Spell Focus, Anathema Aura, Empowered "
            "Blessings), Supreme Spell Mastery's success; the exact chance of each outcome "
            "tier, and of no effect, as the screen shows it."
        ),
        parameters=[BATTLE_ID],
        request=serializers.PlaySpellDeclarationSerializer,
        responses={200: serializers.PlaySpellOddsSerializer, **REFUSED, **COMMON},
        tags=TAGS,
    )
)
class BattleSpellOddsView(BattleApiView):
    serializer_class = serializers.PlaySpellOddsSerializer

    @answers(*TABLE_CODES)
    def post(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        body = _body(serializers.PlaySpellDeclarationSerializer, request)
        plan = services.plan_spell(
            battle,
            table.spells.Cast(
                body["figure"],
                body["spell"],
                anathema_aura=body["anathema_aura"],
                empowered=body["empowered"],
                chosen=body.get("chosen"),
                sealed_power=body["sealed_power"],
                leader=body.get("leader"),
            ),
        )
        return Response(presenters.spell_odds_json(plan))


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_undo",
        summary="Undo the last action (last first): your own side's, or the battle's",
        description=(
            "The battle's `undo` names the action undo would take back and whose it is. A "
            "player undoes their own side's actions and the battle's own (initiative, a new "
            "turn); the other side's are refused with `not-your-figure` (403, P9)."
        ),
        parameters=[BATTLE_ID, IF_MATCH, IDEMPOTENCY_KEY, ETAG],
        request=None,
        responses={200: serializers.PlayBattleSerializer, **REFUSED, **COMMON},
        tags=TAGS,
    )
)
class BattleUndoView(BattleApiView):
    @answers(*TURN_CODES, table.NOT_ALLOWED_CODES)
    @idempotent
    def post(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        services.undo(battle=battle, by=request.user, if_match=if_match_version(request))
        return answer(request, battle_id)


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_end",
        summary="End the battle: the record from the log, with objectives and the result",
        description=(
            "Who took part, who went Unconscious or Out of Action and who took whom Out of "
            "Action come from the log (P6); `objectives` and `winner` from you. In a campaign "
            "it becomes the pending battle another side confirms (R14a)."
        ),
        parameters=[BATTLE_ID, IF_MATCH, IDEMPOTENCY_KEY, ETAG],
        request=serializers.PlayEndSerializer,
        responses={200: serializers.PlayBattleSerializer, **REFUSED, **COMMON},
        tags=TAGS,
    )
)
class BattleEndView(BattleApiView):
    @answers(*TURN_CODES, services.CODES, table.FIGURE_CODES)
    @idempotent
    def post(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        body = _body(serializers.PlayEndSerializer, request)
        objectives: dict[int, int] = {}
        for key, count in (body.get("objectives") or {}).items():
            if not is_whole_number(str(key)):
                raise Invalid("not-found", f"No figure {key}.", pointer=f"/objectives/{key}")
            objectives[whole_number(str(key)) or 0] = count
        services.end_battle(
            battle=battle,
            by=request.user,
            winner=body["winner"],
            objectives=objectives,
            if_match=if_match_version(request),
        )
        return answer(request, battle_id)


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_spectator_link_replace",
        summary="A new spectator link: the old one answers 404 from now on",
        description="Any side's player may; it makes a link again after a withdrawal.",
        parameters=[BATTLE_ID, IDEMPOTENCY_KEY, ETAG],
        request=None,
        responses={200: serializers.PlayBattleSerializer, **COMMON},
        tags=TAGS,
    ),
    delete=extend_schema(
        operation_id="battles_spectator_link_withdraw",
        summary="Withdraw the spectator link: nobody can watch until a new one is made",
        parameters=[BATTLE_ID, IDEMPOTENCY_KEY, ETAG],
        request=None,
        responses={200: serializers.PlayBattleSerializer, **COMMON},
        tags=TAGS,
    ),
)
class BattleSpectatorLinkView(BattleApiView):
    @answers(services.NOT_ALLOWED_CODES)
    @idempotent
    def post(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        sharing.replace_spectator_link(battle=battle, by=request.user)
        return answer(request, battle_id)

    @answers(services.NOT_ALLOWED_CODES)
    @idempotent
    def delete(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        sharing.withdraw_spectator_link(battle=battle, by=request.user)
        return answer(request, battle_id)


def _invitation_json(side: BattleSide, request: Request) -> dict[str, Any]:
    battle = side.battle
    return {
        "battle": battle.pk,
        "scenario": battle.scenario,
        "started_by": battle.created_by.get_username(),
        "position": side.position,
        "force": side.force_name,
        "accept_url": request.build_absolute_uri(
            reverse("play-api-invitation-accept", args=[battle.pk])
        ),
        "decline_url": request.build_absolute_uri(
            reverse("play-api-invitation-decline", args=[battle.pk])
        ),
    }


@extend_schema_view(
    get=extend_schema(
        operation_id="battles_invitations_list",
        summary="Battles others started with your shared forces, waiting for you",
        description=(
            "A battle started from your force's share link is played by its starter until "
            "you accept to take your force's side over."
        ),
        responses={200: serializers.PlayInvitationSerializer(many=True), **COMMON},
        tags=TAGS,
    )
)
class InvitationListView(BattleApiView):
    serializer_class = serializers.PlayInvitationSerializer

    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.invitations_for(user=request.user))
        assert page is not None  # the API always paginates lists
        return self.get_paginated_response([_invitation_json(side, request) for side in page])


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_invitation_accept",
        summary="Take over the side that plays your shared force",
        parameters=[BATTLE_ID, IDEMPOTENCY_KEY, ETAG],
        request=None,
        responses={200: serializers.PlayBattleSerializer, **REFUSED, **COMMON},
        tags=TAGS,
    )
)
class InvitationAcceptView(BattleApiView):
    @answers(services.CONFLICT_CODES.only("battle-ended"))
    @idempotent
    def post(self, request: Request, battle_id: int) -> Response:
        sharing.accept_invitation(battle_id=battle_id, user=request.user)
        return answer(request, battle_id)


@extend_schema_view(
    post=extend_schema(
        operation_id="battles_invitation_decline",
        summary="Leave the side that plays your shared force to the battle's starter",
        parameters=[BATTLE_ID, IDEMPOTENCY_KEY],
        request=None,
        responses={204: None, **COMMON},
        tags=TAGS,
    )
)
class InvitationDeclineView(BattleApiView):
    @idempotent
    def post(self, request: Request, battle_id: int) -> Response:
        sharing.decline_invitation(battle_id=battle_id, user=request.user)
        return Response(status=204)


DICE_CHECK = (
    "Every server die of the log, in order (undone actions' too), with its index in the "
    "battle's dice stream. Once the battle has ended its seed is revealed and each die is "
    "checked: the seed hashes to the commitment published at the start, and gives that die "
    'at that index (docs/play.md, "Verify the dice").'
)


def _dice_check(request: Request, battle: Any, battle_url: str) -> Response:
    check = selectors.dice_check(battle=battle)
    data = presenters.dice_check_json(check, request.build_absolute_uri(battle_url))
    response = Response(data)
    response["ETag"] = etag_of(battle.version)
    patch_cache_control(response, private=True, no_cache=True)
    return response


@extend_schema_view(
    get=extend_schema(
        operation_id="battles_dice_check",
        summary="Check a battle's dice against the seed it committed to",
        description=DICE_CHECK,
        parameters=[BATTLE_ID, ETAG],
        responses={200: serializers.PlayDiceCheckSerializer, **COMMON},
        tags=TAGS,
    )
)
class BattleDiceCheckView(BattleApiView):
    serializer_class = serializers.PlayDiceCheckSerializer

    def get(self, request: Request, battle_id: int) -> Response:
        battle = selectors.get_battle(user=request.user, battle_id=battle_id)
        return _dice_check(request, battle, reverse("play-api-battle", args=[battle.pk]))


@extend_schema_view(
    get=extend_schema(
        operation_id="battles_watch_dice_check",
        summary="Check a battle's dice, by its spectator link (no account needed)",
        description=DICE_CHECK,
        parameters=[OpenApiParameter("token", OpenApiTypes.STR, OpenApiParameter.PATH), ETAG],
        responses={200: serializers.PlayDiceCheckSerializer, 404: ERRORS, 429: ERRORS},
        tags=TAGS,
    )
)
class WatchDiceCheckView(BattleApiView):
    permission_classes = [AllowAny]
    serializer_class = serializers.PlayDiceCheckSerializer

    def get(self, request: Request, token: str) -> Response:
        battle = selectors.get_battle_by_token(token=token)
        shows_secret(request)  # the spectator link, in `battle`
        return _dice_check(request, battle, reverse("play-api-watch", args=[token]))
