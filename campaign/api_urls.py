"""Routes of the campaign API, included at /api/v1/campaigns/."""

from django.urls import path

from campaign import api

CAMPAIGN = "<int:campaign_id>/"
FORCE = f"{CAMPAIGN}forces/<int:campaign_force_id>/"
MEMBER = f"{FORCE}members/<int:member_id>/"
BATTLE = f"{CAMPAIGN}battles/<int:battle_id>/"

urlpatterns = [
    path("", api.CampaignListView.as_view(), name="campaign-api-list"),
    path("join/", api.JoinView.as_view(), name="campaign-api-join"),
    path("import/", api.ImportView.as_view(), name="campaign-api-import"),
    path(CAMPAIGN, api.CampaignDetailView.as_view(), name="campaign-api-detail"),
    path(
        f"{CAMPAIGN}invite/reset/", api.InviteResetView.as_view(), name="campaign-api-invite-reset"
    ),
    path(f"{CAMPAIGN}forces/", api.ForceListView.as_view(), name="campaign-api-forces"),
    path(FORCE, api.ForceDetailView.as_view(), name="campaign-api-force"),
    path(f"{FORCE}retire/", api.ForceRetireView.as_view(), name="campaign-api-force-retire"),
    path(f"{FORCE}ledger/", api.LedgerView.as_view(), name="campaign-api-ledger"),
    path(f"{FORCE}adjustments/", api.AdjustmentView.as_view(), name="campaign-api-adjustments"),
    path(f"{FORCE}spends/", api.SpendView.as_view(), name="campaign-api-spends"),
    path(f"{MEMBER}level-ups/", api.LevelUpView.as_view(), name="campaign-api-member-level-ups"),
    path(
        f"{MEMBER}level-ups/<int:level_up_index>/rolls/",
        api.LevelUpRollView.as_view(),
        name="campaign-api-member-level-up-rolls",
    ),
    path(f"{CAMPAIGN}battles/", api.BattleListView.as_view(), name="campaign-api-battles"),
    path(BATTLE, api.BattleDetailView.as_view(), name="campaign-api-battle"),
    path(f"{BATTLE}confirm/", api.BattleConfirmView.as_view(), name="campaign-api-battle-confirm"),
    path(f"{BATTLE}void/", api.BattleVoidView.as_view(), name="campaign-api-battle-void"),
    path(f"{CAMPAIGN}standings/", api.StandingsView.as_view(), name="campaign-api-standings"),
    path(
        f"{CAMPAIGN}level-ups/", api.LevelUpsWaitingView.as_view(), name="campaign-api-level-ups"
    ),
    path(f"{CAMPAIGN}log/", api.LogView.as_view(), name="campaign-api-log"),
    path(f"{CAMPAIGN}export/", api.ExportView.as_view(), name="campaign-api-export"),
]
