"""My campaigns, a campaign's dashboard and its house rules."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from accounts.forms import LoginForm
from campaign import selectors, services
from campaign.forms import (
    CampaignForm,
    HouseRulesForm,
)
from campaign.models import Campaign
from campaign.presenters import battle_actions, dashboard_actions
from campaign.views.common import RECENT_BATTLES, _base, _campaign, _forbidden, _is_organiser
from dbd_site.compression import shows_secret
from dbd_site.errors import DomainError
from dbd_site.rendering import is_htmx, refusal_messages, render_page

# --- my campaigns --------------------------------------------------------------------------


@login_required
@require_safe
def campaign_list(request: HttpRequest) -> HttpResponse:
    summaries = selectors.campaign_summaries(user=request.user)
    return render_page(
        request, "campaign/list.html", {"summaries": summaries, "form": CampaignForm()}
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def campaign_create(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return redirect(reverse("campaign:list") + "#create")
    form = CampaignForm(request.POST)
    if form.is_valid():
        try:
            campaign = services.create_campaign(
                organiser=request.user, name=form.cleaned_data["name"]
            )
        except DomainError as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(
                request,
                f"{campaign.name} is ready. Share the invitation link with your players.",
            )
            return redirect("campaign:dashboard", campaign_id=campaign.pk)
    summaries = selectors.campaign_summaries(user=request.user)
    return render_page(
        request, "campaign/list.html", {"summaries": summaries, "form": form}, status=400
    )


@require_http_methods(["GET", "HEAD", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """The invitation: join the campaign. Signed out, the link's page says whose campaign
    it is and who invited (what the link itself shows, nothing more) and offers the log-in
    and sign-up that come back here."""
    campaign = selectors.get_campaign_by_invite(token=token)
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.path)
        shows_secret(request)  # the invitation, in the page's return address
        return render_page(
            request,
            "campaign/join_signed_out.html",
            {"campaign": campaign, "form": LoginForm(request), "next": request.path},
        )
    if selectors.is_player(campaign=campaign, user=request.user):
        return redirect("campaign:dashboard", campaign_id=campaign.pk)
    if request.method == "POST":
        try:
            services.join_campaign(user=request.user, token=token)
        except DomainError as exc:
            raise Http404(str(exc)) from exc
        messages.success(request, f"Welcome to {campaign.name}! Enter a force when you are ready.")
        return redirect("campaign:dashboard", campaign_id=campaign.pk)
    shows_secret(request)  # the invitation, in the form's address
    return render_page(request, "campaign/join.html", {"campaign": campaign, "token": token})


# --- the dashboard -------------------------------------------------------------------------


def _dashboard_context(request: HttpRequest, campaign: Campaign) -> dict[str, Any]:
    board = selectors.dashboard(campaign=campaign, user=request.user, recent=RECENT_BATTLES)
    pending = [battle_actions(request.user, b) for b in board.pending_battles]
    # Forces in a pending battle change nothing (level-ups included) until it is settled.
    busy = {bf.campaign_force_id for item in pending for bf in item.battle.battle_forces.all()}
    invite_url = request.build_absolute_uri(reverse("campaign:join", args=[campaign.invite_token]))
    shows_secret(request)
    # Each force's page, reversed once: the standings, the level-ups and the viewer's own
    # force all link to it, and a reverse costs more than the rest of a table row.
    for row in board.standings:
        force = row.campaign_force
        force.url = reverse("campaign:force", args=[campaign.pk, force.pk])
    return _base(
        request,
        campaign,
        board=board,
        pending=pending,
        # The battles the viewer may confirm (what selectors.pending_confirmations lists),
        # counted from the pending battles already loaded for the page.
        waiting_for_me=sum(1 for item in pending if item.may_confirm),
        busy=busy,
        my_force=board.my_force,
        actions=dashboard_actions(campaign, board),
        invite_url=invite_url,
    )


@login_required
@require_safe
def dashboard(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    return render_page(request, "campaign/dashboard.html", _dashboard_context(request, campaign))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def invite_reset(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    if not _is_organiser(request, campaign):
        return _forbidden(request, campaign, "Only the organiser can replace the invitation link.")
    if request.method == "POST":
        services.reset_invite_token(campaign=campaign, by=request.user)
        messages.success(request, "Here is the new invitation link. The old one no longer works.")
        return redirect(reverse("campaign:dashboard", args=[campaign.pk]) + "#invite")
    return render_page(request, "campaign/invite_reset.html", _base(request, campaign))


# --- house rules ---------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def house_rules(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    organiser = _is_organiser(request, campaign)
    form = HouseRulesForm.for_rules(campaign.house_rules) if organiser else None
    status = 200
    if request.method == "POST":
        if not organiser:
            return _forbidden(request, campaign, "Only the organiser can change the house rules.")
        form = HouseRulesForm.for_rules(campaign.house_rules, request.POST)
        if form.is_valid():
            try:
                services.update_house_rules(
                    campaign=campaign, by=request.user, **form.cleaned_data
                )
            except DomainError as exc:
                form.add_problems(refusal_messages(exc))
            else:
                messages.success(request, "House rules saved. The change is in the log.")
                if not is_htmx(request):
                    return redirect("campaign:house_rules", campaign_id=campaign.pk)
                form = HouseRulesForm.for_rules(campaign.house_rules)
        if form.errors:
            status = 400
    context = _base(
        request,
        campaign,
        rules=selectors.house_rules_in_words(campaign=campaign),
        form=form,
    )
    return render_page(request, "campaign/house_rules.html", context, status=status)
