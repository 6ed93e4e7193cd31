"""The registry of actions: everything a player can do in a battle, one entry each.

An entry names the action's input (the body keys it reads, of `PlayActionSerializer`, and
those it cannot do without), how the body becomes its rule's declaration, its rule in the
pure package (`play.table`), its service step (`services.act` stores every action the
same way), and its presenter (what the API's answer and the screen show of it). The API,
the battle screen's forms, the schema and its docs all read this registry; adding an
action is adding an entry and its rule (docs/play.md has the recipe).

`perform` turns one action body (the API's JSON, or a screen form made into the same
shape, `play.forms`) that passed `PlayActionSerializer` into its entry's step.
"""

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django.contrib.auth.base_user import AbstractBaseUser
from rest_framework import serializers as drf

from dbd_site.errors import Invalid, Problem
from play import presenters, serializers, services, table
from play.models import Battle, BattleAction

Body = Mapping[str, Any]
# Who may take the action (P9): a figure of the player's side ("figure"), the side that
# decides after an attack ("decision"), or either player for the battle ("battle").
Scope = Literal["figure", "decision", "battle"]


@dataclass(frozen=True, slots=True)
class Action:
    """One thing a player can do in a battle (see the module's docstring)."""

    name: str  # the body's `type`
    label: str  # the screen's words for it
    summary: str  # what it does, for the API docs
    scope: Scope
    reads: tuple[str, ...]  # the body keys it reads
    needs: tuple[str, ...]  # of those, the ones it cannot do without
    declare: Callable[[Body], Any]  # the body as the rule's declaration
    rule: Callable[[table.state.Table, Any], table.state.Outcome]  # in play.table
    present: Callable[[BattleAction], dict[str, Any]]  # what the answer shows of it
    step: Callable[..., BattleAction] = services.act
    kind: str = ""  # the log line's kind, when it is not the name

    @property
    def logged_as(self) -> str:
        return self.kind or self.name


def situation_of(body: Body) -> table.attacks.Situation:
    """The declared situation of a body (`PlaySituationSerializer`'s keys)."""
    return table.attacks.Situation(**dict(body.get("situation") or {}))


def _attack(body: Body) -> table.attacks.AttackDeclaration:
    return table.attacks.AttackDeclaration(
        body["figure"],
        body["target"],
        body["kind"],
        body.get("weapon"),
        body.get("mode", 0),
        situation_of(body),
    )


def _cast(body: Body) -> table.spells.Cast:
    return table.spells.Cast(
        caster=body["figure"],
        spell=body["spell"],
        target=body.get("target"),
        anathema_aura=body.get("anathema_aura", False),
        empowered=body.get("empowered", False),
        chosen=body.get("chosen"),
        sealed_power=body.get("sealed_power", False),
        leader=body.get("leader"),
        forget=body.get("forget"),
        dispel=body.get("dispel"),
    )


def _transfer(body: Body) -> table.decisions.Transfer:
    moved: dict[object, int] = {}
    for each in body["transfers"]:
        moved[each["figure"]] = moved.get(each["figure"], 0) + each["amount"]
    return table.decisions.Transfer(tuple(moved.items()), body.get("decision"))


def _change(body: Body) -> table.state.Change:
    return table.state.Change(
        figure=body["figure"],
        hp=body.get("hp"),
        status=body.get("status"),
        markers=body.get("markers") or {},
        discard=body.get("discard"),
        forget=body.get("forget"),
        activated=body.get("activated"),
        note=body.get("note", ""),
    )


def _nothing(body: Body) -> None:
    return None


ATTACK_SHOWS = ("attacker", "target", "needed", "modified_df", "results", "damage", "check")

