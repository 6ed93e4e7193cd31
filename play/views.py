"""The battle pages: start a battle, the phone-first battle screen, the spectator view, and
the end with its record.

Thin views: reads through `play.selectors`, writes through `play.services` (by way of the
API's one action dispatcher, so a form and a JSON body are checked alike), odds from
`play.table` through `play.presenters`. htmx requests get partials; without JavaScript
every form posts and the page comes back whole.

Live: the state panel polls `state/` with `If-None-Match: W/"<version>"` (every half
second while the battle is being played, less often when quiet, never while the page is
hidden: static/js/play.js); an unchanged battle answers 304 after one indexed read of the
version.
"""

import hashlib
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import prefetch_related_objects
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotModified,
)
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from rest_framework.exceptions import ValidationError

from campaign import selectors as campaign_selectors
from campaign.models import CampaignForce
from dbd_site.compression import shows_secret
from dbd_site.errors import DomainError, Invalid, NotFound
from dbd_site.inputs import is_whole_number, whole_number
from dbd_site.rendering import is_htmx, render_page
from idempotency.decorators import idempotent
from play import (
    actions,
    api,
    forms,
    presenters,
    selectors,
    services,
    sharing,
    table,
)
from play.models import Battle
from roster import selectors as roster_selectors
from rules.loader import get_catalogue

SCREEN_LOG_LINES = 40  # the screen's log: the latest lines (the API has them all)


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
    battles = list(selectors.battle_list_for(user=request.user)[:50])
    prefetch_related_objects(battles, "sides")
    force_id = request.GET.get("force", "")
    return render(
        request,
        "play/list.html",
        {
            "battles": battles,
            "invitations": list(selectors.invitations_for(user=request.user)[:50]),
            "force_id": force_id if is_whole_number(force_id) else "",
        },
    )


@login_required
@require_POST
def invitation(request: HttpRequest, battle_id: int) -> HttpResponse:
    """Accept (take over the side that plays your shared force) or decline an invitation
    from the battle list (`play.sharing`)."""
    if not selectors.is_invited(user=request.user, battle_id=battle_id):
        raise Http404("No such invitation.")
    answer = request.POST.get("answer")
    if answer not in ("accept", "decline"):
        return HttpResponseBadRequest("Accept or decline the invitation.")
    try:
        if answer == "accept":
            sharing.accept_invitation(battle_id=battle_id, user=request.user)
        else:
            sharing.decline_invitation(battle_id=battle_id, user=request.user)
    except DomainError as error:
        for message in presenters.error_messages(error):
            messages.error(request, message)
        return redirect("play:list")
    if answer == "accept":
        messages.success(request, "The side is yours: you play your force in this battle.")
        return redirect("play:battle", battle_id=battle_id)
    messages.success(request, "Declined: the battle's starter keeps playing your force's side.")
    return redirect("play:list")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@not_found_is_404
def spectator_link(request: HttpRequest, battle_id: int) -> HttpResponse:
    """The battle's spectator link, and its replacing or withdrawing: a page that shows
    it and asks first (the screen links here; for htmx, only the screen fold's line with
    the link), then the change (`play.sharing`): a new link comes back to this page, to be
    copied; a withdrawn one to the battle."""
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    if request.method == "POST":
        do = request.POST.get("do")
        try:
            if do == "replace":
                sharing.replace_spectator_link(battle=battle, by=request.user)
                messages.success(request, "A new spectator link: the old one no longer works.")
                return redirect("play:spectator_link", battle_id=battle.pk)
            elif do == "withdraw":
                sharing.withdraw_spectator_link(battle=battle, by=request.user)
                messages.success(request, "The spectator link is withdrawn: nobody can watch.")
            else:
                raise Invalid("invalid", "Replace or withdraw the link.", pointer="/do")
        except DomainError as error:
            context = {"battle": battle, "errors": presenters.error_messages(error)}
            return render(request, "play/spectator_link.html", context, status=error.status)
        return redirect("play:battle", battle_id=battle.pk)
    context = {
        "battle": battle,
        "errors": [],
        "may_act": selectors.may_act(battle=battle, user=request.user),
        "spectator_url": _spectator_url(request, battle),
    }
    shows_secret(request)  # the spectator link: this page alone shows it to the players
    response = render_page(request, "play/spectator_link.html", context, partial="fold")
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _spectator_url(request: HttpRequest, battle: Battle) -> str:
    if not battle.spectator_token:
        return ""
    return request.build_absolute_uri(reverse("play:watch", args=[battle.spectator_token]))


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
        "entries": presenters.campaign_force_choices(
            entries, request.POST if request.method == "POST" else None
        ),
        "errors": [],
        "values": request.POST,
        "preselected": request.POST.get("force") or request.GET.get("force", ""),
    }
    if request.method == "POST":
        try:
            battle = _start_from_post(request, campaign, entries)
        except (DomainError, ValidationError) as error:
            context["errors"] = presenters.error_messages(error)
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


