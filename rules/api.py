"""The read-only rules catalogue API under /api/v1/rules/.

The catalogue is small and fixed (a few dozen entries per resource), so lists are
returned whole, without pagination. Every resource is looked up by its slug; skills
by their key `<category>/<slug>`, which contains a slash.

Every answer names the catalogue's version (the root's `version`, every `ETag`: the
edition and the digest of its content, `Catalogue.content_version`) and may be kept a
while (`Cache-Control: public, max-age=300`); sent back in `If-None-Match`, the tag is
answered 304 with no body while the catalogue is unchanged.
"""

from django.db.models import Model, QuerySet
from django.http import Http404, HttpResponseBase, HttpResponseNotModified
from django.utils.cache import patch_cache_control, patch_vary_headers
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, viewsets
from rest_framework.decorators import api_view, permission_classes
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from dbd_site import preconditions
from dbd_site.errors import INPUT_CODES
from dbd_site.schema import answers, etag_header
from rules import selectors
from rules.loader import get_catalogue
from rules.models import Equipment
from rules.serializers import (
    EquipmentSerializer,
    SkillCategorySerializer,
    SkillSerializer,
    SocietySerializer,
    SpellSchoolSerializer,
    SpellSerializer,
)

TAGS = ["rules"]
# The catalogue changes only when new rules are loaded: a client may keep an answer this
# long, then asks again with `If-None-Match` (304 while unchanged).
MAX_AGE = 300
CACHED = [
    OpenApiParameter(
        "If-None-Match",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        description="The `ETag` of an earlier answer: 304, no body, while the catalogue is "
        "unchanged.",
    ),
    etag_header(
        "The catalogue's version: its edition and the digest of its content.",
        statuses=(200, 304),
    ),
    OpenApiParameter(
        "Cache-Control",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=[200, 304],
        description=f"`public, max-age={MAX_AGE}`: the same for everyone, kept a while.",
    ),
]


def catalogue_version() -> str:
    """The catalogue's version: its edition and the digest of its content."""
    catalogue = get_catalogue()
    return f"{catalogue.rules_version}.{catalogue.content_version}"


def cacheable(request: Request, response: HttpResponseBase) -> HttpResponseBase:
    """A read of the catalogue with its version as `ETag` and caching headers; 304 when
    `If-None-Match` names the version (dbd_site.preconditions)."""
    if request.method not in ("GET", "HEAD") or response.status_code != 200:
        return response
    version = catalogue_version()
    # Strong for the JSON; the browsable page, for people, is other bytes: weak.
    json = getattr(request.accepted_renderer, "format", "json") == "json"
    etag = preconditions.strong(version) if json else f'W/"{version}"'
    if preconditions.unchanged_since(request, etag):
        response = HttpResponseNotModified()
    response["ETag"] = etag
    patch_cache_control(response, public=True, max_age=MAX_AGE)
    patch_vary_headers(response, ("Accept",))
    return response


# (key in the root listing, route name) for every list endpoint.
ENDPOINTS = (
    ("societies", "rules-society-list"),
    ("skill_categories", "rules-skill-category-list"),
    ("skills", "rules-skill-list"),
    ("equipment", "rules-equipment-list"),
    ("spell_schools", "rules-spell-school-list"),
    ("spells", "rules-spell-list"),
)


@extend_schema(
    tags=TAGS,
    operation_id="rules_root",
    summary="The catalogue's version, and its endpoints",
    parameters=CACHED,
    responses=inline_serializer(
        "RulesApiRoot",
        fields={
            "version": serializers.CharField(
                help_text="The catalogue's version (its `ETag`): the edition, then the "
                "digest of its content; it moves with any change to the rules."
            ),
            "edition": serializers.CharField(help_text="The rules' edition, e.g. `dbd-core-1`."),
            **{key: serializers.URLField() for key, _ in ENDPOINTS},
        },
    ),
)
@api_view(["GET"])
@permission_classes([AllowAny])
def rules_api_root(request: Request) -> HttpResponseBase:
    links = {key: reverse(name, request=request) for key, name in ENDPOINTS}
    answer = {"version": catalogue_version(), "edition": get_catalogue().rules_version, **links}
    return cacheable(request, Response(answer))


