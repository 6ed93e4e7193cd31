"""The lock-out nobody walks around, the account forms' limits per address and the token
cap under concurrency (issue #29).

- A success clears the failures of the username that succeeded, from that address only:
  never the address's failures for other usernames, and a sign-up clears nothing.
- Passwords are checked one at a time per username and per address, so parallel guesses
  check exactly as many passwords as the limit allows (a counting password hasher shows
  how many were checked).
- Sign-up, log-in and the password-change form count every post per address; over the
  limit: 429 with `Retry-After`, the form's one error saying so, nothing checked or made.
"""

import threading

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client, override_settings

from accounts.models import ApiToken
from accounts.tokens import MAX_TOKENS_PER_USER
from tests.accounts.conftest import PASSWORD
from tests.concurrency import at_once
from tests.pages import html

SIGNUP_URL = "/accounts/signup/"
LOGIN_URL = "/accounts/login/"
PASSWORD_URL = "/accounts/password/"
TOKENS_URL = "/accounts/tokens/new/"
VICTIM = "victim"
VICTIM_PASSWORD = "victims-own-secret-93"


def guess(client, username: str = VICTIM, password: str = "wrong-guess", **extra):
    return client.post(LOGIN_URL, {"username": username, "password": password}, **extra)


def form_rates(**rates: str):
    every = {"signup": "100/hour", "login": "100/hour", "password-change": "100/hour"}
    return override_settings(ACCOUNT_FORM_RATES={**every, **rates})


@pytest.fixture
def victim(django_user_model):
    return django_user_model.objects.create_user(VICTIM, password=VICTIM_PASSWORD)


# --- the lock-out cannot be reset by someone else ---------------------------------------


@pytest.mark.django_db
@override_settings(AXES_FAILURE_LIMIT=3)
def test_another_accounts_success_does_not_reset_the_addresss_failures(client, victim, user):
    assert [guess(client).status_code for _ in range(2)] == [200, 200]
    assert guess(client, user.username, PASSWORD).status_code == 302  # the guesser's own
    client.logout()
    assert guess(client).status_code == 429  # the third failure from this address
    assert guess(client, VICTIM, VICTIM_PASSWORD).status_code == 429
    assert SESSION_KEY not in client.session


