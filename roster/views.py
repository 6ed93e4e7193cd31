"""The force builder pages: thin views over `roster.selectors` (reads) and
`roster.services` (writes).

Every number a page shows comes from the rules engine: the stored `force.evaluation`
for a saved force, and `roster.options` (what-ifs the engine answers) for what a member
could take next, arranged for the templates by `roster.presenters`. The builder's form
data becomes the member's new JSON in `roster.changes`. htmx requests get partials;
everything works as plain HTML forms (POST, then redirect) without JavaScript.
"""

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache as django_cache
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.middleware.csrf import get_token
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import trigger_client_event

from dbd_site.compression import shows_secret
from dbd_site.errors import DomainError
from dbd_site.inputs import is_whole_number
from dbd_site.rendering import (
    add_refusal_to_form,
    is_htmx,
    json_download,
    refusal_messages,
    render_page,
)
from idempotency.decorators import idempotent
from roster import cache_keys, engine, member_rows, options, selectors, services
from roster.changes import ASKED_BETWEEN_BATTLES, BETWEEN_BATTLES, CHANGES, Rejected
from roster.documents import Problem
from roster.forms import (
    IMPORT_MAX_BYTES,
    ClubForm,
    ForceForm,
    ImportForm,
    MemberBasicsForm,
    NewMemberForm,
    RenameForm,
)
from roster.models import Force, Member, SkillRoll
from roster.policy import policy_for
from roster.presenters import (
    BuilderUrls,
    Confirmation,
    Entry,
    MemberCard,
    force_money,
    force_problems,
    free_slots,
    group_forces,
    member_card,
    member_evaluation,
    name_shared,
    purchase_confirmation,
    roll_outcome,
    within_balance,
)
from rules import dice
from rules.loader import get_catalogue

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


def _force_context(
    request: HttpRequest, force: Force, *, read_only: bool = False
) -> dict[str, Any]:
    """Long because it gathers what the force page shows, each piece a line, in the page's
    order."""
    catalogue = get_catalogue()
    viewer = None if read_only else request.user.pk

    # The force page keeps its body in a cache keyed on the force's version; these are
    # worked out (and the stored evaluation and the members read) only when it renders.
    @cache
    def evaluation() -> dict[str, Any]:
        return force.evaluation or {}

    @cache
    def members() -> list[Member]:
        return selectors.members_of(force=force)

    @cache
    def cards() -> list[MemberCard]:  # the print page lays them out itself
        return [
            member_card(m, i, evaluation(), catalogue, viewer_id=viewer)
            for i, m in enumerate(members())
        ]

    @cache
    def card_html() -> list[str]:
        return _member_cards(
            request, force, members(), evaluation(), viewer=viewer, read_only=read_only
        )

    # Who holds the force and what they refuse (a campaign copy: no Resources field, no
    # Delete); asked only when the page's body is rendered, not served from the cache.
    policy = cache(lambda: policy_for(force))

    @cache
    def edit_form() -> ForceForm:  # the force page's inline "Edit name and Resources"
        form = ForceForm(instance=force)
        if not policy().offers("set-resources"):
            del form.fields["resources"]  # a campaign copy's come from the ledger (R15)
        return form

    share_url = None
    if force.share_token and not read_only:
        share_url = request.build_absolute_uri(reverse("roster:shared", args=[force.share_token]))
        shows_secret(request)
    return {
        "force": force,
        # The edition to review and move to, while the force is on an older one.
        "rules_update": (
            catalogue.rules_version if not read_only and selectors.is_on_old_rules(force) else None
        ),
        "evaluation": evaluation,
        "cards": cards,
        "card_html": card_html,
        "force_problems": cache(lambda: force_problems(evaluation())),
        # A reader of a shared link sees the stored figures (no ledger read for them).
        "money": cache(
            lambda: force_money(evaluation(), None if read_only else policy().balance())
        ),
        "share_url": share_url,
        "read_only": read_only,
        "policy_note": cache(lambda: None if read_only else policy().note()),
        "offers_delete": cache(lambda: policy().offers("delete")),
        "offers_resources": cache(lambda: policy().offers("set-resources")),
        "edit_form": edit_form,
    }


# A card is kept while its force is in use; a changed member's key is a new one, and the
# old card only has to age out.
MEMBER_CARD_SECONDS = 600


