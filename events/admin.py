"""Events and webhooks in the admin: for looking (a user asking why their tool heard
nothing), not for changing. Users change their hooks through the API, and events are
written by the apps' changes alone. The secrets are never shown."""

from django.contrib import admin
from django.db import models

from events.models import Delivery, DeliveryAttempt, Event, Webhook


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "kind", "created_at", "campaign_id", "force_id", "battle_id")
    list_filter = ("kind",)
    search_fields = ("user__username",)


@admin.register(Webhook)
class WebhookAdmin(ReadOnlyAdmin):
    list_display = ("id", "user", "url", "active", "created_at")
    list_filter = ("active",)
    search_fields = ("user__username", "url")
    exclude = ("secret", "previous_secret")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


class TryInline(admin.TabularInline):
    model = DeliveryAttempt
    extra = 0
    can_delete = False
    readonly_fields = ("number", "at", "status_code", "error", "duration_ms")

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = ("id", "webhook", "kind", "status", "attempts", "next_attempt_at")
    list_filter = ("status", "kind")
    inlines = [TryInline]
