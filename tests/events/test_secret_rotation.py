"""Rotating a webhook's secret (POST /api/v1/webhooks/{id}/rotate-secret/): the new
secret shown once; deliveries signed with both secrets during the grace period (both
verify with the procedure docs/events.md gives), with the new one alone after it; only
the hook's owner, with a full token, rotates; a retry with its key rotates once."""

from datetime import UTC, datetime, timedelta

import pytest
from rest_framework.test import APIClient

from accounts.tokens import create_api_token
from events import delivery, kinds, services
from events.models import Webhook
from tests.campaign.conftest import api_problems
from tests.events.test_delivery import documented_verify
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db
UNKNOWN = [("/keep", "unknown-key")]


def rotate_url(hook: Webhook) -> str:
    return f"/api/v1/webhooks/{hook.pk}/rotate-secret/"


def delivered_signature(user, receiver) -> tuple[str, bytes]:
    """An event sent to `user`'s hooks now: the DBD-Signature header and body received."""
    receiver.received.clear()
    services.emit(kinds.FORCE_CHANGED, [user.pk], force_id=7)
    for made in user.webhooks.get().deliveries.filter(status="pending"):
        delivery.attempt(made.pk)
    [(headers, body)] = receiver.received
    return headers["DBD-Signature"], body


def test_the_new_secret_is_shown_once_and_both_sign_for_a_day(alice, receiver, settings):
    settings.WEBHOOK_SECRET_GRACE_HOURS = 24
    hook = services.create_webhook(user=alice, url=receiver.url, kinds=[kinds.FORCE_CHANGED])
    old = hook.secret
    client = signed_in(alice)
    answer = client.post(rotate_url(hook), format="json")
    hook.refresh_from_db()
    body = answer.json()
    expires = hook.previous_secret_expires_at
    assert (answer.status_code, hook.secret != old, hook.previous_secret) == (200, True, old)
    assert body == {
        "id": hook.pk,
        "url": receiver.url,
        "kinds": [kinds.FORCE_CHANGED],
        "active": True,
        "created": body["created"],
        "previous_secret_expires_at": expires.isoformat().replace("+00:00", "Z"),
        "secret": hook.secret,
    }
    assert timedelta(hours=23, minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=24)
    assert "Content-Encoding" not in answer  # a secret is sent uncompressed
    assert "secret" not in client.get(f"/api/v1/webhooks/{hook.pk}/").json()
    header, sent = delivered_signature(alice, receiver)
    timestamp = int(header.split(",")[0].removeprefix("t="))
    assert header == delivery.sign(hook.secret, sent.decode(), timestamp, old)
    verify = documented_verify()
    assert (verify(hook.secret, header, sent), verify(old, header, sent)) == (True, True)
    assert not verify("whsec_another", header, sent)


def test_after_the_grace_period_only_the_new_secret_signs(alice, receiver, settings):
    settings.WEBHOOK_SECRET_GRACE_HOURS = 0  # over as soon as the rotation is done
    hook = services.create_webhook(user=alice, url=receiver.url, kinds=[kinds.FORCE_CHANGED])
    old = hook.secret
    hook = services.rotate_secret(webhook=hook)
    header, sent = delivered_signature(alice, receiver)
    assert header.count("v1=") == 1
    verify = documented_verify()
    assert (verify(hook.secret, header, sent), verify(old, header, sent)) == (True, False)


def test_the_old_secret_signs_until_its_expiry_and_not_at_it(alice):
    hook = services.rotate_secret(
        webhook=services.create_webhook(user=alice, url="https://t.example/", kinds=["invited"])
    )
    expires = hook.previous_secret_expires_at
    assert hook.signing_secrets(expires - timedelta(microseconds=1)) == [
        hook.secret,
        hook.previous_secret,
    ]
    assert hook.signing_secrets(expires) == [hook.secret]


def test_a_leaked_secret_is_stopped_at_once_and_a_second_rotation_drops_the_oldest(alice):
    hook = services.create_webhook(user=alice, url="https://t.example/", kinds=["invited"])
    first = hook.secret
    answer = signed_in(alice).post(rotate_url(hook), {"keep_previous": False}, format="json")
    hook.refresh_from_db()
    assert (answer.json()["previous_secret_expires_at"], hook.previous_secret) == (None, "")
    assert hook.signing_secrets(datetime.now(UTC)) == [hook.secret] != [first]
    second = hook.secret
    third = services.rotate_secret(webhook=services.rotate_secret(webhook=hook))
    assert third.signing_secrets(datetime.now(UTC))[1] not in (first, second)


def test_only_the_owner_with_a_full_token_rotates(alice, bob, client):
    hook = services.create_webhook(user=alice, url="https://t.example/", kinds=["invited"])
    _, raw = create_api_token(user=alice, name="dashboard", read_only=True)
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    refusals = [
        (client.post(rotate_url(hook)), 401, [("", "not-authenticated")]),
        (signed_in(bob).post(rotate_url(hook)), 404, [("", "not-found")]),
        (reader.post(rotate_url(hook)), 403, [("", "read-only-token")]),
        (signed_in(alice).post(rotate_url(hook), {"keep": 1}, format="json"), 400, UNKNOWN),
    ]
    for answer, status, problems in refusals:
        assert (answer.status_code, api_problems(answer)) == (status, problems)
    kept = Webhook.objects.get()
    assert (kept.secret, kept.previous_secret, kept.previous_secret_expires_at) == (
        hook.secret,
        "",
        None,
    )


def test_a_rotation_sent_again_with_its_key_rotates_once(alice):
    hook = services.create_webhook(user=alice, url="https://t.example/", kinds=["invited"])
    client = signed_in(alice)
    first = client.post(rotate_url(hook), HTTP_IDEMPOTENCY_KEY="rotate-1")
    again = client.post(rotate_url(hook), HTTP_IDEMPOTENCY_KEY="rotate-1")
    assert (first.status_code, again.status_code, again["Idempotent-Replayed"]) == (
        200,
        200,
        "true",
    )
    assert again.json() == first.json()
    rotated = Webhook.objects.get()
    assert (rotated.secret, rotated.previous_secret) == (first.json()["secret"], hook.secret)
