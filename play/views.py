"""The battle pages: start a battle, the phone-first battle screen, the spectator view, and
the end with its record.

Thin views: reads through `play.selectors`, writes through `play.services` (by way of the
API's one action dispatcher, so a form and a JSON body are checked alike), odds from
`play.table` through `play.presenters`. htmx requests get partials; without JavaScript
every form posts and the page comes back whole.

Live: the state panel polls `state/` every second with `If-None-Match: W/"<version>"`;
an unchanged battle answers 304 after one indexed read of the version (see README).
"""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from campaign import selectors as campaign_selectors
from campaign.models import CampaignForce
from dbd_site.errors import DomainError, Invalid, NotFound
from dbd_site.inputs import is_whole_number, whole_number
from dbd_site.rendering import is_htmx, render_page
from play import actions, api, presenters, selectors, serializers, services, table
from play.models import Battle
from roster import selectors as roster_selectors
from rules.loader import get_catalogue

SCREEN_LOG_LINES = 40  # the screen's log: the latest lines (the API has them all)
BOOLEAN_FIELDS = {
    "anathema_aura",
    "empowered",
    "discard_climbing_gear",
}
SITUATION_BOOLEANS = {
    "rear_arc",
    "target_in_melee",
    "target_cannot_see_attacker",
    "double_range",
    "quickdraw",
    "charged",
    "non_charge_move",
    "mighty_attack",
    "dual_wield",
    "best_of_two",
}
INTEGER_FIELDS = {
    "figure",
    "target",
    "mode",
    "chosen",
    "distance",
    "count",
    "hp",
    "recipient",
    "amount",
}


def _errors(error: DomainError | ValidationError) -> list[str]:
    if isinstance(error, DomainError):
        return [p.message for p in error.problems]
    return [e["message"] for e in api_errors(error)]


def api_errors(error: ValidationError) -> list[dict[str, str]]:
    from dbd_site.api import _flatten

    return _flatten(error.detail)


def _int(value: str) -> int | str:
    """A whole number typed in a form (ASCII digits, maybe a minus), else the text as is
    for the services to refuse at its pointer."""
    value = value.strip()
    number = whole_number(value.removeprefix("-"))
    if number is None:
        return value
    return -number if value.startswith("-") else number


def _dice_from(text: str) -> list[Any] | None:
    """ "1 2 7 8" or "1, 2, 7, 8" -> [1, 2, 7, 8]; initiative rounds "7 6; 2 9"."""
    text = text.strip()
    if not text:
        return None
    if ";" in text:
        return [[_int(d) for d in part.replace(",", " ").split()] for part in text.split(";")]
    return [_int(d) for d in text.replace(",", " ").split()]


def body_from_post(post: QueryDict) -> dict[str, Any]:
    """A form's fields as the API's action body (the same checks apply to both)."""
    body: dict[str, Any] = {"type": post.get("type", "")}
    situation: dict[str, Any] = {}
    for key, value in post.items():
        if key in ("csrfmiddlewaretoken", "type", "was") or value == "":
            continue
        if key == "dice":
            body["dice"] = _dice_from(value)
        elif key == "caster_spell":
            figure, _, spell = value.partition(":")
            body["figure"], body["spell"] = _int(figure), spell
        elif key in SITUATION_BOOLEANS:
            situation[key] = value in ("on", "true", "1")
        elif key in ("obscured", "situation_movement"):
            situation[key.removeprefix("situation_")] = value
        elif key in ("opponents_in_melee", "statistic_penalty", "to_hit_bonus"):
            situation[key] = _int(value)
        elif key in BOOLEAN_FIELDS:
            body[key] = value in ("on", "true", "1")
        elif key == "weapon":
            body["weapon"] = None if value == "none" else value
        elif key.startswith("marker_"):
            count = _int(value)
            if count not in (0, "0"):
                body.setdefault("markers", {})[key.removeprefix("marker_")] = count
        elif key in ("recipient", "amount"):
            continue
        elif key in INTEGER_FIELDS:
            body[key] = _int(value)
        else:
            body[key] = value
    if (
        body["type"] == "initiative"
        and body.get("dice")
        and not any(isinstance(d, list) for d in body["dice"])
    ):
        body["dice"] = [body["dice"]]  # one round: "8 3"
    if body["type"] == "attack":
        body["situation"] = situation
    if body["type"] == "transfer":
        recipients = post.getlist("recipient")
        amounts = post.getlist("amount")
        body["transfers"] = [
            {"figure": _int(r), "amount": _int(a)}
            for r, a in zip(recipients, amounts, strict=False)
            if r and a and a != "0"
        ]
    return body


