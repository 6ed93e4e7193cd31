"""Forms of the force builder pages. They check input shape only; the rules engine
judges legality (a draft that breaks a rule is saved and its problems shown)."""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import UploadedFile

from dbd_site.errors import Invalid
from dbd_site.inputs import load_json
from roster import options
from roster.models import Force, Member
from rules.catalogue import Catalogue

IMPORT_MAX_BYTES = 256 * 1024
BASE_STATISTICS = ("ME", "RA", "CA", "DF")
BASE_VALUES = (3, 2, 1)  # R1 hands out 3, 2, 2, 1; the engine checks the whole set


class ForceForm(forms.ModelForm):
    class Meta:
        model = Force
        fields = ["name", "resources"]
        labels = {"name": "Force name", "resources": "Resources"}
        help_texts = {
            "resources": "A whole number. A campaign force starts with 50 (R11).",
        }
        widgets = {
            "name": forms.TextInput(attrs={"autocomplete": "off"}),
            "resources": forms.NumberInput(attrs={"min": 1, "step": 1, "inputmode": "numeric"}),
        }
        error_messages = {
            "name": {"required": "Give the force a name."},
            "resources": {
                "required": "How many Resources does the force have?",
                "invalid": "Resources are a whole number, such as 50.",
                "min_value": "Resources must be at least 1.",
                "max_value": "At most 1,000,000 Resources, please.",
            },
        }

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise ValidationError("Give the force a name.")
        return name


class RenameForm(ForceForm):
    """The force's name alone: the small form on each force of My forces."""

    class Meta(ForceForm.Meta):
        fields = ["name"]


def _society_label(society: Any, choice: str) -> str:
    """ "Academic: -1 RA, +1 CA": the catalogue's modifiers with the choice filled in."""
    parts = []
    for modifier in society.modifiers:
        statistic = choice if modifier.statistic == "choice" else modifier.statistic
        parts.append(f"{modifier.amount:+d} {statistic}")
    return f"{society.name}: {', '.join(parts)}"


