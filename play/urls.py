from django.urls import path

from play import views

app_name = "play"

urlpatterns = [
    path("", views.battle_list, name="list"),
    path("new/", views.battle_new, name="new"),
    path("<int:battle_id>/", views.battle_page, name="battle"),
    path("<int:battle_id>/state/", views.state, name="state"),
    path("<int:battle_id>/act/", views.act, name="act"),
    path("<int:battle_id>/odds/", views.odds, name="odds"),
    path("<int:battle_id>/sheet/", views.sheet, name="sheet"),
    path("<int:battle_id>/spell-odds/", views.spell_odds, name="spell_odds"),
    path("<int:battle_id>/spell-attack-odds/", views.spell_attack_odds, name="spell_attack_odds"),
    path("<int:battle_id>/undo/", views.undo, name="undo"),
    path("<int:battle_id>/end/", views.end, name="end"),
    path("<int:battle_id>/dice/", views.dice, name="dice"),
    path("<int:battle_id>/spectator-link/", views.spectator_link, name="spectator_link"),
    path("<int:battle_id>/invitation/", views.invitation, name="invitation"),
    path("watch/<str:token>/", views.watch, name="watch"),
    path("watch/<str:token>/state/", views.watch_state, name="watch_state"),
    path("watch/<str:token>/dice/", views.watch_dice, name="watch_dice"),
]
