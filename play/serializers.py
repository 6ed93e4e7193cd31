"""The play API's bodies and answers. Shapes only: the rules are in `play.table`, the
writes in `play.services`; nothing here computes a probability or a result."""

from rest_framework import serializers

from campaign.serializers import StrictBooleanField, StrictCharField, StrictIntegerField
from dbd_site.serializers import StrictSerializer
from play import table

BATTLE_STATUSES = ["playing", "ended"]
FIGURE_STATUSES = ["active", "unconscious", "out-of-action"]
ATTACK_KINDS = ["melee", "ranged"]
ACTION_TYPES = (
    "initiative",
    "attack",
    "transfer",
    "spell",
    "spell-attack",
    "heal",
    "revive",
    "jump",
    "roll",
    "change",
    "activate",
    "next-turn",
)


# --- bodies -----------------------------------------------------------------------------


class PlayNewBattleSerializer(StrictSerializer):
    scenario = StrictCharField(max_length=100)
    forces = serializers.ListField(
        child=StrictIntegerField(min_value=1),
        min_length=1,
        max_length=6,
        help_text="Ids of the forces: your own (one-off), or the campaign's forces' roster "
        "ids (`campaign`).",
    )
    opponent_link = StrictCharField(
        required=False,
        max_length=300,
        help_text="One-off against another player's force: its share link (or token).",
    )
    campaign = StrictIntegerField(required=False, min_value=1)
    entered_rolls_allowed = StrictBooleanField(
        required=False,
        help_text="May dice rolled at the table be entered (P5)? Omitted: the campaign's "
        "house rule `entered_rolls_allowed` (a one-off: true). `true` in a campaign that "
        "forbids entered rolls is refused with `entered-rolls-forbidden`. When false, "
        "every action's `dice` is refused with `entered-rolls-forbidden`.",
    )


class PlaySituationSerializer(StrictSerializer):
    obscured = serializers.ChoiceField(["clear", "partial", "significant"], default="clear")
    rear_arc = StrictBooleanField(default=False)
    movement = serializers.ChoiceField(["none", "moved", "ran", "dashed"], default="moved")
    target_in_melee = StrictBooleanField(default=False)
    target_cannot_see_attacker = StrictBooleanField(default=False)
    double_range = StrictBooleanField(default=False)
    quickdraw = StrictBooleanField(default=False)
    charged = StrictBooleanField(default=False)
    non_charge_move = StrictBooleanField(default=False)
    opponents_in_melee = StrictIntegerField(default=1, min_value=1, max_value=8)
    mighty_attack = StrictBooleanField(default=False)
    dual_wield = StrictBooleanField(default=False)
    best_of_two = StrictBooleanField(default=False)
    statistic_penalty = StrictIntegerField(default=0, min_value=0, max_value=5)
    to_hit_bonus = StrictIntegerField(default=0, min_value=0, max_value=1)
    target_fortified = StrictBooleanField(default=False)


class PlayAttackDeclarationSerializer(StrictSerializer):
    figure = StrictIntegerField(min_value=1, help_text="The attacking figure's id.")
    target = StrictIntegerField(min_value=1)
    kind = serializers.ChoiceField(ATTACK_KINDS)
    weapon = StrictCharField(allow_null=True, max_length=100, help_text="null: no weapon.")
    mode = StrictIntegerField(default=0, min_value=0, max_value=3)
    situation = PlaySituationSerializer(required=False)


class PlayTransferSerializer(StrictSerializer):
    figure = StrictIntegerField(min_value=1)
    amount = StrictIntegerField(min_value=1, max_value=99)


class PlayActionSerializer(PlayAttackDeclarationSerializer):
    """One action. `type` says which; each type reads the keys it needs (see the summary).

    `dice`: leave it out for the server's dice; send the dice rolled at the table to enter
    them (marked so in the log, P5). Initiative takes rounds: `[[7, 7], [3, 9]]`.
    """

    type = serializers.ChoiceField(ACTION_TYPES)
    figure = StrictIntegerField(required=False, min_value=1)
    target = StrictIntegerField(required=False, min_value=1, allow_null=True)
    kind = serializers.ChoiceField(ATTACK_KINDS, required=False)
    weapon = StrictCharField(required=False, allow_null=True, max_length=100)
    dice = serializers.JSONField(
        required=False,
        allow_null=True,
        help_text="Dice rolled at the table (P5); leave it out for the server's. Refused "
        "with `entered-rolls-forbidden` (400) when the battle's `entered_rolls_allowed` is "
        "false (its campaign's house rule, or the starter's choice).",
    )
    transfers = PlayTransferSerializer(many=True, required=False, max_length=6)
    spell = StrictCharField(required=False, max_length=100)
    anathema_aura = StrictBooleanField(default=False)
    empowered = StrictBooleanField(default=False)
    chosen = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=6)
    distance = StrictIntegerField(required=False, min_value=0, max_value=36)
    movement = serializers.ChoiceField(["none", "moved", "ran", "dashed"], default="moved")
    discard_climbing_gear = StrictBooleanField(default=False)
    count = StrictIntegerField(default=1, min_value=1, max_value=12)
    reason = StrictCharField(required=False, allow_blank=True, max_length=100)
    hp = StrictIntegerField(required=False, allow_null=True, min_value=0, max_value=99)
    status = serializers.ChoiceField(FIGURE_STATUSES, required=False, allow_null=True)
    markers = serializers.DictField(
        child=StrictIntegerField(min_value=-9, max_value=9),
        required=False,
        help_text="Markers to add (or, negative, remove): " + ", ".join(table.state.MARKERS),
    )
    discard = serializers.ChoiceField(
        list(table.state.ONE_USE_ITEMS), required=False, allow_null=True
    )
    forget = StrictCharField(required=False, allow_null=True, max_length=100)
    activated = StrictBooleanField(required=False, allow_null=True)
    note = StrictCharField(required=False, allow_blank=True, max_length=200)


