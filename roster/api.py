"""The roster REST API under /api/v1/rosters/.

`validate/` checks a dbd-roster/1 document and stores nothing, for anyone. Everything
else is the signed-in user's saved forces: list, import, read, replace, rename, delete,
export, and the server-side skill rolls of their members (R5). Views are thin: reads go
through `roster.selectors` (filtered by the caller, so another user's force is a 404),
writes through `roster.services`, and every number is the engine's stored answer.
"""

import hashlib
from typing import Any

from django.core.cache import cache
from django.http import HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework.decorators import (
    api_view,
    authentication_classes,
    parser_classes,
    permission_classes,
)
from rest_framework.exceptions import NotFound
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from dbd_site import preconditions
from dbd_site.compression import shows_secret
from dbd_site.errors import Invalid, Problem
from dbd_site.parsers import JSONParser
from dbd_site.schema import answers, etag_header
from idempotency.decorators import idempotent
from idempotency.schema import IDEMPOTENCY_KEY
from roster import cache_keys, documents, engine, policy, selectors, serializers, services
from roster.models import Force, Member
from roster.schema import DOCUMENT_REF, PATCH_REF
from rules import dice
from rules.loader import get_catalogue

# Every refusal: the one error model; the codes each operation answers are named next to
# its handler (`answers`), and `dbd_site.schema` lists them per status.
ERRORS = serializers.ApiErrorsSerializer
_EMMA = {
    "format": "dbd-roster/1",
    "name": "Literature Club Irregulars",
    "resources": 50,
    "members": [
        {
            "name": "Emma",
            "club": {"name": "Literature Club", "society": "academic", "choice": "RA"},
            "base": {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
            "free_advancements": [
                {"line": 4, "skill": "spellcasting/spell-focus", "method": "picked"},
                {"line": 2},
            ],
            "equipment": ["simple-weapon", "medical-kit"],
            "core_schools": ["restoration"],
            "spells": ["healing-spring"],
        }
    ],
}


@extend_schema(
    operation_id="rosters_validate",
    summary="Check a dbd-roster/1 document against the rules",
    description=(
        "Evaluates the document with the rules engine and stores nothing. A body that is "
        "not a dbd-roster/1 document answers 400; a well-formed one answers 200 with "
        "`valid`, every member's statistics and costs, and every rule error and warning "
        "with a JSON Pointer into the document."
    ),
    request={"application/json": DOCUMENT_REF},
    responses={200: serializers.EvaluationSerializer, 400: ERRORS},
    examples=[OpenApiExample("Emma alone", value=_EMMA, request_only=True)],
    tags=["rosters"],
)
@answers(documents.DOCUMENT_CODES)
@api_view(["POST"])
@authentication_classes([])  # open to any tool, so no session and no CSRF
@permission_classes([AllowAny])
@parser_classes([JSONParser])
def validate_roster(request: Request) -> Response:
    evaluation = engine.evaluate(request.data, get_catalogue())
    if evaluation.malformed:
        return Response({"errors": [p.as_dict() for p in evaluation.malformed]}, status=400)
    return Response(evaluation.as_dict())


# --- saved forces ------------------------------------------------------------------------

TAGS = ["rosters"]
COMMON_ERRORS = {401: ERRORS, 429: ERRORS}
NOT_FOUND = {404: ERRORS}
# What a change to a saved force may answer besides the common codes (`answers`): the
# document's shape, the force's policy (its owner; a campaign copy's ledger, pending battle
# and retirement: `roster.policy.policy_codes`), an older edition of the rules. (Not
# `stale-version`: that is the pages' check; the API's is `If-Match`, 412.)
WRITE_CODES = (
    documents.DOCUMENT_CODES,
    policy.policy_codes,
    services.CONFLICT_CODES.only("rules-update-pending"),
)
# A roll or a pick besides: the member's slot, the rules of rolling (R5), the engine's
# refusal of what the step would make.
STEP_CODES = (*WRITE_CODES, services.CODES, services.NOT_FOUND_CODES, engine.CODES)
# A campaign copy changes only as its campaign allows (campaign.policy): a state conflict
# (a pending battle, a retired force) is 409; `If-Match` naming an old version, 412.
IN_CAMPAIGN = {
    409: OpenApiResponse(
        ERRORS,
        description="The state is in the way; nothing changed: a campaign copy's pending "
        "battle (`battle-pending`) or retirement (`force-retired`), or a force built under "
        "an older edition of the rules (`rules-update-pending`: review and accept the move "
        "at its `rules_update_url` first).",
    )
}
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The `ETag` of the version this change was made on: 412, nothing changed, "
    "if the force has changed since. Compared strongly: a weak tag (`W/...`) never matches.",
)
STALE = {412: ERRORS}
FORCE_ID = OpenApiParameter("force_id", OpenApiTypes.INT, OpenApiParameter.PATH)
MEMBER_INDEX = OpenApiParameter(
    "member_index",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="The member's index in the document's `members` (0 for the first).",
)
PATCH_KEYS = ("name", "resources", "members")
# An old version's answer is never asked for again (its key names a version the force
# has moved on from); it only needs to age out.
DETAIL_CACHE_SECONDS = 600
JSON = JSONRenderer.media_type
IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The `ETag` of an earlier answer: 304, no body, while the force is unchanged.",
)
ETAG = etag_header(
    "The force's version (a strong tag; `-gzip` at its end when the answer is "
    "compressed): send it back in `If-Match` to change this version only, or in "
    "`If-None-Match` to get 304 while it is unchanged.",
    statuses=(200, 201, 304),
)


