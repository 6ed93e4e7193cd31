"""Battles and odds as plain data for the API, the battle screen and the print card.

Every number comes from `play.table`; this module only arranges it.
"""

import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from django.http import QueryDict
from django.urls import reverse
from rest_framework.exceptions import ValidationError

from dbd_site.api import flatten_errors
from dbd_site.errors import DomainError
from dbd_site.inputs import whole_number
from play import forms, selectors, serializers, services, table
from play.models import Battle, BattleAction
from rules.catalogue import Catalogue
from rules.loader import get_catalogue

PRINT_DFS = range(6, 17)  # the print card's DF 6 to 16


def error_messages(error: DomainError | ValidationError) -> list[str]:
    """A refusal's sentences for a page (the pointers are for the API)."""
    if isinstance(error, DomainError):
        return [p.message for p in error.problems]
    return [e["message"] for e in flatten_errors(error.detail)]


def campaign_force_choices(entries: list[Any], posted: QueryDict | None) -> list[tuple[Any, bool]]:
    """The campaign's forces for the start form, each with whether it is ticked: what was
    posted when the form comes back refused (nothing typed is lost), else both when the
    campaign has exactly two, the battle there is to start (issue #31)."""
    if posted is not None:
        chosen = set(posted.getlist("forces"))
        return [(cf, str(cf.force_id) in chosen) for cf in entries]
    return [(cf, len(entries) == 2) for cf in entries]


def percent(chance: Fraction) -> float:
    return round(float(chance) * 100, 1)


def whole_percent(chance: Fraction) -> int:
    """A chance in whole percent, halves rounded up (62.5% shows as 63)."""
    return math.floor(chance * 100 + Fraction(1, 2))


def dice_entry_off(battle: Battle) -> str:
    """Why the screen offers no box for dice rolled at the table (P5), or "" when it does."""
    if battle.entered_rolls_allowed:
        return ""
    if battle.campaign is not None and not battle.campaign.entered_rolls_allowed:
        return "Server's dice only: the campaign's house rules forbid entered rolls."
    return "Server's dice only: the battle was started without entered rolls."


def battle_json(view: selectors.BattleView, *, may_act: bool, absolute: Any) -> dict[str, Any]:
    """The battle as the API answers it; `absolute` makes a path a full URL. What only a
    side's own player may see (Deadly Gamble's name) shows for `view.viewer_sides` only."""
    battle = view.battle
    state = table.state.upgraded(battle.state)
    mine = view.viewer_sides
    return {
        "id": battle.pk,
        "url": absolute(reverse("play-api-battle", args=[battle.pk])),
        "scenario": battle.scenario,
        "status": battle.status,
        "version": battle.version,
        "campaign": battle.campaign_id,
        "spectator_url": (
            absolute(reverse("play:watch", args=[battle.spectator_token]))
            if battle.spectator_token
            else None
        ),
        "entered_rolls_allowed": battle.entered_rolls_allowed,
        "may_act": may_act,
        "my_sides": sorted(mine),
        "turn": state["turn"],
        "initiative": state["initiative"],
        "acting_side": view.acting_side,
        "activating": _id(state.get("activating")),
        "sides": [
            {
                "position": side.position,
                "force": side.force_name,
                "player": side.player_name,
                "invited": side.invited_name,
                "figures": [figure_json(f, own=side.position in mine) for f in side.figures],
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
                "dice_drawn": a.dice_drawn,
                "undone": a.undone_at is not None,
                "actor": a.actor.get_username() if a.actor else None,
                "at": a.created_at,
            }
            for a in view.log
        ],
        "record": battle.record,
        "recorded_battle": battle.recorded_battle_id,
        "dice_commitment": dice_commitment_json(battle, absolute),
        "spell_attacks": spell_attacks_json(view.spell_attacks),
        "decisions": [decision_json(d) for d in view.decisions],
        "undo": undo_json(view.undo),
    }


def _id(fid: object) -> int | None:
    return None if fid is None else int(str(fid))