Sheet = tuple[Any, str, Any]  # the action sheet asked for: figure id, action, values


def _screen_context(
    request: HttpRequest,
    battle: Battle,
    *,
    viewer_sides: frozenset[int],
    watching: bool = False,
    sheet: Sheet | None = None,
    log: str | None = None,
    shown_cards: frozenset[str] = frozenset(),
    shown_choices: str = "",
) -> dict[str, Any]:
    """What the screen shows: the figures' cards, the turn's controls, the prompts for the
    reader's own decisions, and the action sheet when `sheet` asks for it (a figure, an
    action, the values typed); a poll's answer has no sheet. `viewer_sides`: the sides the
    reader plays (P9); none for a watcher. After the end, no controls. `log`: what the
    open log fold shows (its key; "" for none yet), None while it is closed: no lines.
    `shown_cards`: the keys of the cards the page shows, sent again as empty ones;
    `shown_choices`: the key of the sheet's choices the page shows, the same."""
    view = selectors.battle_view(battle=battle, log_limit=0, viewer_sides=viewer_sides)
    may_act = bool(viewer_sides) and battle.status == Battle.Status.PLAYING
    catalogue = get_catalogue()
    context: dict[str, Any] = {
        "battle": battle,
        "view": view,
        "may_act": may_act,
        "is_side": bool(viewer_sides),  # a side's player, playing or not: may change links
        "watching": watching,
        "cards": _keyed_cards(
            presenters.cards(view, catalogue, may_act=may_act), shown=shown_cards
        ),
        "undo_label": presenters.undo_label(view) if may_act else "",
        "dice_entry_off": presenters.dice_entry_off(battle),
        **_log_context(battle, log, watching=watching),
        "dice_commitment": selectors.dice_commitment(battle),
        "dice_url": _url(battle, "dice", watching=watching),
        "dice_seed": selectors.revealed_seed(battle),
        "state_url": _url(battle, "state", watching=watching),
    }
    if may_act:
        context["initiative_rows"] = presenters.initiative_rows(view, {})
        pending = view.spell_attacks
        if pending is not None and pending.caster.side in viewer_sides:
            context["spell_attack"] = presenters.spell_attack_form(view, None)
        context["my_decisions"] = [d for d in view.decisions if d.yours]
    if watching:
        shows_secret(request)  # the spectator link, in `state_url` and `dice_url`
    if sheet is not None:
        figure_id, do, values = sheet
        context["sheet"] = presenters.sheet(
            view, catalogue, figure_id=figure_id, do=do, values=values, may_act=may_act
        )
        context["sheet_choices"] = _sheet_choices(context["sheet"], shown=shown_choices)
    return context


def _url(battle: Battle, name: str, *, watching: bool) -> str:
    """A screen's address (`state`, `dice`, `log`...): a watcher's by the spectator link."""
    if watching:
        return reverse(f"play:watch_{name}", args=[battle.spectator_token])
    return reverse(f"play:{name}", args=[battle.pk])


def _keyed_cards(sides: list[dict[str, Any]], *, shown: frozenset[str]) -> list[dict[str, Any]]:
    """Each card rendered on its own, keyed by a digest of what it shows: a card the page
    already shows (its key in `shown`) is sent as an empty one with that key, which the
    page keeps as it is (static/js/play.js). An action changes one or two figures' cards;
    the others are not sent again."""
    for side in sides:
        for card in side["cards"]:
            html = render_to_string("play/battle.html#card", {"c": card})
            key = hashlib.sha256(html.encode()).hexdigest()[:12]
            card["key"], card["same"] = key, key in shown
            card["html"] = mark_safe(html.replace('data-key=""', f'data-key="{key}"', 1))
    return sides


def _sheet_choices(sheet: dict[str, Any], *, shown: str) -> dict[str, Any]:
    """The sheet's choices rendered on its own and keyed as a card is (`_keyed_cards`):
    `same` when the page shows them as they are (`shown`, their key), to be sent empty."""
    if not sheet.get("figure"):
        return {}
    html = render_to_string("play/battle.html#sheet-choices", {"sheet": sheet})
    key = hashlib.sha256(html.encode()).hexdigest()[:12]
    return {"html": mark_safe(html), "key": key, "same": key == shown}


