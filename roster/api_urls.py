"""Routes of the roster API, included at /api/v1/rosters/."""

from django.urls import path

from roster import api

urlpatterns = [
    path("", api.ForceListView.as_view(), name="roster-api-list"),
    path("validate/", api.validate_roster, name="roster-api-validate"),
    path("<int:force_id>/", api.ForceDetailView.as_view(), name="roster-api-detail"),
    path("<int:force_id>/export/", api.ForceExportView.as_view(), name="roster-api-export"),
    path(
        "<int:force_id>/rules-update/",
        api.ForceRulesUpdateView.as_view(),
        name="roster-api-rules-update",
    ),
    path("<int:force_id>/rolls/", api.ForceRollsView.as_view(), name="roster-api-rolls"),
    path(
        "<int:force_id>/members/<int:member_index>/rolls/",
        api.MemberRollsView.as_view(),
        name="roster-api-member-rolls",
    ),
    path(
        "<int:force_id>/members/<int:member_index>/picks/",
        api.MemberPicksView.as_view(),
        name="roster-api-member-picks",
    ),
]
