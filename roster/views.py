"""The force builder pages: thin views over `roster.selectors` (reads) and
`roster.services` (writes).

Every number a page shows comes from the rules engine: the stored `force.evaluation`
for a saved force, and `roster.options` (what-ifs the engine answers) for what a member
could take next. htmx requests get partials; everything works as plain HTML forms
(POST, then redirect) without JavaScript.
"""

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.middleware.csrf import get_token
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import trigger_client_event

from dbd_site.rendering import is_htmx, render_page
from roster import engine, gate, options, selectors, services
from roster.documents import MalformedDocument, Problem
from roster.forms import (
    IMPORT_MAX_BYTES,
    ClubForm,
    ForceForm,
    ImportForm,
    MemberBasicsForm,
    NewMemberForm,
)
from roster.models import Force, Member, SkillRoll
from rules.catalogue import Catalogue, Society
from rules.loader import get_catalogue


def dice() -> random.Random:
    """Where the server's d12s come from (R5). Tests swap in scripted dice."""
    return random.SystemRandom()


# --- rendering helpers -------------------------------------------------------------------


def _posted(request: HttpRequest) -> QueryDict | None:
    """The POST data to bind a form to (even when empty), or None for a GET."""
    return request.POST if request.method == "POST" else None


def _force(request: HttpRequest, force_id: int) -> Force:
    """The requesting user's force, or 404 (also for someone else's)."""
    return selectors.get_force(user=request.user, force_id=force_id)


def _member(force: Force, member_id: int) -> Member:
    try:
        return selectors.get_member(force=force, member_id=member_id)
    except Member.DoesNotExist as exc:
        raise Http404("No such member in this force.") from exc


# --- presentation: the engine's answers arranged for the templates -----------------------

MEMBER_POINTER = re.compile(r"^/members/\d+(/|$)")


class _ProblemPool:
    """The stored evaluation's problems inside one member, handed out to the things they
    concern (R12 pointers); whatever is left is shown at the top of the card."""

    def __init__(self, evaluation: dict[str, Any], prefix: str) -> None:
        self.items = [
            {**p, "kind": kind[:-1]}
            for kind in ("errors", "warnings")
            for p in evaluation.get(kind, [])
            if p["pointer"] == prefix or p["pointer"].startswith(prefix + "/")
        ]
        self.prefix = prefix

    def take(self, *relative: str) -> list[dict[str, Any]]:
        prefixes = [f"{self.prefix}/{r}" for r in relative]
        taken = [
            p
            for p in self.items
            if any(p["pointer"] == x or p["pointer"].startswith(x + "/") for x in prefixes)
        ]
        self.items = [p for p in self.items if p not in taken]
        return taken


@dataclass(slots=True)
class Entry:
    """One thing on a member card, with what the engine said about it."""

    label: str
    detail: str = ""
    cost: int | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)
    item: Any = None  # the catalogue's Equipment, Spell or Skill


@dataclass(slots=True)
class RollEntry:
    roll: SkillRoll
    slot_label: str
    table: str
    outcome: str
    by: str


@dataclass(slots=True)
class MemberCard:
    member: Member
    index: int
    pointer: str
    result: dict[str, Any] | None
    society: str
    skills: list[Any]
    advancements: list[Entry]
    purchases: list[Entry]
    equipment: list[Entry]
    core_schools: list[Entry]
    spells: list[Entry]
    spell_extras: list[Entry]
    level_ups: list[Entry]
    rolls: list[RollEntry]
    problems: dict[str, list[dict[str, Any]]]

    @property
    def error_count(self) -> int:
        return sum(1 for p in self.all_problems if p["kind"] == "error")

    @property
    def all_problems(self) -> list[dict[str, Any]]:
        """Every error and warning of the member, wherever it is shown on the card."""
        entries = (
            *self.advancements,
            *self.level_ups,
            *self.purchases,
            *self.equipment,
            *self.core_schools,
            *self.spells,
            *self.spell_extras,
        )
        return [
            *(p for problems in self.problems.values() for p in problems),
            *(p for entry in entries for p in entry.problems),
        ]


def _slot_label(slot: str) -> str:
    kind, _, index = slot.partition("/")
    number = int(index) + 1 if index.isdigit() else index
    return {"free_advancements": "Free advancement", "level_ups": "Level-up"}.get(
        kind, kind
    ) + f" {number}"


def _roll_outcome(roll: SkillRoll, catalogue: Catalogue) -> str:
    if roll.outcome == SkillRoll.Outcome.SKILL:
        skill = catalogue.skills.get(roll.skill)
        return skill.name if skill else roll.skill
    if roll.outcome == SkillRoll.Outcome.NATURAL_12:
        return "Natural 12: roll again on any table"
    return "Already owned or not allowed: pick freely"


def _table_name(slug: str, catalogue: Catalogue) -> str:
    category = catalogue.skill_categories.get(slug)
    return category.name if category else slug


def _society_label(society: Society | None, member: Member) -> str:
    if society is None:
        return member.society
    return f"{society.name} (choice {member.society_choice})"


