"""The rules catalogue in the admin: browse and correct, but not add or delete.

The content comes from `rules/fixtures/rules.yaml`, and slugs are the identifiers that
saved forces and the API use, so entries are neither created nor removed here and
their slugs are read-only. Each web process caches the catalogue (`rules.loader`):
an edit takes full effect once the processes restart.
"""

from django.contrib import admin
from django.db.models import Model
from django.forms import ModelForm
from django.http import HttpRequest

from rules.loader import clear_catalogue_cache
from rules.models import (
    AdvancementLine,
    Equipment,
    RulesVersion,
    Skill,
    SkillCategory,
    Society,
    Spell,
    SpellOutcome,
    SpellSchool,
)


class ReadMostlyMixin:
    """No adding or deleting; the primary key (slug) cannot be edited."""

    key_fields: tuple[str, ...] = ()

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> tuple[str, ...]:
        return (*super().get_readonly_fields(request, obj), *self.key_fields)


class ReadMostlyAdmin(ReadMostlyMixin, admin.ModelAdmin):
    def save_model(self, request: HttpRequest, obj: Model, form: ModelForm, change: bool) -> None:
        super().save_model(request, obj, form, change)
        clear_catalogue_cache()  # this process only; see the module docstring


class AdvancementLineInline(ReadMostlyMixin, admin.TabularInline):
    model = AdvancementLine
    fields = ("number", "label", "kind", "options", "skill_category")
    key_fields = ("number",)
    extra = 0


class SpellOutcomeInline(ReadMostlyMixin, admin.TabularInline):
    model = SpellOutcome
    fields = ("successes_label", "min_successes", "max_successes", "effect")
    extra = 0


@admin.register(RulesVersion)
class RulesVersionAdmin(ReadMostlyAdmin):
    list_display = ("code", "title")
    key_fields = ("code",)


@admin.register(Society)
class SocietyAdmin(ReadMostlyAdmin):
    list_display = ("name", "slug", "order", "choice_options")
    search_fields = ("name", "slug", "summary")
    key_fields = ("slug",)
    inlines = (AdvancementLineInline,)


@admin.register(SkillCategory)
class SkillCategoryAdmin(ReadMostlyAdmin):
    list_display = ("name", "slug", "order", "table_size", "cost_statistics")
    key_fields = ("slug",)


@admin.register(Skill)
class SkillAdmin(ReadMostlyAdmin):
    list_display = ("name", "key", "category", "roll_label", "repeatable")
    list_filter = ("category", "repeatable")
    search_fields = ("name", "key", "summary")
    key_fields = ("key", "category", "slug")
    filter_horizontal = ("excludes",)
    list_select_related = ("category",)


@admin.register(Equipment)
class EquipmentAdmin(ReadMostlyAdmin):
    list_display = ("name", "slug", "kind", "hands", "cost_label", "range_inches", "blast")
    list_filter = ("kind", "hands")
    search_fields = ("name", "slug", "summary")
    key_fields = ("slug",)


@admin.register(SpellSchool)
class SpellSchoolAdmin(ReadMostlyAdmin):
    list_display = ("name", "slug", "order")
    key_fields = ("slug",)


@admin.register(Spell)
class SpellAdmin(ReadMostlyAdmin):
    list_display = ("name", "slug", "school", "difficulty_label", "range_label", "forbidden")
    list_filter = ("school", "forbidden")
    search_fields = ("name", "slug", "summary", "outcomes__effect")
    key_fields = ("slug",)
    list_select_related = ("school",)
    inlines = (SpellOutcomeInline,)