def figure_json(f: selectors.FigureView, *, own: bool) -> dict[str, Any]:
    state = f.state
    return {
        "id": f.id,
        "name": f.name,
        "stats": f.numbers["stats"],
        "defence": f.numbers["defence"],
        "skills": f.numbers["skills"],
        "equipment": f.numbers["equipment"],
        "spells": f.numbers["spells"],
        **{k: state[k] for k in ("hp", "max_hp", "status", "activated")},
        "markers": state["markers"],
        "lapses": state.get("lapses", {}),
        "activations": state.get("activations", 0),
        "discarded": state["discarded"],
        "forgotten": state["forgotten"],
        "spent": state.get("spent", []),
        "gamble": _id(state.get("gamble")) if own else None,
    }


def decision_json(d: selectors.DecisionView) -> dict[str, Any]:
    friends = []
    for f in d.friends:
        recipient = table.damage.Recipient(
            f.name,
            f.numbers["stats"]["FR"],
            0,
            inspire_markers=f.state["markers"].get("inspire", 0),
        )
        friends.append({"figure": f.id, "limit": table.damage.transfer_limit(recipient)})
    return {
        "id": d.id,
        "kind": d.kind,
        "side": d.decision["side"],
        "figure": d.target.id,
        "attacker": d.attacker.id if d.attacker else None,
        "damage": d.damage,
        "inches": d.decision.get("inches"),
        "friends": friends if d.kind == "transfer" else [],
        "yours": d.yours,
        "words": d.words,
    }


def undo_json(undo: selectors.UndoView | None) -> dict[str, Any] | None:
    if undo is None:
        return None
    return {
        "seq": undo.action.seq,
        "kind": undo.action.kind,
        "words": undo.action.words,
        "side": undo.side,
        "player": undo.player,
        "yours": undo.yours,
    }


def shows(*keys: str) -> Callable[[BattleAction], dict[str, Any]]:
    """A registry entry's presenter: the action as the answer to it shows it, with the
    keys of its details that entry names."""

    def present(action: BattleAction) -> dict[str, Any]:
        return {
            "seq": action.seq,
            "kind": action.kind,
            "words": action.words,
            "dice": action.dice,
            "entered": action.entered,
            "side": action.detail.get("side"),
            "detail": {k: action.detail[k] for k in keys if k in action.detail},
        }

    return present


def spell_attacks_json(pending: selectors.SpellAttacksView | None) -> dict[str, Any] | None:
    """The cast waiting for its attacks, as the API shows it (None when none waits)."""
    if pending is None:
        return None
    a = pending.attacks
    return {
        "caster": pending.caster.id,
        "spell": a.spell,
        "successes": pending.successes,
        "rate_of_fire": a.rate_of_fire,
        "accuracy": a.accuracy,
        "blast": a.blast,
        "ignores_cover": a.ignores_cover,
        "needs_line_of_sight": a.needs_line_of_sight,
        "friends_too": a.friends_too,
        "caster_too": a.caster_too,
        "targets": a.targets,
        "targets_left": pending.targets_left,
        "attacked": [f.id for f in pending.attacked],
        "may_target": [f.id for f in pending.targets],
        "words": a.words(),
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


def odds_json(plan: table.attacks.AttackPlan) -> dict[str, Any]:
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
        "modifiers": _modifiers(plan.modifiers),
        "notes": list(plan.notes),
        "best_of_two": plan.best_of_two,
        "reroll": plan.reroll,
        "max_damage": plan.max_damage,
    }


def _modifiers(modifiers: Iterable[table.dice.Modifier]) -> list[dict[str, Any]]:
    return [
        {"applies_to": m.applies_to, "amount": m.amount, "source": m.source} for m in modifiers
    ]


