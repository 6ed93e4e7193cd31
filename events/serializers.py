"""The shapes of the events API: feed items, webhooks (in and out), the delivery log."""

from rest_framework import serializers

from dbd_site.serializers import BoundedListField, StrictSerializer
from events.kinds import KINDS
from events.models import Delivery, DeliveryAttempt, Webhook

KIND_CHOICES = list(KINDS)


class FeedEventSerializer(StrictSerializer):
    id = serializers.IntegerField(help_text="Unique; a webhook receiver may drop repeats by it.")
    kind = serializers.ChoiceField(choices=KIND_CHOICES)
    created = serializers.DateTimeField()
    campaign = serializers.IntegerField(allow_null=True, help_text="The campaign's id, if any.")
    force = serializers.IntegerField(allow_null=True, help_text="The roster force's id, if any.")
    battle = serializers.IntegerField(
        allow_null=True, help_text="The campaign battle's id, if any."
    )
    data = serializers.DictField(help_text="What happened, by kind (docs/events.md).")
    cursor = serializers.CharField(help_text="Send as `after` to read on from this event.")


class EventFeedSerializer(StrictSerializer):
    results = FeedEventSerializer(many=True)
    next = serializers.CharField(
        help_text="The URL to ask next: after the last event of this page (the same "
        "place when the page is empty). Always there."
    )
    has_more = serializers.BooleanField(help_text="More events are ready now.")


class WebhookSerializer(serializers.ModelSerializer):
    kinds = serializers.ListField(child=serializers.ChoiceField(choices=KIND_CHOICES))
    created = serializers.DateTimeField(source="created_at")
    previous_secret_expires_at = serializers.DateTimeField(
        allow_null=True,
        help_text="Until when the secret the last rotation replaced signs deliveries too "
        "(a second `v1`); `null` when the hook's secret was never rotated, or the old one "
        "was stopped at once.",
    )

    class Meta:
        model = Webhook
        fields = ["id", "url", "kinds", "active", "created", "previous_secret_expires_at"]
        read_only_fields = fields


class NewWebhookSerializer(WebhookSerializer):
    secret = serializers.CharField(
        help_text="Signs every delivery (docs/events.md); shown this once, keep it."
    )

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class WebhookInSerializer(StrictSerializer):
    url = serializers.URLField(max_length=500)
    kinds = BoundedListField(
        max_length=len(KINDS),
        child=serializers.CharField(max_length=40),
        help_text="The kinds of event to send: " + ", ".join(KINDS) + ".",
    )
    active = serializers.BooleanField(default=True)


class WebhookPatchSerializer(StrictSerializer):
    url = serializers.URLField(max_length=500, required=False)
    kinds = BoundedListField(
        max_length=len(KINDS), child=serializers.CharField(max_length=40), required=False
    )
    active = serializers.BooleanField(required=False)


class RotateSecretInSerializer(StrictSerializer):
    keep_previous = serializers.BooleanField(
        default=True,
        help_text="Let the old secret sign beside the new one for a grace period (24 h), "
        "so the receiver can switch without losing a delivery; `false` stops it at once "
        "(a leaked secret).",
    )


class TrySerializer(serializers.ModelSerializer):
    class Meta:
        model = DeliveryAttempt
        fields = ["number", "at", "status_code", "error", "duration_ms"]
        read_only_fields = fields


class DeliverySerializer(serializers.ModelSerializer):
    event = serializers.IntegerField(source="event_id", allow_null=True)
    created = serializers.DateTimeField(source="created_at")
    tries = TrySerializer(many=True)

    class Meta:
        model = Delivery
        fields = [
            "id",
            "event",
            "kind",
            "status",
            "attempts",
            "next_attempt_at",
            "created",
            "tries",
        ]
        read_only_fields = fields
