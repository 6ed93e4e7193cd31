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
    path("<int:battle_id>/undo/", api.BattleUndoView.as_view(), name="play-api-undo"),
    path("<int:battle_id>/end/", api.BattleEndView.as_view(), name="play-api-end"),
    path("watch/<str:token>/", api.BattleWatchView.as_view(), name="play-api-watch"),
    path("watch/<str:token>/dice/", api.BattleDiceCheckView.as_view(), name="play-api-dice"),
]