def spell_odds_json(plan: table.spells.SpellPlan) -> dict[str, Any]:
    """A cast's odds before rolling (P4): each outcome tier's chance, exactly."""
    return {
        "dice": plan.dice,
        "difficulty": plan.difficulty,
        "bonus_successes": plan.bonus_successes,
        "modifiers": _modifiers(plan.modifiers),
        "tiers": [
            {
                "label": "No effect" if tier is None else f"{tier.label} successes",
                "effect": "" if tier is None else tier.effect,
                "chance": str(chance),
                "percent": percent(chance),
            }
            for tier, chance in plan.tier_odds()
        ],
    }


# --- the print card ---------------------------------------------------------------------------


def weapon_odds_rows(
    figure: table.figures.Figure, catalogue: Catalogue, dfs: Iterable[int] = PRINT_DFS
) -> list[dict[str, Any]]:
    """Each weapon the figure carries (and each fire mode), its chance to hit and expected
    damage against DF 6 to 16, with no situation ticked (the attacker moved)."""
    rows: list[dict[str, Any]] = []
    dfs = list(dfs)
    target = table.figures.Figure("target", {"HP": 10}, {"melee": dfs[0], "ranged": dfs[0]})
    seen: set[str] = set()
    for slug in figure.equipment:
        item = catalogue.equipment.get(slug)
        if item is None or not item.is_weapon or slug in seen:
            continue
        seen.add(slug)
        modes = range(len(item.fire_modes)) if item.kind == "ranged" else range(1)
        for mode in modes:
            plan = table.attacks.plan_attack(
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
                        for o in table.attacks.odds_against(plan, dfs)
                    ],
                }
            )
    return rows


def spell_odds_rows(figure: table.figures.Figure, catalogue: Catalogue) -> list[dict[str, Any]]:
    """Each spell the figure knows: the chance of each outcome tier (and of no effect)."""
    rows: list[dict[str, Any]] = []
    for slug in figure.spells:
        spell = catalogue.spells.get(slug)
        if spell is None or spell.difficulty is None or figure.stats.get("CA", 0) < 1:
            continue  # Dragon Slayer's Difficulty is chosen at the table
        plan = table.spells.plan_spell(figure, spell)
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


# --- the battle screen's forms --------------------------------------------------------------