class CatalogueViewSet(viewsets.ReadOnlyModelViewSet):
    """Shared settings: public, read-only, unpaginated (the catalogue is small and fixed)."""

    permission_classes = [AllowAny]
    pagination_class = None
    lookup_field = "slug"
    lookup_value_regex = "[a-z0-9-]+"

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        return cacheable(request, response)

    def query_param(self, name: str) -> str | None:
        return self.request.query_params.get(name) or None

    def get_object(self) -> Model:
        # Raise DRF's NotFound rather than Django's Http404, so the project's exception
        # handler answers with its {"errors": [...]} shape.
        try:
            return super().get_object()
        except Http404 as exc:
            model = self.get_queryset().model._meta.verbose_name
            value = self.kwargs.get(self.lookup_url_kwarg or self.lookup_field, "")
            raise NotFound(f"No {model} {self.lookup_field} {value!r} in the catalogue.") from exc


@extend_schema(tags=TAGS, parameters=CACHED)
@extend_schema_view(
    list=extend_schema(summary="List the societies with their advancement lines"),
    retrieve=extend_schema(summary="One society with its six advancement lines"),
)
class SocietyViewSet(CatalogueViewSet):
    serializer_class = SocietySerializer

    def get_queryset(self) -> QuerySet:
        return selectors.society_queryset()


@extend_schema(tags=TAGS, parameters=CACHED)
@extend_schema_view(
    list=extend_schema(summary="List the skill categories (d12 tables)"),
    retrieve=extend_schema(summary="One skill category with the keys of its skills"),
)
class SkillCategoryViewSet(CatalogueViewSet):
    serializer_class = SkillCategorySerializer

    def get_queryset(self) -> QuerySet:
        return selectors.skill_category_queryset()


@extend_schema(tags=TAGS, parameters=CACHED)
@extend_schema_view(
    list=extend_schema(
        summary="List the skills",
        parameters=[
            OpenApiParameter(
                "category",
                OpenApiTypes.STR,
                description="Only skills of this category slug, e.g. `melee`.",
            )
        ],
    ),
    retrieve=extend_schema(
        summary="One skill, by key",
        parameters=[
            OpenApiParameter(
                "key",
                OpenApiTypes.STR,
                OpenApiParameter.PATH,
                description="`<category>/<slug>`, e.g. `melee/dual-wield`.",
            )
        ],
    ),
)
class SkillViewSet(CatalogueViewSet):
    serializer_class = SkillSerializer
    lookup_field = "key"
    lookup_value_regex = "[a-z0-9-]+/[a-z0-9-]+"

    def get_queryset(self) -> QuerySet:
        return selectors.skill_queryset(category=self.query_param("category"))


@extend_schema(tags=TAGS, parameters=CACHED)
@extend_schema_view(
    list=extend_schema(
        summary="List the equipment",
        parameters=[
            OpenApiParameter(
                "kind",
                OpenApiTypes.STR,
                enum=Equipment.Kind.values,
                description="Only equipment of this kind.",
            )
        ],
    ),
    retrieve=extend_schema(summary="One piece of equipment"),
)
@answers(INPUT_CODES.only("invalid"))  # a `kind` that is not one
class EquipmentViewSet(CatalogueViewSet):
    serializer_class = EquipmentSerializer

    def get_queryset(self) -> QuerySet:
        kind = self.request.query_params.get("kind")  # "" is not a kind either
        if kind is not None and kind not in Equipment.Kind.values:
            raise ValidationError({"kind": [f"Choose one of {', '.join(Equipment.Kind.values)}."]})
        return selectors.equipment_queryset(kind=kind)


@extend_schema(tags=TAGS, parameters=CACHED)
@extend_schema_view(
    list=extend_schema(summary="List the spell schools"),
    retrieve=extend_schema(summary="One spell school with the slugs of its spells"),
)
class SpellSchoolViewSet(CatalogueViewSet):
    serializer_class = SpellSchoolSerializer

    def get_queryset(self) -> QuerySet:
        return selectors.spell_school_queryset()


@extend_schema(tags=TAGS, parameters=CACHED)
@extend_schema_view(
    list=extend_schema(
        summary="List the spells with their outcomes",
        parameters=[
            OpenApiParameter(
                "school",
                OpenApiTypes.STR,
                description="Only spells of this school slug, e.g. `restoration`.",
            )
        ],
    ),
    retrieve=extend_schema(summary="One spell with its outcomes"),
)
class SpellViewSet(CatalogueViewSet):
    serializer_class = SpellSerializer

    def get_queryset(self) -> QuerySet:
        return selectors.spell_queryset(school=self.query_param("school"))