def _shown_cards(request: HttpRequest) -> frozenset[str]:
    """The keys of the cards the page shows (`Cards-Shown`, sent with an answer to the
    state panel)."""
    return frozenset(request.headers.get("Cards-Shown", "").split()[:64])


def _log_context(battle: Battle, shows: str | None, *, watching: bool) -> dict[str, Any]:
    """The log fold's part of the screen: its lines when open (`shows`, as in
    `_screen_context`), where it loads them from, and the page that opens it without
    JavaScript."""
    page = (
        reverse("play:watch", args=[battle.spectator_token])
        if watching
        else reverse("play:battle", args=[battle.pk])
    )
    return {
        "log": None
        if shows is None
        else selectors.screen_log(battle=battle, shows=shows or None, limit=SCREEN_LOG_LINES),
        "screen_log_lines": SCREEN_LOG_LINES,
        "log_url": page + "log/",
        "log_page_url": page + "?log=open#log",
    }


def _log_shown(request: HttpRequest) -> str | None:
    """What the page's log fold shows, as its request says: `Log-After` (the key of its
    lines) from an open fold, else closed; a page asked with `?log=open` opens it."""
    if request.method == "GET" and request.GET.get("log") == "open":
        return ""
    return request.headers.get("Log-After")


def _asked_sheet(request: HttpRequest) -> Sheet:
    """The sheet a page or a sheet request asks for (`?figure=<id>&do=<action>`)."""
    source = request.POST if request.method == "POST" else request.GET
    do = source.get("sheet_do") or source.get("do") or ""
    return source.get("figure", ""), do, request.POST if request.method == "POST" else {}


def _screen(request: HttpRequest, battle: Battle, *, status: int = 200, **kw: Any) -> HttpResponse:
    context = _screen_context(request, battle, **kw)
    response = render_page(request, "play/battle.html", context, status=status)
    patch_cache_control(response, private=True, no_cache=True)
    return response


@login_required
@require_GET
@not_found_is_404
def battle_page(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    return _screen(
        request,
        battle,
        viewer_sides=selectors.player_sides(battle=battle, user=request.user),
        sheet=_asked_sheet(request),
        log=_log_shown(request),
    )


def _gone(request: HttpRequest, *, watching: bool, page: bool = False) -> HttpResponse:
    """404 for a battle the reader can no longer see (a spectator link withdrawn or
    replaced, a battle deleted), saying so: to a poll, the state panel with the words in
    place of the battle, which stops the polling (static/js/play.js); else a page."""
    template = "play/gone.html" if page else "play/gone.html#panel"
    response = render(request, template, {"watching": watching}, status=404)
    patch_cache_control(response, private=True, no_cache=True)
    return response


@require_GET
def watch(request: HttpRequest, token: str) -> HttpResponse:
    try:
        battle = selectors.get_battle_by_token(token=token)
    except NotFound:
        return _gone(request, watching=True, page=True)
    return _screen(
        request, battle, viewer_sides=frozenset(), watching=True, log=_log_shown(request)
    )


def _log(request: HttpRequest, battle: Battle, *, watching: bool) -> HttpResponse:
    """The log fold's lines, asked for as it opens (the latest ones)."""
    context = {"battle": battle, **_log_context(battle, "", watching=watching)}
    response = render(request, "play/battle.html#log-body", context)
    patch_cache_control(response, private=True, no_cache=True)
    return response


@login_required
@require_GET
@not_found_is_404
def log(request: HttpRequest, battle_id: int) -> HttpResponse:
    return _log(
        request, selectors.get_battle(user=request.user, battle_id=battle_id), watching=False
    )


@require_GET
@not_found_is_404
def watch_log(request: HttpRequest, token: str) -> HttpResponse:
    return _log(request, selectors.get_battle_by_token(token=token), watching=True)


def _unchanged() -> HttpResponse:
    """The idle poll's answer, sent to every watching phone several times a minute: no
    body, so none of the headers that guard a document (Content-Security-Policy,
    X-Frame-Options) either. A 304 updates the headers a cache kept from the 200 and never
    removes one, so a page still gets them from its 200. A quarter less on the wire."""
    response = HttpResponseNotModified()
    response.xframe_options_exempt = True  # type: ignore[attr-defined]
    response._csp_exempt = True  # type: ignore[attr-defined]  # django-csp's csp_exempt()
    return response


def _state(
    request: HttpRequest, version: int, read: Callable[[], Battle], *, watching: bool
) -> HttpResponse:
    """The state panel, or 304 while the version the page holds is still current: the
    idle poll reads one column of one row (after the permission check) and renders
    nothing."""
    etag = api.etag_of(version)
    if api.unchanged_since(request, etag):
        response: HttpResponse = _unchanged()
    else:
        battle = read()
        etag = api.etag_of(battle.version)
        mine = (
            frozenset() if watching else selectors.player_sides(battle=battle, user=request.user)
        )
        context = _screen_context(
            request,
            battle,
            viewer_sides=mine,
            watching=watching,
            log=_log_shown(request),
            shown_cards=_shown_cards(request),
        )
        response = render(request, "play/battle.html#news", context)
    response["ETag"] = etag
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ("HX-Request", "Log-After", "Cards-Shown"))
    return response


