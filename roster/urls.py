from django.urls import path

from roster import views

app_name = "roster"

urlpatterns = [
    path("", views.force_list, name="list"),
    path("new/", views.force_create, name="create"),
    path("import/", views.force_import, name="import"),
    path("shared/<str:token>/", views.force_shared, name="shared"),
    path("<int:force_id>/", views.force_detail, name="detail"),
    path("<int:force_id>/edit/", views.force_edit, name="edit"),
    path("<int:force_id>/rename/", views.force_rename, name="rename"),
    path("<int:force_id>/delete/", views.force_delete, name="delete"),
    path("<int:force_id>/duplicate/", views.force_duplicate, name="duplicate"),
    path("<int:force_id>/share/", views.force_share, name="share"),
    path("<int:force_id>/rules/", views.force_rules, name="rules"),
    path("<int:force_id>/export/", views.force_export, name="export"),
    path("<int:force_id>/print/", views.force_print, name="print"),
    path("<int:force_id>/members/new/", views.member_add, name="member_add"),
    path("<int:force_id>/members/<int:member_id>/", views.member_detail, name="member"),
    path(
        "<int:force_id>/members/<int:member_id>/remove/",
        views.member_remove,
        name="member_remove",
    ),
    path("<int:force_id>/members/<int:member_id>/roll/", views.member_roll, name="roll"),
    path("<int:force_id>/members/<int:member_id>/pick/", views.member_pick, name="pick"),
    path(
        "<int:force_id>/members/<int:member_id>/free-pick/",
        views.member_free_pick,
        name="free_pick",
    ),
    path(
        "<int:force_id>/members/<int:member_id>/steps/<slug:step>/",
        views.member_step,
        name="member_step",
    ),
    path(
        "<int:force_id>/members/<int:member_id>/<slug:step>/",
        views.member_edit,
        name="member_edit",
    ),
]
