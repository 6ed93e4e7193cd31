"""Battles and odds as plain data for the API, the battle screen and the print card.

Every number comes from `play.table`; this module only arranges it.
"""

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from django.urls import reverse

from play import selectors, table
from play.models import Battle
from rules.catalogue import Catalogue

PRINT_DFS = range(6, 17)  # the print card's DF 6 to 16


def percent(chance: Fraction) -> float:
    return round(float(chance) * 100, 1)


def whole_percent(chance: Fraction) -> int:
    """A chance in whole percent, halves rounded up (62.5% shows as 63)."""
    return math.floor(chance * 100 + Fraction(1, 2))


def battle_json(view: selectors.BattleView, *, may_act: bool, absolute: Any) -> dict[str, Any]:
    """The battle as the API answers it; `absolute` makes a path a full URL."""
    battle = view.battle
    state = battle.state
    return {
        "id": battle.pk,
        "url": absolute(reverse("play-api-battle", args=[battle.pk])),
        "scenario": battle.scenario,
        "status": battle.status,
        "version": battle.version,
        "campaign": battle.campaign_id,
        "spectator_url": absolute(reverse("play:watch", args=[battle.spectator_token])),
        "entered_rolls_allowed": battle.entered_rolls_allowed,
        "may_act": may_act,
        "turn": state["turn"],
        "initiative": state["initiative"],
        "acting_side": view.acting_side,
        "sides": [
            {
                "position": side.position,
                "force": side.force_name,
                "player": side.player_name,
                "figures": [
                    {
                        "id": f.id,
                        "name": f.name,
                        "stats": f.numbers["stats"],
                        "defence": f.numbers["defence"],
                        "skills": f.numbers["skills"],
                        "equipment": f.numbers["equipment"],
                        "spells": f.numbers["spells"],
                        **{k: f.state[k] for k in ("hp", "max_hp", "status", "activated")},
                        "markers": f.state["markers"],
                        "discarded": f.state["discarded"],
                        "forgotten": f.state["forgotten"],
                    }
                    for f in side.figures
                ],
            }
            for side in view.sides
        ],
        "log": [
            {
                "seq": a.seq,
                "kind": a.kind,
                "words": a.words,
                "dice": a.dice,
                "entered": a.entered,
                "undone": a.undone_at is not None,
                "actor": a.actor.get_username() if a.actor else None,
                "at": a.created_at,
            }
            for a in view.log
        ],
        "record": battle.record,
        "recorded_battle": battle.recorded_battle_id,
    }


def list_item(battle: Battle, absolute: Any) -> dict[str, Any]:
    return {
        "id": battle.pk,
        "url": absolute(reverse("play-api-battle", args=[battle.pk])),
        "scenario": battle.scenario,
        "status": battle.status,
        "campaign": battle.campaign_id,
        "sides": [s.force_name for s in battle.sides.all()],
        "updated_at": battle.updated_at,
    }


def odds_json(plan: table.AttackPlan) -> dict[str, Any]:
    return {
        "needed": plan.needed,
        "needed_words": plan.needed_words(),
        "chance_to_hit": str(plan.chance_to_hit),
        "chance_to_hit_percent": percent(plan.chance_to_hit),
        "expected_damage": str(plan.expected_damage),
        "expected_damage_per_use": str(plan.expected_damage_per_use),
        "expected_damage_decimal": round(float(plan.expected_damage_per_use), 2),
        "rate_of_fire": plan.rate_of_fire,
        "actions": plan.actions,
        "statistic": plan.statistic,
        "statistic_value": plan.statistic_value,
        "to_hit": plan.to_hit,
        "target_df": plan.target_df,
        "modified_df": plan.modified_df,
        "modifiers": [
            {"applies_to": m.applies_to, "amount": m.amount, "source": m.source}
            for m in plan.modifiers
        ],
        "notes": list(plan.notes),
    }


# --- the print card ---------------------------------------------------------------------------


def weapon_odds_rows(
    figure: table.Figure, catalogue: Catalogue, dfs: Iterable[int] = PRINT_DFS
) -> list[dict[str, Any]]:
    """Each weapon the figure carries (and each fire mode), its chance to hit and expected
    damage against DF 6 to 16, with no situation ticked (the attacker moved)."""
    rows: list[dict[str, Any]] = []
    dfs = list(dfs)
    target = table.Figure("target", {"HP": 10}, {"melee": dfs[0], "ranged": dfs[0]})
    seen: set[str] = set()
    for slug in figure.equipment:
        item = catalogue.equipment.get(slug)
        if item is None or not item.is_weapon or slug in seen:
            continue
        seen.add(slug)
        modes = range(len(item.fire_modes)) if item.kind == "ranged" else range(1)
        for mode in modes:
            plan = table.plan_attack(
                figure,
                target,
                "melee" if item.kind == "melee" else "ranged",
                slug,
                equipment=catalogue.equipment,
                mode=mode,
            )
            label = item.name
            if len(item.fire_modes) > 1:
                fm = item.fire_modes[mode]
                label += f" (ROF {fm.rate_of_fire}, ACC {fm.accuracy:+d})"
            rows.append(
                {
                    "label": label,
                    "statistic": f"{plan.statistic} {plan.statistic_value}",
                    "cells": [
                        {"df": o.df, "needed": o.needed, "percent": whole_percent(o.chance)}
                        for o in table.odds_against(plan, dfs)
                    ],
                }
            )
    return rows


def spell_odds_rows(figure: table.Figure, catalogue: Catalogue) -> list[dict[str, Any]]:
    """Each spell the figure knows: the chance of each outcome tier (and of no effect)."""
    rows: list[dict[str, Any]] = []
    for slug in figure.spells:
        spell = catalogue.spells.get(slug)
        if spell is None or spell.difficulty is None or figure.stats.get("CA", 0) < 1:
            continue  # Dragon Slayer's Difficulty is chosen at the table
        plan = table.plan_spell(figure, spell)
        rows.append(
            {
                "label": spell.name,
                "difficulty": plan.difficulty,
                "tiers": [
                    {
                        "label": "no effect" if tier is None else tier.label,
                        "percent": whole_percent(chance),
                    }
                    for tier, chance in plan.tier_odds()
                ],
            }
        )
    return rows