def _member_cards(
    request: HttpRequest,
    force: Force,
    members: list[Member],
    evaluation: dict[str, Any],
    *,
    viewer: int | None,
    read_only: bool,
) -> list[str]:
    """Each member's card as HTML: folded on the owner's force page, open on the read-only
    page. A card is kept under a key of everything it shows (`cache_keys.member_card`),
    so after an edit only the edited member's card is rendered again; the rest come from
    one cache read."""
    catalogue = get_catalogue()
    fold = not read_only
    keys = [
        cache_keys.member_card(
            request,
            member,
            member_evaluation(evaluation, i),
            viewer_id=viewer,
            read_only=read_only,
            fold=fold,
        )
        for i, member in enumerate(members)
    ]
    kept = django_cache.get_many(keys)
    rendered = {}
    for i, (member, key) in enumerate(zip(members, keys, strict=True)):
        if key not in kept:
            card = member_card(member, i, evaluation, catalogue, viewer_id=viewer)
            context = {"card": card, "force": force, "read_only": read_only, "fold": fold}
            rendered[key] = render_to_string("roster/_member_card.html", context, request)
    if rendered:
        django_cache.set_many(rendered, MEMBER_CARD_SECONDS)
    # Our own template's output, escaped as it rendered.
    return [mark_safe(kept[key] if key in kept else rendered[key]) for key in keys]


# --- my forces -------------------------------------------------------------------------


@login_required
@require_safe
def force_list(request: HttpRequest) -> HttpResponse:
    forces = selectors.forces_for(user=request.user).select_related("campaign_entry__campaign")
    freeform, by_campaign = group_forces(selectors.refreshed(list(forces)))
    context = {
        "forces": freeform,
        "campaign_groups": by_campaign,
        "has_forces": bool(freeform or by_campaign),
        "form": ForceForm(),
    }
    return render_page(request, "roster/list.html", context)


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
            force = services.import_force(owner=request.user, document=document, as_copy=True)
        except DomainError as exc:
            context["problems"] = [
                {"where": pointer_words(p.pointer, document), "message": p.message}
                for p in exc.problems
            ]
        else:
            if force.name == document["name"]:
                messages.success(request, f"Imported {force.name}.")
            else:  # one's own export brought back beside the force it came from
                messages.success(
                    request,
                    f"Imported as {force.name}: you already have a force called "
                    f"{document['name']}.",
                )
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
        if is_whole_number(part) and (node is None or isinstance(node, list)):
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
    context["force_page_key"] = cache_keys.force_page(
        request, force, csrf_secret=request.META["CSRF_COOKIE"], note=context["policy_note"]()
    )
    return render_page(request, "roster/detail.html", context)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@idempotent
def force_edit(request: HttpRequest, force_id: int) -> HttpResponse:
    """The force's name and Resources: inline on the force page with htmx, a page without."""
    force = _force(request, force_id)
    form = ForceForm(_posted(request), instance=force)
    if not policy_for(force).offers("set-resources"):
        del form.fields["resources"]  # a campaign copy's come from the ledger (R15)
    if request.method == "POST":
        if form.is_valid():
            try:
                force = services.update_force_details(
                    force=force,
                    actor=request.user,
                    name=form.cleaned_data["name"],
                    resources=form.cleaned_data.get("resources"),
                )
            except DomainError as exc:
                add_refusal_to_form(form, exc, {"/name": "name", "/resources": "resources"})
            else:
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
@idempotent
def force_rename(request: HttpRequest, force_id: int) -> HttpResponse:
    """Rename a force from My forces, where a copy ("Name (copy)") stands beside its
    original: a small form on each force, without JavaScript. A refused name is shown
    again as typed, with the reason beside it."""
    force = _force(request, force_id)
    form = RenameForm(_posted(request), instance=force, auto_id="rename-%s")
    if request.method == "POST":
        if form.is_valid():
            try:
                force = services.update_force_details(
                    force=force, actor=request.user, name=form.cleaned_data["name"]
                )
            except DomainError as exc:
                add_refusal_to_form(form, exc, {"/name": "name"})
            else:
                messages.success(request, f"Renamed to {force.name}.")
                return redirect(reverse("roster:list") + f"#force-{force.pk}")
        force.refresh_from_db(fields=["name"])  # the form set the refused name on it
        context = {"force": force, "form": form}
        return render_page(request, "roster/rename.html", context, status=400)
    return render_page(request, "roster/rename.html", {"force": force, "form": form})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@idempotent
