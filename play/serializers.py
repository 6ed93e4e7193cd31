"""The play API's bodies and answers. Shapes only: the rules are in `play.table`, the
writes in `play.services`; nothing here computes a probability or a result."""

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from dbd_site.serializers import (
    BoundedDictField,
    BoundedListField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from play import bounds, table

BATTLE_STATUSES = ["playing", "ended"]
FIGURE_STATUSES = ["active", "unconscious", "out-of-action"]
ATTACK_KINDS = ["melee", "ranged"]
DECISION_KINDS = ["transfer", "dodge"]


# --- bodies -----------------------------------------------------------------------------

_DIE = {"type": "integer", "minimum": 1, "maximum": table.dice.DIE}


@extend_schema_field(
    {
        "type": "array",  # null too: the field allows it
        "maxItems": max(bounds.MAX_DICE_PER_ROLL, bounds.MAX_INITIATIVE_ROUNDS),
        # A die or a round: one shape or the other, never both (issue #32).
        "items": {
            "oneOf": [
                _DIE,
                {
                    "type": "array",
                    "items": _DIE,
                    "maxItems": bounds.MAX_DICE_PER_INITIATIVE_ROUND,
                },
            ]
        },
    }
)
class DiceField(serializers.JSONField):
    """Entered dice (P5): a list, or for initiative a list of rounds. Their bounds are
    checked with the action's type (`PlayActionSerializer.validate`); the values, by the
    rule that rolls them (`play.table.check_entered`)."""


def _too_many(limit: int) -> serializers.ErrorDetail:
    return serializers.ErrorDetail(f"At most {limit} entries here.", code="too-many-items")


def _not_a_die() -> serializers.ErrorDetail:
    return serializers.ErrorDetail(
        f"A die is a whole number from 1 to {table.dice.DIE}.", code="invalid-roll"
    )


def _dice_problem(dice: list[Any], *, initiative: bool) -> Any:
    """What is wrong with the shape of entered dice (None: nothing), as DRF's detail."""
    if not initiative:
        if len(dice) > bounds.MAX_DICE_PER_ROLL:
            return [_too_many(bounds.MAX_DICE_PER_ROLL)]
        nested = {i: [_not_a_die()] for i, die in enumerate(dice) if isinstance(die, list | dict)}
        return nested or None
    if len(dice) > bounds.MAX_INITIATIVE_ROUNDS:
        return [_too_many(bounds.MAX_INITIATIVE_ROUNDS)]
    rounds: dict[int, Any] = {}
    for i, round_ in enumerate(dice):
        if isinstance(round_, dict):
            rounds[i] = [_not_a_die()]
        elif isinstance(round_, list):
            if len(round_) > bounds.MAX_DICE_PER_INITIATIVE_ROUND:
                rounds[i] = [_too_many(bounds.MAX_DICE_PER_INITIATIVE_ROUND)]
            elif any(isinstance(die, list | dict) for die in round_):
                rounds[i] = {
                    j: [_not_a_die()]
                    for j, die in enumerate(round_)
                    if isinstance(die, list | dict)
                }
    return rounds or None


class PlayNewBattleSerializer(StrictSerializer):
    scenario = StrictCharField(max_length=100)
    forces = BoundedListField(
        child=StrictIntegerField(min_value=1),
        min_length=1,
        max_length=bounds.MAX_SIDES,
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
    air_assassination = StrictBooleanField(
        default=False, help_text="A charge from above (Air Assassination): Charge Bonus +3."
    )
    flurry_of_blows = StrictBooleanField(
        default=False, help_text="Flurry of Blows after a charge with a one-handed weapon."
    )
    sealed_power = StrictBooleanField(
        default=False,
        help_text="Terrifying Sealed Power: +1 to the statistic (more than half the HP lost).",
    )
    leader = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="Leadership: the friendly figure whose statistic the attacker uses.",
    )
    casting_gun = StrictCharField(
        required=False,
        allow_null=True,
        max_length=100,
        help_text="Casting Gun (a spell's attacks): the carried ranged weapon whose ACC is used.",
    )


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


class PlayActionBody(PlayAttackDeclarationSerializer):
    """Every key an action body may hold; `play.actions.PlayActionSerializer` adds its
    `type`, from the registry of actions."""

    figure = StrictIntegerField(required=False, min_value=1)
    target = StrictIntegerField(required=False, min_value=1, allow_null=True)
    kind = serializers.ChoiceField(ATTACK_KINDS, required=False)
    weapon = StrictCharField(required=False, allow_null=True, max_length=100)
    dice = DiceField(
        required=False,
        allow_null=True,
        help_text="Dice rolled at the table (P5); leave it out for the server's. Refused "
        "with `entered-rolls-forbidden` (400) when the battle's `entered_rolls_allowed` is "
        "false (its campaign's house rule, or the starter's choice). At most "
        f"{bounds.MAX_DICE_PER_ROLL} dice; initiative: at most "
        f"{bounds.MAX_INITIATIVE_ROUNDS} rounds of at most "
        f"{bounds.MAX_DICE_PER_INITIATIVE_ROUND} dice.",
    )
    transfers = BoundedListField(
        child=PlayTransferSerializer(),
        required=False,
        max_length=bounds.MAX_TRANSFER_FRIENDS,
    )
    spell = StrictCharField(required=False, max_length=100)
    anathema_aura = StrictBooleanField(default=False)
    empowered = StrictBooleanField(default=False)
    chosen = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=6)
    distance = StrictIntegerField(required=False, min_value=0, max_value=36)
    movement = serializers.ChoiceField(["none", "moved", "ran", "dashed"], default="moved")
    discard_climbing_gear = StrictBooleanField(default=False)
    count = StrictIntegerField(default=1, min_value=1, max_value=bounds.MAX_DICE_PER_ROLL)
    reason = StrictCharField(
        required=False, allow_blank=True, max_length=bounds.MAX_REASON_CHARACTERS
    )
    hp = StrictIntegerField(required=False, allow_null=True, min_value=0, max_value=99)
    status = serializers.ChoiceField(FIGURE_STATUSES, required=False, allow_null=True)
    markers = BoundedDictField(
        child=StrictIntegerField(min_value=-9, max_value=9),
        required=False,
        max_items=len(table.state.MARKERS),  # each kind of marker once
        help_text="Markers to add (or, negative, remove): " + ", ".join(table.state.MARKERS),
    )
    discard = serializers.ChoiceField(
        list(table.state.ONE_USE_ITEMS), required=False, allow_null=True
    )
    forget = StrictCharField(required=False, allow_null=True, max_length=100)
    activated = StrictBooleanField(required=False, allow_null=True)
    note = StrictCharField(required=False, allow_blank=True, max_length=bounds.MAX_NOTE_CHARACTERS)
    decision = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="The waiting decision answered (the battle's `decisions`); none: the latest.",
    )
    sealed_power = StrictBooleanField(
        default=False, help_text="Terrifying Sealed Power: +1 CA (more than half the HP lost)."
    )
    leader = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="Leadership: the friendly figure whose CA the caster uses.",
    )
    dispel = serializers.ChoiceField(
        list(table.state.MARKERS),
        required=False,
        allow_null=True,
        help_text="Dispel Magic at 1-2 successes on a target with several effects: the one "
        "to remove.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        dice = attrs.get("dice")
        if isinstance(dice, list):
            problem = _dice_problem(dice, initiative=attrs.get("type") == "initiative")
            if problem is not None:
                raise serializers.ValidationError({"dice": problem})
        return attrs


class PlaySpellDeclarationSerializer(StrictSerializer):
    figure = StrictIntegerField(min_value=1, help_text="The caster's id.")
    spell = StrictCharField(max_length=100)
    anathema_aura = StrictBooleanField(default=False)
    empowered = StrictBooleanField(default=False)
    chosen = StrictIntegerField(required=False, allow_null=True, min_value=1, max_value=6)
    sealed_power = StrictBooleanField(default=False)
    leader = StrictIntegerField(required=False, allow_null=True, min_value=1)


class PlayEndSerializer(StrictSerializer):
    winner = StrictIntegerField(
        allow_null=True, min_value=0, max_value=5, help_text="The winning side, null: a draw."
    )
    objectives = BoundedDictField(
        child=StrictIntegerField(min_value=0, max_value=10),
        required=False,
        max_items=bounds.MAX_FIGURES,
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
    lapses = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="A timed marker -> the figure's activation (its `activations` count) at "
        "whose start (Inspire, Fortify) or end (Clock Up, Extreme Speed, Disarming Shot, Aim "
        "for the Legs) it lapses (P8).",
    )
    activations = serializers.IntegerField(help_text="Activations begun this battle.")
    discarded = serializers.ListField(child=serializers.CharField())
    forgotten = serializers.ListField(child=serializers.CharField())
    spent = serializers.ListField(
        child=serializers.CharField(), help_text="Once-a-battle uses spent (Hidden Explosives)."
    )
    gamble = serializers.IntegerField(
        allow_null=True,
        help_text="Deadly Gamble's named enemy: shown to the figure's own side only.",
    )


class PlaySideSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    force = serializers.CharField()
    player = serializers.CharField()
    invited = serializers.CharField(
        allow_null=True,
        help_text="A force from its share link: its owner, invited to take the side over "
        "(the starter plays it until they accept). null: nobody is invited.",
    )
    figures = PlayFigureSerializer(many=True)


class PlayLogLineSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    words = serializers.CharField()
    dice = serializers.ListField(child=serializers.IntegerField())
    entered = serializers.BooleanField()
    dice_drawn = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="For each of the server's `dice`, in order: [its index in the battle's "
        "dice stream, its faces]. Empty for entered dice.",
    )
    undone = serializers.BooleanField()
    actor = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()