def attack_form(view: selectors.BattleView, catalogue: Any, values: Any) -> dict[str, Any]:
    """What the attack form shows: the chosen attacker's weapons and fire modes, and the
    situations that apply to this kind of attack and this attacker's skills (P2).

    Long because each situation of P2 is offered or not by its own line, side by side.
    """
    figures = {f.id: f for f in view.figures}
    active = [f for f in view.figures if f.state["status"] == table.figures.ACTIVE]
    acting = [f for f in active if f.side == view.acting_side and not f.state["activated"]]

    def chosen(name: str, default: Any) -> Any:
        raw = values.get(name, "") if values else ""
        number = whole_number(str(raw))
        return number if number is not None and number in figures else default

    first = (acting or active or view.figures or [None])[0]
    attacker = figures.get(chosen("figure", first.id if first else 0))
    enemies = [
        f
        for f in view.figures
        if (attacker is None or f.side != attacker.side)
        and f.state["status"] != table.figures.OUT_OF_ACTION
    ]
    target = figures.get(chosen("target", 0))
    if target is None or target not in enemies:  # a new attacker may make it a friend
        target = enemies[0] if enemies else None
    weapons = []
    if attacker is not None:
        for slug in dict.fromkeys(attacker.numbers["equipment"]):
            item = catalogue.equipment.get(slug)
            if item is not None and item.is_weapon:
                weapons.append(item)
    kind = values.get("kind") if values and values.get("kind") in ("melee", "ranged") else None
    # What the form showed before this change ("<attacker>-<kind>"): a new attacker or a
    # new kind starts from its first weapon rather than the one chosen before.
    was_attacker, _, was_kind = str(values.get("was", "") if values else "").partition("-")
    trigger = None
    if values and was_attacker != str(values.get("figure", "")):
        trigger = "figure"
    elif values and was_kind != str(values.get("kind", "")):
        trigger = "kind"
    kinds = {w.kind for w in weapons}
    if trigger == "figure" and kind not in kinds and kinds:
        kind = None  # a new attacker without this kind of weapon: take one it has
    weapon_slug = values.get("weapon") if values and trigger not in ("figure", "kind") else None
    weapon = next(
        (w for w in weapons if w.slug == weapon_slug and (kind is None or w.kind == kind)), None
    )
    if weapon is None and weapon_slug != "none":
        weapon = next((w for w in weapons if kind is None or w.kind == kind), None)
    if kind is None:
        kind = weapon.kind if weapon is not None else "melee"
    skills = set(attacker.numbers["skills"]) if attacker else set()
    return {
        "attacker": attacker,
        "target": target,
        "kind": kind,
        "weapons": [w for w in weapons if w.kind == kind],
        "weapon": weapon,
        "modes": list(enumerate(weapon.fire_modes))
        if weapon and len(weapon.fire_modes) > 1
        else [],
        "mode": values.get("mode", "0") if values else "0",
        "values": values or {},
        "dual_wield": (
            table.figures.MELEE_DUAL_WIELD if kind == "melee" else table.figures.RANGED_DUAL_WIELD
        )
        in skills,
        "fire_on_the_move": table.figures.FIRE_ON_THE_MOVE in skills,
        "ballistics": table.figures.BALLISTICS in skills,
        "quickdraw": table.figures.QUICKDRAW in skills
        and weapon is not None
        and weapon.slug in table.figures.TWO_ACTION_WEAPONS,
        "mighty": table.figures.MIGHTY_ATTACK in skills,
        "bow": weapon is not None and weapon.slug == table.figures.TRADITIONAL_RANGED_WEAPON,
        "enemies": enemies,
        # The swap that brings these odds names what they are for (the browser test waits
        # on it before it rolls).
        "was": f"{attacker.id if attacker else 0}-{kind}",
        "key": f"{attacker.id if attacker else 0}-{target.id if target else 0}-{kind}-"
        f"{weapon.slug if weapon else 'none'}",
        **attack_odds(view, attacker, target, kind, weapon, values),
    }


def attack_odds(
    view: selectors.BattleView,
    attacker: selectors.FigureView | None,
    target: selectors.FigureView | None,
    kind: str,
    weapon: Any,
    values: Any,
) -> dict[str, Any]:
    """The attack's needed roll, chance to hit and expected damage, before rolling (P2)."""
    if attacker is None or target is None:
        return {}
    try:
        mode = values.get("mode", "0") if values else "0"
        plan = services.plan_attack(
            view.battle,
            table.attacks.AttackDeclaration(
                attacker.id,
                target.id,
                kind,  # type: ignore[arg-type]
                weapon.slug if weapon is not None else None,
                whole_number(str(mode)) or 0,
                _situation(values, "attack"),
            ),
        )
    except (DomainError, ValidationError) as error:
        return {"odds_errors": error_messages(error)}
    return {"odds": odds_json(plan)}


def _situation(values: Any, kind: str) -> table.attacks.Situation:
    """The situation ticked on a form, through the API's checks (raises ValidationError)."""
    posted = QueryDict(mutable=True)
    if values:
        posted.update(values)
    posted.setlist("type", [kind])
    checked = serializers.PlaySituationSerializer(
        data=forms.body_from_post(posted).get("situation", {})
    )
    checked.is_valid(raise_exception=True)
    return table.attacks.Situation(**dict(checked.validated_data))


