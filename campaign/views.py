"""The campaign pages: thin views over `campaign.selectors` (reads) and
`campaign.services` (writes; they keep the house rules R14-R18).

Who sees what: every campaign page needs a login (anonymous visitors are sent to log
in) and answers 404 to anyone outside the campaign, so outsiders cannot tell a
campaign exists. Inside the campaign, a page or action reserved for someone else (the
organiser's settings, void and export; a force owner's level-ups) answers 403 with a
short explanation and changes nothing.

htmx requests get partials; every form also works as a plain POST that redirects
(POST-redirect-GET). Domain errors from the services are shown as form errors, with
status 400.
"""

import json
import random
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from campaign import charts, exports, selectors, services
from campaign.forms import (
    BattleForm,
    CampaignForm,
    EnterForceForm,
    HouseRulesForm,
    LevelUpForm,
    LevelUpRollForm,
    MemberResultForm,
    VoidForm,
)
from campaign.models import Battle, Campaign, CampaignForce
from dbd_site.compression import shows_secret
from dbd_site.errors import DomainError, NotAllowed
from dbd_site.inputs import is_whole_number
from dbd_site.rendering import is_htmx, refusal_messages, render_page
from roster import engine
from roster.models import Member, SkillRoll
from rules.loader import get_catalogue

LOG_PAGE_SIZE = 25
RECENT_BATTLES = 10


def dice() -> random.Random:
    """Where the server's d12s come from (R5, R17). Tests swap in scripted dice."""
    return random.SystemRandom()


# --- helpers -------------------------------------------------------------------------------


def _campaign(request: HttpRequest, campaign_id: int) -> Campaign:
    """A campaign the user organises or plays in, or 404."""
    return selectors.get_campaign(user=request.user, campaign_id=campaign_id)


def _is_organiser(request: HttpRequest, campaign: Campaign) -> bool:
    return campaign.organiser_id == request.user.pk


def _forbidden(request: HttpRequest, campaign: Campaign, message: str) -> HttpResponse:
    """Someone in the campaign asked for something reserved for someone else."""
    response = render(
        request,
        "campaign/forbidden.html",
        _base(request, campaign, message=message),
        status=403,
    )
    patch_vary_headers(response, ("HX-Request",))
    return response


def _base(request: HttpRequest, campaign: Campaign, **extra: Any) -> dict[str, Any]:
    return {"campaign": campaign, "is_organiser": _is_organiser(request, campaign), **extra}


def _owners(battle: Battle) -> list[int]:
    return [bf.campaign_force.player_id for bf in battle.battle_forces.all()]


@dataclass(frozen=True, slots=True)
class BattleActions:
    """What the viewer may do with a battle, and what the void button is called."""

    battle: Battle
    may_confirm: bool
    may_void: bool
    void_label: str


def _actions(request: HttpRequest, battle: Battle) -> BattleActions:
    owners = _owners(battle)
    pending = battle.status == Battle.Status.PENDING
    user = request.user
    may_void = services.may_void(battle=battle, user=user, owners=owners)
    if not pending:
        label = "Void"
    elif user.pk == battle.recorded_by_id:
        label = "Withdraw"
    elif user.pk in owners:
        label = "Dispute"
    else:
        label = "Void"
    return BattleActions(
        battle=battle,
        may_confirm=pending and services.may_confirm(battle, user, owners),
        may_void=may_void,
        void_label=label,
    )


def _ids(values: list[str]) -> list[int]:
    return [int(v) for v in values if is_whole_number(v)]


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


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    campaign = selectors.get_campaign_by_invite(token=token)
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
    pending = [_actions(request, b) for b in board.pending_battles]
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


def _advancement_choices(member: Member) -> tuple[list[tuple[str, str]], set[str]]:
    """The lines of the member's society table (R17), "or" lines split by choice."""
    catalogue = get_catalogue()
    society = catalogue.societies.get(member.society)
    choices: list[tuple[str, str]] = []
    skill_keys: set[str] = set()
    if society is None:
        return choices, skill_keys
    for line in society.lines.values():
        if line.kind == "statistic" and line.needs_choice:
            choices += [
                (
                    f"{line.number}:{o.statistic}",
                    f"Line {line.number}: {o.amount:+d} {o.statistic}",
                )
                for o in line.options
            ]
        else:
            choices.append((str(line.number), f"Line {line.number}: {line.label}"))
            if line.kind == "skill":
                skill_keys.add(str(line.number))
    return choices, skill_keys


