"""Battles (R14, R15): recording one, its page, confirming and voiding it."""

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from campaign import selectors, services
from campaign.forms import (
    BattleForm,
    MemberResultForm,
    VoidForm,
)
from campaign.models import Battle, Campaign, CampaignForce
from campaign.presenters import battle_actions, battle_owners
from campaign.views.campaigns import _dashboard_context
from campaign.views.common import _base, _campaign, _forbidden, _ids, _is_organiser
from dbd_site.errors import DomainError, NotAllowed
from dbd_site.rendering import is_htmx, render_page
from roster.models import Member
from rules.loader import get_catalogue

# --- battles -------------------------------------------------------------------------------


@dataclass(slots=True)
class Side:
    """One force in the record-a-battle form, with a results form per member."""

    campaign_force: CampaignForce
    rows: list[tuple[Member, MemberResultForm]]
    shown: bool  # its rows were on the form that was posted


def _sides(
    campaign: Campaign, chosen: list[int], data: Any = None, *, bind: bool = True
) -> list[Side]:
    """The chosen forces' member rows. Rows that were on the posted form are bound to
    `data` (or, with `bind=False`, keep its values unchecked: htmx reloading the rows
    as forces are ticked); new rows start with everyone taking part."""
    sides = []
    for cf in selectors.battle_sides(campaign=campaign, campaign_force_ids=chosen):
        shown = data is not None and data.get(f"shown-{cf.pk}") == "1"
        rows = []
        for m in cf.force.members.all():
            prefix = f"m{m.pk}"
            if shown and bind:
                row = MemberResultForm(data, prefix=prefix)
            elif shown:
                row = MemberResultForm(
                    prefix=prefix,
                    initial={
                        "took_part": data.get(f"{prefix}-took_part") == "on",
                        "unconscious": data.get(f"{prefix}-unconscious") == "on",
                        "out_of_action": data.get(f"{prefix}-out_of_action") == "on",
                        "enemies_out_of_action": data.get(f"{prefix}-enemies_out_of_action", 0),
                        "objectives": data.get(f"{prefix}-objectives", 0),
                    },
                )
            else:
                row = MemberResultForm(prefix=prefix, initial={"took_part": True})
            rows.append((m, row))
        sides.append(Side(campaign_force=cf, rows=rows, shown=shown))
    return sides


def _default_sides(request: HttpRequest, campaign: Campaign, forces: list[Any]) -> list[int]:
    """The forces a new battle form starts with ticked (fewer clicks): both when the
    campaign has two, else the recorder's own; the player unticks or ticks others."""
    if len(forces) == 2:
        return [cf.pk for cf in forces]
    own = selectors.active_force_of(campaign=campaign, user=request.user)
    return [own.pk] if own is not None else []