def spell_attack_form(view: selectors.BattleView, values: Any) -> dict[str, Any] | None:
    """The waiting cast's attack form: whom it may attack, the situations that apply to a
    ranged attack by its caster, and the odds of what is ticked (P2)."""
    pending = view.spell_attacks
    if pending is None:
        return None
    chosen = whole_number(str(values.get("target", ""))) if values else None
    target = next((f for f in pending.targets if f.id == chosen), None)
    if target is None and pending.targets:
        target = pending.targets[0]
    form: dict[str, Any] = {
        "pending": pending,
        "target": target,
        "values": values or {},
        "fire_on_the_move": table.figures.FIRE_ON_THE_MOVE in pending.caster.numbers["skills"],
    }
    if target is not None:
        try:
            plan = services.plan_spell_attack(
                view.battle,
                table.spell_attacks.SpellAttack(target.id, _situation(values, "spell-attack")),
            )
        except (DomainError, ValidationError) as error:
            form["odds_errors"] = error_messages(error)
        else:
            form["odds"] = odds_json(plan)
    return form


def spell_options(
    figures: list[selectors.FigureView], catalogue: Any
) -> list[tuple[str, list[tuple[str, str]]]]:
    """The spell form's choices: each active caster's spells not forgotten."""
    return [
        (
            f"{f.name} (CA {f.numbers['stats']['CA']})",
            [
                (f"{f.id}:{s}", f"{f.name}: {catalogue.spells[s].name}")
                for s in f.numbers["spells"]
                if s in catalogue.spells and s not in f.state["forgotten"]
            ],
        )
        for f in figures
        if f.state["status"] == table.figures.ACTIVE and f.numbers["spells"]
    ]


def forgettable(figures: list[selectors.FigureView], catalogue: Any) -> list[tuple[str, str]]:
    """The change form's "Forget a spell" choices (Mana Obliteration): every spell a figure
    of the battle knows, by name (the service refuses one the figure does not know)."""
    known = {s for f in figures for s in f.numbers["spells"] if s in catalogue.spells}
    return sorted(((s, catalogue.spells[s].name) for s in known), key=lambda c: c[1])


def spell_odds(battle: Battle, values: Any, default: str | None) -> dict[str, Any]:
    """Each outcome tier's chance for the spell chosen in the form, before rolling (P4)."""
    choice = (values.get("caster_spell") if values else None) or default
    if not choice:
        return {}
    caster, _, spell = str(choice).partition(":")
    chosen = values.get("chosen", "") if values else ""
    dragon_slayer_default = 1 if spell == table.figures.DRAGON_SLAYER else None
    try:
        plan = services.plan_spell(
            battle,
            table.spells.Cast(
                whole_number(caster) or 0,
                spell,
                anathema_aura=bool(values and values.get("anathema_aura")),
                empowered=bool(values and values.get("empowered")),
                # Dragon Slayer's value is chosen at the table: its odds show for 1 until then.
                chosen=n if (n := whole_number(chosen)) is not None else dragon_slayer_default,
            ),
        )
    except DomainError as error:
        return {"errors": error_messages(error)}
    odds = spell_odds_json(plan)
    return {**odds, "bonus": plan.bonus_successes}


def dice_commitment_json(battle: Battle, absolute: Any) -> dict[str, Any]:
    """The battle's committed dice: the hash from the start, the seed once it has ended."""
    return {
        "sha256": selectors.dice_commitment(battle),
        "seed": selectors.revealed_seed(battle),
        # By the spectator link while there is one, so that spectators may check too.
        "check_url": absolute(
            reverse("play-api-watch-dice", args=[battle.spectator_token])
            if battle.spectator_token
            else reverse("play-api-dice", args=[battle.pk])
        ),
    }


def dice_check_json(check: selectors.DiceCheck, battle_url: str) -> dict[str, Any]:
    verification = check.verification
    results = verification.checks if verification else [None] * len(check.dice)
    return {
        "battle": battle_url,
        "status": check.battle.status,
        "commitment": check.commitment,
        "seed": check.seed,
        "seed_matches": verification.seed_matches if verification else None,
        "verified": verification.verified if verification else None,
        "dice": [
            {
                "seq": die.seq,
                "position": die.position,
                "value": die.value,
                "index": die.index,
                "faces": die.faces,
                "undone": die.undone,
                "derived": result.derived if result else None,
                "matches": result.matches if result else None,
                "problem": result.problem if result else "",
            }
            for die, result in zip(check.dice, results, strict=True)
        ],
    }