ACTIONS: tuple[Action, ...] = (
    Action(
        name="initiative",
        label="Roll for initiative",
        summary="Each side rolls 1d12, +1 for the side with fewer active figures; ties roll "
        "again (P1). Once a turn: `initiative-rolled` (409) for a second roll. Entered dice "
        "come as rounds: `[[7, 7], [3, 9]]`.",
        scope="battle",
        reads=("dice",),
        needs=(),
        declare=_nothing,
        rule=table.turn.initiative,
        present=presenters.shows("winner", "bonuses"),
    ),
    Action(
        name="attack",
        label="Attack",
        summary="`figure` attacks `target` (`kind`, `weapon`, fire `mode`) in the declared "
        "`situation` (P2): one die per attack of the weapon's ROF, two each where a re-roll "
        "applies (P8); damage and status (P3); the defender's decisions wait (P9).",
        scope="figure",
        reads=("figure", "target", "kind", "weapon", "mode", "situation", "dice"),
        needs=("figure", "target", "kind"),
        declare=_attack,
        rule=table.attacks.attack,
        present=presenters.shows(*ATTACK_SHOWS),
    ),
    Action(
        name="spell",
        label="Cast a spell",
        summary="`figure` casts `spell` on `target` (none: itself): CA dice against the "
        "Difficulty, the outcome tier and what it does (P4); `forget` and `dispel` are the "
        "caster's choices for Mana Obliteration and Dispel Magic.",
        scope="figure",
        reads=(
            "figure",
            "spell",
            "target",
            "anathema_aura",
            "empowered",
            "chosen",
            "sealed_power",
            "leader",
            "forget",
            "dispel",
            "dice",
        ),
        needs=("figure", "spell"),
        declare=_cast,
        rule=table.spells.cast_spell,
        present=presenters.shows("caster", "target", "spell", "difficulty", "successes", "tier"),
    ),
    Action(
        name="spell-attack",
        label="Roll its attacks",
        summary="The waiting cast's (`spell_attacks`) attacks on `target`, with its "
        "`situation`: ranged attacks by its caster (P7).",
        scope="figure",
        reads=("target", "situation", "dice"),
        needs=("target",),
        declare=lambda body: table.spell_attacks.SpellAttack(body["target"], situation_of(body)),
        rule=table.spell_attacks.spell_attack,
        present=presenters.shows(*ATTACK_SHOWS, "spell"),
    ),
    Action(
        name="transfer",
        label="Friendship transfer",
        summary="The defender answers a waiting Friendship decision (`decision`; none: the "
        "latest): `transfers` move damage onto friendly figures (P3, P9).",
        scope="decision",
        reads=("transfers", "decision"),
        needs=("transfers",),
        declare=_transfer,
        rule=table.decisions.transfer,
        present=presenters.shows("decision", "amends", "transfers"),
    ),
    Action(
        name="dodge",
        label="Dodge for Cover",
        summary="The defender has made the Dodge for Cover move at the table (`decision`; "
        "none: the latest).",
        scope="decision",
        reads=("decision",),
        needs=(),
        declare=lambda body: table.decisions.Answer(body.get("decision")),
        rule=table.decisions.dodge,
        present=presenters.shows("decision"),
    ),
    Action(
        name="pass",
        label="Pass",
        summary="The deciding side passes a waiting decision (`decision`; none: its latest): "
        "no transfer, or no Dodge for Cover move.",
        scope="decision",
        reads=("decision",),
        needs=(),
        declare=lambda body: table.decisions.Answer(body.get("decision")),
        rule=table.decisions.pass_decision,
        present=presenters.shows("decision"),
    ),
    Action(
        name="heal",
        label="Heal",
        summary="`figure` (Medical Kit) heals `target`: 1d12 against its HP.",
        scope="figure",
        reads=("figure", "target", "dice"),
        needs=("figure", "target"),
        declare=lambda body: table.recovery.Recovery(body["figure"], body["target"]),
        rule=table.recovery.heal,
        present=presenters.shows("healer", "target", "amount"),
    ),
    Action(
        name="revive",
        label="Revive",
        summary="`figure` (Medical Kit) revives the Unconscious `target`: 1d12 at or under "
        "its FR.",
        scope="figure",
        reads=("figure", "target", "dice"),
        needs=("figure", "target"),
        declare=lambda body: table.recovery.Recovery(body["figure"], body["target"]),
        rule=table.recovery.revive,
        present=presenters.shows("reviver", "target", "revived"),
    ),
    Action(
        name="jump",
        label="Jump or drop",
        summary="`figure` makes a Jump or Drop check over `distance` inches after its "
        "`movement`; `discard_climbing_gear` passes a failed one.",
        scope="figure",
        reads=("figure", "distance", "movement", "discard_climbing_gear", "dice"),
        needs=("figure", "distance"),
        declare=lambda body: table.movement.Jump(
            body["figure"],
            body["distance"],
            body.get("movement", "moved"),
            body.get("discard_climbing_gear", False),
        ),
        rule=table.movement.jump,
        present=presenters.shows("figure", "distance", "needed", "damage"),
    ),
    Action(
        name="roll",
        label="Roll dice",
        summary="`count` plain d12 for `reason` (objectives, a push over a drop...).",
        scope="battle",
        reads=("count", "reason", "dice"),
        needs=(),
        declare=lambda body: table.state.Roll(body.get("count", 1), body.get("reason", "")),
        rule=table.state.roll,
        present=presenters.shows("reason"),
    ),
    Action(
        name="change",
        label="Change a figure",
        summary="A declared change to one of your figures (P2): `hp`, `status`, `markers` "
        "to add or remove, an item to `discard`, a spell to `forget`, `activated`.",
        scope="figure",
        reads=("figure", "hp", "status", "markers", "discard", "forget", "activated", "note"),
        needs=("figure",),
        declare=_change,
        rule=table.state.change,
        present=presenters.shows("figure"),
    ),
    Action(
        name="activate",
        label="Activated",
        summary="`figure`'s activation ends: the markers that last for it lapse (P8).",
        scope="figure",
        reads=("figure",),
        needs=("figure",),
        declare=lambda body: table.turn.Activation(body["figure"]),
        rule=table.turn.end_activation_of,
        present=presenters.shows("figure"),
    ),
    Action(
        name="next-turn",
        kind="turn",
        label="Next turn",
        summary="A new turn: the activation under way ends; initiative is rolled again.",
        scope="battle",
        reads=(),
        needs=(),
        declare=_nothing,
        rule=table.turn.new_turn,
        present=presenters.shows(),
    ),
    Action(
        name="deadly-gamble",
        label="Deadly Gamble",
        summary="Before the first initiative roll, `figure` (Deadly Gamble) names the enemy "
        "`target`; shown to its own side only.",
        scope="figure",
        reads=("figure", "target"),
        needs=("figure", "target"),
        declare=lambda body: table.turn.Gamble(body["figure"], body["target"]),
        rule=table.turn.deadly_gamble,
        present=presenters.shows("figure"),
    ),
)
REGISTRY: Mapping[str, Action] = {action.name: action for action in ACTIONS}


