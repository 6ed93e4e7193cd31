"""Webhooks through the API, /api/v1/webhooks/: registered with a secret shown once,
changed, deleted, each user's own; URLs to loopback and private addresses refused in
production settings (SSRF)."""

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient

from accounts.tokens import create_api_token
from events import delivery, services
from events.models import Delivery, Webhook
from tests.campaign.conftest import api_problems
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db
URL = "/api/v1/webhooks/"
PRODUCTION = override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=False, WEBHOOK_HTTPS_ONLY=True)


def register(client, url="https://tool.example/hook", kinds=("battle-voided",), **more):
    return client.post(URL, {"url": url, "kinds": list(kinds), **more}, format="json")


def test_a_hook_is_registered_and_its_secret_shown_once(alice):
    client = signed_in(alice)
    answer = register(client, kinds=["battle-voided", "invited"])
    assert answer.status_code == 201
    hook = Webhook.objects.get()
    body = answer.json()
    assert body == {
        "id": hook.pk,
        "url": "https://tool.example/hook",
        "kinds": ["invited", "battle-voided"],  # the declared order
        "active": True,
        "created": body["created"],
        "previous_secret_expires_at": None,
        "secret": hook.secret,
    }
    assert (hook.secret[:6], len(hook.secret) > 40) == ("whsec_", True)
    assert answer["Location"] == f"http://testserver{URL}{hook.pk}/"
    assert "Content-Encoding" not in answer  # a secret is sent uncompressed
    shown = client.get(answer["Location"]).json()
    assert shown == {k: v for k, v in body.items() if k != "secret"}
    assert client.get(URL).json()["results"] == [shown]


def test_each_hook_has_its_own_secret(alice):
    client = signed_in(alice)
    register(client)
    register(client)
    assert len(set(Webhook.objects.values_list("secret", flat=True))) == 2


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"url": "https://t.example/", "kinds": ["battle-won"]}, [("/kinds", "unknown-kind")]),
        ({"url": "https://t.example/", "kinds": []}, [("/kinds", "required")]),
        ({"url": "https://t.example/"}, [("/kinds", "required")]),
        ({"url": "not a url", "kinds": ["invited"]}, [("/url", "invalid")]),
        (
            {"url": "https://t.example/", "kinds": ["invited"], "secret": "mine"},
            [("/secret", "unknown-key")],
        ),
    ],
)
def test_a_bad_hook_is_refused_at_its_field(alice, body, expected):
    answer = signed_in(alice).post(URL, body, format="json")
    assert (answer.status_code, api_problems(answer)) == (400, expected)
    assert not Webhook.objects.exists()


def test_a_user_has_at_most_ten_hooks(alice):
    client = signed_in(alice)
    for _ in range(10):
        assert register(client).status_code == 201
    answer = register(client)
    assert (answer.status_code, api_problems(answer)) == (400, [("", "too-many-webhooks")])


def test_a_hook_is_changed_and_deleted(alice):
    client = signed_in(alice)
    location = register(client)["Location"]
    answer = client.patch(location, {"active": False, "kinds": ["force-changed"]}, format="json")
    assert answer.status_code == 200
    assert (answer.json()["active"], answer.json()["kinds"]) == (False, ["force-changed"])
    assert client.patch(location, {"url": "ftp://t.example/"}, format="json").status_code == 400
    assert client.delete(location).status_code == 204
    assert client.get(location).status_code == 404
    assert not Webhook.objects.exists()


def test_registering_changing_and_rotating_a_hook_answer_its_tag(alice):
    client = signed_in(alice)
    made = register(client)
    assert made["ETag"].startswith('"')
    assert made["ETag"] == client.get(made["Location"])["ETag"]
    changed = client.patch(made["Location"], {"active": False}, format="json")
    assert changed["ETag"] not in (made["ETag"], None)
    assert changed["ETag"] == client.get(made["Location"])["ETag"]
    rotated = client.post(f"{made['Location']}rotate-secret/", {}, format="json")
    assert rotated.status_code == 200, rotated.content
    assert rotated["ETag"] not in (changed["ETag"], None)
    assert rotated["ETag"] == client.get(made["Location"])["ETag"]


