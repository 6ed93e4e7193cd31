from django.contrib import admin

from play.models import Battle, BattleAction


class BattleActionInline(admin.TabularInline):
    model = BattleAction
    fields = ("seq", "kind", "actor", "words", "dice", "entered", "undone_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Battle)
class BattleAdmin(admin.ModelAdmin):
    list_display = ("scenario", "status", "campaign", "version", "updated_at")
    list_filter = ("status",)
    search_fields = ("scenario",)
    readonly_fields = ("state", "record", "version", "spectator_token", "recorded_battle")
    inlines = [BattleActionInline]
