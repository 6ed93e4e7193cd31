"""Forms for signing up and for naming API tokens."""

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.http import HttpRequest

from accounts.lockout import attempts_in_turn
from accounts.lookalikes import lookalike_of
from accounts.models import ApiToken
from accounts.throttles import LimitedPerAddress
from accounts.tokens import revoke_all_api_tokens

TOKEN_NAME_MAX_LENGTH = ApiToken._meta.get_field("name").max_length


class SignupForm(LimitedPerAddress, UserCreationForm):
    """Django's own sign-up form (username and password twice), with friendlier help,
    refusing a name that looks like someone else's (`accounts.lookalikes`); posts are
    limited per address (`accounts.throttles`)."""

    limit_scope = "signup"

    class Meta(UserCreationForm.Meta):
        help_texts = {
            "username": "You log in with this. Letters, digits and @ . + - _ only.",
        }

    def __init__(self, *args: Any, request: HttpRequest, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_username(self) -> str:
        username = super().clean_username()
        if username and lookalike_of(username):
            raise forms.ValidationError(
                "That name looks too much like another player's; choose one that "
                "is clearly different.",
                code="lookalike",
            )
        return username


class PasswordChangeForm(LimitedPerAddress, auth_forms.PasswordChangeForm):
    """Django's password change, with the old password checked through `authenticate`:
    wrong guesses count towards django-axes' lock-out as failed log-ins do, and once
    it locks the account no more guesses are checked (`accounts.lockout`). Posts are
    limited per address (`accounts.throttles`). Saving revokes the API tokens."""

    limit_scope = "password-change"

    def __init__(self, user, *args, request: HttpRequest, **kwargs) -> None:
        super().__init__(user, *args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        old_password = self.cleaned_data["old_password"]
        username = self.user.get_username()
        with attempts_in_turn(self.request, username):
            checked = authenticate(self.request, username=username, password=old_password)
        if checked is None or checked.pk != self.user.pk:
            raise forms.ValidationError(
                self.error_messages["password_incorrect"], code="password_incorrect"
            )
        return old_password

    def save(self, commit: bool = True):
        user = super().save(commit=commit)
        self.revoked_tokens = revoke_all_api_tokens(user=user) if commit else 0
        return user


class InTurn:
    """Log-in forms: the password is checked in turn with every other check of the same
    username or from the same address (`accounts.lockout.attempts_in_turn`)."""

    request: HttpRequest
    cleaned_data: dict[str, Any]

    def clean(self) -> dict[str, Any]:
        with attempts_in_turn(self.request, self.cleaned_data.get("username")):
            return super().clean()  # type: ignore[misc]


class LoginForm(LimitedPerAddress, InTurn, AuthenticationForm):
    """Django's log-in form, refusing a username longer than any account's before it is
    checked: Django only sets the length on the widget, and django-axes would try to
    record the failed attempt with the whole of it. Posts are limited per address."""

    limit_scope = "login"

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        limit = get_user_model()._meta.get_field("username").max_length
        if len(username) > limit:
            raise forms.ValidationError(f"A username has at most {limit} characters.")
        return username


class AdminLoginForm(LimitedPerAddress, InTurn, AdminAuthenticationForm):
    """The admin's log-in, counted and checked in turn as the site's own."""

    limit_scope = "login"


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label="Token name",
        min_length=1,
        max_length=TOKEN_NAME_MAX_LENGTH,
        help_text="Something to tell it apart later, like “my spreadsheet”.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    read_only = forms.BooleanField(
        label="Read only",
        required=False,
        help_text="It can read your forces, campaigns and battles, and change nothing.",
    )
