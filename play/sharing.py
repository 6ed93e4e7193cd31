"""A battle's links, both ways: the spectator link its sides withdraw and replace, and a
side played with someone else's force from that force's share link.

- **Spectator link.** Any side's player may replace it (a new token: the old link answers
  404 on the page and in the API at once) or withdraw it (no link until one is made
  again). Either moves the battle's version, so every open screen and every cached answer
  drops the old link.
- **A force from a share link.** A share link lets anyone read a force and start a one-off
  battle with it, never play for its owner. The battle copies the force's figures when it
  starts, as every battle does, and writes nothing to the force. The starter plays that
  side too (P9: one user holding several sides acts for all of them), and the force's
  owner is invited to take the side over: the invitation waits on the owner's battle list,
  and only accepting makes the owner the side's player. Declining leaves the side with the
  starter. Until then the owner neither sees nor acts in the battle.

A campaign battle needs no invitation: its forces' owners joined the campaign.
"""

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction

from dbd_site.errors import Conflict, NotAllowed, NotFound
from play.models import Battle, BattleSide, new_spectator_token
from roster.models import Force


def side_player(
    force: Force, *, by: AbstractBaseUser, in_campaign: bool
) -> tuple[int, int | None]:
    """Who plays a new side with `force`, and who is invited to take it over (or None)."""
    if in_campaign or force.owner_id == by.pk:
        return force.owner_id, None
    return by.pk, force.owner_id


def _lock_as_a_side(battle: Battle, by: AbstractBaseUser) -> Battle:
    locked = Battle.objects.select_for_update().get(pk=battle.pk)
    if not BattleSide.objects.filter(battle=locked, player_id=by.pk).exists():
        raise NotAllowed("not-a-side", "Only the battle's players change its spectator link.")
    return locked


def _moved(battle: Battle, *fields: str) -> Battle:
    battle.version += 1
    battle.save(update_fields=[*fields, "version", "updated_at"])
    return battle


@transaction.atomic
def replace_spectator_link(*, battle: Battle, by: AbstractBaseUser) -> Battle:
    """A new spectator link (or a first one after a withdrawal); the old one stops working."""
    locked = _lock_as_a_side(battle, by)
    locked.spectator_token = new_spectator_token()
    return _moved(locked, "spectator_token")


@transaction.atomic
def withdraw_spectator_link(*, battle: Battle, by: AbstractBaseUser) -> Battle:
    """No spectator link at all until a side makes a new one."""
    locked = _lock_as_a_side(battle, by)
    locked.spectator_token = None
    return _moved(locked, "spectator_token")


def _invitation(battle_id: int, user: AbstractBaseUser) -> tuple[Battle, BattleSide]:
    locked = Battle.objects.select_for_update().filter(pk=battle_id).first()
    side = (
        BattleSide.objects.filter(battle=locked, invited_id=user.pk).first()
        if locked is not None
        else None
    )
    if locked is None or side is None:
        raise NotFound("not-found", "No such invitation.")
    return locked, side


@transaction.atomic
def accept_invitation(*, battle_id: int, user: AbstractBaseUser) -> Battle:
    """The owner of a shared force takes over the side that plays it."""
    battle, side = _invitation(battle_id, user)
    if battle.status != Battle.Status.PLAYING:
        raise Conflict("battle-ended", "The battle has ended.")
    side.player_id, side.invited_id = user.pk, None
    side.save(update_fields=["player", "invited"])
    return _moved(battle)


@transaction.atomic
def decline_invitation(*, battle_id: int, user: AbstractBaseUser) -> None:
    """The owner of a shared force leaves its side to the battle's starter."""
    _, side = _invitation(battle_id, user)
    side.invited_id = None
    side.save(update_fields=["invited"])
