import pytest
from django.urls import reverse

PASSWORD = "correct-horse-battery-42"


def forces_url() -> str:
    """Where signing up and logging in land."""
    return reverse("roster:list")


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user(username="hana", password=PASSWORD)


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user(username="kenji", password=PASSWORD)


@pytest.fixture
def logged_in(client, user):
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client
