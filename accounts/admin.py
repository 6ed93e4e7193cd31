from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse

from accounts.forms import AdminLoginForm
from accounts.models import ApiToken
from accounts.throttles import mark_refusal

# The admin's log-in is counted and checked in turn as the site's own (`accounts.lockout`).
admin.site.login_form = AdminLoginForm
_admin_login = admin.site.login


def login_refused_as_the_sites(request: HttpRequest, extra_context: Any = None) -> HttpResponse:
    """The admin's log-in page, answering 429 with `Retry-After` when its form was refused
    by the per-address limit, as the site's own log-in does (issue #29)."""
    response = _admin_login(request, extra_context)
    form = (getattr(response, "context_data", None) or {}).get("form")
    return mark_refusal(response, form)


admin.site.login = login_refused_as_the_sites  # type: ignore[method-assign]


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
