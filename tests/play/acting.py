"""Actions for the play tests, each through the registry (`play.actions.perform`) as the API
sends them: one keyword function per action, the keys of its body."""

from dataclasses import asdict

from play import actions


def act(battle, by, type_, *, dice=None, rng=None, if_match=None, **body):
    """Any action: its `type` and body keys (`dice` left out: the server's dice)."""
    sent = {"type": type_, **body}
    if dice is not None:
        sent["dice"] = dice
    return actions.perform(battle, by, sent, rng=rng, if_match=if_match)


def roll_initiative(*, battle, by, dice=None, rng=None, if_match=None):
    return act(battle, by, "initiative", dice=dice, rng=rng, if_match=if_match)


def attack(*, battle, by, declaration, dice=None, rng=None, if_match=None):
    d = declaration
    return act(
        battle,
        by,
        "attack",
        figure=d.attacker,
        target=d.target,
        kind=d.kind,
        weapon=d.weapon,
        mode=d.mode,
        situation={k: v for k, v in asdict(d.situation).items() if v is not None},
        dice=dice,
        rng=rng,
        if_match=if_match,
    )


def transfer_damage(*, battle, by, transfers, decision=None, if_match=None):
    moved = [{"figure": fid, "amount": amount} for fid, amount in transfers.items()]
    return act(battle, by, "transfer", transfers=moved, decision=decision, if_match=if_match)


def cast_spell(*, battle, by, caster, spell, dice=None, rng=None, if_match=None, **options):
    return act(
        battle, by, "spell", figure=caster, spell=spell, dice=dice, rng=rng, if_match=if_match,
        **options,
    )  # fmt: skip


def spell_attack(*, battle, by, target, situation=None, dice=None, rng=None, if_match=None):
    declared = {} if situation is None else asdict(situation)
    return act(
        battle,
        by,
        "spell-attack",
        target=target,
        situation={k: v for k, v in declared.items() if v is not None},
        dice=dice,
        rng=rng,
        if_match=if_match,
    )


def heal(*, battle, by, healer, target, dice=None, rng=None, if_match=None):
    return act(
        battle, by, "heal", figure=healer, target=target, dice=dice, rng=rng, if_match=if_match
    )


def revive(*, battle, by, reviver, target, dice=None, rng=None, if_match=None):
    return act(
        battle, by, "revive", figure=reviver, target=target, dice=dice, rng=rng, if_match=if_match
    )


def jump(*, battle, by, figure, distance, dice=None, rng=None, if_match=None, **options):
    return act(
        battle, by, "jump", figure=figure, distance=distance, dice=dice, rng=rng,
        if_match=if_match, **options,
    )  # fmt: skip


def roll_d12(*, battle, by, count=1, reason="", dice=None, rng=None, if_match=None):
    return act(
        battle, by, "roll", count=count, reason=reason, dice=dice, rng=rng, if_match=if_match
    )


def change_figure(*, battle, by, change, if_match=None):
    return act(
        battle,
        by,
        "change",
        figure=change.figure,
        hp=change.hp,
        status=change.status,
        markers=dict(change.markers),
        discard=change.discard,
        forget=change.forget,
        activated=change.activated,
        note=change.note,
        if_match=if_match,
    )


def end_activation(*, battle, by, figure, if_match=None):
    return act(battle, by, "activate", figure=figure, if_match=if_match)


def next_turn(*, battle, by, if_match=None):
    return act(battle, by, "next-turn", if_match=if_match)


def answer(battle, by, type_, decision=None):
    """Answer a waiting decision: "dodge" or "pass" (None: the latest)."""
    return act(battle, by, type_, decision=decision)


def no_transfer(battle, by):
    """The defender passes the latest waiting Friendship decision (P9)."""
    battle.refresh_from_db()
    waiting = [d for d in battle.state.get("decisions", []) if d["kind"] == "transfer"]
    return act(battle, by, "pass", decision=waiting[-1]["id"])
