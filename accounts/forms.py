"""Forms for signing up and for naming API tokens."""

from django import forms
from django.contrib.auth.forms import UserCreationForm

from accounts.models import ApiToken

TOKEN_NAME_MAX_LENGTH = ApiToken._meta.get_field("name").max_length


class SignupForm(UserCreationForm):
    """Django's own sign-up form (username and password twice), with friendlier help."""

    class Meta(UserCreationForm.Meta):
        help_texts = {
            "username": "You log in with this. Letters, digits and @ . + - _ only.",
        }


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label="Token name",
        min_length=1,
        max_length=TOKEN_NAME_MAX_LENGTH,
        help_text="Something to tell it apart later, like “my spreadsheet”.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