def _tag_digest(force: Force) -> str:
    """What besides the version a tag names: the force, its rules and the format."""
    seed = f"{force.pk}:{force.rules_version}:{documents.FORMAT}"
    return hashlib.blake2b(seed.encode(), digest_size=6).hexdigest()


def _detail_version(force: Force) -> str:
    """An opaque name for the version of the force the detail shows: the version every
    write moves (a share link too), then the rest the tag depends on."""
    return f"{force.version}.{_tag_digest(force)}"


def etag_of(force: Force) -> str:
    """The force's strong tag (dbd_site.preconditions): its version and what it depends on."""
    return preconditions.strong(_detail_version(force))


# What `_if_match` answers for a tag that names no version of this force: no version
# matches it, so the write answers 412, after the body has been checked (400 first).
NO_SUCH_VERSION = -1


def _if_match(request: Request, force: Force) -> int | None:
    """The force's version an `If-Match` names (checked under the write's lock), None
    without the header. Compared strongly (RFC 9110 13.1.1): a weak tag names no version."""
    sent = preconditions.if_match(request)
    if sent is None:
        return None
    if preconditions.ANY in sent:
        return force.version
    for opaque in sent:
        version, _, digest = opaque.partition(".")
        if digest == _tag_digest(force) and version.isascii() and version.isdigit():
            return int(version)
    return NO_SUCH_VERSION


class ForceApiView(GenericAPIView):
    """Shared settings: signed-in owners only, JSON in, every force looked up by owner."""

    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    def get_queryset(self):
        return selectors.forces_for(user=self.request.user)

    def get_force(self) -> Force:
        """The caller's force as it was when the request came in, with its members.

        404 for anybody else's (no leak). Read once per request; answers after a write
        read the force again (`fresh_force`).
        """
        if not hasattr(self, "_force"):
            self._force = self.fresh_force()
        return self._force

    def fresh_force(self) -> Force:
        return selectors.get_force(user=self.request.user, force_id=self.kwargs["force_id"])

    def get_member(self, force: Force) -> Member:
        members = list(force.members.all())
        index = self.kwargs["member_index"]
        if index >= len(members):
            raise NotFound(f"This force has no member {index}; members count from 0.")
        return members[index]

    def detail_response(self, force_id: int, status: int = 200, **headers: str) -> Response:
        """The force as now stored, with its new `ETag` (send it back in `If-Match`)."""
        force = selectors.get_force(user=self.request.user, force_id=force_id)
        data = serializers.RosterDetailSerializer(force, context=self.get_serializer_context())
        return Response(data.data, status=status, headers={"ETag": etag_of(force), **headers})

    def advancement_answer(self, slot: str, member_index: int) -> dict[str, Any]:
        """The advancement at `slot` and the force's headline numbers, as now stored (its
        new tag in `self.new_etag`, for the answer's `ETag`)."""
        force = self.fresh_force()
        self.new_etag = etag_of(force)
        member = list(force.members.all())[member_index]
        kind, _, position = slot.partition("/")
        return {
            "advancement": getattr(member, kind)[int(position)],
            "force": serializers.evaluation_summary(force.evaluation),
        }


