"""Accounts under attack: guessing the old password, tokens after a password change,
look-alike usernames (issue #13)."""

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import override_settings
from django.urls import reverse

from accounts.lookalikes import lookalike_of, skeleton
from accounts.models import ApiToken
from accounts.tokens import create_api_token
from tests.accounts.conftest import PASSWORD

pytestmark = pytest.mark.django_db

PASSWORD_URL = reverse("accounts:password_change")
SIGNUP_URL = reverse("accounts:signup")
NEW = "a-brand-new-secret-77"


def change(client, old: str):
    return client.post(
        PASSWORD_URL, {"old_password": old, "new_password1": NEW, "new_password2": NEW}
    )


@override_settings(AXES_FAILURE_LIMIT=3)
def test_guessing_the_old_password_is_locked_out_like_a_login(logged_in, user):
    for _ in range(2):
        response = change(logged_in, "wrong")
        assert response.status_code == 200
        assert "old_password" in response.context["form"].errors
    response = change(logged_in, "wrong")
    assert response.status_code == 429
    assert "accounts/locked_out.html" in [t.name for t in response.templates]
    # Once locked, not even the right old password is checked.
    assert change(logged_in, PASSWORD).status_code == 429
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


@override_settings(AXES_FAILURE_LIMIT=3)
def test_two_wrong_old_passwords_then_the_right_one_still_work(logged_in, user):
    for _ in range(2):
        assert change(logged_in, "wrong").status_code == 200
    assert change(logged_in, PASSWORD).status_code == 302
    user.refresh_from_db()
    assert user.check_password(NEW)


def test_a_password_change_revokes_every_api_token(logged_in, user, other_user):
    create_api_token(user=user, name="sheet")
    create_api_token(user=user, name="bot")
    create_api_token(user=other_user, name="theirs")
    _, raw = create_api_token(user=user, name="third")
    api = logged_in.get("/api/v1/rosters/", HTTP_AUTHORIZATION=f"Token {raw}")
    assert api.status_code == 200
    response = change(logged_in, PASSWORD)
    assert response.status_code == 302
    assert not ApiToken.objects.filter(user=user).exists()
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["theirs"]
    done = logged_in.get(response["Location"])
    assert "Your 3 API token(s) no longer work" in done.content.decode()
    assert SESSION_KEY in logged_in.session  # this device stays signed in
    api = logged_in.get("/api/v1/rosters/", HTTP_AUTHORIZATION=f"Token {raw}")
    assert api.status_code == 401


def test_a_refused_password_change_keeps_the_tokens(logged_in, user):
    create_api_token(user=user, name="sheet")
    assert change(logged_in, "wrong").status_code == 200
    assert ApiToken.objects.filter(user=user).count() == 1


@pytest.mark.parametrize(
    ("existing", "new"),
    [
        ("demo", "d\u0435mo"),  # Cyrillic ie
        ("paypal", "paypa1"),
        ("modern", "rnodern"),
        ("Ian", "lan"),
        ("DEMO", "D\u0415MO".lower()),  # Cyrillic capital ie, then lower case
        ("alice", "\u0251lice"),  # Latin alpha
    ],
)
def test_lookalike_usernames_are_refused_at_signup(client, django_user_model, existing, new):
    django_user_model.objects.create_user(existing, password=PASSWORD)
    response = client.post(
        SIGNUP_URL, {"username": new, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 200
    assert response.context["form"].errors == {
        "username": [
            "That name looks too much like another player's; choose one that is clearly different."
        ]
    }
    assert not django_user_model.objects.filter(username=new).exists()


@pytest.mark.parametrize("new", ["dema", "demos", "memo", "d-e-m-o"])
def test_clearly_different_usernames_are_accepted(client, django_user_model, new):
    django_user_model.objects.create_user("demo", password=PASSWORD)
    response = client.post(
        SIGNUP_URL, {"username": new, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302
    assert lookalike_of(new) is None


def test_skeleton_is_unicodes():
    assert skeleton("d\u0435mo") == skeleton("demo")
    assert skeleton("m") == "rn"  # Unicode maps m to its look-alike r + n
    assert skeleton("abc") == "abc"
    assert skeleton("0") == skeleton("O")
    assert skeleton("a") != skeleton("o")
