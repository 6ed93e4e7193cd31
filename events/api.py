"""The events API: the per-user feed (/api/v1/events/) and webhooks (/api/v1/webhooks/).

Signed-in users only (a token or a session); everything is the caller's own: another
user's webhook answers 404. Views are thin: reads through `events.selectors`, writes
through `events.services` (docs/events.md says what each answers).
"""

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse

from dbd_site import preconditions
from dbd_site.compression import shows_secret
from dbd_site.errors import INPUT_CODES, Invalid
from dbd_site.inputs import whole_number
from dbd_site.parsers import JSONParser
from dbd_site.schema import answers, etag_header
from events import selectors, serializers, services, tags
from events.models import Webhook
from idempotency.decorators import idempotent
from idempotency.schema import IDEMPOTENCY_KEY
from roster.serializers import ApiErrorsSerializer

ERRORS = ApiErrorsSerializer
COMMON_ERRORS = {401: ERRORS, 429: ERRORS}
REFUSED = {400: ERRORS, 415: ERRORS}
NOT_FOUND = {404: ERRORS}
FEED_LIMIT = 50
FEED_MAX_LIMIT = 200
WEBHOOK_ID = OpenApiParameter(
    "webhook_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The webhook's id."
)


class EventsApiView(GenericAPIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]

    def body(self, serializer_class: type) -> dict[str, Any]:
        body = serializer_class(data=self.request.data)
        body.is_valid(raise_exception=True)
        return dict(body.validated_data)

    def get_webhook(self) -> Webhook:
        return selectors.get_webhook(user=self.request.user, webhook_id=self.kwargs["webhook_id"])


def _limit(request: Request) -> int:
    raw = request.query_params.getlist("limit")
    if not raw:
        return FEED_LIMIT
    number = whole_number(raw[0]) if len(raw) == 1 else None
    if number is None or not 1 <= number <= FEED_MAX_LIMIT:
        raise Invalid(
            "invalid", f"'limit' is a whole number from 1 to {FEED_MAX_LIMIT}.", pointer="/limit"
        )
    return number


@extend_schema_view(
    get=extend_schema(
        operation_id="events_list",
        summary="Your events, oldest first, from a cursor",
        description=(
            "What happened that concerns you (docs/events.md lists the kinds). Read on with "
            "`next` (or `after` = the last event's `cursor`): a cursor never skips or "
            "repeats an event, even while others are being written. Without `after`, from "
            "the oldest event kept."
        ),
        parameters=[
            OpenApiParameter("after", OpenApiTypes.STR, description="A `cursor` the feed gave."),
            OpenApiParameter(
                "limit",
                OpenApiTypes.INT,
                description=f"At most this many events (1 to {FEED_MAX_LIMIT}; {FEED_LIMIT} "
                "unless given).",
            ),
        ],
        responses={200: serializers.EventFeedSerializer, 400: ERRORS, **COMMON_ERRORS},
        tags=["events"],
    )
)
class EventFeedView(EventsApiView):
    serializer_class = serializers.EventFeedSerializer

    @answers(services.CODES.only("unknown-kind", "invalid-cursor"), INPUT_CODES)
    def get(self, request: Request) -> Response:
        after_param = request.query_params.get("after")
        after = selectors.Position.from_cursor(after_param) if after_param else None
        limit = _limit(request)
        events = selectors.feed(user=request.user, after=after, limit=limit + 1)
        page = events[:limit]
        results = [
            {**services.event_json(e), "cursor": selectors.Position.of(e).cursor()} for e in page
        ]
        last = results[-1]["cursor"] if results else (after.cursor() if after else None)
        url = reverse("events-api-feed", request=request)
        query = [f"after={last}"] if last else []
        if "limit" in request.query_params:
            query.append(f"limit={limit}")
        return Response(
            {
                "results": results,
                "next": url + ("?" + "&".join(query) if query else ""),
                "has_more": len(events) > limit,
            }
        )


ETAG = etag_header(
    "The webhook's version (a strong tag): its URL, kinds, active flag and "
    "the rotated-out secret's expiry.",
)


def _etag(hook: Webhook) -> str:
    return preconditions.strong(tags.webhook_tag(hook))


@extend_schema_view(
    get=extend_schema(
        operation_id="webhooks_list",
        summary="Your webhooks",
        responses={200: serializers.WebhookSerializer(many=True), **COMMON_ERRORS},
        tags=["webhooks"],
    ),
    post=extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook",
        description=(
            "Events of the kinds named are sent to `url`, signed with the hook's `secret`, "
            "shown in this answer only (docs/events.md: verifying a delivery). Answers 201 "
            "with a `Location`."
        ),
        parameters=[IDEMPOTENCY_KEY, ETAG],
        request=serializers.WebhookInSerializer,
        responses={201: serializers.NewWebhookSerializer, **REFUSED, **COMMON_ERRORS},
        tags=["webhooks"],
    ),
)
class WebhookListView(EventsApiView):
    serializer_class = serializers.WebhookSerializer

    def get_queryset(self):
        return selectors.webhooks_for(user=self.request.user)

    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset()) or []
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @answers(services.CODES.only("unknown-kind", "url-not-allowed", "too-many-webhooks"))
    @idempotent
    def post(self, request: Request) -> Response:
        hook = services.create_webhook(
            user=request.user, **self.body(serializers.WebhookInSerializer)
        )
        shows_secret(request)
        location = reverse("events-api-webhook", kwargs={"webhook_id": hook.pk}, request=request)
        headers = {"Location": location, "ETag": _etag(hook)}
        return Response(serializers.NewWebhookSerializer(hook).data, status=201, headers=headers)