def test_another_users_hook_is_not_found(alice, bob):
    location = register(signed_in(alice))["Location"]
    hook = Webhook.objects.get()
    client = signed_in(bob)
    for answer in (
        client.get(location),
        client.patch(location, {"active": False}, format="json"),
        client.delete(location),
        client.post(f"{location}ping/"),
        client.get(f"{location}deliveries/"),
    ):
        assert (answer.status_code, api_problems(answer)) == (404, [("", "not-found")])
    assert client.get(URL).json()["results"] == []
    assert Webhook.objects.get(active=True) == hook
    assert not Delivery.objects.exists()


def test_only_a_signed_in_user_has_hooks(client):
    assert client.get(URL).status_code == 401
    assert register(client).status_code == 401


@PRODUCTION
@pytest.mark.parametrize(
    "url",
    [
        "http://tool.example/hook",  # not https
        "https://127.0.0.1/hook",
        "https://127.1.2.3:8443/hook",
        "https://10.0.0.5/hook",
        "https://192.168.1.20/hook",
        "https://172.16.0.1/hook",
        "https://169.254.169.254/latest/meta-data/",  # a cloud's metadata address
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://[fd00::1]/hook",
        "https://0.0.0.0/hook",
        "https://localhost/hook",
        "https://printer.local/hook",
        "https://user:pw@tool.example/hook",
    ],
)
def test_production_refuses_urls_to_this_machine_or_its_network(alice, url):
    answer = register(signed_in(alice), url=url)
    assert (answer.status_code, api_problems(answer)) == (400, [("/url", "url-not-allowed")])


@PRODUCTION
def test_production_takes_a_public_https_url(alice):
    assert register(signed_in(alice), url="https://93.184.215.14:8443/hook").status_code == 201
    assert register(signed_in(alice), url="https://tool.example/hook").status_code == 201


def test_the_admin_shows_hooks_and_their_log_but_never_a_secret(alice, client, receiver):
    hook = services.create_webhook(user=alice, url=receiver.url, kinds=["force-changed"])
    old = hook.secret
    hook = services.rotate_secret(webhook=hook)  # the replaced secret is not shown either
    services.emit("force-changed", [alice.pk], force_id=1)
    delivery.attempt(Delivery.objects.get().pk)
    client.force_login(User.objects.create_superuser("root", password="pw-root-12345"))
    pages = [
        "/admin/events/webhook/",
        f"/admin/events/webhook/{hook.pk}/change/",
        "/admin/events/delivery/",
        f"/admin/events/delivery/{Delivery.objects.get().pk}/change/",
        "/admin/events/event/",
    ]
    for page in pages:
        answer = client.get(page)
        assert answer.status_code == 200, page
        assert hook.secret not in answer.content.decode(), page
        assert old not in answer.content.decode(), page


def test_a_read_only_token_reads_the_feed_and_hooks_but_registers_none(alice):
    _, raw = create_api_token(user=alice, name="dashboard", read_only=True)
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    assert reader.get("/api/v1/events/").status_code == 200
    assert reader.get(URL).status_code == 200
    refused = register(reader)
    assert (refused.status_code, api_problems(refused)) == (403, [("", "read-only-token")])
    assert not Webhook.objects.exists()


def test_a_registration_sent_again_with_its_key_makes_one_hook(alice):
    client = signed_in(alice)
    body = {"url": "https://tool.example/hook", "kinds": ["invited"]}
    first = client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="hook-1")
    again = client.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="hook-1")
    assert (first.status_code, again.status_code, again["Idempotent-Replayed"]) == (
        201,
        201,
        "true",
    )
    assert again.json() == first.json()
    assert Webhook.objects.count() == 1