def _advancement_entry(
    adv: dict[str, Any], society: Society | None, catalogue: Catalogue
) -> Entry:
    line = society.lines.get(adv.get("line")) if society else None
    if line is None:
        return Entry(label=f"Line {adv.get('line')}")
    if line.kind == "statistic":
        option = line.option_for(adv.get("choice"))
        if option is not None and line.needs_choice:
            return Entry(label=options.statistic_label(option.amount, option.statistic))
        return Entry(label=line.label)
    skill = catalogue.skills.get(adv.get("skill") or "")
    how = []
    if adv.get("method"):
        how.append(adv["method"])
    if adv.get("rerolls"):
        rerolls = adv["rerolls"]
        how.append(f"{rerolls} re-roll{'s' if rerolls != 1 else ''}")
    if adv.get("natural_12"):
        how.append("after a natural 12")
    return Entry(
        label=f"{line.label}: {skill.name if skill else 'not chosen yet'}",
        detail=", ".join(how),
        item=skill,
    )


def member_card(
    member: Member,
    index: int,
    evaluation: dict[str, Any],
    catalogue: Catalogue,
    *,
    viewer_id: int | None = None,
) -> MemberCard:
    """One member as the engine sees it: stats, costs and every problem in its place."""
    at = f"/members/{index}"
    results = evaluation.get("members") or []
    result = results[index] if index < len(results) else None
    pool = _ProblemPool(evaluation, at)
    society = catalogue.societies.get(member.society)
    purchase_costs = result["purchase_costs"] if result else []
    equipment_costs = result["equipment_costs"] if result else []

    advancements = []
    for k, adv in enumerate(member.free_advancements):
        entry = _advancement_entry(adv, society, catalogue)
        entry.problems = pool.take(f"free_advancements/{k}")
        advancements.append(entry)
    level_ups = []
    for k, adv in enumerate(member.level_ups):
        entry = _advancement_entry(adv, society, catalogue)
        entry.problems = pool.take(f"level_ups/{k}")
        level_ups.append(entry)

    purchases = []
    for k, purchase in enumerate(member.purchases):
        if "skill" in purchase:
            skill = catalogue.skills.get(purchase["skill"])
            entry = Entry(label=skill.name if skill else purchase["skill"], item=skill)
            if skill is not None:
                entry.detail = f"{catalogue.skill_categories[skill.category].name} skill"
        else:
            entry = _advancement_entry(purchase, society, catalogue)
        entry.cost = purchase_costs[k] if k < len(purchase_costs) else None
        entry.problems = pool.take(f"purchases/{k}")
        purchases.append(entry)

    equipment = []
    for k, slug in enumerate(member.equipment):
        item = catalogue.equipment.get(slug)
        equipment.append(
            Entry(
                label=item.name if item else slug,
                cost=equipment_costs[k] if k < len(equipment_costs) else None,
                problems=pool.take(f"equipment/{k}"),
                item=item,
            )
        )

    core_schools = [
        Entry(
            label=catalogue.spell_schools.get(slug, slug),
            problems=pool.take(f"core_schools/{k}"),
        )
        for k, slug in enumerate(member.core_schools)
    ]
    spells = []
    for k, slug in enumerate(member.spells):
        spell = catalogue.spells.get(slug)
        spells.append(
            Entry(
                label=spell.name if spell else slug,
                problems=pool.take(f"spells/{k}"),
                item=spell,
            )
        )
    spell_extras = []
    if member.spell_focus:
        spell_extras.append(Entry(label="Spell Focus", problems=pool.take("spell_focus")))
    if member.mastery:
        mastered = catalogue.spells.get(member.mastery)
        spell_extras.append(
            Entry(
                label="Mastery",
                detail=mastered.name if mastered else member.mastery,
                problems=pool.take("mastery"),
            )
        )

    problems = {
        "basics": pool.take("name", "role", "base"),
        "club": pool.take("club"),
        "free": pool.take("free_advancements"),
        "purchases": pool.take("purchases"),
        "equipment": pool.take("equipment"),
        "spells": pool.take("core_schools", "spells", "spell_focus", "mastery"),
        "levels": pool.take("xp", "level_ups"),
    }
    problems["other"] = pool.items

    rolls = [
        RollEntry(
            roll=roll,
            slot_label=_slot_label(roll.slot),
            table=_table_name(roll.table, catalogue),
            outcome=_roll_outcome(roll, catalogue),
            by=(
                ""
                if viewer_id is None
                else "you"
                if roll.rolled_by_id == viewer_id
                else "a deleted account"
                if roll.rolled_by_id is None
                else "another player"
            ),
        )
        for roll in member.rolls.all()
    ]
    skills = [catalogue.skills[key] for key in (result["skills"] if result else [])]
    return MemberCard(
        member=member,
        index=index,
        pointer=at,
        result=result,
        society=_society_label(society, member),
        skills=skills,
        advancements=advancements,
        purchases=purchases,
        equipment=equipment,
        core_schools=core_schools,
        spells=spells,
        spell_extras=spell_extras,
        level_ups=level_ups,
        rolls=rolls,
        problems=problems,
    )


