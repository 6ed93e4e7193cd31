"""Forms of the campaign pages. They check the shape of what is posted; the rules
(R14-R18) are kept by `campaign.services`, whose errors the views add to these forms."""

import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from campaign.progression import LABELS, MAX_SETTING, HouseRules
from campaign.services import MAX_ENEMIES as MAX_PER_MEMBER  # as the services allow
from campaign.services import MAX_OBJECTIVES  # R14b
from dbd_site.inputs import is_whole_number


class _Form(forms.Form):
    """No colon after labels: the pages' labels are short headings."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


def _clean_required_text(value: str, message: str) -> str:
    value = (value or "").strip()
    if not value:
        raise ValidationError(message)
    return value


class CampaignForm(_Form):
    name = forms.CharField(
        label="Campaign name",
        max_length=100,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        error_messages={
            "required": "Give the campaign a name.",
            "max_length": "Keep the name to 100 characters or fewer.",
        },
    )

    def clean_name(self) -> str:
        return _clean_required_text(self.cleaned_data["name"], "Give the campaign a name.")


def _short_label(name: str) -> str:
    """The label without its ruling id: "Starting Resources (R11)" -> "Starting Resources"."""
    label = LABELS[name]
    return label.rsplit(" (R", 1)[0] if label.endswith(")") and " (R" in label else label


class HouseRulesForm(_Form):
    """Every house rule (R11, R15, R16 and the standings points) as one field."""

    level_thresholds = forms.CharField(
        label=_short_label("level_thresholds"),
        help_text=(
            "Total XP for level 1, 2, 3 and so on, separated by commas. Level 1 is always "
            "0, and each level needs more than the one before (R16)."
        ),
        max_length=300,
        error_messages={"required": "List the XP for each level, starting with 0."},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        fields: dict[str, forms.Field] = {}
        for name in HouseRules.number_names():
            minimum = 1 if name == "starting_resources" else 0
            fields[name] = forms.IntegerField(
                label=_short_label(name),
                min_value=minimum,
                max_value=MAX_SETTING,
                widget=forms.NumberInput(
                    attrs={"min": minimum, "max": MAX_SETTING, "inputmode": "numeric"}
                ),
                error_messages={
                    "required": "Enter a whole number.",
                    "invalid": "Enter a whole number.",
                    "min_value": f"Use {minimum} or more.",
                    "max_value": f"Use {MAX_SETTING} or less.",
                },
            )
        fields["level_thresholds"] = self.fields.pop("level_thresholds")
        for name in HouseRules.flag_names():
            # An unticked box posts nothing: that is "no", never "required".
            fields[name] = forms.BooleanField(label=_short_label(name), required=False)
        # The thresholds sit with the other XP settings; the yes/no settings come last.
        order = [*HouseRules.number_names(), *HouseRules.flag_names()]
        order.insert(order.index("xp_for_winning_side") + 1, "level_thresholds")
        self.fields = {name: fields[name] for name in order}

    @classmethod
    def for_rules(cls, rules: HouseRules, data: Any = None) -> "HouseRulesForm":
        initial: dict[str, Any] = rules.as_dict()
        initial["level_thresholds"] = ", ".join(str(t) for t in rules.level_thresholds)
        return cls(data, initial=initial)

    def clean_level_thresholds(self) -> list[int]:
        raw = self.cleaned_data["level_thresholds"]
        parts = [p.strip() for p in raw.replace(";", ",").split(",") if p.strip()]
        if not parts:
            raise ValidationError("List the XP for each level, starting with 0.")
        numbers = []
        for part in parts:
            if not is_whole_number(part):
                raise ValidationError(f"“{part}” is not a whole number of XP.")
            numbers.append(int(part))
        return numbers

    def add_problems(self, problems: Iterable[str]) -> None:
        """Put each of the services' problems next to the field it is about."""
        labels = {LABELS[name]: name for name in LABELS}
        for problem in problems:
            field = next((name for label, name in labels.items() if label in problem), None)
            if field is None and ("threshold" in problem.lower() or "level" in problem.lower()):
                field = "level_thresholds"
            if field is None and problem.startswith("Starting Resources"):
                field = "starting_resources"
            self.add_error(field if field in self.fields else None, problem)