@login_required
@require_GET
@not_found_is_404
def state(request: HttpRequest, battle_id: int) -> HttpResponse:
    try:
        version = selectors.battle_version(user=request.user, battle_id=battle_id)
    except NotFound:
        return _gone(request, watching=False)
    return _state(
        request,
        version,
        lambda: selectors.get_battle(user=request.user, battle_id=battle_id),
        watching=False,
    )


@require_GET
@not_found_is_404
def watch_state(request: HttpRequest, token: str) -> HttpResponse:
    try:
        version = selectors.battle_version_by_token(token=token)
    except NotFound:
        return _gone(request, watching=True)
    return _state(
        request,
        version,
        lambda: selectors.get_battle_by_token(token=token),
        watching=True,
    )


def _after_without_js(
    request: HttpRequest,
    battle: Battle,
    said: str,
    errors: list[str] | None,
    status: int,
    closes: bool,
) -> HttpResponse:
    """A plain form post's answer: a change by a redirect (the sheet kept in its address),
    a refusal at once, the page again with what was typed."""
    from_sheet = "sheet_do" in request.POST
    if errors:
        for message in errors:
            messages.error(request, message)
        fresh = Battle.objects.select_related("campaign").get(pk=battle.pk)
        mine = selectors.player_sides(battle=fresh, user=request.user)
        asked = _asked_sheet(request) if from_sheet else None
        return _screen(request, fresh, viewer_sides=mine, sheet=asked, status=status)
    messages.success(request, said)
    url = reverse("play:battle", args=[battle.pk])
    if from_sheet and not closes:
        figure, do, _ = _asked_sheet(request)
        url += f"?figure={whole_number(str(figure)) or ''}&do={do}#sheet"
    return redirect(url)


def _after(
    request: HttpRequest,
    battle: Battle,
    *,
    said: str = "",
    errors: list[str] | None = None,
    status: int = 200,
    kind: str = "",
) -> HttpResponse:
    """The answer to an action or an undo. With htmx: the state panel, and out of band
    the result (in the dock at the bottom of the screen, where the player looks), the
    prompts, the log and, for an action from the sheet, the sheet again: after a refusal
    with everything typed, after a change with the same figure and action but its dice
    box empty (entered dice are used once); "Activated" closes it. Without JavaScript:
    `_after_without_js`."""
    from_sheet = "sheet_do" in request.POST
    closes = kind == "activate"
    if not is_htmx(request):
        return _after_without_js(request, battle, said, errors, status, closes)
    # A change stored shows on the caller's battle (the services set its state and
    # version, and refuse a battle that has ended): it is the battle as stored. After a
    # refusal the battle is read again, as another player may have moved it on.
    fresh = battle if not errors else Battle.objects.select_related("campaign").get(pk=battle.pk)
    mine = selectors.player_sides(battle=fresh, user=request.user)
    sheet: Sheet | None = None
    if from_sheet:
        figure, do, values = _asked_sheet(request)
        if errors:
            sheet = (figure, do, values)
        elif closes:
            sheet = ("", "", {})
        else:
            sheet = (figure, do, presenters.kept_after(values))
    context = _screen_context(
        request,
        fresh,
        viewer_sides=mine,
        sheet=sheet,
        log=_log_shown(request),
        shown_cards=_shown_cards(request),
        shown_choices=request.headers.get("Choices-Shown", ""),
    )
    if (
        sheet is not None
        and not errors
        and (context.get("spell_attack") or context.get("my_decisions"))
    ):
        # A decision of the player's own waits now (a cast's attacks, a transfer on a
        # shared phone): it comes first, so the sheet makes room for it.
        context["sheet"] = presenters.sheet(
            context["view"], get_catalogue(), figure_id="", do="", values={}, may_act=False
        )
    if errors and "initiative_rows" in context:
        # The initiative's boxes as they were typed (a refusal loses nothing).
        context["initiative_rows"] = presenters.initiative_rows(context["view"], request.POST)
    context.update({"said": said, "errors": errors or []})
    response = render(request, "play/battle.html#answer", context, status=status)
    response["ETag"] = api.etag_of(fresh.version)  # what the page's next poll sends back
    patch_vary_headers(response, ("HX-Request", "Log-After", "Cards-Shown", "Choices-Shown"))
    return response