@extend_schema_view(
    get=extend_schema(
        operation_id="webhooks_retrieve",
        summary="One of your webhooks",
        parameters=[WEBHOOK_ID, ETAG],
        responses={200: serializers.WebhookSerializer, **NOT_FOUND, **COMMON_ERRORS},
        tags=["webhooks"],
    ),
    patch=extend_schema(
        operation_id="webhooks_partial_update",
        summary="Change a webhook's URL, kinds or active flag",
        description="Deactivated (`active: false`), it is sent nothing, queued tries included.",
        parameters=[WEBHOOK_ID, IDEMPOTENCY_KEY, ETAG],
        request=serializers.WebhookPatchSerializer,
        responses={
            200: serializers.WebhookSerializer,
            **REFUSED,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=["webhooks"],
    ),
    delete=extend_schema(
        operation_id="webhooks_destroy",
        summary="Delete a webhook and its delivery log",
        description="Nothing more is sent to it, queued tries included.",
        parameters=[WEBHOOK_ID, IDEMPOTENCY_KEY],
        responses={204: None, **NOT_FOUND, **COMMON_ERRORS},
        tags=["webhooks"],
    ),
)
class WebhookDetailView(EventsApiView):
    serializer_class = serializers.WebhookSerializer

    def get(self, request: Request, webhook_id: int) -> Response:
        hook = self.get_webhook()
        return Response(self.get_serializer(hook).data, headers={"ETag": _etag(hook)})

    @answers(services.CODES.only("unknown-kind", "url-not-allowed"))
    @idempotent
    def patch(self, request: Request, webhook_id: int) -> Response:
        hook = self.get_webhook()
        services.update_webhook(webhook=hook, **self.body(serializers.WebhookPatchSerializer))
        return Response(self.get_serializer(hook).data, headers={"ETag": _etag(hook)})

    @idempotent
    def delete(self, request: Request, webhook_id: int) -> Response:
        services.delete_webhook(webhook=self.get_webhook())
        return Response(status=204)


@extend_schema_view(
    post=extend_schema(
        operation_id="webhooks_ping",
        summary="Send the webhook a test ping",
        description=(
            "Queues one delivery of kind `ping` (tried once, signed like any other); its "
            "result shows in the delivery log. Answers 202 with the delivery."
        ),
        parameters=[WEBHOOK_ID, IDEMPOTENCY_KEY],
        request=None,
        responses={
            202: serializers.DeliverySerializer,
            400: ERRORS,
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=["webhooks"],
    )
)
class WebhookPingView(EventsApiView):
    serializer_class = serializers.DeliverySerializer

    @idempotent
    def post(self, request: Request, webhook_id: int) -> Response:
        delivery = services.ping(webhook=self.get_webhook())
        return Response(self.get_serializer(delivery).data, status=202)


@extend_schema_view(
    post=extend_schema(
        operation_id="webhooks_rotate_secret",
        summary="Give the webhook a new secret",
        description=(
            "Answers the hook with its new `secret`, shown in this answer only. Until "
            "`previous_secret_expires_at` (24 h) each delivery is signed with both secrets "
            "(two `v1` in `DBD-Signature`), so the receiver can switch without losing a "
            "delivery; then with the new one alone. `keep_previous: false` stops the old "
            "one at once."
        ),
        parameters=[WEBHOOK_ID, IDEMPOTENCY_KEY, ETAG],
        request=serializers.RotateSecretInSerializer,
        responses={200: serializers.NewWebhookSerializer, **REFUSED, **NOT_FOUND, **COMMON_ERRORS},
        tags=["webhooks"],
    )
)
class WebhookRotateSecretView(EventsApiView):
    serializer_class = serializers.NewWebhookSerializer

    @idempotent
    def post(self, request: Request, webhook_id: int) -> Response:
        hook = services.rotate_secret(
            webhook=self.get_webhook(), **self.body(serializers.RotateSecretInSerializer)
        )
        shows_secret(request)
        return Response(self.get_serializer(hook).data, headers={"ETag": _etag(hook)})


@extend_schema_view(
    get=extend_schema(
        operation_id="webhooks_deliveries",
        summary="A webhook's delivery log, newest first",
        description="Each delivery with every try: when, the status code or error, how long.",
        parameters=[WEBHOOK_ID],
        responses={
            200: serializers.DeliverySerializer(many=True),
            **NOT_FOUND,
            **COMMON_ERRORS,
        },
        tags=["webhooks"],
    )
)
class WebhookDeliveriesView(EventsApiView):
    serializer_class = serializers.DeliverySerializer

    def get(self, request: Request, webhook_id: int) -> Response:
        page = self.paginate_queryset(selectors.deliveries(webhook=self.get_webhook())) or []
        return self.get_paginated_response(self.get_serializer(page, many=True).data)