class PlayDiceCommitmentSerializer(serializers.Serializer):
    sha256 = serializers.CharField(
        allow_null=True,
        help_text="SHA-256 of the secret seed every server die of the battle is drawn from, "
        "published when the battle starts (null: the battle started before dice were "
        "committed to). Note it down: the seed revealed at the end must hash to it.",
    )
    seed = serializers.CharField(
        allow_null=True, help_text="The seed, revealed once the battle has ended; null before."
    )
    check_url = serializers.URLField(
        help_text="Every server die of the log checked against the revealed seed."
    )


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


class PlayFriendSerializer(serializers.Serializer):
    figure = serializers.IntegerField()
    limit = serializers.IntegerField(
        allow_null=True, help_text="The most it may take (FR; Inspire raises it); null: any."
    )


class PlayDecisionSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Send it as the answer's `decision`.")
    kind = serializers.ChoiceField(DECISION_KINDS)
    side = serializers.IntegerField(help_text="The side that decides (P9).")
    figure = serializers.IntegerField(help_text="The attacked figure.")
    attacker = serializers.IntegerField()
    damage = serializers.IntegerField(
        allow_null=True, help_text="Transfer: the attack's damage, every die of it."
    )
    inches = serializers.IntegerField(allow_null=True, help_text="Dodge for Cover: how far.")
    friends = PlayFriendSerializer(many=True, help_text="Transfer: who may take damage.")
    yours = serializers.BooleanField(help_text="Whether the reader answers it.")
    words = serializers.CharField()


class PlayUndoSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    words = serializers.CharField()
    side = serializers.IntegerField(
        allow_null=True, help_text="Whose action it is; null: the battle's (either player)."
    )
    player = serializers.CharField(allow_null=True, help_text="Who may undo it; null: either.")
    yours = serializers.BooleanField(help_text="Whether the reader may undo it (P9).")


class PlayRecordMemberSerializer(StrictSerializer):
    figure = serializers.IntegerField()
    name = serializers.CharField()
    unconscious = serializers.BooleanField()
    out_of_action = serializers.BooleanField()
    enemies_out_of_action = serializers.IntegerField()
    objectives = serializers.IntegerField()


class PlayRecordSideSerializer(StrictSerializer):
    force = serializers.CharField()
    members = PlayRecordMemberSerializer(many=True)


class PlayRecordSerializer(StrictSerializer):
    """An ended battle's record (`play.services.end_battle`)."""

    winner = serializers.IntegerField(
        allow_null=True, help_text="The winning side's position; null for a draw."
    )
    sides = PlayRecordSideSerializer(many=True)


class PlayBattleSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.URLField()
    scenario = serializers.CharField()
    status = serializers.ChoiceField(BATTLE_STATUSES)
    version = serializers.IntegerField(help_text="Bumped by every action; the ETag's value.")
    campaign = serializers.IntegerField(allow_null=True)
    spectator_url = serializers.URLField(
        allow_null=True,
        help_text="Read-only link for anyone who has it; null once a side withdrew it "
        "(`spectator-link/`).",
    )
    entered_rolls_allowed = serializers.BooleanField(
        help_text="P5: false when the battle takes the server's dice only (copied from its "
        "campaign's house rule when it started, or chosen by the starter)."
    )
    may_act = serializers.BooleanField()
    my_sides = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The sides the reader plays (P9: they act and undo for these only).",
    )
    turn = serializers.IntegerField()
    activating = serializers.IntegerField(
        allow_null=True, help_text="The figure whose activation is under way (P8)."
    )
    initiative = PlayInitiativeSerializer(allow_null=True)
    acting_side = serializers.IntegerField(allow_null=True)
    sides = PlaySideSerializer(many=True)
    log = PlayLogLineSerializer(many=True)
    record = PlayRecordSerializer(
        allow_null=True, help_text="Once the battle has ended: what it records (P6, R14)."
    )
    recorded_battle = serializers.IntegerField(allow_null=True)
    dice_commitment = PlayDiceCommitmentSerializer(
        help_text='Verifiable dice: see docs/play.md, "Verify the dice".'
    )
    spell_attacks = PlaySpellAttacksSerializer(
        allow_null=True,
        help_text="A Destruction spell (or Dragon Slayer) cast whose ranged attacks are still "
        "to be rolled: post `spell-attack` actions, one per target. null when none waits.",
    )
    decisions = PlayDecisionSerializer(
        many=True,
        help_text="The attacked side's decisions waiting for its answer (P9): `transfer`, "
        "`dodge` or `pass` actions answer them.",
    )
    undo = PlayUndoSerializer(
        allow_null=True, help_text="What undo would take back, and whose it is (P9)."
    )


class PlayActionResultSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    words = serializers.CharField()
    dice = serializers.ListField(child=serializers.IntegerField())
    entered = serializers.BooleanField()
    side = serializers.IntegerField(allow_null=True)
    detail = serializers.DictField(help_text="What the action's entry shows of its result.")


class PlayActionAnswerSerializer(PlayBattleSerializer):
    result = PlayActionResultSerializer(help_text="The action just done, as its entry shows it.")


class PlayInvitationSerializer(serializers.Serializer):
    battle = serializers.IntegerField()
    scenario = serializers.CharField()
    started_by = serializers.CharField()
    position = serializers.IntegerField(help_text="The side you are invited to take over.")
    force = serializers.CharField(help_text="Your force, as the battle copied it.")
    accept_url = serializers.URLField()
    decline_url = serializers.URLField()


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


class PlayTierOddsSerializer(serializers.Serializer):
    label = serializers.CharField(help_text="Successes, as printed; 'No effect' first.")
    effect = serializers.CharField()
    chance = serializers.CharField(help_text="Exact, as a fraction.")
    percent = serializers.FloatField()


class PlaySpellOddsSerializer(serializers.Serializer):
    dice = serializers.IntegerField()
    difficulty = serializers.IntegerField()
    bonus_successes = serializers.IntegerField(help_text="Supreme Spell Mastery's success.")
    modifiers = PlayModifierSerializer(many=True)
    tiers = PlayTierOddsSerializer(many=True)


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
    best_of_two = serializers.BooleanField(
        help_text="Two dice are rolled for each attack die and the better counts (a re-roll)."
    )
    reroll = serializers.CharField(
        help_text="What gives that re-roll (Invigorate, Eagle Eye, or declared, P8); empty "
        "without one."
    )
    max_damage = serializers.IntegerField(
        allow_null=True, help_text="The most damage one hit does (Hidden Explosives), or null."
    )


class PlayCheckedDieSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The log line (action) that rolled it.")
    position = serializers.IntegerField(help_text="Its place among that line's dice.")
    value = serializers.IntegerField(help_text="What the log says it showed.")
    index = serializers.IntegerField(allow_null=True, help_text="Its index in the stream.")
    faces = serializers.IntegerField(allow_null=True, help_text="12, or 3 for a d3.")
    undone = serializers.BooleanField()
    derived = serializers.IntegerField(
        allow_null=True, help_text="What the revealed seed gives there; null before the end."
    )
    matches = serializers.BooleanField(allow_null=True, help_text="null before the end.")
    problem = serializers.CharField(help_text="Why it does not match; empty when it does.")


class PlayDiceCheckSerializer(serializers.Serializer):
    battle = serializers.URLField()
    status = serializers.ChoiceField(BATTLE_STATUSES)
    commitment = serializers.CharField(allow_null=True)
    seed = serializers.CharField(allow_null=True, help_text="null until the battle has ended.")
    seed_matches = serializers.BooleanField(
        allow_null=True, help_text="Does the seed hash to the commitment? null before the end."
    )
    verified = serializers.BooleanField(
        allow_null=True,
        help_text="The seed matches and every server die matches the stream; null before "
        "the end (or for a battle started before dice were committed to).",
    )
    dice = PlayCheckedDieSerializer(many=True)