def _record_context(
    request: HttpRequest, campaign: Campaign, form: BattleForm, sides: list[Side], **extra: Any
) -> dict[str, Any]:
    chosen = {side.campaign_force.pk for side in sides}
    winner = form["winner"].value() if form.is_bound else form.initial.get("winner", "")
    return _base(
        request,
        campaign,
        may_record=_is_organiser(request, campaign)
        or selectors.active_force_of(campaign=campaign, user=request.user) is not None,
        form=form,
        sides=sides,
        chosen=chosen,
        winner=str(winner or ""),
        **extra,
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def record_battle(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """One form (R14): date, scenario, forces, result and each member's part. Without
    JavaScript the forces are chosen first ("Show members"); with htmx the members'
    rows load as forces are ticked.

    Long because the one form has three answers (the rows for htmx, the form again, the
    redirect) from the same parsing.
    """
    campaign = _campaign(request, campaign_id)
    forces = list(selectors.campaign_forces(campaign=campaign, include_retired=False))
    force_choices = [(cf.pk, f"{cf.force.name} ({cf.player.get_username()})") for cf in forces]
    if request.method != "POST":
        chosen = _ids(request.GET.getlist("forces"))
        if not chosen and not is_htmx(request) and "forces" not in request.GET:
            chosen = _default_sides(request, campaign, forces)
        initial = {
            "played_on": request.GET.get("played_on") or timezone.localdate(),
            "scenario": request.GET.get("scenario", ""),
            "forces": chosen,
            "winner": request.GET.get("winner", ""),
        }
        form = BattleForm(initial=initial, force_choices=force_choices)
        sides = _sides(campaign, chosen, request.GET, bind=False)
        context = _record_context(request, campaign, form, sides)
        return render_page(
            request,
            "campaign/record_battle.html",
            context,
            partial="sides" if is_htmx(request) else "content",
        )

    chosen = _ids(request.POST.getlist("forces"))
    if "show" in request.POST:
        # Step one without JavaScript: show the chosen forces' members, record nothing.
        initial = {
            "played_on": request.POST.get("played_on", ""),
            "scenario": request.POST.get("scenario", ""),
            "forces": chosen,
            "winner": request.POST.get("winner", ""),
        }
        form = BattleForm(initial=initial, force_choices=force_choices)
        sides = _sides(campaign, chosen, request.POST, bind=False)
        context = _record_context(request, campaign, form, sides)
        return render_page(request, "campaign/record_battle.html", context)

    form = BattleForm(request.POST, force_choices=force_choices)
    sides = _sides(campaign, chosen, request.POST)
    valid = form.is_valid()
    rows_valid = [row.is_valid() for side in sides for _, row in side.rows]  # every error shown
    valid = all(rows_valid) and valid
    unseen = [side.campaign_force.force.name for side in sides if not side.shown]
    if unseen:
        form.add_error(
            None,
            "Check who took part for " + ", ".join(unseen) + ", then record the battle.",
        )
        valid = False
    if valid:
        data = form.cleaned_data
        by_pk = {side.campaign_force.pk: side.campaign_force for side in sides}
        results = {
            side.campaign_force: [
                services.MemberOutcome(
                    member=member,
                    unconscious=row.cleaned_data["unconscious"],
                    out_of_action=row.cleaned_data["out_of_action"],
                    enemies_out_of_action=row.cleaned_data["enemies_out_of_action"],
                    objectives=row.cleaned_data["objectives"],
                )
                for member, row in side.rows
                if row.cleaned_data["took_part"]
            ]
            for side in sides
        }
        try:
            battle = services.record_battle(
                campaign=campaign,
                by=request.user,
                played_on=data["played_on"],
                scenario=data["scenario"],
                winner=by_pk.get(data["winner_id"]) if data["winner_id"] else None,
                results=results,
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request,
                "Battle recorded. It counts once an opponent (or the organiser) confirms it.",
            )
            return redirect("campaign:battle", campaign_id=campaign.pk, battle_id=battle.pk)
    context = _record_context(request, campaign, form, sides, posted=True)
    return render_page(request, "campaign/record_battle.html", context, status=400)


def _battle_context(request: HttpRequest, campaign: Campaign, battle: Battle) -> dict[str, Any]:
    return _base(request, campaign, battle=battle, actions=battle_actions(request.user, battle))


@login_required
@require_safe
def battle_detail(request: HttpRequest, campaign_id: int, battle_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    battle = selectors.get_battle(campaign=campaign, battle_id=battle_id)
    return render_page(request, "campaign/battle.html", _battle_context(request, campaign, battle))


def _after_battle_change(
    request: HttpRequest, campaign: Campaign, battle: Battle, *, status: int = 200
) -> HttpResponse:
    """Back where the button was: the dashboard, or the battle's page."""
    if request.POST.get("next") == "dashboard":
        if is_htmx(request):
            context = _dashboard_context(request, campaign)
            return render_page(request, "campaign/dashboard.html", context, status=status)
        return redirect(reverse("campaign:dashboard", args=[campaign.pk]) + "#pending")
    if is_htmx(request):
        fresh = selectors.get_battle(campaign=campaign, battle_id=battle.pk)
        context = _battle_context(request, campaign, fresh)
        return render_page(request, "campaign/battle.html", context, status=status)
    return redirect("campaign:battle", campaign_id=campaign.pk, battle_id=battle.pk)


@login_required
@require_POST
def battle_confirm(request: HttpRequest, campaign_id: int, battle_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    battle = selectors.get_battle(campaign=campaign, battle_id=battle_id)
    if battle.status == Battle.Status.PENDING and not services.may_confirm(
        battle, request.user, battle_owners(battle)
    ):
        return _forbidden(
            request, campaign, "An opponent in this battle, or the organiser, confirms it."
        )
    try:
        services.confirm_battle(battle=battle, by=request.user)
    except NotAllowed as exc:
        return _forbidden(request, campaign, str(exc))
    except DomainError as exc:
        messages.error(request, str(exc))
        return _after_battle_change(request, campaign, battle, status=exc.status)
    messages.success(request, f"Confirmed {battle.scenario}. XP and Resources are in.")
    return _after_battle_change(request, campaign, battle)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def battle_void(request: HttpRequest, campaign_id: int, battle_id: int) -> HttpResponse:
    """Confirmation page, then void: a confirmed battle by the organiser (with a reason;
    new ledger entries reverse it), a pending one withdrawn or disputed (R15)."""
    campaign = _campaign(request, campaign_id)
    battle = selectors.get_battle(campaign=campaign, battle_id=battle_id)
    actions = battle_actions(request.user, battle)
    if not actions.may_void:
        if battle.status == Battle.Status.VOID:
            message = "This battle is already void."
        elif battle.status == Battle.Status.CONFIRMED:
            message = "Only the organiser can void a confirmed battle."
        else:
            message = "The organiser, the recorder or an opponent can call off this battle."
        return _forbidden(request, campaign, message)
    confirmed = battle.status == Battle.Status.CONFIRMED
    form = VoidForm(request.POST if request.method == "POST" else None, reason_required=confirmed)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                services.void_battle(
                    battle=battle, by=request.user, reason=form.cleaned_data["reason"]
                )
            except DomainError as exc:
                form.add_error(None, str(exc))
            else:
                messages.success(request, f"{battle.scenario} is void. The log says why.")
                return redirect("campaign:battle", campaign_id=campaign.pk, battle_id=battle.pk)
        status = 400
    # R15a: the level-ups the lost XP paid for go too; the organiser sees them first.
    catalogue = get_catalogue()
    lost = [
        (
            item,
            selectors.advancement_words(
                item.advancement, catalogue.societies.get(item.member.society), catalogue
            )[0],
        )
        for item in services.void_plan(battle=battle)
    ]
    context = _base(request, campaign, battle=battle, actions=actions, form=form, lost=lost)
    return render_page(request, "campaign/battle_void.html", context, status=status)