def force_delete(request: HttpRequest, force_id: int) -> HttpResponse:
    force = _force(request, force_id)
    if request.method == "POST" or not policy_for(force).offers("delete"):
        name = force.name
        try:
            services.delete_force(force=force, actor=request.user)
        except DomainError as exc:
            messages.error(request, " ".join(refusal_messages(exc)))
            return redirect("roster:detail", force_id=force.pk)
        messages.success(request, f"Deleted {name}.")
        return redirect("roster:list")
    return render_page(request, "roster/delete.html", {"force": force})


@login_required
@require_POST
def force_duplicate(request: HttpRequest, force_id: int) -> HttpResponse:
    force = _force(request, force_id)
    try:
        copy = services.duplicate_force(force=force, owner=request.user, actor=request.user)
    except DomainError as exc:
        messages.error(request, " ".join(refusal_messages(exc)))
        return redirect("roster:detail", force_id=force.pk)
    messages.success(request, f"Made a copy: {copy.name}.")
    return redirect("roster:detail", force_id=copy.pk)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@idempotent
def force_rules(request: HttpRequest, force_id: int) -> HttpResponse:
    """Review what the current edition of the rules changes for a force built under an
    older one, and accept the move (issue #13). The numbers are the write path's own: the
    move worked out and not stored (`services.preview_rules_update`)."""
    force = _force(request, force_id)
    if not selectors.is_on_old_rules(force):
        messages.info(request, f"{force.name} is on the current rules already.")
        return redirect("roster:detail", force_id=force.pk)
    status = 200
    if request.method == "POST":
        seen = made_on(request)
        try:
            services.move_to_rules(
                force=force,
                actor=request.user,
                # The move is accepted only on the version the review showed: without
                # one, it is refused as stale rather than made unchecked.
                made_on=-1 if seen is None else seen,
            )
        except DomainError as exc:
            messages.error(request, " ".join(refusal_messages(exc)))
            status = exc.status
            force = _force(request, force_id)
            if not selectors.is_on_old_rules(force):  # moved meanwhile, in another tab
                return redirect("roster:detail", force_id=force.pk)
        else:
            messages.success(
                request, f"{force.name} now plays under the rules {force.rules_version}."
            )
            return redirect("roster:detail", force_id=force.pk)
    update = services.preview_rules_update(force=force, actor=request.user)
    context = {"force": force, "update": update.as_dict()}
    return render_page(request, "roster/rules_update.html", context, status=status)


@login_required
@require_POST
@idempotent
def force_share(request: HttpRequest, force_id: int) -> HttpResponse:
    """Turn the read-only link on or off (`enabled` = "on" / "off")."""
    force = _force(request, force_id)
    enabled = request.POST.get("enabled") == "on"
    force = services.set_share_link(force=force, actor=request.user, enabled=enabled)
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
    return json_download(document, f"{slugify(force.name) or 'force'}.dbd-roster.json")


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
@idempotent
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
            member = services.add_member(force=force, actor=request.user, data=form.member_json())
        except DomainError as exc:
            context["problems"] = exc.problems
        else:
            messages.success(request, f"Added {member.name}. Now choose the free advancements.")
            return redirect("roster:member", force_id=force.pk, member_id=member.pk)
    status = 400 if request.method == "POST" else 200
    return render_page(request, "roster/member_add.html", context, status=status)


# The builder's steps, in the page's order: each is a section of the page, a partial of
# its template, and what a change answers with (the card and status come out of band).
STEPS = ("basics", "club", "free", "purchases", "equipment", "spells")
STEP_LABELS = (
    ("basics", "Statistics"),
    ("club", "Club"),
    ("free", "Free advancements"),
    ("purchases", "Buy advancements"),
    ("equipment", "Equipment"),
    ("spells", "Spells"),
)


def _open_steps(request: HttpRequest, card: MemberCard) -> frozenset[str]:
    """The steps the member page shows open: the one asked for (`?step=`, or `all`), else
    the first with a problem, else the statistics. One at a time keeps the page short on a
    phone, and nothing closed can go stale: a closed step is fetched fresh when opened."""
    asked = request.GET.get("step", "")
    if asked == "all":
        return frozenset(STEPS)
    if asked in STEPS:
        return frozenset({asked})
    counts = card.problem_counts
    return frozenset({next((step for step in STEPS if counts[step]), STEPS[0])})