@pytest.mark.django_db
@override_settings(AXES_FAILURE_LIMIT=3)
def test_a_sign_up_does_not_reset_the_addresss_failures(client, victim):
    assert [guess(client).status_code for _ in range(2)] == [200, 200]
    signed_up = client.post(
        SIGNUP_URL, {"username": "newcomer", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert signed_up.status_code == 302
    assert SESSION_KEY in client.session  # signing up logs in
    client.logout()
    assert guess(client).status_code == 429
    assert guess(client, VICTIM, VICTIM_PASSWORD).status_code == 429


@pytest.mark.django_db
@override_settings(AXES_FAILURE_LIMIT=3)
def test_another_addresss_success_does_not_reset_the_usernames_failures(victim):
    there, here = Client(REMOTE_ADDR="203.0.113.7"), Client(REMOTE_ADDR="198.51.100.2")
    assert [guess(there).status_code for _ in range(2)] == [200, 200]
    assert guess(here, VICTIM, VICTIM_PASSWORD).status_code == 302  # the victim, elsewhere
    assert guess(there).status_code == 429  # the username's third failure still counts


@pytest.mark.django_db
@override_settings(AXES_FAILURE_LIMIT=3)
def test_a_success_clears_its_own_typos_from_its_own_address(client, victim):
    assert [guess(client).status_code for _ in range(2)] == [200, 200]
    assert guess(client, VICTIM, VICTIM_PASSWORD).status_code == 302
    assert not AccessAttempt.objects.filter(username=VICTIM).exists()
    client.logout()
    assert [guess(client).status_code for _ in range(2)] == [200, 200]  # counted afresh


@pytest.mark.django_db
@override_settings(AXES_FAILURE_LIMIT=3)
def test_a_success_leaves_the_addresss_failures_for_other_usernames(client, victim, user):
    guess(client)
    guess(client, user.username, "typo")
    assert guess(client, user.username, PASSWORD).status_code == 302
    assert list(AccessAttempt.objects.values_list("username", "failures_since_start")) == [
        (VICTIM, 1)
    ]


# --- parallel guesses check exactly the limit ---------------------------------------------


class CountingHasher(MD5PasswordHasher):
    """The suite's fast hasher, counting every password it checks."""

    algorithm = "counting-md5"
    checked = 0
    _lock = threading.Lock()

    def verify(self, password: str, encoded: str) -> bool:
        with self._lock:
            CountingHasher.checked += 1
        return super().verify(password, encoded)


COUNTING = [f"{__name__}.CountingHasher"]


@pytest.mark.django_db(transaction=True)
@override_settings(AXES_FAILURE_LIMIT=3, PASSWORD_HASHERS=COUNTING)
def test_parallel_guesses_check_exactly_the_limit():
    get_user_model().objects.create_user(VICTIM, password=VICTIM_PASSWORD)
    CountingHasher.checked = 0
    answers = at_once(12, lambda i: guess(Client(), password=f"guess-{i}").status_code)
    assert CountingHasher.checked == 3
    assert sorted(answers) == [200, 200] + [429] * 10
    assert guess(Client(), VICTIM, VICTIM_PASSWORD).status_code == 429
    assert CountingHasher.checked == 3


@pytest.mark.django_db(transaction=True)
@override_settings(AXES_FAILURE_LIMIT=3, PASSWORD_HASHERS=COUNTING)
def test_parallel_guesses_at_many_usernames_from_one_address_check_exactly_the_limit():
    for i in range(12):
        get_user_model().objects.create_user(f"player{i}", password=VICTIM_PASSWORD)
    CountingHasher.checked = 0
    answers = at_once(12, lambda i: guess(Client(), f"player{i}").status_code)
    assert CountingHasher.checked == 3
    assert sorted(answers) == [200, 200] + [429] * 10


# --- the account forms' limits per address --------------------------------------------------


def refused_by_the_limit(response) -> None:
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 3600
    form = response.context["form"]
    assert form.errors == {
        "__all__": [
            "Too many tries from your network: please wait about 60 minutes and try again."
        ]
    }


@pytest.mark.django_db
@form_rates(signup="2/hour")
def test_sign_ups_are_limited_per_address(client, django_user_model):
    for name in ("first", "second"):
        made = client.post(
            SIGNUP_URL, {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        )
        assert made.status_code == 302
        client.logout()
    third = client.post(
        SIGNUP_URL, {"username": "third", "password1": PASSWORD, "password2": PASSWORD}
    )
    refused_by_the_limit(third)
    assert 'value="third"' in html(third)  # what was typed stays
    assert not django_user_model.objects.filter(username="third").exists()
    elsewhere = Client(REMOTE_ADDR="203.0.113.50").post(
        SIGNUP_URL, {"username": "third", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert elsewhere.status_code == 302


@pytest.mark.django_db
@override_settings(PASSWORD_HASHERS=[*COUNTING, *settings.PASSWORD_HASHERS])
@form_rates(login="2/hour")
def test_log_ins_are_limited_per_address_successes_included(client, victim):
    assert guess(client, VICTIM, VICTIM_PASSWORD).status_code == 302
    client.logout()
    assert guess(client).status_code == 200
    CountingHasher.checked = 0
    third = guess(client, VICTIM, VICTIM_PASSWORD)
    refused_by_the_limit(third)
    assert CountingHasher.checked == 0  # nothing was checked
    assert SESSION_KEY not in client.session
    assert 'value="victim"' in html(third)
    # Not a failed log-in: the lock-out's counts are untouched.
    assert AccessAttempt.objects.get(username=VICTIM).failures_since_start == 1


@pytest.mark.django_db
@override_settings(PASSWORD_HASHERS=[*COUNTING, *settings.PASSWORD_HASHERS])
@form_rates(login="1/hour")
def test_the_admins_log_in_shares_the_limit_and_answers_429(client, victim):
    assert guess(client).status_code == 200  # the site's form: the address's one post
    CountingHasher.checked = 0
    admin = client.post(
        "/admin/login/?next=/admin/", {"username": VICTIM, "password": VICTIM_PASSWORD}
    )
    refused_by_the_limit(admin)
    assert CountingHasher.checked == 0
    assert SESSION_KEY not in client.session


@pytest.mark.django_db
@form_rates(**{"password-change": "1/hour"})
def test_password_changes_are_limited_per_address(logged_in, user):
    new = "a-brand-new-secret-77"
    body = {"old_password": "wrong", "new_password1": new, "new_password2": new}
    assert logged_in.post(PASSWORD_URL, body).status_code == 200
    refused_by_the_limit(logged_in.post(PASSWORD_URL, {**body, "old_password": PASSWORD}))
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


@pytest.mark.django_db
@form_rates(login="1/hour")
def test_looking_at_the_forms_is_not_counted(client):
    for _ in range(3):
        assert client.get(LOGIN_URL).status_code == 200
        assert client.get(SIGNUP_URL).status_code == 200
    assert guess(client).status_code == 200


# --- the token cap under concurrency ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_thirty_simultaneous_token_creations_make_exactly_the_cap():
    owner = get_user_model().objects.create_user("toolsmith", password=PASSWORD)
    browsers = []
    for _ in range(30):
        browser = Client()
        browser.force_login(owner)
        browsers.append(browser)
    answers = at_once(30, lambda i: browsers[i].post(TOKENS_URL, {"name": f"tool {i}"}))
    assert sorted(a.status_code for a in answers) == [200] * 20 + [409] * 10
    assert ApiToken.objects.filter(user=owner).count() == MAX_TOKENS_PER_USER == 20