# --- pages --------------------------------------------------------------------------------


def not_found_is_404(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A selector's `NotFound` (not there, or not yours) is the page's 404."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except NotFound as error:
            raise Http404(error.message) from error

    return wrapped


@login_required
@require_GET
def battle_list(request: HttpRequest) -> HttpResponse:
    battles = selectors.battles_for(user=request.user).prefetch_related("sides")[:50]
    return render(request, "play/list.html", {"battles": battles})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@not_found_is_404
def battle_new(request: HttpRequest) -> HttpResponse:
    campaign = None
    campaign_id = request.GET.get("campaign") or request.POST.get("campaign")
    if is_whole_number(campaign_id):
        campaign = campaign_selectors.get_campaign(
            user=request.user, campaign_id=whole_number(campaign_id)
        )
    own = list(selectors.forces_to_play(user=request.user).filter(campaign_entry__isnull=True))
    entries = (
        list(
            CampaignForce.objects.filter(campaign=campaign, retired_at__isnull=True)
            .select_related("force", "player")
            .order_by("pk")
        )
        if campaign
        else []
    )
    context: dict[str, Any] = {
        "campaign": campaign,
        "own": own,
        "entries": entries,
        "errors": [],
        "values": request.POST,
        "preselected": request.POST.get("force") or request.GET.get("force", ""),
    }
    if request.method == "POST":
        try:
            battle = _start_from_post(request, campaign, entries)
        except (DomainError, ValidationError) as error:
            context["errors"] = _errors(error)
            status = error.status if isinstance(error, DomainError) else 400
            return render(request, "play/new.html", context, status=status)
        return redirect("play:battle", battle_id=battle.pk)
    return render(request, "play/new.html", context)


def _start_from_post(request: HttpRequest, campaign: Any, entries: list[CampaignForce]) -> Battle:
    post = request.POST
    scenario = post.get("scenario", "")
    entered = post.get("entered_rolls_allowed") == "on"
    if campaign is not None:
        chosen = {n for v in post.getlist("forces") if (n := whole_number(v)) is not None}
        forces = [cf.force for cf in entries if cf.force_id in chosen]
        return services.start_battle(
            by=request.user,
            forces=forces,
            scenario=scenario,
            campaign=campaign,
            entered_rolls_allowed=entered,
        )
    mine = post.get("force", "")
    if not is_whole_number(mine):
        raise Invalid("invalid", "Choose your force.", pointer="/forces/0")
    forces = [roster_selectors.get_force(user=request.user, force_id=whole_number(mine))]
    other, link = post.get("opponent_force", ""), post.get("opponent_link", "").strip()
    if link:
        forces.append(selectors.shared_force_from_link(link=link))
    elif is_whole_number(other):
        forces.append(roster_selectors.get_force(user=request.user, force_id=whole_number(other)))
    else:
        raise Invalid(
            "invalid",
            "Choose a second force of yours, or paste your opponent's share link.",
            pointer="/forces/1",
        )
    return services.start_battle(
        by=request.user, forces=forces, scenario=scenario, entered_rolls_allowed=entered
    )


def _screen_context(
    request: HttpRequest, battle: Battle, *, may_act: bool, watching: bool = False
) -> dict[str, Any]:
    view = selectors.battle_view(battle=battle, log_limit=SCREEN_LOG_LINES)
    catalogue = get_catalogue()
    figures = view.figures
    return {
        "battle": battle,
        "view": view,
        "may_act": may_act and battle.status == Battle.Status.PLAYING,
        "watching": watching,
        "state_url": (
            reverse("play:watch_state", args=[battle.spectator_token])
            if watching
            else reverse("play:state", args=[battle.pk])
        ),
        "spectator_url": request.build_absolute_uri(
            reverse("play:watch", args=[battle.spectator_token])
        ),
        "spell_options": _spell_options(figures, catalogue),
        "markers": list(table.MARKERS.items()),
        "spell_odds": _spell_odds(
            battle,
            None,
            next((o[0][0] for _, o in _spell_options(figures, catalogue) if o), None),
        ),
        "items": table.ONE_USE_ITEMS,
        "attack": _attack_form(
            view,
            catalogue,
            request.POST if request.method == "POST" else {},
        ),
    }


def _attack_form(view: selectors.BattleView, catalogue: Any, values: Any) -> dict[str, Any]:
    """What the attack form shows: the chosen attacker's weapons and fire modes, and the
    situations that apply to this kind of attack and this attacker's skills (P2)."""
    figures = {f.id: f for f in view.figures}
    active = [f for f in view.figures if f.state["status"] == table.ACTIVE]
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
        and f.state["status"] != table.OUT_OF_ACTION
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
        "dual_wield": (table.MELEE_DUAL_WIELD if kind == "melee" else table.RANGED_DUAL_WIELD)
        in skills,
        "fire_on_the_move": table.FIRE_ON_THE_MOVE in skills,
        "ballistics": table.BALLISTICS in skills,
        "quickdraw": table.QUICKDRAW in skills
        and weapon is not None
        and weapon.slug in table.TWO_ACTION_WEAPONS,
        "mighty": table.MIGHTY_ATTACK in skills,
        "bow": weapon is not None and weapon.slug == table.TRADITIONAL_RANGED_WEAPON,
        # The swap that brings these odds names what they are for (the browser test waits
        # on it before it rolls).
        "was": f"{attacker.id if attacker else 0}-{kind}",
        "key": f"{attacker.id if attacker else 0}-{target.id if target else 0}-{kind}-"
        f"{weapon.slug if weapon else 'none'}",
        **_odds(view, attacker, target, kind, weapon, values),
    }


