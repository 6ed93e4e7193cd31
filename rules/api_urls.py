"""Routes of the read-only rules API, included at /api/v1/rules/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from rules import api

router = SimpleRouter(trailing_slash=True)
router.register("societies", api.SocietyViewSet, basename="rules-society")
router.register("skill-categories", api.SkillCategoryViewSet, basename="rules-skill-category")
router.register("skills", api.SkillViewSet, basename="rules-skill")
router.register("equipment", api.EquipmentViewSet, basename="rules-equipment")
router.register("spell-schools", api.SpellSchoolViewSet, basename="rules-spell-school")
router.register("spells", api.SpellViewSet, basename="rules-spell")

urlpatterns = [
    path("", api.rules_api_root, name="rules-api-root"),
    *router.urls,
]