# --- the battle screen: cards, the action sheet, undo -----------------------------------------

SHEET_LABELS = {
    "attack": "Attack",
    "spell": "Cast",
    "heal": "Heal",
    "revive": "Revive",
    "jump": "Jump",
    "item": "Item",
    "activate": "Activated",
    "change": "Change",
    "deadly-gamble": "Deadly Gamble",
}
SHEET_BUTTONS = {
    "attack": "Roll the attack",
    "spell": "Cast",
    "heal": "Heal",
    "revive": "Revive",
    "jump": "Roll the jump",
    "item": "Use it",
    "change": "Change",
    "deadly-gamble": "Name the enemy",
}
ROLLING = frozenset({"attack", "spell", "heal", "revive", "jump"})  # dice may be entered
# The sheet's tabs: every action but "Activated", which is a button of its own.
SHEET_TABS = tuple(a for a in table.options.SHEET_ACTIONS if a != "activate")


def _names(slugs: Iterable[str], names: Any) -> list[str]:
    return [names[s].name if s in names else s.replace("-", " ").title() for s in slugs]


def figure_options(view: selectors.BattleView) -> dict[int, table.options.Options]:
    """Every figure's options (`play.table.options`), by id."""
    state = table.state.upgraded(view.battle.state)
    return {
        int(fid): o
        for fid, o in table.options.all_options(
            state, {str(f.id): f.figure for f in view.figures}
        ).items()
    }


def _card(
    f: selectors.FigureView,
    o: table.options.Options,
    catalogue: Catalogue,
    *,
    own: bool,
    names: dict[int, str],
    urls: tuple[str, str],
) -> dict[str, Any]:
    equipment = list(dict.fromkeys(f.numbers["equipment"]))
    weapons = [
        s for s in equipment if s in catalogue.equipment and catalogue.equipment[s].is_weapon
    ]
    gear = [s for s in equipment if s not in weapons and s not in table.state.ONE_USE_ITEMS]
    items = [s for s in equipment if s in table.state.ONE_USE_ITEMS]
    kit = weapons + gear + items
    gamble = f.state.get("gamble")
    return {
        "f": f,
        "options": o,
        "own": own,
        "activating": o.phase == "activating",
        # What it carries: weapons, then gear, then one-use items (discarded ones struck).
        "kit": [
            (name, slug in f.state["discarded"])
            for slug, name in zip(kit, _names(kit, catalogue.equipment), strict=True)
        ],
        "skills": _names(f.numbers["skills"], catalogue.skills),
        "spells": [
            (name, slug in f.state["forgotten"])
            for slug, name in zip(
                f.numbers["spells"], _names(f.numbers["spells"], catalogue.spells), strict=True
            )
        ],
        "gamble": names.get(int(gamble)) if own and gamble else None,
        "url": f"{urls[0]}?figure={f.id}#sheet",
        "sheet_url": f"{urls[1]}?figure={f.id}",
    }


def cards(
    view: selectors.BattleView, catalogue: Catalogue, *, may_act: bool
) -> list[dict[str, Any]]:
    """The battle's sides as the screen's cards: each figure's numbers, HP, status,
    markers, weapons, gear, skills, spells, one-use items and what it may still do; a
    figure of the reader's own side (while they may act) opens its action sheet."""
    options = figure_options(view)
    mine = view.viewer_sides if may_act else frozenset()
    urls = (
        reverse("play:battle", args=[view.battle.pk]),
        reverse("play:sheet", args=[view.battle.pk]),
    )
    names = {f.id: f.name for f in view.figures}
    return [
        {
            "position": side.position,
            "force_name": side.force_name,
            "player_name": side.player_name,
            "invited_name": side.invited_name,
            "acting": view.acting_side == side.position,
            "own": side.position in mine,
            "cards": [
                _card(
                    f,
                    options[f.id],
                    catalogue,
                    own=side.position in mine,
                    names=names,
                    urls=urls,
                )
                for f in side.figures
            ],
        }
        for side in view.sides
    ]