@extend_schema_view(
    get=extend_schema(
        operation_id="rosters_list",
        summary="List your saved forces",
        description="Newest change first. Headline numbers are the engine's stored answer.",
        responses={200: serializers.RosterSerializer(many=True), **COMMON_ERRORS},
        tags=TAGS,
    ),
    post=extend_schema(
        operation_id="rosters_create",
        summary="Save a new force from a dbd-roster/1 document",
        description=(
            "Imports the document (a rule-breaking draft is saved; a malformed document "
            "is refused with 400 and nothing is stored). Rolled skills in an imported "
            "document are unverified (R5). Answers 201 with the force and a `Location`."
        ),
        parameters=[IDEMPOTENCY_KEY, ETAG],
        request={"application/json": DOCUMENT_REF},
        responses={
            201: serializers.RosterDetailSerializer,
            400: ERRORS,
            415: ERRORS,
            **COMMON_ERRORS,
        },
        examples=[OpenApiExample("Emma alone", value=_EMMA, request_only=True)],
        tags=TAGS,
    ),
)
class ForceListView(ForceApiView):
    serializer_class = serializers.RosterSerializer

    def get_queryset(self):
        return selectors.forces_listed_for(user=self.request.user)

    def get(self, request: Request) -> Response:
        page = selectors.refreshed(self.paginate_queryset(self.get_queryset()) or [])
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @answers(*WRITE_CODES)
    @idempotent
    def post(self, request: Request) -> Response:
        force = services.import_force(owner=request.user, document=request.data)
        location = reverse("roster-api-detail", kwargs={"force_id": force.pk}, request=request)
        return self.detail_response(force.pk, status=201, Location=location)