def _builder_member(request: HttpRequest, force_id: int, member_id: int) -> tuple[Force, Member]:
    """The requesting user's force with its members, and the one the builder shows with
    its rolls (the others' rolls are not shown there), or 404."""
    force = selectors.get_force(user=request.user, force_id=force_id, with_rolls=False)
    return force, selectors.with_rolls(_member(force, member_id))


def _builder_context(
    request: HttpRequest,
    force: Force,
    member: Member,
    *,
    forms: dict[str, Any] | None = None,
    errors: dict[str, list[str]] | None = None,
    notice: str = "",
    open_steps: frozenset[str] | None = None,
    asking: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """Everything the member page shows: its card (the stored evaluation) and each step's
    options with costs and reasons (what-ifs answered by the engine).

    The options and forms are made only when the template reads them (Django calls a
    callable it finds in the context), so the answer to one step's change judges and
    renders that step alone.

    Long because it lists every step's options and forms lazily, one entry per step, in the
    page's order.
    """
    catalogue = get_catalogue()
    members = list(force.members.all())
    index = next((i for i, m in enumerate(members) if m.pk == member.pk), None)
    if index is None:  # removed (in another tab) since the change was stored
        raise Http404("No such member in this force.")
    evaluation = force.evaluation or {}
    card = member_card(member, index, evaluation, catalogue, viewer_id=request.user.pk)
    data = member_rows.member_json(member)
    forms = forms or {}
    owned = set(card.result["skills"]) if card.result else set()
    # A campaign copy's member who has fought is changed between battles (R17a): what
    # is bought is paid from the campaign's ledger, at the price shown.
    policy = policy_for(force)
    between_battles = member.pk in policy.fixed_members()

    def spells_known() -> list[tuple[int, Entry, int]]:
        slots = options.known_spell_slots(data, catalogue)
        return [(k, entry, n) for k, (entry, n) in enumerate(zip(card.spells, slots, strict=True))]

    def spell_focus() -> options.Option | None:
        return options.spell_focus_option(data, catalogue) if engine.SPELL_FOCUS in owned else None

    def mastery_options() -> tuple[options.Option, ...] | None:
        return options.mastery_options(data, catalogue) if engine.SPELL_MASTERY in owned else None

    name_taken = name_shared(member, members, evaluation)

    def basics_form() -> MemberBasicsForm:
        form = forms.get("basics") or MemberBasicsForm(initial=MemberBasicsForm.initial_for(data))
        if name_taken:
            form.fields["name"].widget.attrs.update(
                {"aria-invalid": "true", "aria-describedby": "name-taken"}
            )
        return form

    money = cache(lambda: force_money(evaluation, policy.balance()))

    def paid_from_ledger(groups: tuple[options.OptionGroup, ...]) -> tuple[Any, ...]:
        """Between battles, what the ledger cannot pay is said on its row (R17a)."""
        return within_balance(groups, money()) if between_battles else groups

    purchase_groups = cache(
        lambda: paid_from_ledger(
            options.purchase_options(data, catalogue, between_battles=between_battles)
        )
    )
    equipment_groups = cache(lambda: paid_from_ledger(options.equipment_options(data, catalogue)))

    def confirming() -> Confirmation | None:
        """The between-battles purchase `asking` names, to be confirmed on its row."""
        if asking is None:
            return None
        step, key = asking
        groups = purchase_groups() if step == "purchase-add" else equipment_groups()
        return purchase_confirmation(step, key, groups, money())

    return {
        "force": force,
        "member": member,
        "urls": BuilderUrls(force.pk, member.pk),
        "card": card,
        "open_steps": open_steps if open_steps is not None else _open_steps(request, card),
        "step_labels": STEP_LABELS,
        "name_taken": name_taken,
        "evaluation": evaluation,
        "notice": notice,
        "errors": errors or {},
        "basics_form": cache(basics_form),
        "club_form": cache(
            lambda: (
                forms.get("club")
                or ClubForm(catalogue=catalogue, initial=ClubForm.initial_for(data))
            )
        ),
        "free_slots": cache(lambda: free_slots(member, data, card, catalogue)),
        "tables": list(catalogue.skill_categories.values()),
        "purchase_groups": purchase_groups,
        "between_battles": between_battles,
        "money": money,
        "confirming": cache(confirming),
        "policy_note": cache(policy.note),
        "equipment_groups": equipment_groups,
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
    force, member = _builder_member(request, force_id, member_id)
    context = _builder_context(request, force, member)
    return render_page(request, "roster/member.html", context, compact=True)


@login_required
@require_safe
def member_step(request: HttpRequest, force_id: int, member_id: int, step: str) -> HttpResponse:
    """One step of the builder as it now stands: htmx refreshes a step this way after a
    change elsewhere (static/js/site.js); without htmx, the page at that step."""
    if step not in STEPS:
        raise Http404("No such step.")
    force, member = _builder_member(request, force_id, member_id)
    if not is_htmx(request):
        url = reverse("roster:member", args=[force_id, member_id])
        return redirect(f"{url}?step={step}#step-{step}")
    context = _builder_context(request, force, member, open_steps=frozenset({step}))
    response = render_page(
        request, "roster/member.html", context, partial=f"step-{step}", compact=True
    )
    # Each change moves the force's updated_at, so a browser must not reuse an old answer.
    add_never_cache_headers(response)
    return response


def _builder_response(
    request: HttpRequest,
    force_id: int,
    member_id: int,
    section: str,
    *,
    notice: str = "",
    refused: DomainError | None = None,
    changed: Member | None = None,
    asking: tuple[str, str] | None = None,
) -> HttpResponse:
    """After a change: htmx gets the changed step, with the card, status and notice out of
    band; a plain form post is redirected back to the step (PRG), or shown the page again
    with the refusal (`refused`: its status, its words beside the step).

    `changed`: the member as the write path stored it, when the caller holds it (nothing
    is read again). The other steps are stale after a change: the page refreshes each as
    it comes into view (the "builder-changed" event, static/js/site.js).

    `asking` (a change and its option's key): nothing changed; the step shows that
    between-battles purchase to confirm on its row, the question in the notice.
    """
    if refused is None and asking is None and not is_htmx(request):
        messages.success(request, notice)
        url = reverse("roster:member", args=[force_id, member_id])
        return redirect(f"{url}?step={section}#step-{section}")
    if changed is not None:
        force, member = changed.force, changed
    else:
        force, member = _builder_member(request, force_id, member_id)
    form = refused.form if isinstance(refused, Rejected) else None
    forms_ = {refused.form_name: form} if isinstance(refused, Rejected) and form else None
    errors = {section: [] if form else _refusal_texts(refused)} if refused else None
    context = _builder_context(
        request,
        force,
        member,
        forms=forms_,
        errors=errors,
        notice=notice,
        open_steps=frozenset({section}),
        asking=asking,
    )
    context["notice"] = _answer_notice(context, member, section, refused)
    status = refused.status if refused else 200
    if not is_htmx(request):
        return render_page(request, "roster/member.html", context, status=status, compact=True)
    context["step_partial"] = f"roster/member.html#step-{section}"
    # Only the first step renames; its answer updates the heading, breadcrumb and title.
    context["names_may_change"] = section == "basics"
    response = render_page(
        request, "roster/member.html", context, status=status, partial="step-answer", compact=True
    )
    if refused is None and asking is None:
        trigger_client_event(response, "builder-changed", {"step": f"step-{section}"})
    return response


def _answer_notice(
    context: dict[str, Any], member: Member, section: str, refused: DomainError | None
) -> str:
    """The one notice of a change's answer: a purchase to confirm asks its question; a
    saved name another member has says so; otherwise the caller's notice."""
    question = context["confirming"]()
    if question is not None:
        return question.notice
    if context["name_taken"] and section == "basics" and refused is None:
        # Saved (a draft may break rules), but not "Saved" alone: R10 wants unique names.
        return f"Saved, but another member is already called {member.name}."
    return context["notice"]


def made_on(request: HttpRequest) -> int | None:
    """The force's version the change was made on: the page sends it in the
    `X-Force-Version` header (kept fresh by static/js/site.js) or the form's `version`.
    None when neither is sent (no stale check then)."""
    raw = request.headers.get("X-Force-Version") or request.POST.get("version", "")
    return int(raw) if is_whole_number(raw) else None


def _refusal_texts(refused: DomainError) -> list[str]:
    """A refusal in words beside the step: a problem inside a member is said relative to
    the member ("purchases, entry 1: ...")."""
    return [
        _problem_text(Problem(re.sub(r"^/members/\d+", "", p.pointer), p.code, p.message))
        if p.pointer.startswith("/members/")
        else p.message
        for p in refused.problems
    ]


@login_required
@require_POST
@idempotent
def member_edit(request: HttpRequest, force_id: int, member_id: int, step: str) -> HttpResponse:
    """One builder step's change: the step's form data applied to the member as stored
    now, through the write path (which the force's policy judges)."""
    if step not in CHANGES:
        raise Http404("No such step.")
    # The force's row alone: the write path reads its members as stored, under its lock
    # (a member not in the force is refused there, and answered 404 below), and shows the
    # stored evaluation on this instance.
    force = selectors.get_force_row(user=request.user, force_id=force_id)
    section, change = CHANGES[step]
    fought = member_id in policy_for(force).fixed_members()
    if step in BETWEEN_BATTLES and fought:
        section, change = BETWEEN_BATTLES[step]  # R17a: bought after the member has fought
    if step in ASKED_BETWEEN_BATTLES and fought:
        # Paid from the campaign's ledger for good (R18): asked once, on the option's row;
        # the confirming button sends the key it confirms.
        key = request.POST.get("add", "")
        if request.POST.get("confirmed") != key:
            return _builder_response(request, force_id, member_id, section, asking=(step, key))
    catalogue = get_catalogue()
    names: list[str] = []
    notices: list[str] = []

    def apply(data: dict[str, Any]) -> dict[str, Any]:
        names.append(data["name"])
        changed, notice = change(data, request.POST, catalogue)
        notices.append(notice)
        return changed

    try:
        changed = services.change_member(
            force=force,
            actor=request.user,
            member_id=member_id,
            change=apply,
            description=lambda: f"{names[-1]}: {notices[-1].rstrip('.')}",
            made_on=made_on(request),
        )
    except DomainError as exc:
        if isinstance(exc, Rejected):
            section = exc.section
        return _builder_response(request, force_id, member_id, section, refused=exc)
    return _builder_response(
        request, force_id, member_id, section, notice=notices[-1], changed=changed
    )


def _problem_text(problem: Problem) -> str:
    """A member's shape problem in words ("purchases, entry 1: ..."); pointers are relative
    to the member here."""
    if not problem.pointer:
        return problem.message
    return f"{pointer_words(problem.pointer, None)}: {problem.message}"


def _roll_notice(roll: SkillRoll) -> str:
    rolled = ", ".join(str(d) for d in roll.dice)
    outcome = roll_outcome(roll, get_catalogue())
    return f"You rolled {rolled}: {outcome}."


@login_required
@require_POST
@idempotent
def member_roll(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    """Roll 1d12 on the server for a skill advancement (R5); re-rolls cost FR (R5a)."""
    force = _force(request, force_id)
    member = _member(force, member_id)
    try:
        roll = services.roll_skill(
            force=force,
            actor=request.user,
            member_id=member.pk,
            slot=request.POST.get("slot", ""),
            table=request.POST.get("table") or None,
            rng=dice.server_dice(),
            made_on=made_on(request),
        )
    except DomainError as exc:
        return _builder_response(request, force_id, member_id, "free", refused=exc)
    return _builder_response(request, force_id, member_id, "free", notice=_roll_notice(roll))


@login_required
@require_POST
@idempotent
def member_pick(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    """Pick the skill outright instead of rolling (R5: -2 FR)."""
    return _skill_choice(request, force_id, member_id, services.pick_skill)


@login_required
@require_POST
@idempotent
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
        service(
            force=force,
            actor=request.user,
            member_id=member.pk,
            slot=request.POST.get("slot", ""),
            skill=skill,
            made_on=made_on(request),
        )
    except DomainError as exc:
        return _builder_response(request, force_id, member_id, "free", refused=exc)
    notice = f"Took {catalogue.skills[skill].name}."
    return _builder_response(request, force_id, member_id, "free", notice=notice)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@idempotent
def member_remove(request: HttpRequest, force_id: int, member_id: int) -> HttpResponse:
    force = _force(request, force_id)
    member = _member(force, member_id)
    if request.method == "POST":
        try:
            services.remove_member(force=force, actor=request.user, member_id=member.pk)
        except DomainError as exc:
            messages.error(request, " ".join(refusal_messages(exc)))
            return redirect("roster:detail", force_id=force.pk)
        messages.success(request, f"Removed {member.name} from {force.name}.")
        return redirect("roster:detail", force_id=force.pk)
    return render_page(request, "roster/member_remove.html", {"force": force, "member": member})