def undo_label(view: selectors.BattleView) -> str:
    """What undo would take back, in a few words ("Ann's attack on Ben")."""
    if view.undo is None:
        return ""
    action = view.undo.action
    detail = action.detail
    names = {str(f.id): f.name for f in view.figures}

    def name(key: str) -> str:
        return names.get(str(detail.get(key)), "a figure")

    kind = action.kind
    if kind in ("attack", "spell-attack"):
        what = "spell's attack" if kind == "spell-attack" else "attack"
        return f"{name('attacker')}'s {what} on {name('target')}"
    if kind == "spell":
        spell = get_spell_name(detail.get("spell", ""))
        return f"{name('caster')}'s {spell}"
    if kind == "heal":
        return f"{name('healer')}'s Heal of {name('target')}"
    if kind == "revive":
        return f"{name('reviver')}'s Revive of {name('target')}"
    if kind == "jump":
        return f"{name('figure')}'s jump"
    if kind == "activate":
        return f"{name('figure')} activated"
    if kind == "change":
        return f"the change to {name('figure')}"
    if kind == "deadly-gamble":
        return f"{name('figure')}'s Deadly Gamble"
    fixed = {
        "initiative": "the initiative roll",
        "turn": "the new turn",
        "roll": "the roll of the dice",
        "transfer": "the Friendship transfer",
        "dodge": "the Dodge for Cover",
        "pass": "the pass",
    }
    return fixed.get(kind, action.words[:60])


def get_spell_name(slug: str) -> str:
    spell = get_catalogue().spells.get(slug)
    return spell.name if spell else slug.replace("-", " ").title()


def plain_values(values: Any, **fixed: Any) -> dict[str, Any]:
    """A form's values as one value a name (the last sent), with `fixed` ones on top."""
    plain: dict[str, Any] = {}
    if values:
        items = values.lists() if isinstance(values, QueryDict) else values.items()
        for key, value in items:
            plain[key] = value[-1] if isinstance(value, list) and value else value
    plain.update({k: str(v) for k, v in fixed.items()})
    return plain


def initiative_rows(view: selectors.BattleView, values: Any) -> list[dict[str, Any]]:
    """The initiative form: a small box per side for each round (the first, then a tie's
    re-rolls), with what the player typed."""
    rows = []
    for r in range(3):
        rows.append(
            {
                "round": r,
                "boxes": [
                    {
                        "name": f"initiative_{r}_{side.position}",
                        "label": side.force_name,
                        "value": (values or {}).get(f"initiative_{r}_{side.position}", ""),
                    }
                    for side in view.sides
                ],
            }
        )
    return rows


