"""API tokens in the admin: listed and deletable, never added or edited."""

import pytest

from accounts.tokens import create_api_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    admin = django_user_model.objects.create_superuser(username="boss", password="x" * 12)
    client.force_login(admin, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_tokens_are_listed_without_their_digest(admin_client, user):
    token, raw = create_api_token(user=user, name="my script")
    response = admin_client.get("/admin/accounts/apitoken/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "my script" in page
    assert token.prefix in page
    assert user.username in page
    assert token.digest not in page
    assert raw not in page


def test_tokens_cannot_be_added_or_edited(admin_client, user):
    token, _ = create_api_token(user=user, name="my script")
    assert admin_client.get("/admin/accounts/apitoken/add/").status_code == 403
    page = admin_client.get(f"/admin/accounts/apitoken/{token.pk}/change/").content.decode()
    assert 'name="name"' not in page  # shown, not editable
    assert token.digest not in page


def test_tokens_can_be_deleted(admin_client, user):
    token, _ = create_api_token(user=user, name="my script")
    url = f"/admin/accounts/apitoken/{token.pk}/delete/"
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not type(token).objects.filter(pk=token.pk).exists()
