from django.urls import path

from rules import views

app_name = "rules"

urlpatterns = [
    path("", views.index, name="index"),
    path("notes/", views.notes, name="notes"),
]
