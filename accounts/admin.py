from django.contrib import admin
from django.http import HttpRequest

from accounts.forms import AdminLoginForm
from accounts.models import ApiToken

# The admin's log-in is counted and checked in turn as the site's own (`accounts.lockout`).
admin.site.login_form = AdminLoginForm


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens can be looked at and deleted (revoked) here, never made or edited:
    a token's secret is shown to its owner once, on the account page."""

    list_display = ["name", "user", "prefix", "created_at", "last_used_at"]
    list_select_related = ["user"]
    list_filter = ["created_at", "last_used_at"]
    search_fields = ["name", "prefix", "user__username"]
    fields = ["user", "name", "prefix", "created_at", "last_used_at"]
    readonly_fields = fields
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False
