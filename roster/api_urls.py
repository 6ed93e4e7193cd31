from django.urls import path

from roster import api

urlpatterns = [
    path("validate/", api.validate_roster, name="roster-api-validate"),
]