def _skill_choices(categories: list[str] | None = None) -> list[tuple[str, Any]]:
    """Skills grouped by table, for a <select> with optgroups."""
    catalogue = get_catalogue()
    groups = []
    for slug, category in catalogue.skill_categories.items():
        if categories is not None and slug not in categories:
            continue
        groups.append((category.name, [(s.key, s.name) for s in category.skills]))
    return groups


@dataclass(frozen=True, slots=True)
class OpenRoll:
    """A level-up whose skill roll waits for the owner (R5): its slot and last roll."""

    slot: str
    label: str
    roll: SkillRoll | None
    state: str  # natural-12 | pick-freely | rolled | picked
    table_name: str
    choices: list[tuple[str, str]]
    category: str
    skill_name: str  # the skill the level-up has now ("" while the roll is open)
    pick_tables: tuple[str, ...] = ()  # the line's table, and a natural 12's table (R5)
    rerolls: int = 0  # re-rolls paid for so far (R5a: they stay paid)


def _open_roll(cf: CampaignForce, member: Member, progress: Any) -> OpenRoll | None:
    """The level-up the roll form is about: an unfinished one, or else the latest
    level-up if it is a skill line (a re-roll or a pick stays possible, R5)."""
    catalogue = get_catalogue()
    society = catalogue.societies.get(member.society)
    if not member.level_ups or society is None:
        return None
    line_item = progress.open_roll if progress.open_roll else progress.level_ups[-1]
    advancement = member.level_ups[line_item.index]
    line = society.lines.get(advancement.get("line"))
    if line is None or line.kind != "skill":
        return None
    slot = f"level_ups/{line_item.index}"
    rolls = [r for r in progress.rolls if r.slot == slot]
    last = rolls[-1] if rolls else None
    if advancement.get("skill"):
        state = "picked" if advancement.get("method") == "picked" else "rolled"
    elif last and last.outcome == SkillRoll.Outcome.NATURAL_12:
        state = "natural-12"
    elif last and last.outcome == SkillRoll.Outcome.PICK_FREELY:
        state = "pick-freely"
    else:
        state = "rolled"
    choices = []
    if state == "pick-freely" and last:
        choices = [(k, catalogue.skills[k].name) for k in last.choices if k in catalogue.skills]
    table = catalogue.skill_categories.get(last.table) if last else None
    return OpenRoll(
        slot=slot,
        label=line.label,
        roll=last,
        state=state,
        table_name=table.name if table else "",
        choices=choices,
        category=line.skill_category or "",
        skill_name=(
            catalogue.skills[advancement["skill"]].name
            if advancement.get("skill") in catalogue.skills
            else ""
        ),
        pick_tables=tuple(
            dict.fromkeys(
                t
                for t in (
                    line.skill_category,
                    last.table
                    if last and (advancement.get("natural_12") or state == "natural-12")
                    else None,
                )
                if t
            )
        ),
        rerolls=int(advancement.get("rerolls") or 0),
    )


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
    advancements, skill_keys = _advancement_choices(member)
    catalogue = get_catalogue()
    open_roll = _open_roll(cf, member, progress)
    society = catalogue.societies.get(member.society)
    line_tables = [
        line.skill_category
        for line in (society.lines.values() if society else ())
        if line.kind == "skill" and line.skill_category
    ]
    if form is None:
        form = LevelUpForm(
            advancements=advancements,
            skill_lines=skill_keys,
            skills=_skill_choices(line_tables),  # only the tables of its skill lines
        )
    if roll_form is None:
        roll_form = LevelUpRollForm(
            prefix="roll",
            tables=[(slug, c.name) for slug, c in catalogue.skill_categories.items()],
            skills=(
                open_roll.choices
                if open_roll and open_roll.state == "pick-freely"
                else _skill_choices(list(open_roll.pick_tables) if open_roll else [])
            ),
        )
    # What a re-roll and a pick really cost (R5, R5a): earlier re-rolls stay paid, and a
    # re-roll is not offered when it would take FR below 0 (R3).
    results = (cf.force.evaluation or {}).get("members") or []
    index = next((i for i, m in enumerate(cf.force.members.all()) if m.pk == member.pk), None)
    fr_now = results[index]["stats"]["FR"] if index is not None and index < len(results) else None
    paid = open_roll.rerolls * engine.REROLL_FR_COST if open_roll else 0
    return _base(
        request,
        campaign,
        cf=cf,
        member=member,
        progress=progress,
        form=form,
        society=get_catalogue().societies.get(member.society),
        open_roll=open_roll,
        roll_form=roll_form,
        unfinished=bool(progress.open_roll),
        reroll_fr=engine.REROLL_FR_COST,
        pick_fr=engine.PICK_FR_COST,
        fr_now=fr_now,
        can_reroll=fr_now is None or fr_now >= engine.REROLL_FR_COST,
        rerolls_paid=paid,
        pick_total=paid + engine.PICK_FR_COST,
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
    advancements, skill_keys = _advancement_choices(member)
    form = LevelUpForm(
        request.POST, advancements=advancements, skill_lines=skill_keys, skills=_skill_choices()
    )
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
                rng=dice(),
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
    catalogue = get_catalogue()
    form = LevelUpRollForm(
        request.POST,
        prefix="roll",
        tables=[(slug, c.name) for slug, c in catalogue.skill_categories.items()],
        skills=[(k, s.name) for k, s in catalogue.skills.items()],
    )
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
                rng=dice(),
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
    rows load as forces are ticked."""
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
    return _base(request, campaign, battle=battle, actions=_actions(request, battle))


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
        battle, request.user, _owners(battle)
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
    actions = _actions(request, battle)
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


# --- charts, log, export -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ForceXP:
    name: str
    chart: str
    series: list[charts.Series]
    chart_id: str
    rows: list[tuple[int, str, list[int | None]]]


def _table_rows(
    labels: list[str], series: list[charts.Series]
) -> list[tuple[int, str, list[int | None]]]:
    """The chart's numbers turned round for a table: one row per label."""
    return [(i, label, [s.values[i] for s in series]) for i, label in enumerate(labels)]


@login_required
@require_safe
def charts_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    resources = selectors.resources_history(campaign=campaign)
    xp = selectors.xp_history(campaign=campaign)
    has_battles = len(resources["labels"]) > 1
    context = _base(request, campaign, has_battles=has_battles)
    if has_battles:
        names = {cf.pk: cf.force.name for cf in selectors.campaign_forces(campaign=campaign)}
        xp_forces = []
        for pk, name in names.items():
            series = [
                charts.Series(name=s["name"], values=s["values"])
                for s in xp["series"]
                if s["campaign_force"] == pk
            ]
            if not series:
                continue
            chart_id = f"xp-chart-{pk}"
            svg = charts.xp_chart(xp["labels"], series, force_name=name, chart_id=chart_id)
            # mark_safe: every piece of text in the SVG went through html.escape (charts.py).
            xp_forces.append(
                ForceXP(
                    name=name,
                    chart=mark_safe(svg),
                    series=series,
                    chart_id=chart_id,
                    rows=_table_rows(xp["labels"], series),
                )
            )
        resource_series = [
            charts.Series(name=s["name"], values=s["values"]) for s in resources["series"]
        ]
        context.update(
            resources=resources,
            resource_series=resource_series,
            resource_rows=_table_rows(resources["labels"], resource_series),
            resources_chart=mark_safe(charts.resources_chart(resources)),
            xp_forces=xp_forces,
        )
    return render_page(request, "campaign/charts.html", context)


@login_required
@require_safe
def log(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    paginator = Paginator(selectors.campaign_log(campaign=campaign), LOG_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    context = _base(request, campaign, page=page)
    partial = "entries" if is_htmx(request) else "content"
    return render_page(request, "campaign/log.html", context, partial=partial)


@login_required
@require_safe
def export(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The whole campaign as one dbd-campaign/1 JSON file; the organiser's (403 for the
    players: it names everyone and holds the whole history, so the organiser shares it)."""
    campaign = _campaign(request, campaign_id)
    if not _is_organiser(request, campaign):
        return _forbidden(request, campaign, "Only the organiser can export the campaign.")
    document = exports.export_campaign(campaign=campaign)
    filename = f"{slugify(campaign.name) or 'campaign'}.dbd-campaign.json"
    response = HttpResponse(
        json.dumps(document, indent=2, ensure_ascii=False) + "\n",
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
