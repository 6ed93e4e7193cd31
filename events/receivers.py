"""The apps' signals, turned into events for the right people (and no one else).

Each receiver runs inside the transaction of the change (the signal is sent there):
the events it emits commit or roll back with it. Recipients are worked out from the
rows the change wrote, never from who asks: a stranger to a campaign or a force never
receives its events.
"""

from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User

from campaign import progression
from campaign import services as campaign_services
from campaign import signals as campaign_signals
from campaign.models import Battle, BattleForce, Campaign, CampaignForce
from campaign.policy import CampaignPolicy
from events import kinds
from events.services import emit
from play import signals as play_signals
from play.models import Battle as TableBattle
from play.models import BattleSide
from roster import signals as roster_signals
from roster.models import Force, Member
from roster.policy import Command, ForcePolicy


def connect() -> None:
    """Listen to the apps' signals (`EventsConfig.ready`)."""
    roster_signals.force_changed.connect(force_changed, dispatch_uid="events.force_changed")
    campaign_signals.player_joined.connect(player_joined, dispatch_uid="events.player_joined")
    campaign_signals.battle_recorded.connect(battle_recorded, dispatch_uid="events.recorded")
    campaign_signals.battle_confirmed.connect(battle_confirmed, dispatch_uid="events.confirmed")
    campaign_signals.battle_voided.connect(battle_voided, dispatch_uid="events.voided")
    campaign_signals.house_rules_changed.connect(rules_changed, dispatch_uid="events.rules")
    play_signals.side_invited.connect(side_invited, dispatch_uid="events.side_invited")


def _name(user: User | None) -> str | None:
    return user.get_username() if user is not None else None


def force_changed(
    sender: Any,
    *,
    force: Force,
    command: Command,
    policy: ForcePolicy,
    deleted: bool,
    **kwargs: Any,
) -> None:
    """To the force's owner: which force, its version now, what changed it."""
    # The write path has read a campaign copy's entry already: its policy holds it.
    campaign_id = policy.entry.campaign_id if isinstance(policy, CampaignPolicy) else None
    emit(
        kinds.FORCE_CHANGED,
        [force.owner_id],
        campaign_id=campaign_id,
        force_id=force.pk,
        data={
            "name": force.name,
            "version": force.version,
            "change": command.kind,
            "by": _name(command.actor),
            "deleted": deleted,
        },
    )


def player_joined(sender: Any, *, campaign: Campaign, user: User, **kwargs: Any) -> None:
    """To the new player and the organiser: the invitation was taken up."""
    emit(
        kinds.INVITED,
        [user.pk, campaign.organiser_id],
        campaign_id=campaign.pk,
        data={"to": "campaign", "campaign_name": campaign.name, "player": _name(user)},
    )


def side_invited(
    sender: Any, *, battle: TableBattle, side: BattleSide, by: User, **kwargs: Any
) -> None:
    """To the owner of a shared force a battle was started with: take the side over."""
    emit(
        kinds.INVITED,
        [side.invited_id],
        force_id=side.force_id,
        data={
            "to": "table-battle",
            "table_battle": battle.pk,
            "scenario": battle.scenario,
            "force_name": side.force_name,
            "by": _name(by),
        },
    )


def _battle_forces(battle: Battle) -> list[BattleForce]:
    return list(
        battle.battle_forces.select_related("campaign_force__force").prefetch_related(
            "member_results"
        )
    )


def _battle_data(battle: Battle, battle_forces: list[BattleForce]) -> dict[str, Any]:
    return {
        "scenario": battle.scenario,
        "played_on": battle.played_on.isoformat(),
        "status": battle.status,
        "forces": [
            {
                "campaign_force": bf.campaign_force_id,
                "force": bf.campaign_force.force_id,
                "name": bf.campaign_force.force.name,
                "outcome": bf.outcome,
            }
            for bf in battle_forces
        ],
    }


def _involved(battle: Battle, battle_forces: list[BattleForce]) -> list[int]:
    """Every player whose force took part, and the organiser."""
    owners = [bf.campaign_force.player_id for bf in battle_forces]
    return [*owners, battle.campaign.organiser_id]


