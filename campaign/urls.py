"""The campaign pages, under /campaigns/ (namespace "campaign")."""

from django.urls import path

from campaign import views

app_name = "campaign"

urlpatterns = [
    path("", views.campaign_list, name="list"),
    path("new/", views.campaign_create, name="create"),
    path("join/<str:token>/", views.join, name="join"),
    path("<int:campaign_id>/", views.dashboard, name="dashboard"),
    path("<int:campaign_id>/invite/reset/", views.invite_reset, name="invite_reset"),
    path("<int:campaign_id>/house-rules/", views.house_rules, name="house_rules"),
    path("<int:campaign_id>/enter/", views.enter_force, name="enter_force"),
    path("<int:campaign_id>/battles/new/", views.record_battle, name="record_battle"),
    path("<int:campaign_id>/battles/<int:battle_id>/", views.battle_detail, name="battle"),
    path(
        "<int:campaign_id>/battles/<int:battle_id>/confirm/",
        views.battle_confirm,
        name="battle_confirm",
    ),
    path("<int:campaign_id>/battles/<int:battle_id>/void/", views.battle_void, name="battle_void"),
    path("<int:campaign_id>/forces/<int:campaign_force_id>/", views.force_detail, name="force"),
    path(
        "<int:campaign_id>/forces/<int:campaign_force_id>/retire/",
        views.force_retire,
        name="force_retire",
    ),
    path(
        "<int:campaign_id>/forces/<int:campaign_force_id>/members/<int:member_id>/level-up/",
        views.level_up,
        name="level_up",
    ),
    path(
        "<int:campaign_id>/forces/<int:campaign_force_id>/members/<int:member_id>/level-up/roll/",
        views.level_up_roll,
        name="level_up_roll",
    ),
    path("<int:campaign_id>/charts/", views.charts_page, name="charts"),
    path("<int:campaign_id>/log/", views.log, name="log"),
    path("<int:campaign_id>/export/", views.export, name="export"),
]
