"""Routes of the play API, included at /api/v1/battles/."""

from django.urls import path

from play import api

urlpatterns = [
    path("", api.BattleListView.as_view(), name="play-api-list"),
    path("<int:battle_id>/", api.BattleDetailView.as_view(), name="play-api-battle"),
    path("<int:battle_id>/actions/", api.BattleActionView.as_view(), name="play-api-actions"),
    path("<int:battle_id>/odds/", api.BattleOddsView.as_view(), name="play-api-odds"),
    path(
        "<int:battle_id>/spell-attack-odds/",
        api.BattleSpellAttackOddsView.as_view(),
        name="play-api-spell-attack-odds",
    ),
    path(
        "<int:battle_id>/spell-odds/",
        api.BattleSpellOddsView.as_view(),
        name="play-api-spell-odds",
    ),
    path("<int:battle_id>/undo/", api.BattleUndoView.as_view(), name="play-api-undo"),
    path("<int:battle_id>/end/", api.BattleEndView.as_view(), name="play-api-end"),
    path("<int:battle_id>/dice/", api.BattleDiceCheckView.as_view(), name="play-api-dice"),
    path(
        "<int:battle_id>/spectator-link/",
        api.BattleSpectatorLinkView.as_view(),
        name="play-api-spectator-link",
    ),
    path("watch/<str:token>/", api.BattleWatchView.as_view(), name="play-api-watch"),
    path("watch/<str:token>/dice/", api.WatchDiceCheckView.as_view(), name="play-api-watch-dice"),
    path("invitations/", api.InvitationListView.as_view(), name="play-api-invitations"),
    path(
        "invitations/<int:battle_id>/accept/",
        api.InvitationAcceptView.as_view(),
        name="play-api-invitation-accept",
    ),
    path(
        "invitations/<int:battle_id>/decline/",
        api.InvitationDeclineView.as_view(),
        name="play-api-invitation-decline",
    ),
]