def battle_recorded(sender: Any, *, battle: Battle, by: User, **kwargs: Any) -> None:
    """To everyone involved; and to those who may confirm it (R14a), that it waits for them."""
    battle_forces = _battle_forces(battle)
    involved = _involved(battle, battle_forces)
    data = {**_battle_data(battle, battle_forces), "recorded_by": _name(by)}
    at = {"campaign_id": battle.campaign_id, "battle_id": battle.pk}
    emit(kinds.BATTLE_RECORDED, involved, data=data, **at)
    owners = [bf.campaign_force.player_id for bf in battle_forces]
    confirmers = [
        user.pk
        for user in User.objects.filter(pk__in=involved)
        if campaign_services.may_confirm(battle, user, owners)
    ]
    emit(kinds.AWAITING_CONFIRMATION, confirmers, data=data, **at)


def battle_confirmed(sender: Any, *, battle: Battle, by: User, **kwargs: Any) -> None:
    """To everyone involved; and to each owner whose members now have a level-up to take
    (R16, R17), which ones."""
    battle_forces = _battle_forces(battle)
    data = _battle_data(battle, battle_forces)
    for row, bf in zip(data["forces"], battle_forces, strict=True):
        row["xp_awarded"] = sum(r.xp_awarded for r in bf.member_results.all())
    at = {"campaign_id": battle.campaign_id, "battle_id": battle.pk}
    emit(
        kinds.BATTLE_CONFIRMED,
        _involved(battle, battle_forces),
        data={**data, "confirmed_by": _name(by)},
        **at,
    )
    rules = battle.campaign.house_rules
    awarded = {r.member_id: r.xp_awarded for bf in battle_forces for r in bf.member_results.all()}
    members = Member.objects.filter(pk__in=[pk for pk in awarded if pk is not None])
    gained = [m for m in members if progression.levels_gained(m.xp - awarded[m.pk], m.xp, rules)]
    _level_ups_waiting(
        [bf.campaign_force for bf in battle_forces], gained, rules, battle_id=battle.pk
    )


def _level_ups_waiting(
    campaign_forces: list[CampaignForce],
    members: list[Member],
    rules: progression.HouseRules,
    *,
    battle_id: int | None,
) -> None:
    """To the owner of each of `campaign_forces`: which of `members` (of their force) have
    a level-up to take now (R17)."""
    by_force: dict[int, list[dict[str, Any]]] = {}
    for member in sorted(members, key=lambda m: m.pk):
        by_force.setdefault(member.force_id, []).append(
            {
                "member": member.pk,
                "name": member.name,
                "level": progression.level_for_xp(member.xp, rules),
                "waiting": progression.level_ups_waiting(member.xp, len(member.level_ups), rules),
            }
        )
    for cf in campaign_forces:
        levelled = by_force.get(cf.force_id)
        if levelled:
            emit(
                kinds.LEVEL_UP_WAITING,
                [cf.player_id],
                campaign_id=cf.campaign_id,
                force_id=cf.force_id,
                battle_id=battle_id,
                data={"campaign_force": cf.pk, "members": levelled},
            )


def rules_changed(
    sender: Any, *, campaign: Campaign, by: User, changes: dict[str, Any], **kwargs: Any
) -> None:
    """New level thresholds (R16) may give members more level-ups to take than before:
    to each owner, which ones."""
    if "level_thresholds" not in changes:
        return
    new = campaign.house_rules
    old = replace(new, level_thresholds=tuple(changes["level_thresholds"][0]))
    entries = list(campaign.forces.filter(retired_at__isnull=True))
    members = Member.objects.filter(force_id__in=[cf.force_id for cf in entries])
    more = [
        m
        for m in members
        if progression.level_ups_waiting(m.xp, len(m.level_ups), new)
        > progression.level_ups_waiting(m.xp, len(m.level_ups), old)
    ]
    _level_ups_waiting(entries, more, new, battle_id=None)


def battle_voided(sender: Any, *, battle: Battle, by: User, was: str, **kwargs: Any) -> None:
    """To everyone involved: which battle, what it was, why."""
    battle_forces = _battle_forces(battle)
    emit(
        kinds.BATTLE_VOIDED,
        _involved(battle, battle_forces),
        campaign_id=battle.campaign_id,
        battle_id=battle.pk,
        data={
            **_battle_data(battle, battle_forces),
            "was": was,
            "reason": battle.void_reason,
            "voided_by": _name(by),
        },
    )
