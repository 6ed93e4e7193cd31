"""Saved forces. A force and its members map one-to-one onto a dbd-roster/1 document.

Member columns mirror the document's member keys, and the list-valued keys
(advancements, equipment, spells) are stored as the JSON the document holds, so
export is a read and import is a write with nothing lost in between (R12 pointers
into a saved force are the same as into its export).
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


class Force(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="forces"
    )
    name = models.CharField(max_length=100)
    resources = models.PositiveIntegerField(
        default=50, validators=[MinValueValidator(1), MaxValueValidator(1_000_000)]
    )
    # The rules edition the force was built under (`Catalogue.rules_version`). It stays
    # until the owner reviews a new edition and moves the force to it
    # (`roster.services.move_to_rules`); until then the force's changes wait.
    rules_version = models.CharField(max_length=30)
    # Set while a read-only share link is on; unguessable (secrets.token_urlsafe).
    share_token = models.CharField(max_length=64, unique=True, null=True, blank=True)
    # The engine's last answer for the force as stored, refreshed by every write in
    # roster.services; a test proves it always equals a fresh evaluation.
    evaluation = models.JSONField(null=True, blank=True, editable=False)
    # What the stored evaluation was worked out with (`engine.evaluation_version`: the
    # rules' content and the engine's code): when either moves, the evaluation is worked
    # out again (`manage.py refresh_evaluations`, and on read: `roster.selectors`).
    evaluation_version = models.CharField(max_length=40, blank=True, default="", editable=False)
    # Moved by every write (roster.services): what If-Match, the builder's stale-edit
    # check and every cache keyed on the force compare.
    version = models.PositiveIntegerField(default=1, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]

    def __str__(self) -> str:
        return self.name

    @property
    def is_legal(self) -> bool:
        return bool(self.evaluation and self.evaluation["valid"])


class Member(models.Model):
    class Role(models.TextChoices):
        STUDENT = "student", "Student"
        MENTOR = "mentor", "Mentor"

    force = models.ForeignKey(Force, on_delete=models.CASCADE, related_name="members")
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=60)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.STUDENT)
    club_name = models.CharField(max_length=60)
    society = models.CharField(max_length=100)
    society_choice = models.CharField(max_length=2)
    base_me = models.SmallIntegerField()
    base_ra = models.SmallIntegerField()
    base_ca = models.SmallIntegerField()
    base_df = models.SmallIntegerField()
    free_advancements = models.JSONField(default=list, blank=True)
    purchases = models.JSONField(default=list, blank=True)
    equipment = models.JSONField(default=list, blank=True)
    core_schools = models.JSONField(default=list, blank=True)
    spells = models.JSONField(default=list, blank=True)
    spell_focus = models.BooleanField(default=False)
    # null, not "", when unset: the document says `"mastery": null`.
    mastery = models.CharField(max_length=100, null=True, blank=True)  # noqa: DJ001
    xp = models.PositiveIntegerField(default=0)
    level_ups = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["force", "position"], name="unique_member_position")
        ]

    def __str__(self) -> str:
        return self.name


class SkillRoll(models.Model):
    """A d12 roll the server made for a skill advancement (R5), kept as evidence."""

    class Outcome(models.TextChoices):
        SKILL = "skill", "Skill"
        PICK_FREELY = "pick-freely", "Pick freely"
        NATURAL_12 = "natural-12", "Natural 12"

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="rolls")
    rolled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Which advancement it was for: "free_advancements/0", "level_ups/2".
    slot = models.CharField(max_length=40)
    table = models.CharField(max_length=30, help_text="The skill category rolled on.")
    dice = models.JSONField(help_text="Every die rolled, re-rolls above the table included.")
    outcome = models.CharField(max_length=12, choices=Outcome.choices)
    skill = models.CharField(max_length=100, blank=True)
    choices = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["member", "slot"])]

    def __str__(self) -> str:
        return f"{self.member} {self.slot}: {self.dice} -> {self.skill or self.outcome}"
