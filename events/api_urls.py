"""Routes of the events API, included at /api/v1/: the feed and the webhooks."""

from django.urls import path

from events import api

HOOK = "webhooks/<int:webhook_id>/"

urlpatterns = [
    path("events/", api.EventFeedView.as_view(), name="events-api-feed"),
    path("webhooks/", api.WebhookListView.as_view(), name="events-api-webhooks"),
    path(HOOK, api.WebhookDetailView.as_view(), name="events-api-webhook"),
    path(f"{HOOK}ping/", api.WebhookPingView.as_view(), name="events-api-webhook-ping"),
    path(
        f"{HOOK}rotate-secret/",
        api.WebhookRotateSecretView.as_view(),
        name="events-api-webhook-rotate-secret",
    ),
    path(
        f"{HOOK}deliveries/",
        api.WebhookDeliveriesView.as_view(),
        name="events-api-webhook-deliveries",
    ),
]