class PlayActionSerializer(serializers.PlayActionBody):
    """One action. `type` says which; each type reads the keys its entry names (the
    operation's description lists them).

    `dice`: leave it out for the server's dice; send the dice rolled at the table to enter
    them (marked so in the log, P5). Initiative takes rounds: `[[7, 7], [3, 9]]`.
    """

    type = drf.ChoiceField(list(REGISTRY))


def described() -> str:
    """Every action with its keys (* needed), for the API's docs."""
    return "\n".join(
        f"- `{a.name}`: {a.summary} Keys: "
        + (", ".join(f"`{k}`" + ("*" if k in a.needs else "") for k in a.reads) or "none")
        + "."
        for a in ACTIONS
    )


def problems_of(actions: Mapping[str, Action]) -> list[str]:
    """What an entry lacks, or names that does not exist: a test holds this empty."""
    fields = set(PlayActionSerializer().fields)
    problems: list[str] = []
    for name, a in actions.items():
        if name != a.name or not a.name:
            problems.append(f"{name}: its entry is named {a.name!r}")
        if not a.label or not a.summary:
            problems.append(f"{name}: no label or summary")
        if a.scope not in ("figure", "decision", "battle"):
            problems.append(f"{name}: scope {a.scope!r}")
        if unknown := [k for k in a.reads if k not in fields]:
            problems.append(f"{name}: reads keys the body has not: {unknown}")
        if loose := [k for k in a.needs if k not in a.reads]:
            problems.append(f"{name}: needs keys it does not read: {loose}")
        for part, module in ((a.rule, "play.table."), (a.present, "play.presenters")):
            if not callable(part) or not getattr(part, "__module__", "").startswith(module):
                problems.append(f"{name}: no {module.strip('.')} part")
        if not callable(a.declare) or not callable(a.step):
            problems.append(f"{name}: no declaration or service step")
        if not getattr(a.step, "__module__", "").startswith("play.services"):
            problems.append(f"{name}: its step is not a service")
    return problems


def perform(
    battle: Battle,
    by: AbstractBaseUser,
    body: Body,
    *,
    if_match: int | None = None,
    rng: random.Random | None = None,
) -> BattleAction:
    """Dispatch one validated action body to its entry's service step."""
    entry = REGISTRY.get(str(body.get("type")))
    if entry is None:
        raise Invalid("invalid", f"No action {body.get('type')!r}.", pointer="/type")
    missing = [k for k in entry.needs if body.get(k) is None]
    if missing:
        raise Invalid.of(
            [Problem(f"/{k}", "invalid", f"'{k}' is needed for {entry.name}.") for k in missing]
        )
    return entry.step(
        battle=battle,
        by=by,
        kind=entry.logged_as,
        rule=entry.rule,
        declared=entry.declare(body),
        # An action that rolls nothing ignores dice sent with it, as it always has.
        dice=body.get("dice") if "dice" in entry.reads else None,
        rng=rng,
        if_match=if_match,
    )
