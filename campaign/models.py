"""Campaigns: players, their campaign copies of forces, the Resources ledger, battles.

Nothing here is written directly by views: `campaign.services` keeps the rules
(R14-R18) and writes a `CampaignEvent` for every change. The ledger is append-only
(R15): a mistake is corrected by a new entry, never by editing or deleting one.

Deleting history is refused by the database layer too: ledger entries and battle
results point at their campaign force with RESTRICT, so deleting a campaign force
(or the roster force under it) fails while it has a ledger; deleting a whole
campaign takes everything with it.
"""

import secrets

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils import timezone

from campaign.progression import DEFAULT_RULES, HouseRules
from roster.models import Force, Member


def new_invite_token() -> str:
    """An unguessable invitation token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def default_level_thresholds() -> list[int]:
    return list(DEFAULT_RULES.level_thresholds)


class Campaign(models.Model):
    name = models.CharField(max_length=100)
    # PROTECT: an organiser's account cannot vanish from under everyone's campaign.
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="organised_campaigns"
    )
    invite_token = models.CharField(max_length=64, unique=True, default=new_invite_token)
    # House rules (R14-R18): one column per `HouseRules` number, with its default.
    starting_resources = models.PositiveIntegerField(
        default=DEFAULT_RULES.starting_resources, validators=[MinValueValidator(1)]
    )
    resources_for_win = models.PositiveIntegerField(default=DEFAULT_RULES.resources_for_win)
    resources_for_draw = models.PositiveIntegerField(default=DEFAULT_RULES.resources_for_draw)
    resources_for_loss = models.PositiveIntegerField(default=DEFAULT_RULES.resources_for_loss)
    xp_for_taking_part = models.PositiveIntegerField(default=DEFAULT_RULES.xp_for_taking_part)
    xp_per_enemy_out_of_action = models.PositiveIntegerField(
        default=DEFAULT_RULES.xp_per_enemy_out_of_action
    )
    xp_per_objective = models.PositiveIntegerField(default=DEFAULT_RULES.xp_per_objective)
    xp_for_winning_side = models.PositiveIntegerField(default=DEFAULT_RULES.xp_for_winning_side)
    level_thresholds = models.JSONField(default=default_level_thresholds)
    points_for_win = models.PositiveIntegerField(default=DEFAULT_RULES.points_for_win)
    points_for_draw = models.PositiveIntegerField(default=DEFAULT_RULES.points_for_draw)
    points_for_loss = models.PositiveIntegerField(default=DEFAULT_RULES.points_for_loss)
    # P5: battles started in the campaign copy it (`play.models.Battle.entered_rolls_allowed`).
    entered_rolls_allowed = models.BooleanField(default=DEFAULT_RULES.entered_rolls_allowed)
    created_at = models.DateTimeField(default=timezone.now)
    # Confirmed battles (a voided one no longer counts, R15a), for the list of campaigns:
    # counting them on each read would cost more the longer a campaign runs. Kept like
    # the forces' tallies: by `campaign.services` as battles are confirmed and voided;
    # `campaign.tallies.recount_battles_played` says what it is.
    battles_played = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name

    @property
    def house_rules(self) -> HouseRules:
        return HouseRules(
            **{name: getattr(self, name) for name in HouseRules.number_names()},
            **{name: getattr(self, name) for name in HouseRules.flag_names()},
            level_thresholds=tuple(self.level_thresholds),
        )


class CampaignPlayer(models.Model):
    """A user in a campaign; the organiser is a player too."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_memberships"
    )
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="unique_campaign_player")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.campaign}"


