"""One action body (the API's JSON, or a battle-screen form turned into the same shape)
to the service that does it. The body has passed `PlayActionSerializer`."""

import random
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser

from dbd_site.errors import Invalid, Problem
from play import services, table
from play.models import Battle, BattleAction


def situation_of(body: Mapping[str, Any]) -> table.attacks.Situation:
    """The declared situation of a checked body (`PlaySituationSerializer`'s keys)."""
    return table.attacks.Situation(**dict(body.get("situation") or {}))


def perform(
    battle: Battle,
    by: AbstractBaseUser,
    body: Mapping[str, Any],
    *,
    if_match: int | None = None,
    rng: random.Random | None = None,
) -> BattleAction:
    """Dispatch one validated action body to its service."""
    kind = body["type"]
    dice = body.get("dice")
    if dice is not None and not isinstance(dice, list):
        raise Invalid("invalid", "Dice are a list of d12 results.", pointer="/dice")
    common: dict[str, Any] = {"battle": battle, "by": by, "if_match": if_match}
    rolled: dict[str, Any] = {**common, "dice": dice, "rng": rng}  # None: the server's

    def need(*keys: str) -> None:
        missing = [k for k in keys if body.get(k) is None]
        if missing:
            raise Invalid.of(
                [Problem(f"/{k}", "invalid", f"'{k}' is needed for {kind}.") for k in missing]
            )

    if kind == "initiative":
        return services.roll_initiative(**rolled)
    if kind == "attack":
        need("figure", "target", "kind")
        situation = situation_of(body)
        declaration = table.attacks.AttackDeclaration(
            body["figure"],
            body["target"],
            body["kind"],
            body.get("weapon"),
            body.get("mode", 0),
            situation,
        )
        return services.attack(declaration=declaration, **rolled)
    if kind == "spell-attack":
        need("target")
        return services.spell_attack(
            target=body["target"],
            situation=situation_of(body),
            **rolled,
        )
    if kind == "transfer":
        need("transfers")
        moved: dict[int, int] = {}
        for t in body["transfers"]:
            moved[t["figure"]] = moved.get(t["figure"], 0) + t["amount"]
        return services.transfer_damage(transfers=moved, **common)
    if kind == "spell":
        need("figure", "spell")
        return services.cast_spell(
            caster=body["figure"],
            spell=body["spell"],
            target=body.get("target"),
            anathema_aura=body["anathema_aura"],
            empowered=body["empowered"],
            chosen=body.get("chosen"),
            **rolled,
        )
    if kind == "heal":
        need("figure", "target")
        return services.heal(healer=body["figure"], target=body["target"], **rolled)
    if kind == "revive":
        need("figure", "target")
        return services.revive(reviver=body["figure"], target=body["target"], **rolled)
    if kind == "jump":
        need("figure", "distance")
        return services.jump(
            figure=body["figure"],
            distance=body["distance"],
            movement=body["movement"],
            discard_climbing_gear=body["discard_climbing_gear"],
            **rolled,
        )
    if kind == "roll":
        return services.roll_d12(count=body["count"], reason=body.get("reason", ""), **rolled)
    if kind == "change":
        need("figure")
        change = table.state.Change(
            figure=body["figure"],
            hp=body.get("hp"),
            status=body.get("status"),
            markers=body.get("markers") or {},
            discard=body.get("discard"),
            forget=body.get("forget"),
            activated=body.get("activated"),
            note=body.get("note", ""),
        )
        return services.change_figure(change=change, **common)
    if kind == "activate":
        need("figure")
        return services.end_activation(figure=body["figure"], **common)
    return services.next_turn(**common)