class PlayEndSerializer(StrictSerializer):
    winner = StrictIntegerField(
        allow_null=True, min_value=0, max_value=5, help_text="The winning side, null: a draw."
    )
    objectives = serializers.DictField(
        child=StrictIntegerField(min_value=0, max_value=10),
        required=False,
        help_text="Objectives per figure id (R14b: 0 to 10).",
    )


# --- answers --------------------------------------------------------------------------------


class PlayFigureSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    stats = serializers.DictField(child=serializers.IntegerField())
    defence = serializers.DictField(child=serializers.IntegerField())
    skills = serializers.ListField(child=serializers.CharField())
    equipment = serializers.ListField(child=serializers.CharField())
    spells = serializers.ListField(child=serializers.CharField())
    hp = serializers.IntegerField()
    max_hp = serializers.IntegerField()
    status = serializers.ChoiceField(FIGURE_STATUSES)
    activated = serializers.BooleanField()
    markers = serializers.DictField(child=serializers.IntegerField())
    discarded = serializers.ListField(child=serializers.CharField())
    forgotten = serializers.ListField(child=serializers.CharField())


class PlaySideSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    force = serializers.CharField()
    player = serializers.CharField()
    figures = PlayFigureSerializer(many=True)


class PlayLogLineSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    words = serializers.CharField()
    dice = serializers.ListField(child=serializers.IntegerField())
    entered = serializers.BooleanField()
    undone = serializers.BooleanField()
    actor = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()


class PlayInitiativeSerializer(serializers.Serializer):
    rolls = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    bonuses = serializers.ListField(child=serializers.IntegerField())
    winner = serializers.IntegerField()


class PlaySpellAttacksSerializer(serializers.Serializer):
    caster = serializers.IntegerField(help_text="The caster's figure id: the attacker.")
    spell = serializers.CharField()
    successes = serializers.IntegerField()
    rate_of_fire = serializers.IntegerField(help_text="Attack dice against each target.")
    accuracy = serializers.IntegerField(help_text="Acc: added to each attack's roll.")
    blast = serializers.IntegerField(allow_null=True)
    ignores_cover = serializers.BooleanField(help_text="No Obscured modifier applies.")
    needs_line_of_sight = serializers.BooleanField()
    friends_too = serializers.BooleanField(help_text="Friendly figures may be targets.")
    caster_too = serializers.BooleanField(help_text="The caster is one of its targets.")
    targets = serializers.IntegerField(
        allow_null=True, help_text="How many targets; null: every figure in the radius."
    )
    targets_left = serializers.IntegerField(allow_null=True)
    attacked = serializers.ListField(child=serializers.IntegerField())
    may_target = serializers.ListField(
        child=serializers.IntegerField(), help_text="Figures it may still attack."
    )
    words = serializers.CharField()


class PlaySpellAttackDeclarationSerializer(StrictSerializer):
    target = StrictIntegerField(min_value=1)
    situation = PlaySituationSerializer(required=False)


class PlayBattleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    scenario = serializers.CharField()
    status = serializers.ChoiceField(BATTLE_STATUSES)
    version = serializers.IntegerField(help_text="Bumped by every action; the ETag's value.")
    campaign = serializers.IntegerField(allow_null=True)
    spectator_url = serializers.URLField(help_text="Read-only link for anyone.")
    entered_rolls_allowed = serializers.BooleanField(
        help_text="P5: false when the battle takes the server's dice only (copied from its "
        "campaign's house rule when it started, or chosen by the starter)."
    )
    may_act = serializers.BooleanField()
    turn = serializers.IntegerField()
    initiative = PlayInitiativeSerializer(allow_null=True)
    acting_side = serializers.IntegerField(allow_null=True)
    sides = PlaySideSerializer(many=True)
    log = PlayLogLineSerializer(many=True)
    record = serializers.JSONField(allow_null=True)
    recorded_battle = serializers.IntegerField(allow_null=True)
    spell_attacks = PlaySpellAttacksSerializer(
        allow_null=True,
        help_text="A Destruction spell (or Dragon Slayer) cast whose ranged attacks are still "
        "to be rolled: post `spell-attack` actions, one per target. null when none waits.",
    )


class PlayBattleListItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    scenario = serializers.CharField()
    status = serializers.ChoiceField(BATTLE_STATUSES)
    campaign = serializers.IntegerField(allow_null=True)
    sides = serializers.ListField(child=serializers.CharField())
    updated_at = serializers.DateTimeField()


class PlayModifierSerializer(serializers.Serializer):
    applies_to = serializers.CharField()
    amount = serializers.IntegerField()
    source = serializers.CharField()


class PlayAttackOddsSerializer(serializers.Serializer):
    needed = serializers.IntegerField(help_text="The lowest d12 face that hits.")
    needed_words = serializers.CharField()
    chance_to_hit = serializers.CharField(help_text="Exact, as a fraction: '5/12'.")
    chance_to_hit_percent = serializers.FloatField()
    expected_damage = serializers.CharField(help_text="Exact, per attack die.")
    expected_damage_per_use = serializers.CharField()
    expected_damage_decimal = serializers.FloatField(help_text="Per use, to two places.")
    rate_of_fire = serializers.IntegerField()
    actions = serializers.IntegerField()
    statistic = serializers.CharField()
    statistic_value = serializers.IntegerField()
    to_hit = serializers.IntegerField()
    target_df = serializers.IntegerField()
    modified_df = serializers.IntegerField()
    modifiers = PlayModifierSerializer(many=True)
    notes = serializers.ListField(child=serializers.CharField())
