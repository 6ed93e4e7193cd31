from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from dbd_site import api, views

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("rules/", include("rules.urls")),
    path("accounts/", include("accounts.urls")),
    path("forces/", include("roster.urls")),
    path("campaigns/", include("campaign.urls")),
    path("play/", include("play.urls")),
    path("api/v1/", api.api_root, name="api-root"),
    path("api/v1/rules/", include("rules.api_urls")),
    path("api/v1/rosters/", include("roster.api_urls")),
    path("api/v1/campaigns/", include("campaign.api_urls")),
    path("api/v1/battles/", include("play.api_urls")),
    path("api/v1/", include("events.api_urls")),  # events/ and webhooks/
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file, so the CSP needs no
    # inline scripts; Swagger UI does set inline styles, allowed on this page alone.
    path(
        "api/docs/",
        csp_update({"style-src": [UNSAFE_INLINE]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
    path("admin/", admin.site.urls),
]

handler400 = "dbd_site.api.bad_request"
handler404 = "dbd_site.api.not_found"
handler500 = "dbd_site.api.server_error"