class MemberBasicsForm(forms.Form):
    """Step 1: name, role and the base statistics (R1)."""

    name = forms.CharField(
        max_length=60,
        error_messages={"required": "Every member needs a name."},
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    role = forms.ChoiceField(
        choices=Member.Role.choices,
        initial=Member.Role.STUDENT,
        help_text="A force may add one mentor to its 4-6 students (R10).",
    )
    ME = forms.TypedChoiceField(coerce=int, label="ME (melee)")
    RA = forms.TypedChoiceField(coerce=int, label="RA (ranged)")
    CA = forms.TypedChoiceField(coerce=int, label="CA (spellcasting)")
    DF = forms.TypedChoiceField(coerce=int, label="DF (defence, before +6)")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for statistic in BASE_STATISTICS:
            values = list(BASE_VALUES)
            current = self.initial.get(statistic)
            if isinstance(current, int) and current not in values:
                values.append(current)  # an imported value outside 1-3 stays selectable
            self.fields[statistic].choices = [(v, str(v)) for v in values]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not name:
            raise ValidationError("Every member needs a name.")
        return name

    @staticmethod
    def initial_for(data: dict[str, Any]) -> dict[str, Any]:
        return {"name": data["name"], "role": data.get("role", "student"), **data["base"]}

    def apply(self, data: dict[str, Any]) -> dict[str, Any]:
        data = dict(data)
        data["name"] = self.cleaned_data["name"]
        data["role"] = self.cleaned_data["role"]
        data["base"] = {s: self.cleaned_data[s] for s in BASE_STATISTICS}
        return data


class ClubForm(forms.Form):
    """Step 2: the club's name and its society with the society's choice (R2)."""

    club_name = forms.CharField(
        max_length=60,
        label="Club name",
        help_text="For example: Literature Club.",
        error_messages={"required": "Name the student's club."},
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    society = forms.ChoiceField(
        label="Society",
        widget=forms.RadioSelect,
        error_messages={"required": "Choose a society."},
    )

    def __init__(self, *args: Any, catalogue: Catalogue, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [
            (f"{society.slug}:{choice}", _society_label(society, choice))
            for society in catalogue.societies.values()
            for choice in society.choice_options
        ]
        current = self.initial.get("society")
        if current and current not in dict(choices):
            choices.append((current, current))  # an imported oddity the engine reports
        self.fields["society"].choices = choices

    def clean_club_name(self) -> str:
        name = self.cleaned_data["club_name"].strip()
        if not name:
            raise ValidationError("Name the student's club.")
        return name

    @staticmethod
    def initial_for(data: dict[str, Any]) -> dict[str, Any]:
        club = data["club"]
        return {"club_name": club["name"], "society": f"{club['society']}:{club['choice']}"}

    def apply(self, data: dict[str, Any]) -> dict[str, Any]:
        society, _, choice = self.cleaned_data["society"].partition(":")
        data = dict(data)
        data["club"] = {
            "name": self.cleaned_data["club_name"],
            "society": society,
            "choice": choice,
        }
        return data


class NewMemberForm(MemberBasicsForm, ClubForm):
    """Steps 1 and 2 together: enough to save a draft member.

    Unlike the builder's step 1, which saves a draft that breaks a rule and shows the
    problem beside it, the form refuses base statistics the engine rejects (R1): a new
    member starts from a spread that can be built on. The refusal is the form's one
    non-field error, shown beside the statistics.
    """

    field_order = ["name", "role", "ME", "RA", "CA", "DF", "club_name", "society"]

    def __init__(self, *args: Any, catalogue: Catalogue, **kwargs: Any) -> None:
        super().__init__(*args, catalogue=catalogue, **kwargs)
        self.catalogue = catalogue

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        base = {s: cleaned[s] for s in BASE_STATISTICS if s in cleaned}
        if len(base) == len(BASE_STATISTICS):
            refusal = options.base_statistics_refusal(base, self.catalogue)
            if refusal is not None:
                for statistic in BASE_STATISTICS:
                    self.fields[statistic].widget.attrs.update(
                        {"aria-invalid": "true", "aria-describedby": "base-error"}
                    )
                raise ValidationError(refusal, code="invalid-base-statistics")
        return cleaned

    def member_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": "", "club": {}, "base": {}}
        data = MemberBasicsForm.apply(self, data)
        return ClubForm.apply(self, data)


class ImportForm(forms.Form):
    """A dbd-roster/1 document, uploaded or pasted; at most 256 KB."""

    file = forms.FileField(
        required=False,
        label="Upload a file",
        help_text="A .json file exported from this site (at most 256 KB).",
        widget=forms.ClearableFileInput(attrs={"accept": ".json,application/json"}),
    )
    text = forms.CharField(
        required=False,
        strip=False,
        label="Or paste the JSON",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "autocomplete": "off"}),
    )

    def clean_file(self) -> UploadedFile | None:
        upload = self.cleaned_data.get("file")
        if upload and upload.size > IMPORT_MAX_BYTES:
            raise ValidationError(
                f"That file is {upload.size // 1024} KB; the limit is 256 KB. "
                "Nothing was imported."
            )
        return upload

    def clean_text(self) -> str:
        text = self.cleaned_data.get("text", "")
        if len(text.encode("utf-8")) > IMPORT_MAX_BYTES:
            raise ValidationError("That text is over 256 KB. Nothing was imported.")
        return text

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        upload, text = cleaned.get("file"), cleaned.get("text", "")
        if upload and text.strip():
            raise ValidationError("Upload a file or paste JSON, not both.")
        if not upload and not text.strip():
            raise ValidationError("Choose a file to upload, or paste the JSON.")
        field = "file" if upload else "text"
        raw = upload.read() if upload else text
        try:
            # The API's parser and limits (depth, numbers, characters), for one answer.
            cleaned["document"] = load_json(raw)
        except Invalid as exc:
            where = f" (at {exc.pointer})" if exc.pointer else ""
            self.add_error(field, f"{exc.message}{where} Nothing was imported.")
        return cleaned
