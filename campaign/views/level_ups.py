"""Level-ups (R16, R17): the member's page of them and its skill roll (R5)."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from campaign import selectors, services
from campaign.forms import (
    LevelUpForm,
    LevelUpRollForm,
)
from campaign.models import Campaign, CampaignForce
from campaign.presenters import (
    LevelUpPicker,
    level_up_costs,
    level_up_picker,
    member_fr,
    open_roll_of,
)
from campaign.views.common import _base, _campaign, _forbidden
from dbd_site.errors import DomainError
from dbd_site.rendering import render_page
from roster.models import Member
from rules import dice
from rules.loader import get_catalogue

# --- level-ups (R17) -----------------------------------------------------------------------


def _level_up_member(
    request: HttpRequest, campaign_id: int, campaign_force_id: int, member_id: int
) -> tuple[Campaign, CampaignForce, Member | None, HttpResponse | None]:
    campaign = _campaign(request, campaign_id)
    cf = selectors.campaign_force_detail(campaign=campaign, campaign_force_id=campaign_force_id)
    member = next((m for m in cf.force.members.all() if m.pk == member_id), None)
    if member is None:
        raise Http404("No such member in this force.")
    if cf.player_id != request.user.pk:
        return (
            campaign,
            cf,
            member,
            _forbidden(request, campaign, "Only the force's owner takes its level-ups."),
        )
    return campaign, cf, member, None


def _level_up_context(
    request: HttpRequest,
    campaign: Campaign,
    cf: CampaignForce,
    member: Member,
    *,
    form: LevelUpForm | None = None,
    roll_form: LevelUpRollForm | None = None,
) -> dict[str, Any]:
    progress = next(
        p
        for p in selectors.force_progress(campaign_force=cf)
        if p.member and p.member.pk == member.pk
    )
    catalogue = get_catalogue()
    open_roll = open_roll_of(cf, member, progress)
    picker = level_up_picker(member) if progress.level_ups_waiting else None
    if form is None:
        form = _level_up_form(None, picker) if picker else LevelUpForm()
    if roll_form is None:
        roll_form = _roll_form(None)
    costs = level_up_costs(cf, member, open_roll)
    return _base(
        request,
        campaign,
        cf=cf,
        member=member,
        progress=progress,
        form=form,
        picker=picker,
        society=catalogue.societies.get(member.society),
        open_roll=open_roll,
        roll_form=roll_form,
        unfinished=bool(progress.open_roll),
        reroll_fr=costs.reroll,
        pick_fr=costs.pick,
        fr_now=member_fr(cf, member),
        can_reroll=costs.can_reroll,
        rerolls_paid=costs.rerolls_paid,
        pick_total=costs.pick_total,
    )


def _level_up_form(data: Any, picker: LevelUpPicker) -> LevelUpForm:
    return LevelUpForm(
        data, advancements=picker.keys, skill_lines=picker.skill_keys, skills=picker.skills
    )


def _roll_form(data: Any) -> LevelUpRollForm:
    """The open roll's form: every table and skill are valid here; the services judge the
    roll or pick (R5) and the page offers only what may be taken."""
    catalogue = get_catalogue()
    return LevelUpRollForm(
        data,
        prefix="roll",
        tables=[(slug, c.name) for slug, c in catalogue.skill_categories.items()],
        skills=[(k, s.name) for k, s in catalogue.skills.items()],
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def level_up(
    request: HttpRequest, campaign_id: int, campaign_force_id: int, member_id: int
) -> HttpResponse:
    campaign, cf, member, refused = _level_up_member(
        request, campaign_id, campaign_force_id, member_id
    )
    if refused is not None:
        return refused
    assert member is not None
    if request.method != "POST":
        context = _level_up_context(request, campaign, cf, member)
        return render_page(request, "campaign/level_up.html", context)
    form = _level_up_form(request.POST, level_up_picker(member))
    if form.is_valid():
        data = form.cleaned_data
        try:
            updated = services.take_level_up(
                campaign_force=cf,
                by=request.user,
                member=member,
                line=data["line"],
                choice=data["choice"],
                method=data["method"],
                skill=data.get("skill") or None,
                rng=dice.server_dice(),
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            adv = updated.level_ups[-1] if updated.level_ups else {}
            society = get_catalogue().societies.get(updated.society)
            line = society.lines.get(adv.get("line")) if society else None
            if line is not None and line.kind == "skill" and not adv.get("skill"):
                messages.info(request, "The roll needs a decision from you: see below.")
                return redirect(
                    "campaign:level_up",
                    campaign_id=campaign.pk,
                    campaign_force_id=cf.pk,
                    member_id=member.pk,
                )
            messages.success(request, f"{updated.name} levelled up. Nicely done!")
            if line is not None and line.kind == "skill":
                # The roll, its die and the skill are shown here, with re-roll and pick.
                return redirect(
                    reverse("campaign:level_up", args=[campaign.pk, cf.pk, member.pk])
                    + "#roll-title"
                )
            return redirect(
                reverse("campaign:force", args=[campaign.pk, cf.pk]) + f"#member-{member.pk}"
            )
    fresh = selectors.campaign_force_detail(campaign=campaign, campaign_force_id=cf.pk)
    member = next(m for m in fresh.force.members.all() if m.pk == member.pk)
    context = _level_up_context(request, campaign, fresh, member, form=form)
    return render_page(request, "campaign/level_up.html", context, status=400)


@login_required
@require_POST
def level_up_roll(
    request: HttpRequest, campaign_id: int, campaign_force_id: int, member_id: int
) -> HttpResponse:
    """Finish or redo a level-up's skill roll: roll (again), free pick, or pick (R5)."""
    campaign, cf, member, refused = _level_up_member(
        request, campaign_id, campaign_force_id, member_id
    )
    if refused is not None:
        return refused
    assert member is not None
    form = _roll_form(request.POST)
    slot = request.POST.get("roll-slot", "")
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.continue_level_up_roll(
                campaign_force=cf,
                by=request.user,
                member=member,
                slot=slot,
                action=data["action"],
                table=data.get("table") or None,
                skill=data.get("skill") or None,
                rng=dice.server_dice(),
            )
        except DomainError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Done. The roll is stored with the member.")
            return redirect(
                "campaign:level_up",
                campaign_id=campaign.pk,
                campaign_force_id=cf.pk,
                member_id=member.pk,
            )
    fresh = selectors.campaign_force_detail(campaign=campaign, campaign_force_id=cf.pk)
    member = next(m for m in fresh.force.members.all() if m.pk == member.pk)
    context = _level_up_context(request, campaign, fresh, member, roll_form=form)
    return render_page(request, "campaign/level_up.html", context, status=400)