def _odds(
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
    posted = QueryDict(mutable=True)
    if values:
        posted.update(values)
    posted.setlist("type", ["attack"])
    situation = body_from_post(posted).get("situation", {})
    try:
        checked = serializers.PlaySituationSerializer(data=situation)
        checked.is_valid(raise_exception=True)
        mode = values.get("mode", "0") if values else "0"
        plan = services.plan_attack(
            view.battle,
            services.AttackDeclaration(
                attacker.id,
                target.id,
                kind,  # type: ignore[arg-type]
                weapon.slug if weapon is not None else None,
                whole_number(str(mode)) or 0,
                table.Situation(**dict(checked.validated_data)),
            ),
        )
    except (DomainError, ValidationError) as error:
        return {"odds_errors": _errors(error)}
    return {"odds": presenters.odds_json(plan)}


def _spell_options(
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
        if f.state["status"] == table.ACTIVE and f.numbers["spells"]
    ]


def _screen(request: HttpRequest, battle: Battle, **kw: Any) -> HttpResponse:
    context = _screen_context(request, battle, **kw)
    response = render_page(request, "play/battle.html", context)
    patch_cache_control(response, private=True, no_cache=True)
    return response


@login_required
@require_GET
@not_found_is_404
def battle_page(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    return _screen(request, battle, may_act=selectors.may_act(battle=battle, user=request.user))


@require_GET
@not_found_is_404
def watch(request: HttpRequest, token: str) -> HttpResponse:
    battle = selectors.get_battle_by_token(token=token)
    return _screen(request, battle, may_act=False, watching=True)


def _state(
    request: HttpRequest, version: int, read: Callable[[], Battle], *, watching: bool
) -> HttpResponse:
    """The state panel, or 304 while the version the page holds is still current: the
    idle poll reads one column of one row (after the permission check) and renders
    nothing."""
    etag = api.etag_of(version)
    if api.unchanged_since(request, etag):
        response: HttpResponse = HttpResponseNotModified()
    else:
        battle = read()
        etag = api.etag_of(battle.version)
        may_act = not watching and selectors.may_act(battle=battle, user=request.user)
        context = _screen_context(request, battle, may_act=may_act, watching=watching)
        response = render(request, "play/battle.html#state", context)
    response["ETag"] = etag
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ("HX-Request",))
    return response


@login_required
@require_GET
@not_found_is_404
def state(request: HttpRequest, battle_id: int) -> HttpResponse:
    return _state(
        request,
        selectors.battle_version(user=request.user, battle_id=battle_id),
        lambda: selectors.get_battle(user=request.user, battle_id=battle_id),
        watching=False,
    )


@require_GET
@not_found_is_404
def watch_state(request: HttpRequest, token: str) -> HttpResponse:
    return _state(
        request,
        selectors.battle_version_by_token(token=token),
        lambda: selectors.get_battle_by_token(token=token),
        watching=True,
    )


def _after(
    request: HttpRequest,
    battle: Battle,
    *,
    said: str = "",
    errors: list[str] | None = None,
    status: int = 200,
) -> HttpResponse:
    if not is_htmx(request):
        if errors:
            for message in errors:
                messages.error(request, message)
        elif said:
            messages.success(request, said)
        return redirect("play:battle", battle_id=battle.pk)
    fresh = Battle.objects.select_related("campaign").get(pk=battle.pk)
    context = _screen_context(
        request, fresh, may_act=selectors.may_act(battle=fresh, user=request.user)
    )
    context.update({"said": said, "errors": errors or []})
    response = render(request, "play/battle.html#answer", context, status=status)
    patch_vary_headers(response, ("HX-Request",))
    return response


@login_required
@require_POST
@not_found_is_404
def act(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    try:
        body = serializers.PlayActionSerializer(data=body_from_post(request.POST))
        body.is_valid(raise_exception=True)
        action = actions.perform(battle, request.user, dict(body.validated_data))
    except (DomainError, ValidationError) as error:
        status = error.status if isinstance(error, DomainError) else 400
        return _after(request, battle, errors=_errors(error), status=status)
    return _after(request, battle, said=action.words)


@login_required
@require_POST
@not_found_is_404
def odds(request: HttpRequest, battle_id: int) -> HttpResponse:
    """The attack form again with the odds of what is ticked (before anything is rolled)."""
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    context = _screen_context(
        request, battle, may_act=selectors.may_act(battle=battle, user=request.user)
    )
    return render(request, "play/battle.html#attack", context)


def _spell_odds(battle: Battle, values: Any, default: str | None) -> dict[str, Any]:
    """Each outcome tier's chance for the spell chosen in the form, before rolling (P4)."""
    choice = (values.get("caster_spell") if values else None) or default
    if not choice:
        return {}
    caster, _, spell = str(choice).partition(":")
    chosen = values.get("chosen", "") if values else ""
    dragon_slayer_default = 1 if spell == table.DRAGON_SLAYER else None
    try:
        plan = services.plan_spell(
            battle,
            whole_number(caster) or 0,
            spell,
            anathema_aura=bool(values and values.get("anathema_aura")),
            empowered=bool(values and values.get("empowered")),
            # Dragon Slayer's value is chosen at the table: its odds show for 1 until then.
            chosen=n if (n := whole_number(chosen)) is not None else dragon_slayer_default,
        )
    except DomainError as error:
        return {"errors": _errors(error)}
    return {
        "dice": plan.dice,
        "difficulty": plan.difficulty,
        "bonus": plan.bonus_successes,
        "tiers": [
            {
                "label": "No effect" if tier is None else f"{tier.label} successes",
                "effect": "" if tier is None else tier.effect,
                "percent": presenters.percent(chance),
            }
            for tier, chance in plan.tier_odds()
        ],
    }


@login_required
@require_POST
@not_found_is_404
def spell_odds(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    context = {"battle": battle, "spell_odds": _spell_odds(battle, request.POST, None)}
    return render(request, "play/battle.html#spell-odds", context)


@login_required
@require_POST
@not_found_is_404
def undo(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    try:
        action = services.undo(battle=battle, by=request.user)
    except DomainError as error:
        return _after(request, battle, errors=_errors(error), status=error.status)
    return _after(request, battle, said=f"Undone: {action.words}")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@not_found_is_404
def end(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    view = selectors.battle_view(battle=battle)
    record = services.record_from_log(battle) if battle.status == "playing" else {}
    context: dict[str, Any] = {
        "battle": battle,
        "view": view,
        "record": record,
        "errors": [],
        "values": request.POST,
        "may_act": selectors.may_act(battle=battle, user=request.user),
    }
    if request.method == "POST":
        winner_raw = request.POST.get("winner", "")
        objectives = {
            whole_number(key.removeprefix("objectives_")): _int(value)
            for key, value in request.POST.items()
            if key.startswith("objectives_")
            and is_whole_number(key.removeprefix("objectives_"))
            and value
        }
        try:
            if winner_raw not in ("draw",) and not is_whole_number(winner_raw):
                raise Invalid("invalid", "Choose the winner, or a draw.", pointer="/winner")
            services.end_battle(
                battle=battle,
                by=request.user,
                winner=None if winner_raw == "draw" else whole_number(winner_raw),
                objectives=objectives,  # type: ignore[arg-type]
            )
        except DomainError as error:
            context["errors"] = _errors(error)
            return render(request, "play/end.html", context, status=error.status)
        battle.refresh_from_db()
        if battle.recorded_battle_id and battle.campaign_id:
            messages.success(
                request,
                "The battle is recorded in the campaign; it counts once an opponent confirms it.",
            )
            return redirect(
                "campaign:battle",
                campaign_id=battle.campaign_id,
                battle_id=battle.recorded_battle_id,
            )
        messages.success(request, "The battle has ended.")
        return redirect("play:battle", battle_id=battle.pk)
    return render(request, "play/end.html", context)
