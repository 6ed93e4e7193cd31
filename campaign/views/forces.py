"""A campaign's forces: entering one, its page, retiring it."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_http_methods, require_safe

from campaign import selectors, services
from campaign.forms import (
    EnterForceForm,
)
from campaign.models import Campaign, CampaignForce
from campaign.views.common import _base, _campaign, _forbidden, _is_organiser
from dbd_site.errors import DomainError
from dbd_site.rendering import render_page

# --- forces --------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def enter_force(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    current = selectors.active_force_of(campaign=campaign, user=request.user)
    options = (
        [] if current else selectors.force_entry_options(campaign=campaign, user=request.user)
    )
    can_enter = {o.force.pk: o.force for o in options if o.reason is None}
    form = EnterForceForm(
        request.POST if request.method == "POST" else None,
        choices=[(pk, force.name) for pk, force in can_enter.items()],
    )
    status = 200
    if request.method == "POST":
        if current is not None:
            form.add_error(None, f"You already play {current.force.name} here; retire it first.")
        elif form.is_valid():
            try:
                entry = services.enter_force(
                    campaign=campaign,
                    player=request.user,
                    force=can_enter[form.cleaned_data["force"]],
                )
            except DomainError as exc:
                form.add_error("force", str(exc))
            else:
                messages.success(
                    request,
                    f"{entry.force.name} is in! This is the campaign's own copy; "
                    "your original force is untouched.",
                )
                return redirect(
                    "campaign:force", campaign_id=campaign.pk, campaign_force_id=entry.pk
                )
        status = 400
    context = _base(request, campaign, current=current, options=options, form=form)
    return render_page(request, "campaign/enter_force.html", context, status=status)


def _force_context(request: HttpRequest, campaign: Campaign, cf: CampaignForce) -> dict[str, Any]:
    force = cf.force
    evaluation = force.evaluation or {}
    results = evaluation.get("members") or []
    members = list(force.members.all())
    cards = [(m, results[i] if i < len(results) else None) for i, m in enumerate(members)]
    is_owner = cf.player_id == request.user.pk
    pending = selectors.has_pending_battle(campaign_force=cf)
    return _base(
        request,
        campaign,
        cf=cf,
        force=force,
        evaluation=evaluation,
        cards=cards,
        ledger=list(selectors.ledger_with_running_balance(campaign_force=cf)),
        balance=selectors.balance(campaign_force=cf),
        progress=selectors.force_progress(campaign_force=cf),
        is_owner=is_owner,
        has_pending=pending,
        may_edit=is_owner and cf.is_active and not pending,
        may_retire=cf.is_active and not pending and (is_owner or _is_organiser(request, campaign)),
    )


@login_required
@require_safe
def force_detail(request: HttpRequest, campaign_id: int, campaign_force_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    cf = selectors.campaign_force_detail(campaign=campaign, campaign_force_id=campaign_force_id)
    return render_page(request, "campaign/force.html", _force_context(request, campaign, cf))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def force_retire(request: HttpRequest, campaign_id: int, campaign_force_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    cf = selectors.get_campaign_force(campaign=campaign, campaign_force_id=campaign_force_id)
    if cf.player_id != request.user.pk and not _is_organiser(request, campaign):
        return _forbidden(request, campaign, "Only the force's owner or the organiser retires it.")
    error = ""
    if request.method == "POST":
        try:
            services.retire_campaign_force(campaign_force=cf, by=request.user)
        except DomainError as exc:
            error = str(exc)
        else:
            messages.success(request, f"{cf.force.name} has retired. Its record stays.")
            return redirect("campaign:force", campaign_id=campaign.pk, campaign_force_id=cf.pk)
    context = _base(request, campaign, cf=cf, error=error)
    return render_page(
        request, "campaign/force_retire.html", context, status=400 if error else 200
    )