class CampaignForce(models.Model):
    """The campaign's own copy of a player's force (the freeform original is untouched)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="forces")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaign_forces"
    )
    force = models.OneToOneField(Force, on_delete=models.CASCADE, related_name="campaign_entry")
    entered_from = models.ForeignKey(
        Force, on_delete=models.SET_NULL, null=True, blank=True, related_name="campaign_copies"
    )
    entered_at = models.DateTimeField(default=timezone.now)
    retired_at = models.DateTimeField(null=True, blank=True)
    # Tallies the standings read, so they cost the same however many battles the
    # campaign has: confirmed battles won, drawn and lost (R14; a voided one counts for
    # nothing, R15a) and the ledger's balance (R15). Kept by `campaign.services` alone,
    # in the transaction of each battle confirmed or voided and each ledger entry;
    # `campaign.tallies.recount_standings` says what they are, from the battles and the
    # ledger (the migration, bulk seeds and the tests use it).
    won = models.PositiveIntegerField(default=0, editable=False)
    drawn = models.PositiveIntegerField(default=0, editable=False)
    lost = models.PositiveIntegerField(default=0, editable=False)
    balance = models.IntegerField(default=0, editable=False)

    class Meta:
        ordering = ["entered_at", "id"]
        indexes = [models.Index(fields=["campaign", "player"])]

    def __str__(self) -> str:
        return f"{self.force.name} ({self.campaign})"

    @property
    def is_active(self) -> bool:
        return self.retired_at is None


class Battle(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending confirmation"
        CONFIRMED = "confirmed", "Confirmed"
        VOID = "void", "Void"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="battles")
    played_on = models.DateField()
    scenario = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.CharField(max_length=200, blank=True)
    # No winner is a draw (R14). RESTRICT: a winner's history cannot be deleted.
    winner = models.ForeignKey(
        CampaignForce,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="battles_won",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-played_on", "-id"]
        indexes = [
            models.Index(fields=["campaign", "status", "-played_on"]),
            models.Index(fields=["campaign", "status", "confirmed_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.scenario} ({self.played_on})"


class BattleForce(models.Model):
    class Outcome(models.TextChoices):
        WIN = "win", "Win"
        DRAW = "draw", "Draw"
        LOSS = "loss", "Loss"

    battle = models.ForeignKey(Battle, on_delete=models.CASCADE, related_name="battle_forces")
    campaign_force = models.ForeignKey(
        CampaignForce, on_delete=models.RESTRICT, related_name="battle_entries"
    )
    outcome = models.CharField(max_length=4, choices=Outcome.choices)

    class Meta:
        ordering = ["battle", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["battle", "campaign_force"], name="unique_battle_force"
            )
        ]
        indexes = [
            # Covering (PostgreSQL): a force's outcomes from the index alone, with the
            # battle to join to (the tallies' recount, `campaign.tallies`).
            models.Index(
                fields=["campaign_force", "outcome"],
                include=["battle"],
                name="battleforce_force_outcome",
            )
        ]

    def __str__(self) -> str:
        return f"{self.campaign_force_id} {self.outcome} in battle {self.battle_id}"


class BattleMemberResult(models.Model):
    """One member who took part (R14); `xp_awarded` is set when the battle is confirmed."""

    battle_force = models.ForeignKey(
        BattleForce, on_delete=models.CASCADE, related_name="member_results"
    )
    # SET_NULL: a retired member's results stay, under the name they had (snapshot).
    member = models.ForeignKey(
        Member, on_delete=models.SET_NULL, null=True, blank=True, related_name="battle_results"
    )
    member_name = models.CharField(max_length=60)
    unconscious = models.BooleanField(default=False)
    out_of_action = models.BooleanField(default=False)
    enemies_out_of_action = models.PositiveSmallIntegerField(default=0)
    objectives = models.PositiveSmallIntegerField(default=0)
    xp_awarded = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["battle_force", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["battle_force", "member"],
                condition=models.Q(member__isnull=False),
                name="unique_battle_member",
            )
        ]

    def __str__(self) -> str:
        return f"{self.member_name} in battle force {self.battle_force_id}"


class LedgerEntry(models.Model):
    """One change of a campaign force's Resources (R15). Append-only."""

    class Kind(models.TextChoices):
        START = "start", "Starting Resources"
        BATTLE = "battle", "Battle reward"
        PURCHASE = "purchase", "Purchase"
        ADJUSTMENT = "adjustment", "Adjustment"
        REVERSAL = "reversal", "Reversal"

    # The campaign is repeated here so a campaign's whole ledger is one indexed query
    # (charts, export), and so deleting a campaign cascades past the RESTRICT below.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="ledger")
    campaign_force = models.ForeignKey(
        CampaignForce, on_delete=models.RESTRICT, related_name="ledger_entries"
    )
    amount = models.IntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    reason = models.CharField(max_length=200)
    battle = models.ForeignKey(
        Battle, on_delete=models.RESTRICT, null=True, blank=True, related_name="ledger_entries"
    )
    reverses = models.OneToOneField(
        "self", on_delete=models.RESTRICT, null=True, blank=True, related_name="reversed_by"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        # Entry order is id order: entries of one force are written under its row lock.
        ordering = ["id"]
        verbose_name_plural = "ledger entries"
        indexes = [
            models.Index(fields=["campaign_force", "id"]),
            models.Index(fields=["campaign", "id"]),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+d} {self.kind}: {self.reason}"


class CampaignEvent(models.Model):
    """The campaign log: who did what, when, for everything that changes campaign state."""

    class Kind(models.TextChoices):
        CAMPAIGN_CREATED = "campaign-created", "Campaign created"
        HOUSE_RULES_CHANGED = "house-rules-changed", "House rules changed"
        INVITE_RESET = "invite-reset", "Invitation link replaced"
        PLAYER_JOINED = "player-joined", "Player joined"
        FORCE_ENTERED = "force-entered", "Force entered"
        FORCE_CHANGED = "force-changed", "Force changed"
        FORCE_RETIRED = "force-retired", "Force retired"
        LEVEL_UP = "level-up", "Level-up taken"
        BATTLE_RECORDED = "battle-recorded", "Battle recorded"
        BATTLE_CONFIRMED = "battle-confirmed", "Battle confirmed"
        BATTLE_VOIDED = "battle-voided", "Battle voided"
        RESOURCES_SPENT = "resources-spent", "Resources spent"
        RESOURCES_ADJUSTED = "resources-adjusted", "Resources adjusted"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    kind = models.CharField(max_length=30, choices=Kind.choices)
    message = models.CharField(max_length=500)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["campaign", "-created_at", "-id"])]

    def __str__(self) -> str:
        return self.message
