"""The read-only rules catalogue API under /api/v1/rules/.

The catalogue is small and fixed (a few dozen entries per resource), so lists are
returned whole, without pagination. Every resource is looked up by its slug; skills
by their key `<category>/<slug>`, which contains a slash.
"""

from django.db.models import Model, QuerySet
from django.http import Http404
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

from rules import selectors
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
    summary="List the rules catalogue endpoints",
    responses=inline_serializer(
        "RulesApiRoot", fields={key: serializers.URLField() for key, _ in ENDPOINTS}
    ),
)
@api_view(["GET"])
@permission_classes([AllowAny])
def rules_api_root(request: Request) -> Response:
    return Response({key: reverse(name, request=request) for key, name in ENDPOINTS})


class CatalogueViewSet(viewsets.ReadOnlyModelViewSet):
    """Shared settings: public, read-only, unpaginated (the catalogue is small and fixed)."""

    permission_classes = [AllowAny]
    pagination_class = None
    lookup_field = "slug"
    lookup_value_regex = "[a-z0-9-]+"

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


@extend_schema(tags=TAGS)
@extend_schema_view(
    list=extend_schema(summary="List the societies with their advancement lines"),
    retrieve=extend_schema(summary="One society with its six advancement lines"),
)
class SocietyViewSet(CatalogueViewSet):
    serializer_class = SocietySerializer

    def get_queryset(self) -> QuerySet:
        return selectors.society_queryset()


@extend_schema(tags=TAGS)
@extend_schema_view(
    list=extend_schema(summary="List the skill categories (d12 tables)"),
    retrieve=extend_schema(summary="One skill category with the keys of its skills"),
)
class SkillCategoryViewSet(CatalogueViewSet):
    serializer_class = SkillCategorySerializer

    def get_queryset(self) -> QuerySet:
        return selectors.skill_category_queryset()


@extend_schema(tags=TAGS)
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


@extend_schema(tags=TAGS)
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
class EquipmentViewSet(CatalogueViewSet):
    serializer_class = EquipmentSerializer

    def get_queryset(self) -> QuerySet:
        kind = self.request.query_params.get("kind")  # "" is not a kind either
        if kind is not None and kind not in Equipment.Kind.values:
            raise ValidationError({"kind": [f"Choose one of {', '.join(Equipment.Kind.values)}."]})
        return selectors.equipment_queryset(kind=kind)


@extend_schema(tags=TAGS)
@extend_schema_view(
    list=extend_schema(summary="List the spell schools"),
    retrieve=extend_schema(summary="One spell school with the slugs of its spells"),
)
class SpellSchoolViewSet(CatalogueViewSet):
    serializer_class = SpellSchoolSerializer

    def get_queryset(self) -> QuerySet:
        return selectors.spell_school_queryset()


@extend_schema(tags=TAGS)
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