def _force_problems(evaluation: dict[str, Any]) -> list[dict[str, Any]]:
    """Problems of the whole force (`/members`, `/resources`, ...), not of one member."""
    return [
        {**p, "kind": kind[:-1]}
        for kind in ("errors", "warnings")
        for p in evaluation.get(kind, [])
        if not MEMBER_POINTER.match(p["pointer"])
    ]


def _force_context(
    request: HttpRequest, force: Force, *, read_only: bool = False
) -> dict[str, Any]:
    catalogue = get_catalogue()
    viewer = None if read_only else request.user.pk

    # The force page keeps its body in a cache keyed on the force's version; these are
    # worked out (and the stored evaluation and the members read) only when it renders.
    @cache
    def evaluation() -> dict[str, Any]:
        return force.evaluation or {}

    @cache
    def cards() -> list[MemberCard]:
        return [
            member_card(m, i, evaluation(), catalogue, viewer_id=viewer)
            for i, m in enumerate(selectors.members_of(force=force))
        ]

    share_url = None
    if force.share_token and not read_only:
        share_url = request.build_absolute_uri(reverse("roster:shared", args=[force.share_token]))
    return {
        "force": force,
        "evaluation": evaluation,
        "cards": cards,
        "force_problems": cache(lambda: _force_problems(evaluation())),
        "share_url": share_url,
        "read_only": read_only,
    }


# --- my forces -------------------------------------------------------------------------