class EnterForceForm(_Form):
    force = forms.TypedChoiceField(
        label="Your force",
        coerce=int,
        widget=forms.RadioSelect,
        error_messages={
            "required": "Choose the force to enter.",
            "invalid_choice": "Choose one of your forces that can enter.",
        },
    )

    def __init__(self, *args: Any, choices: Sequence[tuple[int, str]] = (), **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["force"].choices = list(choices)


class BattleForm(_Form):
    """The battle itself (R14); the members' results are `MemberResultForm`s beside it."""

    played_on = forms.DateField(
        label="Date played",
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={
            "required": "When was the battle played?",
            "invalid": "Enter a date, such as 2025-03-01.",
        },
    )
    scenario = forms.CharField(
        label="Scenario",
        max_length=100,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        error_messages={
            "required": "Name the scenario you played.",
            "max_length": "Keep the scenario name to 100 characters or fewer.",
        },
    )
    forces = forms.TypedMultipleChoiceField(
        label="Forces that took part",
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "required": "Tick the forces that took part.",
            "invalid_choice": "Tick only forces still playing in this campaign.",
        },
    )
    winner = forms.CharField(
        label="Result",
        required=False,
    )

    def __init__(
        self, *args: Any, force_choices: Sequence[tuple[int, str]] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["forces"].choices = list(force_choices)

    def clean_scenario(self) -> str:
        return _clean_required_text(self.cleaned_data["scenario"], "Name the scenario you played.")

    def clean_played_on(self) -> datetime.date:
        played_on = self.cleaned_data["played_on"]
        if played_on > timezone.localdate():
            raise ValidationError("The date is in the future; record a battle once it is played.")
        return played_on

    def clean_forces(self) -> list[int]:
        forces = self.cleaned_data["forces"]
        if len(forces) < 2:
            raise ValidationError("Tick two or more forces: a battle needs opponents.")
        return forces

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        winner = data.get("winner") or ""
        forces = data.get("forces") or []
        if winner == "":
            if forces:
                self.add_error("winner", "Choose the winner, or a draw.")
            data["winner_id"] = None
        elif winner == "draw":
            data["winner_id"] = None
        elif is_whole_number(winner) and int(winner) in forces:
            data["winner_id"] = int(winner)
        else:
            self.add_error("winner", "The winner must be one of the forces that took part.")
        return data


class MemberResultForm(_Form):
    """One member's part in a battle (R14); prefixed with the member's id."""

    took_part = forms.BooleanField(label="Took part", required=False)
    unconscious = forms.BooleanField(label="Unconscious", required=False)
    out_of_action = forms.BooleanField(label="Out of Action", required=False)
    enemies_out_of_action = forms.IntegerField(
        label="Enemies taken Out of Action",
        min_value=0,
        max_value=MAX_PER_MEMBER,
        initial=0,
        required=False,
        widget=forms.NumberInput(attrs={"min": 0, "max": MAX_PER_MEMBER, "inputmode": "numeric"}),
        error_messages={
            "invalid": "A whole number, 0 or more.",
            "min_value": "A whole number, 0 or more.",
            "max_value": f"At most {MAX_PER_MEMBER}.",
        },
    )
    objectives = forms.IntegerField(
        label="Objectives",
        min_value=0,
        max_value=MAX_OBJECTIVES,
        initial=0,
        required=False,
        widget=forms.NumberInput(attrs={"min": 0, "max": MAX_OBJECTIVES, "inputmode": "numeric"}),
        error_messages={
            "invalid": "A whole number, 0 or more.",
            "min_value": "A whole number, 0 or more.",
            "max_value": f"At most {MAX_OBJECTIVES}.",
        },
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        for name in ("enemies_out_of_action", "objectives"):
            if data.get(name) is None and name not in self.errors:
                data[name] = 0
        if not data.get("took_part"):
            stray = [
                self.fields[name].label
                for name in ("unconscious", "out_of_action")
                if data.get(name)
            ] + [
                self.fields[name].label
                for name in ("enemies_out_of_action", "objectives")
                if data.get(name)
            ]
            if stray:
                raise ValidationError(
                    "Tick “Took part” for a member with results ("
                    + ", ".join(s.lower() for s in stray)
                    + ")."
                )
        return data


class VoidForm(_Form):
    reason = forms.CharField(
        label="Reason",
        max_length=200,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
        error_messages={"max_length": "Keep the reason to 200 characters or fewer."},
    )

    def __init__(self, *args: Any, reason_required: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reason_required = reason_required
        if reason_required:
            self.fields["reason"].required = True
            self.fields["reason"].error_messages["required"] = (
                "Say why the battle is voided; everyone sees it in the log."
            )
            self.fields["reason"].help_text = "Everyone in the campaign sees it in the log."
        else:
            self.fields["reason"].label = "Reason (optional)"


class LevelUpForm(_Form):
    """R17: a line of the member's society table; for a skill line, roll or pick (R5).

    The page's "Pick this skill" buttons, one per skill line, send `pick` (the line) with
    the skill chosen from that line's table: a pick then, whatever line is ticked."""

    advancement = forms.ChoiceField(
        label="Advancement",
        widget=forms.RadioSelect,
        required=False,
        error_messages={"invalid_choice": "Choose one of the lines listed."},
    )
    pick = forms.ChoiceField(
        required=False, error_messages={"invalid_choice": "Choose one of the lines listed."}
    )
    method = forms.ChoiceField(
        label="For a skill line",
        choices=[
            ("rolled", "Roll on the server (free)"),
            ("picked", "Pick the skill (costs 2 FR)"),
        ],
        initial="rolled",
        widget=forms.RadioSelect,
        required=False,
    )
    skill = forms.ChoiceField(label="Skill to pick", required=False)

    def __init__(
        self,
        *args: Any,
        advancements: Sequence[tuple[str, str]] = (),
        skill_lines: Iterable[str] = (),
        skills: Sequence[tuple[str, Any]] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["advancement"].choices = list(advancements)
        self.skill_lines = set(skill_lines)
        self.fields["pick"].choices = [(k, k) for k, _ in advancements if k in self.skill_lines]
        self.fields["skill"].choices = [("", "Choose a skill"), *skills]

    @property
    def picked_line(self) -> str:
        """The skill line a pick was asked for, so the page shows its list open with any
        error beside it ("" when none was)."""
        if not self.is_bound:
            return ""
        if self.data.get("pick"):
            return str(self.data["pick"])
        picked = self.data.get("method") == "picked"
        return str(self.data.get("advancement", "")) if picked else ""

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("pick"):
            data["advancement"], data["method"] = data["pick"], "picked"
        key = data.get("advancement") or ""
        if not key and "advancement" not in self.errors and "pick" not in self.errors:
            self.add_error("advancement", "Choose a line of the society's table.")
        line, _, choice = key.partition(":")
        data["line"] = int(line) if is_whole_number(line) else None
        data["choice"] = choice or None
        data["method"] = data.get("method") or "rolled"
        if key in self.skill_lines and data["method"] == "picked" and not data.get("skill"):
            self.add_error("skill", "Choose the skill to pick, or roll for it instead.")
        return data


class LevelUpRollForm(_Form):
    """Finish an open level-up roll: roll again on a table (after a natural 12, or as
    a re-roll for 1 FR), take a free pick, or pick outright for 2 FR (R5)."""

    action = forms.ChoiceField(
        choices=[("roll", "Roll"), ("free-pick", "Free pick"), ("pick", "Pick")],
        widget=forms.HiddenInput,
    )
    table = forms.ChoiceField(label="Table to roll on", required=False)
    skill = forms.ChoiceField(label="Skill", required=False)

    def __init__(
        self,
        *args: Any,
        tables: Sequence[tuple[str, str]] = (),
        skills: Sequence[tuple[str, Any]] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["table"].choices = [("", "Choose a table"), *tables]
        self.fields["skill"].choices = [("", "Choose a skill"), *skills]
