"""Signing up, logging in and out, changing the password, the lockout and the nav."""

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import SESSION_KEY
from django.test import override_settings
from django.urls import reverse

from tests.accounts.conftest import PASSWORD, forces_url
from tests.pages import html

pytestmark = pytest.mark.django_db

SIGNUP_URL = "/accounts/signup/"
LOGIN_URL = "/accounts/login/"
LOGOUT_URL = "/accounts/logout/"
PASSWORD_URL = "/accounts/password/"


def test_urls_are_named():
    assert reverse("accounts:signup") == SIGNUP_URL
    assert reverse("accounts:login") == LOGIN_URL
    assert reverse("accounts:logout") == LOGOUT_URL
    assert reverse("accounts:password_change") == PASSWORD_URL
    assert reverse("accounts:password_change_done") == "/accounts/password/done/"
    assert reverse("accounts:account") == "/accounts/"


# --- Sign up ------------------------------------------------------------------------------


def test_signup_page_shows_the_form(client):
    response = client.get(SIGNUP_URL)
    assert response.status_code == 200
    page = html(response)
    assert 'name="username"' in page
    assert 'name="password1"' in page
    assert 'name="password2"' in page
    assert 'autocomplete="new-password"' in page


def test_signup_creates_the_user_logs_in_and_goes_to_the_forces(client, django_user_model):
    response = client.post(
        SIGNUP_URL, {"username": "mei", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302
    assert response["Location"] == forces_url()
    user = django_user_model.objects.get(username="mei")
    assert user.check_password(PASSWORD)
    assert client.session[SESSION_KEY] == str(user.pk)


def test_signup_follows_a_safe_next_only(client):
    data = {"username": "mei", "password1": PASSWORD, "password2": PASSWORD}
    response = client.post(SIGNUP_URL + "?next=/rules/", data)
    assert response["Location"] == "/rules/"
    client.logout()
    response = client.post(
        SIGNUP_URL + "?next=https://evil.example/", {**data, "username": "mei2"}
    )
    assert response["Location"] == forces_url()


def test_signup_with_mismatched_passwords_shows_the_error_by_the_field(client, django_user_model):
    response = client.post(
        SIGNUP_URL, {"username": "mei", "password1": PASSWORD, "password2": PASSWORD + "x"}
    )
    assert response.status_code == 200
    assert "password2" in response.context["form"].errors
    page = html(response)
    assert 'id="id_password2_error"' in page
    assert 'aria-invalid="true"' in page
    assert not django_user_model.objects.filter(username="mei").exists()
    assert SESSION_KEY not in client.session


def test_signup_refuses_a_common_password(client, django_user_model):
    response = client.post(
        SIGNUP_URL, {"username": "mei", "password1": "password", "password2": "password"}
    )
    assert response.status_code == 200
    errors = response.context["form"].errors["password2"]
    assert any("too common" in error for error in errors)
    assert not django_user_model.objects.filter(username="mei").exists()


def test_signup_refuses_a_taken_username(client, user):
    response = client.post(
        SIGNUP_URL, {"username": user.username, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 200
    assert "username" in response.context["form"].errors


def test_signup_sends_logged_in_users_to_their_forces(logged_in):
    response = logged_in.get(SIGNUP_URL)
    assert response.status_code == 302
    assert response["Location"] == forces_url()


# --- Log in and out -----------------------------------------------------------------------


def test_login_page_shows_the_form(client):
    response = client.get(LOGIN_URL)
    assert response.status_code == 200
    page = html(response)
    assert 'name="username"' in page
    assert 'autocomplete="current-password"' in page
    assert f'href="{SIGNUP_URL}"' in page


def test_login_logs_in_and_goes_to_the_forces(client, user):
    response = client.post(LOGIN_URL, {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == forces_url()
    assert client.session[SESSION_KEY] == str(user.pk)


def test_login_with_a_wrong_password_says_so(client, user):
    response = client.post(LOGIN_URL, {"username": user.username, "password": "nope"})
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert 'class="form-errors" role="alert"' in html(response)
    assert SESSION_KEY not in client.session


def test_logout_is_post_only(logged_in):
    assert logged_in.get(LOGOUT_URL).status_code == 405
    assert SESSION_KEY in logged_in.session
    response = logged_in.post(LOGOUT_URL)
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert SESSION_KEY not in logged_in.session


# --- Password change ----------------------------------------------------------------------


def test_password_change_needs_a_login(client):
    response = client.get(PASSWORD_URL)
    assert response.status_code == 302
    assert response["Location"].startswith(LOGIN_URL)


def test_password_change(logged_in, user):
    assert logged_in.get(PASSWORD_URL).status_code == 200
    new = "a-brand-new-secret-77"
    response = logged_in.post(
        PASSWORD_URL, {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("accounts:password_change_done")
    user.refresh_from_db()
    assert user.check_password(new)
    # Still logged in on this device.
    done = logged_in.get(response["Location"])
    assert done.status_code == 200
    assert "Password changed" in html(done)


def test_password_change_with_a_wrong_old_password(logged_in, user):
    new = "a-brand-new-secret-77"
    response = logged_in.post(
        PASSWORD_URL, {"old_password": "wrong", "new_password1": new, "new_password2": new}
    )
    assert response.status_code == 200
    assert "old_password" in response.context["form"].errors
    assert 'id="id_old_password_error"' in html(response)
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


# --- Lockout ------------------------------------------------------------------------------


@override_settings(AXES_FAILURE_LIMIT=3)
def test_too_many_failed_logins_lock_the_username_out(client, user):
    bad = {"username": user.username, "password": "wrong"}
    for _ in range(2):
        assert client.post(LOGIN_URL, bad).status_code == 200
    response = client.post(LOGIN_URL, bad)
    assert response.status_code == 429
    assert "accounts/locked_out.html" in [t.name for t in response.templates]
    page = html(response)
    assert "Too many tries" in page
    assert "about 15 minutes" in page
    # Even the right password is refused while the lockout lasts.
    response = client.post(LOGIN_URL, {"username": user.username, "password": PASSWORD})
    assert response.status_code == 429
    assert SESSION_KEY not in client.session


def test_the_default_limit_is_five_failures(client, user):
    bad = {"username": user.username, "password": "wrong"}
    for _ in range(4):
        assert client.post(LOGIN_URL, bad).status_code == 200
    assert client.post(LOGIN_URL, bad).status_code == 429


def test_failures_with_one_username_do_not_lock_another_address(client, user, other_user):
    with override_settings(AXES_FAILURE_LIMIT=2):
        for _ in range(2):
            client.post(
                LOGIN_URL,
                {"username": user.username, "password": "wrong"},
                REMOTE_ADDR="203.0.113.1",
            )
        response = client.post(
            LOGIN_URL,
            {"username": other_user.username, "password": PASSWORD},
            REMOTE_ADDR="203.0.113.2",
        )
    assert response.status_code == 302


def test_one_address_trying_many_usernames_is_locked_out(client, user, other_user):
    with override_settings(AXES_FAILURE_LIMIT=3):
        for name in ("aiko", "ben", "chie"):
            client.post(LOGIN_URL, {"username": name, "password": "wrong"})
        response = client.post(LOGIN_URL, {"username": user.username, "password": PASSWORD})
    assert response.status_code == 429
    assert SESSION_KEY not in client.session


def test_one_username_tried_from_many_addresses_is_locked_out(client, user):
    with override_settings(AXES_FAILURE_LIMIT=3):
        for address in ("203.0.113.1", "203.0.113.2"):
            response = client.post(
                LOGIN_URL,
                {"username": user.username, "password": "wrong"},
                REMOTE_ADDR=address,
            )
            assert response.status_code == 200
        third = {"username": user.username, "password": "wrong"}
        assert client.post(LOGIN_URL, third, REMOTE_ADDR="203.0.113.3").status_code == 429
        response = client.post(
            LOGIN_URL,
            {"username": user.username, "password": PASSWORD},
            REMOTE_ADDR="203.0.113.4",
        )
    assert response.status_code == 429
    assert SESSION_KEY not in client.session


def test_a_good_login_clears_earlier_failures(client, user):
    client.post(LOGIN_URL, {"username": user.username, "password": "wrong"})
    assert AccessAttempt.objects.filter(username=user.username).exists()
    client.post(LOGIN_URL, {"username": user.username, "password": PASSWORD})
    assert not AccessAttempt.objects.filter(username=user.username).exists()


# --- The nav ------------------------------------------------------------------------------


def test_nav_for_visitors(client):
    page = html(client.get("/"))
    assert f'href="{LOGIN_URL}"' in page
    assert f'href="{SIGNUP_URL}"' in page
    assert "My forces" not in page
    assert 'href="/accounts/"' not in page
    assert "Log out" not in page


def test_nav_for_logged_in_users(logged_in):
    page = html(logged_in.get("/"))
    assert f'href="{forces_url()}"' in page
    assert "My forces" in page
    assert 'href="/accounts/"' in page
    assert f'action="{LOGOUT_URL}"' in page
    assert 'class="link-button">Log out</button>' in page
    assert f'href="{LOGIN_URL}"' not in page
    assert f'href="{SIGNUP_URL}"' not in page


def test_nav_marks_the_current_account_page(client, logged_in):
    page = html(logged_in.get("/accounts/"))
    assert 'href="/accounts/" aria-current="page"' in page
    logged_in.logout()
    page = html(client.get(LOGIN_URL))
    assert f'href="{LOGIN_URL}" aria-current="page"' in page