@extend_schema_view(
    get=extend_schema(
        operation_id="rosters_retrieve",
        summary="A saved force: document, stored evaluation, share link",
        description=(
            "Answers carry an `ETag`; send it back in `If-None-Match` to get 304 with no "
            "body while the force is unchanged. Any change to the force (its members, "
            "rolls, Resources, name or share link) gives a new tag."
        ),
        parameters=[FORCE_ID, IF_NONE_MATCH, ETAG],
        responses={
            200: serializers.RosterDetailSerializer,
            304: OpenApiResponse(description="Not modified: the `ETag` sent is current."),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
    put=extend_schema(
        operation_id="rosters_replace",
        summary="Replace the force with a dbd-roster/1 document",
        description=(
            "The force then says what the document says. A member that keeps its place "
            "and name keeps its roll history; a malformed document changes nothing (400). "
            "Send `If-Match` with the `ETag` you read to be refused (412) if the force has "
            "changed since.\n\n"
            "**A campaign copy between battles** (R17a, R18a): members who have fought keep "
            "their creation choices and XP; advancements bought now are added after the "
            'others with `"between_battles": true`; equipment may be added or discarded; '
            "recruits (new members) are built by the creation steps; level-ups come from "
            "the campaign's level-up endpoints. Each purchase is debited from the ledger at "
            "its price now (`insufficient-resources` at `/resources` when the balance "
            "cannot pay; nothing changes); nothing is refunded. `resources` is the "
            "campaign's (cost + balance) and cannot be changed here. While a battle of the "
            "force is pending, or after it retired, the answer is 409."
        ),
        parameters=[FORCE_ID, IF_MATCH, IDEMPOTENCY_KEY, ETAG],
        request={"application/json": DOCUMENT_REF},
        responses={
            200: serializers.RosterDetailSerializer,
            400: ERRORS,
            415: ERRORS,
            **NOT_FOUND,
            **IN_CAMPAIGN,
            **STALE,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
    patch=extend_schema(
        operation_id="rosters_update_details",
        summary="Change some of the document: its name, Resources or members",
        description=(
            "Any of `name`, `resources` and `members` (the whole list), checked as PUT "
            "checks the document; any other key is refused (400 at that key). The rules "
            "for a campaign copy and `If-Match` are those of PUT."
        ),
        parameters=[FORCE_ID, IF_MATCH, IDEMPOTENCY_KEY, ETAG],
        request={"application/json": PATCH_REF},
        responses={
            200: serializers.RosterDetailSerializer,
            400: ERRORS,
            415: ERRORS,
            **NOT_FOUND,
            **IN_CAMPAIGN,
            **STALE,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
    delete=extend_schema(
        operation_id="rosters_destroy",
        summary="Delete the force, its members and their rolls",
        description="A campaign copy is retired through its campaign instead (409).",
        parameters=[FORCE_ID, IF_MATCH, IDEMPOTENCY_KEY],
        responses={
            204: None,
            400: ERRORS,
            **NOT_FOUND,
            **IN_CAMPAIGN,
            **STALE,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
)
class ForceDetailView(ForceApiView):
    serializer_class = serializers.RosterDetailSerializer

    def get(self, request: Request, force_id: int) -> HttpResponseBase:
        force = selectors.get_force_version(user=request.user, force_id=force_id)
        version = _detail_version(force)
        if force.share_token:  # in the answer, which may come from the cache
            shows_secret(request)
        # Strong for the JSON (its bytes are the version's); the browsable page, for
        # people, is other bytes of the same version: weak.
        json = type(request.accepted_renderer) is JSONRenderer
        etag = preconditions.strong(version) if json else f'W/"{version}"'
        response: HttpResponseBase
        if preconditions.unchanged_since(request, etag):
            response = HttpResponseNotModified()
        elif json:
            response = HttpResponse(self.detail_json(force_id, version), JSON)
        else:  # the browsable API, for people: rendered from the data each time
            response = Response(self.detail_data(force_id))
        response["ETag"] = etag
        # Per user, and checked with the server every time: a change made elsewhere (the
        # builder, a campaign) shows at once.
        patch_cache_control(response, private=True, no_cache=True)
        return response

    def detail_json(self, force_id: int, version: str) -> bytes:
        """The JSON of this version of the force, read, serialised and rendered once: a
        hit is one cache read, with nothing to unpickle but bytes and nothing to encode.

        The links in it name the host asked, so the host is in the key. A write between
        reading the version and reading the force leaves a newer answer under the older
        version, never an older one under the newer: the version is read first.
        """
        key = cache_keys.roster_api_detail(self.request, version)
        body = cache.get(key)
        if body is None:
            renderer = self.request.accepted_renderer
            context = self.get_renderer_context()
            body = renderer.render(self.detail_data(force_id), JSON, context)
            cache.set(key, body, DETAIL_CACHE_SECONDS)
        return body

    def detail_data(self, force_id: int) -> dict[str, Any]:
        force = selectors.get_force(user=self.request.user, force_id=force_id, with_rolls=False)
        return self.get_serializer(force).data

    @answers(*WRITE_CODES)
    @idempotent
    def put(self, request: Request, force_id: int) -> Response:
        force = self.get_force()
        services.replace_document(
            force=force,
            actor=request.user,
            document=request.data,
            if_match=_if_match(request, force),
        )
        return self.detail_response(force.pk)

    @answers(*WRITE_CODES)
    @idempotent
    def patch(self, request: Request, force_id: int) -> Response:
        force = self.get_force()
        body = request.data
        if not isinstance(body, dict):
            raise Invalid("wrong-type", "Send an object with some of: name, resources, members.")
        problems = [
            Problem(
                documents.pointer(key),
                "unknown-key",
                f"'{key}' cannot be patched; allowed keys: {', '.join(PATCH_KEYS)}.",
            )
            for key in sorted(set(body) - set(PATCH_KEYS))
        ]
        header = {
            "format": documents.FORMAT,
            "name": body.get("name", force.name),
            "resources": body.get("resources", force.resources),
            "members": body.get("members", []),
        }
        problems += documents.shape_problems(header)  # all reported at once (R12)
        if problems:
            raise Invalid.of(problems)
        services.patch_document(
            force=force, actor=request.user, changes=body, if_match=_if_match(request, force)
        )
        return self.detail_response(force.pk)

    @answers(*WRITE_CODES)
    @idempotent
    def delete(self, request: Request, force_id: int) -> Response:
        force = self.get_force()
        services.delete_force(force=force, actor=request.user, if_match=_if_match(request, force))
        return Response(status=204)


@extend_schema_view(
    get=extend_schema(
        operation_id="rosters_export",
        summary="The force as a bare dbd-roster/1 document",
        description="What POST and PUT take back: export, edit, re-import.",
        parameters=[FORCE_ID],
        responses={
            200: OpenApiResponse(response=DOCUMENT_REF, description="A dbd-roster/1 document."),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class ForceExportView(ForceApiView):
    def get(self, request: Request, force_id: int) -> Response:
        return Response(selectors.force_document(force=self.get_force()))


@extend_schema_view(
    get=extend_schema(
        operation_id="rosters_rolls_list",
        summary="Every roll made for the force's members, oldest first",
        parameters=[FORCE_ID],
        responses={
            200: serializers.ForceSkillRollSerializer(many=True),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class ForceRollsView(ForceApiView):
    serializer_class = serializers.ForceSkillRollSerializer

    def get_queryset(self):
        return selectors.rolls_of(force=self.get_force())

    def get_serializer_context(self) -> dict[str, Any]:
        members = self.get_force().members.all()
        return {
            **super().get_serializer_context(),
            "member_indexes": {member.pk: i for i, member in enumerate(members)},
        }

    def get(self, request: Request, force_id: int) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


@extend_schema_view(
    get=extend_schema(
        operation_id="rosters_members_rolls_list",
        summary="A member's rolls, oldest first: who rolled, when, on which table, the dice",
        parameters=[FORCE_ID, MEMBER_INDEX],
        responses={
            200: serializers.SkillRollSerializer(many=True),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
    post=extend_schema(
        operation_id="rosters_members_rolls_create",
        summary="Roll 1d12 on the server for a skill advancement (R5)",
        description=(
            "The server rolls and stores the roll as evidence, so the rolled skill is "
            "verified. Rolling again after a result is a re-roll (-1 FR, counted in "
            "`rerolls`). After a natural 12, send `table`: the category to roll on next. "
            "A `pick-freely` outcome lists `choices`: take one with the picks endpoint "
            "and `free: true`. A roll the rules do not allow answers 400 `roll-refused`."
        ),
        parameters=[FORCE_ID, MEMBER_INDEX, IDEMPOTENCY_KEY, ETAG],
        request=serializers.NewRollSerializer,
        responses={
            201: serializers.RollResultSerializer,
            400: ERRORS,
            415: ERRORS,
            **NOT_FOUND,
            **IN_CAMPAIGN,
            **COMMON_ERRORS,
        },
        examples=[
            OpenApiExample("First roll", value={"slot": "free_advancements/0"}, request_only=True),
            OpenApiExample(
                "After a natural 12",
                value={"slot": "free_advancements/0", "table": "melee"},
                request_only=True,
            ),
        ],
        tags=TAGS,
    ),
)
class MemberRollsView(ForceApiView):
    def get_serializer_class(self):
        if self.request.method == "POST":
            return serializers.NewRollSerializer
        return serializers.SkillRollSerializer

    def get_queryset(self):
        force = self.get_force()
        return selectors.rolls_of(force=force, member=self.get_member(force))

    def get(self, request: Request, force_id: int, member_index: int) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @answers(*STEP_CODES)
    @idempotent
    def post(self, request: Request, force_id: int, member_index: int) -> Response:
        member = self.get_member(self.get_force())
        body = self.get_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        slot = body.validated_data["slot"]
        roll = services.roll_skill(
            force=self.get_force(),
            actor=request.user,
            member_id=member.pk,
            slot=slot,
            table=body.validated_data.get("table"),
            rng=dice.server_dice(),
        )
        answer = serializers.SkillRollSerializer(roll, context=self.get_serializer_context())
        data = {**answer.data, **self.advancement_answer(slot, member_index)}
        kwargs = {"force_id": force_id, "member_index": member_index}
        location = reverse("roster-api-member-rolls", kwargs=kwargs, request=request)
        return Response(data, status=201, headers={"Location": location, "ETag": self.new_etag})


@extend_schema_view(
    post=extend_schema(
        operation_id="rosters_members_picks_create",
        summary="Choose a skill for a skill advancement (R5)",
        description=(
            "`free: false` picks the skill outright for -2 FR. `free: true` takes one of the "
            "`choices` of the last roll when it was `pick-freely`, at no cost (the skill then "
            "counts as rolled and verified). A pick the rules do not allow answers 400."
        ),
        parameters=[FORCE_ID, MEMBER_INDEX, IDEMPOTENCY_KEY, ETAG],
        request=serializers.SkillPickSerializer,
        responses={
            200: serializers.PickResultSerializer,
            400: ERRORS,
            415: ERRORS,
            **NOT_FOUND,
            **IN_CAMPAIGN,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    )
)
class MemberPicksView(ForceApiView):
    serializer_class = serializers.SkillPickSerializer

    @answers(*STEP_CODES)
    @idempotent
    def post(self, request: Request, force_id: int, member_index: int) -> Response:
        member = self.get_member(self.get_force())
        body = self.get_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        slot, skill = body.validated_data["slot"], body.validated_data["skill"]
        pick = services.take_free_pick if body.validated_data["free"] else services.pick_skill
        pick(
            force=self.get_force(), actor=request.user, member_id=member.pk, slot=slot, skill=skill
        )
        data = {"slot": slot, **self.advancement_answer(slot, member_index)}
        return Response(data, headers={"ETag": self.new_etag})


@extend_schema_view(
    get=extend_schema(
        operation_id="rosters_rules_update_preview",
        summary="What moving the force to the current edition of the rules would change",
        description=(
            "A force keeps the edition of the rules it was built under (`rules_version`); "
            "while the site plays a newer one, its changes are refused (409 "
            "`rules-update-pending`) until its owner moves it. This answers what the move "
            "would store, worked out and not stored: the cost, Resources and legality "
            "before and after, the errors and warnings it adds and removes, and what "
            "refuses the move now (`refusals`: a campaign copy's pending battle). Carries "
            "the force's `ETag` for `If-Match` on the POST. 409 `rules-up-to-date` when the "
            "force is on the current edition already."
        ),
        parameters=[FORCE_ID, ETAG],
        responses={
            200: serializers.RulesUpdateSerializer,
            **NOT_FOUND,
            409: ERRORS,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
    post=extend_schema(
        operation_id="rosters_rules_update_accept",
        summary="Move the force to the current edition of the rules",
        description=(
            "Stores the evaluation under the current edition and moves `rules_version` and "
            "the version on. Send `If-Match` with the `ETag` of the force you reviewed: 412, "
            "nothing changed, if it has changed since. 409 `rules-up-to-date` when there is "
            "nothing to move; a campaign copy does not move while a battle of it is pending "
            "(409 `battle-pending`). No body."
        ),
        parameters=[FORCE_ID, IF_MATCH, IDEMPOTENCY_KEY, ETAG],
        request=None,
        responses={
            200: serializers.RosterDetailSerializer,
            400: OpenApiResponse(ERRORS, description="An `Idempotency-Key` refused."),
            **NOT_FOUND,
            409: OpenApiResponse(
                ERRORS, description="`rules-up-to-date`, or the policy's `battle-pending`."
            ),
            **STALE,
            **COMMON_ERRORS,
        },
        tags=TAGS,
    ),
)
class ForceRulesUpdateView(ForceApiView):
    serializer_class = serializers.RulesUpdateSerializer

    @answers(services.CONFLICT_CODES.only("rules-up-to-date"))
    def get(self, request: Request, force_id: int) -> Response:
        force = selectors.get_force(user=request.user, force_id=force_id, with_rolls=False)
        update = services.preview_rules_update(force=force, actor=request.user)
        return Response(update.as_dict(), headers={"ETag": etag_of(force)})

    @answers(services.CONFLICT_CODES, policy.policy_codes)
    @idempotent
    def post(self, request: Request, force_id: int) -> Response:
        force = self.get_force()
        services.move_to_rules(force=force, actor=request.user, if_match=_if_match(request, force))
        return self.detail_response(force.pk)
