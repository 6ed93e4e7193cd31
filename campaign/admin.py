"""Campaigns in the admin: for looking, not for changing. Every change goes through
`campaign.services`, which keeps the house rules and writes the campaign log; the
ledger is append-only (R15), so nothing here adds, edits or deletes its rows."""

from django.contrib import admin

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


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class PlayerInline(admin.TabularInline):
    model = CampaignPlayer
    extra = 0
    can_delete = False
    readonly_fields = ("user", "joined_at")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Campaign)
class CampaignAdmin(ReadOnlyAdmin):
    list_display = ("name", "organiser", "created_at")
    search_fields = ("name", "organiser__username")
    exclude = ("invite_token",)
    inlines = [PlayerInline]


@admin.register(CampaignForce)
class CampaignForceAdmin(ReadOnlyAdmin):
    list_display = ("force", "campaign", "player", "entered_at", "retired_at")
    list_filter = ("campaign",)
    list_select_related = ("force", "campaign", "player")


class BattleForceInline(admin.TabularInline):
    model = BattleForce
    extra = 0
    can_delete = False
    readonly_fields = ("campaign_force", "outcome")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Battle)
class BattleAdmin(ReadOnlyAdmin):
    list_display = ("scenario", "campaign", "played_on", "status", "recorded_by")
    list_filter = ("status", "campaign")
    list_select_related = ("campaign", "recorded_by")
    inlines = [BattleForceInline]


@admin.register(BattleMemberResult)
class BattleMemberResultAdmin(ReadOnlyAdmin):
    list_display = ("member_name", "battle_force", "enemies_out_of_action", "xp_awarded")


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ReadOnlyAdmin):
    list_display = ("campaign_force", "amount", "kind", "reason", "created_at")
    list_filter = ("kind", "campaign")
    list_select_related = ("campaign_force__force",)


@admin.register(CampaignEvent)
class CampaignEventAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "campaign", "actor", "kind", "message")
    list_filter = ("kind", "campaign")
    list_select_related = ("campaign", "actor")
