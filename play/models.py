"""A battle being played: its sides, each figure's numbers as they were when it started,
its state as it stands, and the log of every action (each with the state before it, so
the last can be undone).

The state is one JSON value on the battle row (`play.table.BattleState`): an action locks
the row, changes the state through the pure rules in `play.table`, stores it with a new
`version` and appends its log line, all in one transaction.
"""

import secrets

from django.conf import settings
from django.db import models


def new_spectator_token() -> str:
    """An unguessable read-only link token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


class Battle(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", "Playing"
        ENDED = "ended", "Ended"

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    campaign = models.ForeignKey(
        "campaign.Campaign",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="live_battles",
    )
    scenario = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    # The read-only link's token; the sides replace it (the old link then answers 404) or
    # withdraw it (None: no link) (`play.sharing`).
    spectator_token = models.CharField(
        max_length=64, unique=True, null=True, blank=True, default=new_spectator_token
    )
    # P5: dice may be entered as rolled at the table (and are marked so in the log).
    entered_rolls_allowed = models.BooleanField(default=True)
    # Bumped by every action and undo: the API's ETag and the screen's poll compare it.
    version = models.PositiveIntegerField(default=1)
    # Verifiable dice (play.table.commitment): the secret seed every server die is drawn
    # from (shown once the battle has ended), its SHA-256 as published from the start
    # (kept, so the check compares the seed with what was published, not with itself),
    # and the index in its stream where the next action's dice begin (an undo leaves it
    # where it is). Empty for a battle started before dice were committed to.
    dice_seed = models.CharField(max_length=64, blank=True, default="", db_default="")
    dice_commitment = models.CharField(max_length=64, blank=True, default="", db_default="")
    dice_next = models.PositiveIntegerField(default=0, db_default=0)
    state = models.JSONField()
    # When it ended: the R14 record as filled from the log and completed by the players,
    # and in a campaign, the pending battle it became (R14a).
    record = models.JSONField(null=True, blank=True)
    recorded_battle = models.ForeignKey(
        "campaign.Battle", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return self.scenario


class BattleSide(models.Model):
    """One force in the battle; its player acts for it."""

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="sides")
    position = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    # A side played with someone else's force, from its share link: its owner, invited to
    # take the side over. The starter plays it until they accept (`play.sharing`).
    invited = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    force = models.ForeignKey(
        "roster.Force", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    force_name = models.CharField(max_length=100)
    campaign_force = models.ForeignKey(
        "campaign.CampaignForce",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["battle", "position"], name="unique_side_position")
        ]

    def __str__(self) -> str:
        return self.force_name


class BattleFigure(models.Model):
    """A figure's numbers as the battle copied them when it started (`play.table.Figure`)."""

    side = models.ForeignKey(BattleSide, on_delete=models.CASCADE, related_name="figures")
    position = models.PositiveSmallIntegerField()
    member = models.ForeignKey(
        "roster.Member", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    name = models.CharField(max_length=60)
    numbers = models.JSONField()

    class Meta:
        ordering = ["side__position", "position"]

    def __str__(self) -> str:
        return self.name


class BattleAction(models.Model):
    """One line of the battle's log: what was done, the dice, and the state before it."""

    # The kinds of line that roll attacks: a Friendship transfer may follow either (P3).
    ATTACK_KINDS = ("attack", "spell-attack")

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=20)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    words = models.TextField()
    detail = models.JSONField(default=dict)
    dice = models.JSONField(default=list)
    # P5: True when the dice were entered as rolled at the table, not rolled by the server.
    entered = models.BooleanField(default=False)
    # For each of the server's `dice`, in order: [its index in the battle's dice stream,
    # its faces] (play.table.commitment). Empty for entered dice.
    dice_drawn = models.JSONField(default=list, blank=True)
    events = models.JSONField(default=list)
    state_before = models.JSONField()
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )

    class Meta:
        ordering = ["battle", "seq"]
        constraints = [models.UniqueConstraint(fields=["battle", "seq"], name="unique_action_seq")]

    def __str__(self) -> str:
        return f"{self.seq}. {self.words}"