@login_required
@require_safe
def force_list(request: HttpRequest) -> HttpResponse:
    forces = selectors.forces_for(user=request.user)
    return render_page(request, "roster/list.html", {"forces": forces, "form": ForceForm()})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def force_create(request: HttpRequest) -> HttpResponse:
    form = ForceForm(_posted(request))
    if request.method == "POST":
        if form.is_valid():
            force = services.create_force(
                owner=request.user,
                name=form.cleaned_data["name"],
                resources=form.cleaned_data["resources"],
            )
            messages.success(request, f"{force.name} is ready. Add its first member.")
            return redirect("roster:detail", force_id=force.pk)
        return render_page(request, "roster/create.html", {"form": form}, status=400)
    return render_page(request, "roster/create.html", {"form": form})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def force_import(request: HttpRequest) -> HttpResponse:
    form = ImportForm(_posted(request), request.FILES if request.method == "POST" else None)
    context: dict[str, Any] = {"form": form, "limit_kb": IMPORT_MAX_BYTES // 1024}
    if request.method != "POST":
        return render_page(request, "roster/import.html", context)
    if form.is_valid():
        document = form.cleaned_data["document"]
        try:
            force = services.import_force(owner=request.user, document=document)
        except MalformedDocument as exc:
            context["problems"] = [
                {"where": pointer_words(p.pointer, document), "message": p.message}
                for p in exc.problems
            ]
        else:
            messages.success(request, f"Imported {force.name}.")
            return redirect("roster:detail", force_id=force.pk)
    return render_page(request, "roster/import.html", context, status=400)


def pointer_words(pointer: str, document: Any) -> str:
    """A JSON Pointer in plain words: "/members/1/base/ME" -> "member 2 (Ann), base, ME"."""
    if not pointer:
        return "the document as a whole"
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    words: list[str] = []
    node = document
    for i, part in enumerate(parts):
        parent = parts[i - 1] if i else None
        if part.isdigit() and (node is None or isinstance(node, list)):
            position = int(part)
            item = node[position] if node is not None and position < len(node) else None
            if parent == "members" and words:
                name = item.get("name") if isinstance(item, dict) else None
                words[-1] = f"member {position + 1}" + (
                    f" ({name})" if isinstance(name, str) else ""
                )
            else:
                words.append(f"entry {position + 1}")
            node = item
            continue
        words.append(part.replace("_", " "))
        node = node.get(part) if isinstance(node, dict) else None
    return ", ".join(words)


# --- one force ---------------------------------------------------------------------------


@login_required
@require_safe
def force_detail(request: HttpRequest, force_id: int) -> HttpResponse:
    force = selectors.get_force_row(user=request.user, force_id=force_id)
    context = _force_context(request, force)
    get_token(request)  # makes sure the secret exists, and is the one the response carries
    context["csrf_secret"] = request.META["CSRF_COOKIE"]
    return render_page(request, "roster/detail.html", context)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def force_edit(request: HttpRequest, force_id: int) -> HttpResponse:
    """The force's name and Resources: inline on the force page with htmx, a page without."""
    force = _force(request, force_id)
    resources_before = force.resources  # the model form writes the posted value onto force
    form = ForceForm(_posted(request), instance=force)
    if request.method == "POST":
        if (
            form.is_valid()
            and gate.campaign_entry(force) is not None
            and form.cleaned_data["resources"] != resources_before
        ):
            form.add_error(
                "resources", "A campaign force's Resources come from its campaign ledger."
            )
        if form.is_valid():
            force = services.update_force_details(
                force=force,
                name=form.cleaned_data["name"],
                resources=form.cleaned_data["resources"],
            )
            if is_htmx(request):
                context = {**_force_context(request, _force(request, force_id)), "oob": True}
                return render_page(request, "roster/detail.html", context, partial="details")
            messages.success(request, "Saved the force's name and Resources.")
            return redirect("roster:detail", force_id=force.pk)
        force.refresh_from_db(fields=["name", "resources"])
        return render_page(
            request, "roster/edit.html", {"force": force, "form": form}, status=400, partial="form"
        )
    return render_page(request, "roster/edit.html", {"force": force, "form": form}, partial="form")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def force_delete(request: HttpRequest, force_id: int) -> HttpResponse:
    force = _force(request, force_id)
    try:
        gate.refuse_in_campaign(force, "retiring it")
    except gate.CampaignError as exc:
        messages.error(request, str(exc))
        return redirect("roster:detail", force_id=force.pk)
    if request.method == "POST":
        name = force.name
        services.delete_force(force=force)
        messages.success(request, f"Deleted {name}.")
        return redirect("roster:list")
    return render_page(request, "roster/delete.html", {"force": force})


@login_required
@require_POST
def force_duplicate(request: HttpRequest, force_id: int) -> HttpResponse:
    force = _force(request, force_id)
    copy = services.duplicate_force(force=force, owner=request.user)
    messages.success(request, f"Made a copy: {copy.name}.")
    return redirect("roster:detail", force_id=copy.pk)


@login_required
@require_POST
def force_share(request: HttpRequest, force_id: int) -> HttpResponse:
    """Turn the read-only link on or off (`enabled` = "on" / "off")."""
    force = _force(request, force_id)
    enabled = request.POST.get("enabled") == "on"
    services.set_share_link(force=force, enabled=enabled)
    if is_htmx(request):
        context = _force_context(request, force)
        return render_page(request, "roster/detail.html", context, partial="share")
    messages.success(
        request, "The read-only link is on." if enabled else "The read-only link is off."
    )
    return redirect(reverse("roster:detail", args=[force.pk]) + "#share")


@login_required
@require_safe
def force_export(request: HttpRequest, force_id: int) -> HttpResponse:
    force = _force(request, force_id)
    document = selectors.force_document(force=force)
    filename = f"{slugify(force.name) or 'force'}.dbd-roster.json"
    response = HttpResponse(
        json.dumps(document, indent=2, ensure_ascii=False) + "\n",
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_safe
def force_print(request: HttpRequest, force_id: int) -> HttpResponse:
    force = selectors.get_force(user=request.user, force_id=force_id, with_members=False)
    return render_page(
        request, "roster/print.html", _force_context(request, force, read_only=True)
    )


@require_safe
def force_shared(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only view behind a share link; anyone with the link, no login."""
    force = selectors.get_shared_force(token=token)
    return render_page(
        request, "roster/shared.html", _force_context(request, force, read_only=True)
    )


# --- members -----------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def member_add(request: HttpRequest, force_id: int) -> HttpResponse:
    """Steps 1 and 2 (name, statistics, club); the member page does the rest."""
    force = _force(request, force_id)
    catalogue = get_catalogue()
    form = NewMemberForm(
        _posted(request),
        catalogue=catalogue,
        initial={"role": "student", "ME": 3, "RA": 2, "CA": 2, "DF": 1},
    )
    context: dict[str, Any] = {"force": force, "form": form}
    if request.method == "POST" and form.is_valid():
        try:
            member = gate.guarded_change(
                force=force,
                user=request.user,
                change=lambda: services.add_member(force=force, data=form.member_json()),
                description="a new recruit",
            )
        except MalformedDocument as exc:
            context["problems"] = exc.problems
        except gate.CampaignError as exc:
            context["problems"] = [Problem("", "campaign", str(exc))]
        else:
            messages.success(request, f"Added {member.name}. Now choose the free advancements.")
            return redirect("roster:member", force_id=force.pk, member_id=member.pk)
    status = 400 if request.method == "POST" else 200
    return render_page(request, "roster/member_add.html", context, status=status)


@dataclass(slots=True)
class FreeSlot:
    """A free advancement slot of the builder (R4, R5) and where its roll stands."""

    index: int
    slot: str
    advancement: dict[str, Any] | None
    entry: Entry | None
    current_key: str | None
    category: Any  # the skill line's SkillCategory, or None
    state: str  # empty | statistic | to-roll | natural-12 | pick-freely | rolled | picked
    last_roll: SkillRoll | None
    last_roll_table: str
    last_roll_outcome: str
    has_rolls: bool
    line_options: tuple[options.Option, ...]
    pick_options: tuple[options.Option, ...]
    free_choices: list[Any]
    can_clear: bool


def _free_slots(
    member: Member, data: dict[str, Any], card: MemberCard, catalogue: Catalogue
) -> list[FreeSlot]:
    society = catalogue.societies.get(member.society)
    advancements = data["free_advancements"]
    slots = []
    # R4: two slots; the second once the first is taken (and any extra an import brought).
    shown = max(min(len(advancements) + 1, engine.FREE_ADVANCEMENTS), len(advancements))
    for index in range(shown):
        slot = f"free_advancements/{index}"
        adv = advancements[index] if index < len(advancements) else None
        line = society.lines.get(adv["line"]) if (society and adv) else None
        rolls = [r for r in member.rolls.all() if r.slot == slot]
        last = rolls[-1] if rolls else None
        category = None
        state = "empty"
        if adv is not None:
            state = "statistic"
        if line is not None and line.kind == "skill":
            category = catalogue.skill_categories.get(line.skill_category)
            if adv.get("skill"):
                state = "picked" if adv.get("method") == "picked" else "rolled"
            elif last and last.outcome == SkillRoll.Outcome.NATURAL_12 and adv.get("natural_12"):
                state = "natural-12"
            elif last and last.outcome == SkillRoll.Outcome.PICK_FREELY:
                state = "pick-freely"
            else:
                state = "to-roll"
        current_key = None
        if adv is not None:
            choice = adv.get("choice")
            current_key = f"{adv['line']}:{choice}" if choice else str(adv["line"])
        slots.append(
            FreeSlot(
                index=index,
                slot=slot,
                advancement=adv,
                entry=card.advancements[index] if adv is not None else None,
                current_key=current_key,
                category=category,
                state=state,
                last_roll=last,
                last_roll_table=_table_name(last.table, catalogue) if last else "",
                last_roll_outcome=_roll_outcome(last, catalogue) if last else "",
                has_rolls=bool(rolls),
                line_options=options.free_advancement_options(data, catalogue, index),
                pick_options=(
                    options.pick_options(
                        data, catalogue, "free_advancements", index, category.slug
                    )
                    if category is not None
                    else ()
                ),
                free_choices=(
                    [catalogue.skills[k] for k in last.choices if k in catalogue.skills]
                    if state == "pick-freely" and last
                    else []
                ),
                can_clear=adv is not None and index == len(advancements) - 1,
            )
        )
    return slots


class _BuilderUrls(dict):
    """The member page's form and step URLs by name ("equipment_add" for the
    "equipment-add" change, "roll", "step_spells"), each reversed once per request and
    only if the page shows it: the step forms repeat them per row and group."""

    def __init__(self, force_id: int, member_id: int) -> None:
        super().__init__()
        self.ids = (force_id, member_id)

    def __missing__(self, name: str) -> str:
        if name.startswith("step_"):
            url = reverse("roster:member_step", args=[*self.ids, name.removeprefix("step_")])
        elif name in ("roll", "pick", "free_pick"):
            url = reverse(f"roster:{name}", args=self.ids)
        else:
            url = reverse("roster:member_edit", args=[*self.ids, name.replace("_", "-")])
        self[name] = url
        return url


# The builder's steps, in the page's order: each is a section of the page, a partial of
# its template, and what a change answers with (the card and status come out of band).
STEPS = ("basics", "club", "free", "purchases", "equipment", "spells")


def _builder_context(
    request: HttpRequest,
    force: Force,
    member: Member,
    *,
    forms: dict[str, Any] | None = None,
    errors: dict[str, list[str]] | None = None,
    notice: str = "",
) -> dict[str, Any]:
    """Everything the member page shows: its card (the stored evaluation) and each step's
    options with costs and reasons (what-ifs answered by the engine).

    The options are worked out only when the template reads them (Django calls a callable
    it finds in the context), so the answer to one step's change judges that step alone.
    """
    catalogue = get_catalogue()
    members = list(force.members.all())
    index = next(i for i, m in enumerate(members) if m.pk == member.pk)
    evaluation = force.evaluation or {}
    card = member_card(member, index, evaluation, catalogue, viewer_id=request.user.pk)
    data = selectors.member_json(member)
    forms = forms or {}
    owned = set(card.result["skills"]) if card.result else set()

    def spells_known() -> list[tuple[int, Entry, int]]:
        slots = options.known_spell_slots(data, catalogue)
        return [(k, entry, n) for k, (entry, n) in enumerate(zip(card.spells, slots, strict=True))]

    def spell_focus() -> options.Option | None:
        return options.spell_focus_option(data, catalogue) if engine.SPELL_FOCUS in owned else None

    def mastery_options() -> tuple[options.Option, ...] | None:
        return options.mastery_options(data, catalogue) if engine.SPELL_MASTERY in owned else None

    return {
        "force": force,
        "member": member,
        "urls": _BuilderUrls(force.pk, member.pk),
        "card": card,
        "evaluation": evaluation,
        "notice": notice,
        "errors": errors or {},
        "basics_form": forms.get("basics")
        or MemberBasicsForm(initial=MemberBasicsForm.initial_for(data)),
        "club_form": forms.get("club")
        or ClubForm(catalogue=catalogue, initial=ClubForm.initial_for(data)),
        "free_slots": cache(lambda: _free_slots(member, data, card, catalogue)),
        "tables": list(catalogue.skill_categories.values()),
        "purchase_groups": cache(lambda: options.purchase_options(data, catalogue)),
        "equipment_groups": cache(lambda: options.equipment_options(data, catalogue)),
        "equipment_items": catalogue.equipment,
        "spell_groups": cache(lambda: options.spell_options(data, catalogue)),
        "spells_catalogue": catalogue.spells,
        "spells_known": cache(spells_known),
        "schools": list(catalogue.spell_schools.items()),
        "has_dilettante": engine.SPELL_DILETTANTE in owned,
        "spell_focus": cache(spell_focus),
        "mastery_options": cache(mastery_options),
        "reroll_fr": engine.REROLL_FR_COST,
        "pick_fr": engine.PICK_FR_COST,
    }


@login_required
@require_safe
def member_detail(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    """The member builder: one section per creation step."""
    force = _force(request, force_id)
    member = _member(force, member_id)
    return render_page(request, "roster/member.html", _builder_context(request, force, member))


@login_required
@require_safe
def member_step(request: HttpRequest, force_id: int, member_id: int, step: str) -> HttpResponse:
    """One step of the builder as it now stands: htmx refreshes a step this way after a
    change elsewhere (static/js/site.js); without htmx, the page at that step."""
    if step not in STEPS:
        raise Http404("No such step.")
    force = _force(request, force_id)
    member = _member(force, member_id)
    if not is_htmx(request):
        return redirect(f"{reverse('roster:member', args=[force_id, member_id])}#step-{step}")
    context = _builder_context(request, force, member)
    response = render_page(request, "roster/member.html", context, partial=f"step-{step}")
    # Each change moves the force's updated_at, so a browser must not reuse an old answer.
    add_never_cache_headers(response)
    return response


class _Rejected(Exception):
    """A change the builder cannot make; shown next to its step, nothing saved."""

    def __init__(
        self, section: str, *messages_: str, form: Any = None, form_name: str = ""
    ) -> None:
        super().__init__("; ".join(messages_))
        self.section = section
        self.messages = list(messages_)
        self.form = form
        self.form_name = form_name


Change = Callable[[dict[str, Any], QueryDict, Catalogue], tuple[dict[str, Any], str]]


def _index(post: QueryDict, items: list[Any], section: str) -> int:
    raw = post.get("index", "")
    if not raw.isdigit() or int(raw) >= len(items):
        raise _Rejected(section, "That entry is no longer there; the page has been refreshed.")
    return int(raw)


def _change_basics(data: dict[str, Any], post: QueryDict, _c: Catalogue) -> tuple[dict, str]:
    form = MemberBasicsForm(post, initial=MemberBasicsForm.initial_for(data))
    if not form.is_valid():
        raise _Rejected("basics", form=form, form_name="basics")
    return form.apply(data), "Saved the name and statistics."


def _change_club(data: dict[str, Any], post: QueryDict, catalogue: Catalogue) -> tuple[dict, str]:
    form = ClubForm(post, catalogue=catalogue, initial=ClubForm.initial_for(data))
    if not form.is_valid():
        raise _Rejected("club", form=form, form_name="club")
    return form.apply(data), "Saved the club."


def _change_free(data: dict[str, Any], post: QueryDict, catalogue: Catalogue) -> tuple[dict, str]:
    """Take a line for free advancement `slot` (R4); a skill line is rolled or picked next."""
    advancements = list(data["free_advancements"])
    raw_slot = post.get("slot", "")
    if not raw_slot.isdigit() or int(raw_slot) > min(len(advancements), 1):
        raise _Rejected("free", "Choose the first free advancement before the second.")
    slot = int(raw_slot)
    number, _, choice = post.get("option", "").partition(":")
    society = catalogue.societies.get(data["club"]["society"])
    line = society.lines.get(int(number)) if society and number.isdigit() else None
    if line is None:
        raise _Rejected("free", "Choose one of the lines of the society's table.")
    advancement: dict[str, Any] = {"line": line.number}
    if choice:
        advancement["choice"] = choice
    current = advancements[slot] if slot < len(advancements) else None
    if current is not None and {k: current.get(k) for k in ("line", "choice")} == {
        "line": advancement["line"],
        "choice": advancement.get("choice"),
    }:
        return data, "No change."
    if slot < len(advancements):
        advancements[slot] = advancement
    else:
        advancements.append(advancement)
    follow_up = " Now roll for the skill, or pick one." if line.kind == "skill" else ""
    option = line.option_for(choice or None) if line.kind == "statistic" else None
    taken = f"{option.amount:+d} {option.statistic}" if option else line.label
    return {**data, "free_advancements": advancements}, f"Took {taken}.{follow_up}"


def _change_free_clear(data: dict[str, Any], post: QueryDict, _c: Catalogue) -> tuple[dict, str]:
    advancements = list(data["free_advancements"])
    if post.get("slot") != str(len(advancements) - 1):
        raise _Rejected("free", "Only the last free advancement can be cleared; change the other.")
    advancements.pop()
    return {**data, "free_advancements": advancements}, "Cleared the free advancement."


def _change_purchase_add(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    purchase = options.purchase_from_key(post.get("add", ""))
    if purchase is None or ("skill" in purchase and purchase["skill"] not in catalogue.skills):
        raise _Rejected("purchases", "Choose one of the listed advancements.")
    if "skill" in purchase:
        name = catalogue.skills[purchase["skill"]].name
    else:
        society = catalogue.societies.get(data["club"]["society"])
        name = _advancement_entry(purchase, society, catalogue).label
    # R6: statistics are bought before any skill, so a statistic goes in before them.
    return options.with_purchase(data, purchase), f"Bought {name}."


def _change_purchase_remove(
    data: dict[str, Any], post: QueryDict, _c: Catalogue
) -> tuple[dict, str]:
    purchases = list(data["purchases"])
    purchases.pop(_index(post, purchases, "purchases"))
    return {**data, "purchases": purchases}, "Removed the advancement."


def _change_equipment_add(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    item = catalogue.equipment.get(post.get("add", ""))
    if item is None:
        raise _Rejected("equipment", "Choose a piece of equipment from the list.")
    return {**data, "equipment": [*data["equipment"], item.slug]}, f"Added {item.name}."


def _change_equipment_remove(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    equipment = list(data["equipment"])
    slug = equipment.pop(_index(post, equipment, "equipment"))
    item = catalogue.equipment.get(slug)
    return {**data, "equipment": equipment}, f"Removed {item.name if item else slug}."


def _change_schools(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    chosen = [post.get("core_school", ""), post.get("second_school", "")]
    unknown = [s for s in chosen if s and s not in catalogue.spell_schools]
    if unknown:
        raise _Rejected("spells", "Choose a school from the list.")
    schools = [s for s in chosen if s]
    return {**data, "core_schools": schools}, "Saved the core school."


def _change_spell_add(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    spell = catalogue.spells.get(post.get("add", ""))
    if spell is None:
        raise _Rejected("spells", "Choose a spell from the list.")
    return {**data, "spells": [*data["spells"], spell.slug]}, f"Learnt {spell.name}."


def _change_spell_remove(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    spells = list(data["spells"])
    slug = spells.pop(_index(post, spells, "spells"))
    spell = catalogue.spells.get(slug)
    changed = {**data, "spells": spells}
    notice = f"Forgot {spell.name if spell else slug}."
    if data.get("mastery") == slug and slug not in spells:
        changed["mastery"] = None  # R9: the Mastery must be a known spell
        notice += " It was the Mastery, so that is cleared too."
    return changed, notice


def _change_spell_focus(data: dict[str, Any], post: QueryDict, _c: Catalogue) -> tuple[dict, str]:
    on = post.get("spell_focus") == "on"
    return {**data, "spell_focus": on}, "Spell Focus is on." if on else "Spell Focus is off."


def _change_mastery(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    slug = post.get("mastery") or None
    if slug is not None and slug not in catalogue.spells:
        raise _Rejected("spells", "Choose one of the student's spells.")
    return {**data, "mastery": slug}, "Saved the Mastery." if slug else "Cleared the Mastery."


CHANGES: dict[str, tuple[str, Change]] = {
    "basics": ("basics", _change_basics),
    "club": ("club", _change_club),
    "free": ("free", _change_free),
    "free-clear": ("free", _change_free_clear),
    "purchase-add": ("purchases", _change_purchase_add),
    "purchase-remove": ("purchases", _change_purchase_remove),
    "equipment-add": ("equipment", _change_equipment_add),
    "equipment-remove": ("equipment", _change_equipment_remove),
    "schools": ("spells", _change_schools),
    "spell-add": ("spells", _change_spell_add),
    "spell-remove": ("spells", _change_spell_remove),
    "spell-focus": ("spells", _change_spell_focus),
    "mastery": ("spells", _change_mastery),
}


def _builder_response(
    request: HttpRequest,
    force_id: int,
    member_id: int,
    section: str,
    *,
    notice: str = "",
    rejected: _Rejected | None = None,
    force: Force | None = None,
) -> HttpResponse:
    """After a change: htmx gets the changed step, with the card, status and notice out of
    band; a plain form post is redirected back to the step (PRG), or shown the page again
    with the problem (400).

    `force` is the force as the change left it, when the caller holds it; otherwise it is
    read again. After a change the other steps are stale: the page refreshes each one as
    it comes into view (the "builder-changed" event, static/js/site.js).
    """
    if rejected is None and not is_htmx(request):
        messages.success(request, notice)
        url = reverse("roster:member", args=[force_id, member_id])
        return redirect(f"{url}#step-{section}")
    force = force or _force(request, force_id)
    member = _member(force, member_id)
    forms_ = {rejected.form_name: rejected.form} if rejected and rejected.form else None
    errors = {rejected.section: rejected.messages} if rejected else None
    context = _builder_context(request, force, member, forms=forms_, errors=errors, notice=notice)
    status = 400 if rejected else 200
    if not is_htmx(request):
        return render_page(request, "roster/member.html", context, status=status)
    context["step_partial"] = f"roster/member.html#step-{section}"
    response = render_page(
        request, "roster/member.html", context, status=status, partial="step-answer"
    )
    if rejected is None:
        trigger_client_event(response, "builder-changed", {"step": f"step-{section}"})
    return response


@login_required
@require_POST
def member_edit(request: HttpRequest, force_id: int, member_id: int, step: str) -> HttpResponse:
    """One builder step's change: build the member's new JSON and save it via services."""
    if step not in CHANGES:
        raise Http404("No such step.")
    section, change = CHANGES[step]
    force = _force(request, force_id)
    member = _member(force, member_id)
    try:
        data, notice = change(selectors.member_json(member), request.POST, get_catalogue())
        gate.guarded_change(
            force=force,
            user=request.user,
            change=lambda: services.update_member(member=member, data=data),
            description=f"{member.name}: {notice.rstrip('.')}" if notice else member.name,
        )
    except gate.CampaignError as exc:
        rejected = _Rejected(section, str(exc))
        return _builder_response(request, force_id, member_id, section, rejected=rejected)
    except _Rejected as exc:
        return _builder_response(request, force_id, member_id, exc.section, rejected=exc)
    except MalformedDocument as exc:
        rejected = _Rejected(section, *(_problem_text(p) for p in exc.problems))
        return _builder_response(request, force_id, member_id, section, rejected=rejected)
    # A freeform force's change refreshed this very force object (services update the
    # member in place and store the evaluation on `member.force`); a campaign's gate works
    # on its own copy, so that answer reads the force again.
    changed = force if gate.campaign_entry(force) is None else None
    return _builder_response(request, force_id, member_id, section, notice=notice, force=changed)


def _problem_text(problem: Problem) -> str:
    """A member's shape problem in words ("purchases, entry 1: ..."); pointers are relative
    to the member here."""
    if not problem.pointer:
        return problem.message
    return f"{pointer_words(problem.pointer, None)}: {problem.message}"


def _roll_notice(roll: SkillRoll) -> str:
    rolled = ", ".join(str(d) for d in roll.dice)
    outcome = _roll_outcome(roll, get_catalogue())
    return f"You rolled {rolled}: {outcome}."


@login_required
@require_POST
def member_roll(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    """Roll 1d12 on the server for a skill advancement (R5); re-rolls cost FR."""
    force = _force(request, force_id)
    member = _member(force, member_id)
    try:
        roll = gate.guarded_change(
            force=force,
            user=request.user,
            change=lambda: services.roll_skill(
                member=member,
                slot=request.POST.get("slot", ""),
                user=request.user,
                table=request.POST.get("table") or None,
                rng=dice(),
            ),
            description=f"{member.name}: a skill roll",
        )
    except (services.RollRefused, gate.CampaignError) as exc:
        return _builder_response(
            request, force_id, member_id, "free", rejected=_Rejected("free", str(exc))
        )
    return _builder_response(request, force_id, member_id, "free", notice=_roll_notice(roll))


@login_required
@require_POST
def member_pick(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    """Pick the skill outright instead of rolling (R5: -2 FR)."""
    return _skill_choice(request, force_id, member_id, services.pick_skill)


@login_required
@require_POST
def member_free_pick(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    """After a roll the student cannot take: pick among the roll's choices, free (R5)."""
    return _skill_choice(request, force_id, member_id, services.take_free_pick)


def _skill_choice(
    request: HttpRequest, force_id: int, member_id: int, service: Callable[..., Member]
) -> HttpResponse:
    force = _force(request, force_id)
    member = _member(force, member_id)
    skill = request.POST.get("skill", "")
    catalogue = get_catalogue()
    try:
        if skill not in catalogue.skills:
            raise services.RollRefused("Choose one of the listed skills.")
        gate.guarded_change(
            force=force,
            user=request.user,
            change=lambda: service(member=member, slot=request.POST.get("slot", ""), skill=skill),
            description=f"{member.name}: a skill",
        )
    except (services.RollRefused, gate.CampaignError) as exc:
        return _builder_response(
            request, force_id, member_id, "free", rejected=_Rejected("free", str(exc))
        )
    notice = f"Took {catalogue.skills[skill].name}."
    return _builder_response(request, force_id, member_id, "free", notice=notice)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def member_remove(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    force = _force(request, force_id)
    member = _member(force, member_id)
    if request.method == "POST":
        try:
            gate.guarded_change(
                force=force,
                user=request.user,
                change=lambda: services.remove_member(member=member),
                description=f"{member.name} retired",
            )
        except gate.CampaignError as exc:
            messages.error(request, str(exc))
            return redirect("roster:detail", force_id=force.pk)
        messages.success(request, f"Removed {member.name} from {force.name}.")
        return redirect("roster:detail", force_id=force.pk)
    return render_page(request, "roster/member_remove.html", {"force": force, "member": member})