def sheet(
    view: selectors.BattleView,
    catalogue: Catalogue,
    *,
    figure_id: Any,
    do: str,
    values: Any,
    may_act: bool,
) -> dict[str, Any]:
    """The action sheet: closed (`figure` None) unless the reader may act and chose a
    figure of their own side; then the figure's actions as tabs, and the form of the one
    chosen (`do`, the first it may take when none is) with what the player typed.

    Long because each action's form is shaped by its own few lines, side by side.
    """
    fid = whole_number(str(figure_id)) if figure_id not in (None, "") else None
    figures = {f.id: f for f in view.figures}
    figure = figures.get(fid) if fid is not None else None
    if not may_act or figure is None or figure.side not in view.viewer_sides:
        return {"figure": None, "values": plain_values(values)}
    options = figure_options(view)[figure.id]
    tabs = [a for a in SHEET_TABS if a in options.actions]
    if do not in tabs:
        do = next((a for a in tabs if a != "change"), "change")
    values = plain_values(values, figure=figure.id)
    friends = [f for f in view.figures if f.side == figure.side]
    enemies = [f for f in view.figures if f.side != figure.side]
    out = table.figures.OUT_OF_ACTION
    form: dict[str, Any] = {
        "figure": figure,
        "options": options,
        "do": do,
        "tabs": [(a, SHEET_LABELS[a]) for a in tabs],
        "may_activate": "activate" in options.actions,
        "values": values,
        "sheet_url": reverse("play:sheet", args=[view.battle.pk]),
        "battle_url": reverse("play:battle", args=[view.battle.pk]),
    }
    if do == "attack":
        form["attack"] = attack_form(view, catalogue, values)
    elif do == "spell":
        form["spell"] = spell_form(view, catalogue, figure, options, enemies, friends, values)
    elif do == "heal":
        form["targets"] = [f for f in view.figures if f.state["status"] == table.figures.ACTIVE]
    elif do == "revive":
        form["targets"] = [
            f
            for f in friends
            if f.state["status"] == table.figures.UNCONSCIOUS and f.id != figure.id
        ]
    elif do == "jump":
        form["climbing_gear"] = "climbing-gear" in options.items
    elif do == "item":
        form["items"] = list(
            zip(options.items, _names(options.items, catalogue.equipment), strict=True)
        )
    elif do == "change":
        form["markers"] = list(table.state.MARKERS.items())
        form["forgettable"] = [
            (s, n)
            for s, n in zip(options.spells, _names(options.spells, catalogue.spells), strict=True)
        ]
    elif do == "deadly-gamble":
        form["targets"] = [f for f in enemies if f.state["status"] != out]
    form["chosen_target"] = str(values.get("target", ""))
    form["rolls"] = do in ROLLING
    form["button"] = SHEET_BUTTONS[do]
    return form


def spell_form(
    view: selectors.BattleView,
    catalogue: Catalogue,
    caster: selectors.FigureView,
    options: table.options.Options,
    enemies: list[selectors.FigureView],
    friends: list[selectors.FigureView],
    values: dict[str, Any],
) -> dict[str, Any]:
    """The cast's form: the caster's spells, and only the chosen spell's own fields."""
    known = [s for s in options.spells if s in catalogue.spells]
    asked = str(values.get("spell", ""))
    slug = asked if asked in known else (known[0] if known else "")
    spell = catalogue.spells.get(slug)
    skills = set(caster.numbers["skills"])
    odds = spell_odds(view.battle, {**values, "caster_spell": f"{caster.id}:{slug}"}, None)
    active = table.figures.ACTIVE
    return {
        "spells": [(s, catalogue.spells[s].name) for s in known],
        "spell": spell,
        "slug": slug,
        "targets": [f for f in view.figures if f.state["status"] != table.figures.OUT_OF_ACTION]
        if spell is not None and spell.range_kind != "self"
        else [],
        "anathema_aura": any(table.figures.ANATHEMA_AURA in f.numbers["skills"] for f in enemies),
        "empowered": table.figures.EMPOWERED_BLESSINGS in skills
        and spell is not None
        and spell.school in table.figures.EMPOWERED_SCHOOLS,
        "chosen": slug == table.figures.DRAGON_SLAYER,
        "sealed_power": table.figures.SEALED_POWER in skills,
        "leaders": [
            f
            for f in friends
            if f.id != caster.id
            and f.state["status"] == active
            and table.figures.LEADERSHIP in f.numbers["skills"]
        ],
        "forget": forgettable(enemies + friends, catalogue)
        if slug == table.spells.MANA_OBLITERATION
        else [],
        "dispel": list(table.state.MARKERS.items()) if slug == table.spells.DISPEL_MAGIC else [],
        "odds": odds,
    }


# What a sheet keeps of a form after its action was taken: the choices (figure, target,
# weapon, spell), not the dice (used once) nor the situation ticked for that roll.
KEPT_AFTER = ("figure", "target", "kind", "weapon", "mode", "spell", "was")


def kept_after(values: Any) -> dict[str, Any]:
    plain = plain_values(values)
    return {k: v for k, v in plain.items() if k in KEPT_AFTER}