@login_required
@require_POST
@not_found_is_404
@idempotent
def act(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    try:
        body = actions.PlayActionSerializer(data=forms.body_from_post(request.POST))
        body.is_valid(raise_exception=True)
        action = actions.perform(battle, request.user, dict(body.validated_data))
    except (DomainError, ValidationError) as error:
        status = error.status if isinstance(error, DomainError) else 400
        return _after(request, battle, errors=presenters.error_messages(error), status=status)
    return _after(request, battle, said=action.words, kind=action.kind)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@not_found_is_404
def sheet(request: HttpRequest, battle_id: int) -> HttpResponse:
    """The action sheet of one of the reader's figures (`?figure=<id>&do=<action>`), or
    (POST) the sheet again with what is chosen and ticked and its odds, before anything
    is rolled. Without JavaScript: the whole screen with the sheet."""
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    context = _screen_context(
        request,
        battle,
        viewer_sides=selectors.player_sides(battle=battle, user=request.user),
        sheet=_asked_sheet(request),
    )
    response = render_page(request, "play/battle.html", context, partial="sheet")
    patch_cache_control(response, private=True, no_cache=True)
    return response


odds = sheet  # an attack's odds before rolling: the sheet again, with them


@login_required
@require_POST
@not_found_is_404
def spell_odds(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    context = {"battle": battle, "spell_odds": presenters.spell_odds(battle, request.POST, None)}
    return render(request, "play/battle.html#spell-odds", context)


@login_required
@require_POST
@not_found_is_404
def spell_attack_odds(request: HttpRequest, battle_id: int) -> HttpResponse:
    """The waiting cast's odds on the target ticked in its form, before rolling."""
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    view = selectors.battle_view(battle=battle, log_limit=0)
    context = {"battle": battle, "spell_attack": presenters.spell_attack_form(view, request.POST)}
    return render(request, "play/battle.html#spell-attack-odds", context)


@login_required
@require_POST
@not_found_is_404
@idempotent
def undo(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    try:
        action = services.undo(battle=battle, by=request.user)
    except DomainError as error:
        return _after(
            request, battle, errors=presenters.error_messages(error), status=error.status
        )
    return _after(request, battle, said=f"Undone: {action.words}", kind="undo")


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@not_found_is_404
@idempotent
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
            whole_number(key.removeprefix("objectives_")): forms.as_int(value)
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
            context["errors"] = presenters.error_messages(error)
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


def _dice_page(request: HttpRequest, battle: Battle, battle_url: str) -> HttpResponse:
    """Every server die of the battle, checked against its seed once it has ended."""
    check = selectors.dice_check(battle=battle)
    results = check.verification.checks if check.verification else [None] * len(check.dice)
    rows = [
        {"die": die, "result": result, "words": check.words[die.seq]}
        for die, result in zip(check.dice, results, strict=True)
    ]
    context = {
        "battle": battle,
        "check": check,
        "rows": rows,
        "snippet": table.commitment.check_snippet(check.seed, check.commitment, check.dice)
        if check.seed and check.commitment
        else "",
        "battle_url": battle_url,
    }
    response = render(request, "play/dice.html", context)
    patch_cache_control(response, private=True, no_cache=True)
    return response


@login_required
@require_GET
@not_found_is_404
def dice(request: HttpRequest, battle_id: int) -> HttpResponse:
    battle = selectors.get_battle(user=request.user, battle_id=battle_id)
    return _dice_page(request, battle, reverse("play:battle", args=[battle.pk]))


@require_GET
@not_found_is_404
def watch_dice(request: HttpRequest, token: str) -> HttpResponse:
    """The same by the spectator link, so anyone the battle was shown to can check it."""
    battle = selectors.get_battle_by_token(token=token)
    shows_secret(request)  # the spectator link, in the way back to the battle
    return _dice_page(request, battle, reverse("play:watch", args=[token]))
