"""The battle screen (docs/play.md, "The battle screen"): the figures' cards, what each may
still do, the action sheet of one's own figure, results and refusals in the dock, typed
values kept on a refusal and dice used once, the undo that names what it undoes, the
initiative boxes, each side its own controls and decisions (P9), no controls after the
end; and what these answers cost in statements, however long the battle."""

import re

import pytest
from django.db import connection
from django.http import QueryDict
from django.test import Client
from django.test.utils import CaptureQueriesContext

from play import forms, presenters, selectors, services, table
from play.models import Battle
from rules.loader import get_catalogue
from tests.play import acting
from tests.play.conftest import Dice, ids, play_force, storm

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def part(html: str, element_id: str) -> str:
    """The element with `element_id` and what follows it up to the next of its tag's
    siblings, enough to look inside one part of an answer."""
    start = html.index(f'id="{element_id}"')
    return html[html.rindex("<", 0, start) : start + 6000]


def card(html: str, figure_id: int) -> str:
    start = html.index(f'id="figure-{figure_id}"')
    return html[html.rindex("<", 0, start) : html.index("</li>", start)]


def shoot(battle, by, attacker, target, die=12):
    return acting.attack(
        battle=battle,
        by=by,
        declaration=table.attacks.AttackDeclaration(attacker, target, "ranged", "light-pistol"),
        dice=[die],
    )


# --- what a figure may still do (play.table.options) -----------------------------------------


def test_a_figure_may_act_until_it_has_activated_and_not_once_out_of_action(campaign_battle):
    battle = campaign_battle
    f = ids(battle)
    state = table.state.upgraded(battle.state)
    figures = {str(bf.pk): services.figure_of(bf) for bf in services.BattleFigure.objects.all()}
    emma = str(f["0:Emma"])
    fresh = table.options.all_options(state, figures)[emma]
    assert fresh.phase == "to activate"
    assert fresh.words == "Yet to activate"
    # Emma: CA 4, Healing Spring, a Medical Kit (nobody down: no Revive).
    assert fresh.actions == ("attack", "spell", "heal", "jump", "activate", "change")
    state["figures"][emma]["activated"] = True
    done = table.options.all_options(state, figures)[emma]
    assert (done.phase, done.actions) == ("activated", ("change",))
    state["figures"][emma]["activated"] = False
    state["activating"] = emma
    assert table.options.all_options(state, figures)[emma].words == "Activating now"
    # A friend down: Revive is offered; Emma herself down and out: nothing but a change.
    state["figures"][str(f["0:Ann"])]["status"] = "unconscious"
    assert "revive" in table.options.all_options(state, figures)[emma].actions
    state["figures"][emma]["status"] = "out-of-action"
    gone = table.options.all_options(state, figures)[emma]
    assert (gone.phase, gone.words, gone.actions) == (
        "cannot act",
        "Out of Action: does nothing more",
        ("change",),
    )


# --- cards and the sheet -------------------------------------------------------------------


def test_cards_show_each_figure_and_only_ones_own_open_a_sheet(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    screen = client_for(alice).get(f"/play/{battle.pk}/").content.decode()
    emma = card(screen, f["0:Emma"])
    assert f'href="/play/{battle.pk}/?figure={f["0:Emma"]}#sheet"' in emma
    assert f'hx-get="/play/{battle.pk}/sheet/?figure={f["0:Emma"]}"' in emma
    assert f'data-testid="hp-{f["0:Emma"]}">12<' in emma
    assert "Simple Weapon, Medical Kit" in emma
    assert "Healing Spring" in emma
    assert "Spell Focus" in emma  # a skill
    assert "Yet to activate" in emma
    # Bob's figures are his: shown, not opened from Alice's phone (P9).
    bobs = card(screen, f["1:Ann"])
    assert "Light Pistol" in bobs
    assert "/sheet/" not in bobs
    assert 'class="play-sheet__hint meta">Tap one of your figures to act.' in screen


def test_tapping_ones_figure_opens_its_sheet_and_not_the_other_sides(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    sheet = page.get(f"/play/{battle.pk}/sheet/?figure={f['0:Ann']}", **HTMX)
    body = sheet.content.decode()
    assert body.lstrip().startswith('<section id="sheet"')
    assert "Roll the attack" in body
    assert re.search(r'aria-current="true">Attack</a>', body)
    assert "needs 4+" in body  # RA 4 against Blue's Emma (DF 8): the odds before rolling
    assert f'<option value="{f["1:Emma"]}" selected>' in body
    assert f'<option value="{f["0:Emma"]}"' not in body  # a friend is no target
    # The other side's figure: the sheet stays closed.
    theirs = page.get(f"/play/{battle.pk}/sheet/?figure={f['1:Ann']}", **HTMX).content.decode()
    assert "Roll the attack" not in theirs
    assert "Tap one of your figures to act." in theirs
    # Without JavaScript the card's link opens the whole screen with the sheet.
    whole = page.get(f"/play/{battle.pk}/?figure={f['0:Ann']}&do=jump").content.decode()
    assert "<html" in whole
    assert "Roll the jump" in whole


def test_the_spell_form_shows_only_the_chosen_spells_fields(alice, bob):
    battle = storm(alice, bob)
    f = ids(battle)
    page = client_for(alice)
    url = f"/play/{battle.pk}/sheet/"
    bolt = page.post(
        url, {"figure": f["0:Eve"], "sheet_do": "spell", "spell": "seraphic-bolt"}, **HTMX
    ).content.decode()
    assert '<option value="seraphic-bolt" selected>' in bolt
    assert "Dragon Slayer's value" not in bolt
    assert "The target forgets" not in bolt
    assert "Effect to remove" not in bolt
    assert "4 dice at Difficulty 6" in bolt  # CA 4: the chosen spell's odds


def test_an_attack_from_the_sheet_answers_in_the_dock_and_empties_the_dice(
    campaign_battle, alice, bob
):
    battle = campaign_battle
    f = ids(battle)
    form = {
        "type": "attack",
        "sheet_do": "attack",
        "figure": f["0:Ann"],
        "target": f["1:Ben"],
        "kind": "ranged",
        "weapon": "light-pistol",
        "situation_movement": "none",
        "rear_arc": "on",
        "dice": "12",
    }
    answer = client_for(alice).post(f"/play/{battle.pk}/act/", form, **HTMX)
    assert answer.status_code == 200
    body = answer.content.decode()
    assert body.lstrip().startswith('<section id="battle-state"')
    result = part(body, "act-result")
    assert 'hx-swap-oob="morph"' in result[:200]
    assert "Hit, Success Rating" in result
    sheet = part(body, "sheet")
    assert 'hx-swap-oob="morph"' in sheet[:200]
    assert 'name="dice" inputmode="numeric" autocomplete="off" value=""' in sheet  # used once
    assert f'<option value="{f["1:Ben"]}" selected>' in sheet  # the target is kept
    assert 'name="rear_arc" checked' not in sheet  # that roll's situation is not
    assert 'id="log-lines"' not in body  # the log's fold is closed: no lines
    assert "log-body" not in body


def test_a_refusal_keeps_everything_typed_and_says_why_in_the_dock(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    form = {
        "type": "attack",
        "sheet_do": "attack",
        "figure": f["0:Ann"],
        "target": f["1:Ben"],
        "kind": "ranged",
        "weapon": "light-pistol",
        "rear_arc": "on",
        "dice": "13",
    }
    page = client_for(alice)
    refused = page.post(f"/play/{battle.pk}/act/", form, **HTMX)
    assert refused.status_code == 400
    body = refused.content.decode()
    result = part(body, "act-result")
    assert "play-result__refused" in result
    assert "13 is not a d12 result (1-12)." in result
    assert 'role="alert"' not in result  # polite: not a flickering alert
    sheet = part(body, "sheet")
    assert 'value="13"' in sheet
    assert 'name="rear_arc" checked' in sheet
    battle.refresh_from_db()
    assert battle.version == 1
    # Without JavaScript: the whole screen, its sheet as typed, the reason beside it.
    whole = page.post(f"/play/{battle.pk}/act/", form)
    assert whole.status_code == 400
    text = whole.content.decode()
    assert "<html" in text
    assert 'value="13"' in part(text, "sheet")
    assert "13 is not a d12 result (1-12)." in part(text, "act-result")


def test_initiative_from_one_small_box_a_side_and_a_ties_rows():
    post = QueryDict(mutable=True)
    post.update(
        {
            "type": "initiative",
            "initiative_0_0": "7",
            "initiative_0_1": "7",
            "initiative_1_0": "3",
            "initiative_1_1": "9",
            "initiative_2_0": "",
        }
    )
    assert forms.body_from_post(post) == {"type": "initiative", "dice": [[7, 7], [3, 9]]}
    one = QueryDict("type=initiative&initiative_0_0=8&initiative_0_1=3")
    assert forms.body_from_post(one) == {"type": "initiative", "dice": [[8, 3]]}
    assert forms.body_from_post(QueryDict("type=initiative")) == {"type": "initiative"}


def test_initiative_boxes_on_the_screen_roll_it(campaign_battle, alice):
    battle = campaign_battle
    page = client_for(alice)
    screen = page.get(f"/play/{battle.pk}/").content.decode()
    assert 'name="initiative_0_0"' in screen
    assert 'name="initiative_0_1"' in screen
    answer = page.post(
        f"/play/{battle.pk}/act/",
        {"type": "initiative", "initiative_0_0": "4", "initiative_0_1": "9"},
        **HTMX,
    ).content.decode()
    assert "Blue Club activates first" in part(answer, "act-result")
    assert 'name="initiative_0_0"' not in answer  # rolled: the turn offers Next turn
    assert "Next turn" in answer


def test_a_refused_initiative_keeps_its_dice(campaign_battle, alice):
    battle = campaign_battle
    refused = client_for(alice).post(
        f"/play/{battle.pk}/act/",
        {"type": "initiative", "initiative_0_0": "6", "initiative_0_1": "6"},
        **HTMX,
    )
    assert refused.status_code == 400
    body = refused.content.decode()
    assert 'name="initiative_0_0" min="1" max="12" inputmode="numeric" value="6"' in body
    assert 'name="initiative_0_1" min="1" max="12" inputmode="numeric" value="6"' in body
    assert "play-result__refused" in part(body, "act-result")


def test_undo_says_what_it_undoes_and_only_to_its_side(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"])
    mine = client_for(alice).get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    assert 'hx-confirm="Undo: Ann&#x27;s attack on Ben?"' in mine
    assert ">Undo: Ann&#x27;s attack on Ben</button>" in mine
    theirs = client_for(bob).get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    assert "disabled>Undo (theirs)</button>" in theirs
    assert "hx-confirm" not in part(theirs, "undo")[:300]
    view = selectors.battle_view(battle=battle, viewer_sides=frozenset({0}))
    assert presenters.undo_label(view) == "Ann's attack on Ben"


def test_the_defenders_prompt_stays_until_answered(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"])
    # The attacker moves on: Ann's activation ends; the prompt is still Bob's.
    acting.end_activation(battle=battle, by=alice, figure=f["0:Ann"])
    poll = client_for(bob).get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    prompts = part(poll, "prompts")
    assert 'hx-swap-oob="morph"' in prompts[:300]
    assert "Friendship: Ben took 6 damage" in prompts
    assert 'id="dodge-' in prompts
    attackers = client_for(alice).get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    assert "Friendship: Ben took" not in attackers
    answered = (
        client_for(bob)
        .post(
            f"/play/{battle.pk}/act/",
            {"type": "transfer", "recipient": [str(f["1:Cat"]), ""], "amount": ["4", ""]},
            **HTMX,
        )
        .content.decode()
    )
    assert "Friendship: Ben transfers 4 to Cat." in part(answered, "act-result")
    assert "Friendship: Ben took" not in answered


def test_one_user_with_both_forces_acts_for_both(alice):
    battle = services.start_battle(
        by=alice,
        forces=[play_force(alice, "First"), play_force(alice, "Second")],
        scenario="Shared phone",
    )
    f = ids(battle)
    page = client_for(alice)
    screen = page.get(f"/play/{battle.pk}/").content.decode()
    for figure in (f["0:Ann"], f["1:Ann"]):
        assert f"/sheet/?figure={figure}" in card(screen, figure)
        sheet = page.get(f"/play/{battle.pk}/sheet/?figure={figure}", **HTMX).content.decode()
        assert "Roll the attack" in sheet
    shoot(battle, alice, f["0:Ann"], f["1:Ben"])
    both = page.get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    assert "Friendship: Ben took 6 damage" in part(both, "prompts")


def test_after_the_end_no_controls_and_the_dock_goes(campaign_battle, alice, bob):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(bob)
    etag = page.get(f"/play/{battle.pk}/state/", **HTMX)["ETag"]
    services.end_battle(battle=battle, by=alice, winner=None)
    poll = page.get(f"/play/{battle.pk}/state/", HTTP_IF_NONE_MATCH=etag, **HTMX)
    body = poll.content.decode()
    assert poll.status_code == 200
    assert '<div id="dock" class="play-dock" hx-swap-oob="true"></div>' in body
    for url in (f"/play/{battle.pk}/", f"/play/{battle.pk}/state/"):
        ended = page.get(url, **HTMX).content.decode()
        assert f"/play/{battle.pk}/act/" not in ended
        assert f"/play/{battle.pk}/undo/" not in ended
        assert "/sheet/" not in ended
    closed = page.get(f"/play/{battle.pk}/sheet/?figure={f['1:Ann']}", **HTMX).content.decode()
    assert "Roll the attack" not in closed


# --- the log: sent only while its fold is open -------------------------------------------------


def log_key(html: str) -> str:
    return re.search(r'id="log-key" data-shows="([0-9.]+)"', html).group(1)


def test_the_log_comes_when_its_fold_opens_and_then_only_what_is_new(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    shoot(battle, alice, f["0:Ann"], f["1:Ben"])
    closed = page.get(f"/play/{battle.pk}/").content.decode()
    assert 'id="log-lines"' not in closed
    assert "Ann attacks Ben" not in closed
    assert f'<a href="/play/{battle.pk}/?log=open#log">Show the log</a>' in closed
    assert f'hx-get="/play/{battle.pk}/log/" hx-trigger="toggle[target.open]"' in closed
    # Without JavaScript the link opens the page with the fold open.
    opened = page.get(f"/play/{battle.pk}/?log=open").content.decode()
    assert 'id="log" open' in opened
    assert "Ann attacks Ben" in part(opened, "log-lines")
    # With it, the fold asks for its lines as it opens: a list, polite, and its key.
    fold = page.get(f"/play/{battle.pk}/log/", **HTMX).content.decode()
    assert fold.lstrip().startswith('<ol class="play-log" id="log-lines" reversed')
    assert 'aria-live="polite"' in fold
    assert fold.count("<li") == 2  # the start and the attack
    key = log_key(fold)
    assert key == "2.0"
    # An action's answer brings the lines after those the fold shows, on top of them.
    rolled = page.post(
        f"/play/{battle.pk}/act/",
        {"type": "roll", "count": "1", "reason": "the crate"},
        HTTP_LOG_AFTER=key,
        **HTMX,
    ).content.decode()
    # They follow the lines the fold shows (the page leaves them out if it moved on).
    news = rolled[rolled.index('<ol hx-swap-oob="afterbegin:#log-lines" data-follows="2.0">') :]
    assert news.count("<li") == 1
    assert "for the crate" in news
    assert "Ann attacks Ben" not in rolled
    assert log_key(rolled) == "3.0"
    assert 'id="log-key" data-shows="3.0" data-follows="2.0" hidden hx-swap-oob="true"' in rolled
    # A poll brings the other side's line after those; one more of its own, nothing.
    etag = page.get(f"/play/{battle.pk}/state/", **HTMX)["ETag"]
    acting.end_activation(battle=battle, by=alice, figure=f["0:Ann"])
    state = f"/play/{battle.pk}/state/"
    poll = page.get(state, HTTP_IF_NONE_MATCH=etag, HTTP_LOG_AFTER="3.0", **HTMX)
    assert "Log-After" in poll["Vary"]
    news = poll.content.decode()
    news = news[news.index('<ol hx-swap-oob="afterbegin:#log-lines" data-follows="3.0">') :]
    assert news.count("<li") == 1
    assert "the crate" not in news
    assert log_key(news) == "4.0"
    again = page.get(state, HTTP_IF_NONE_MATCH=etag, HTTP_LOG_AFTER="4.0", **HTMX)
    assert "log-lines" not in again.content.decode()
    assert "log-key" not in again.content.decode()
    # An undo strikes a line the fold shows: the whole fold again.
    undone = page.post(f"/play/{battle.pk}/undo/", HTTP_LOG_AFTER="4.0", **HTMX).content.decode()
    whole = undone[undone.index('<div id="log-body" hx-swap-oob="innerHTML">') :]
    assert whole.count("<li") == 4
    assert "(undone)" in whole
    assert log_key(undone) == "4.1"


def test_an_answer_does_not_grow_with_the_log(campaign_battle, alice):
    """What an action answers weighs the same after 60 more lines in the log: closed,
    the fold gets none; open, the lines after those it shows."""
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    form = {
        "type": "attack",
        "sheet_do": "attack",
        "figure": f["0:Ann"],
        "target": f["1:Emma"],
        "kind": "ranged",
        "weapon": "light-pistol",
        "dice": "1",
    }

    def sizes() -> tuple[int, int]:
        closed = page.post(f"/play/{battle.pk}/act/", form, **HTMX)
        key = log_key(page.get(f"/play/{battle.pk}/log/", **HTMX).content.decode())
        open_ = page.post(f"/play/{battle.pk}/act/", form, HTTP_LOG_AFTER=key, **HTMX)
        assert (closed.status_code, open_.status_code) == (200, 200)
        return len(closed.content), len(open_.content)

    short = sizes()
    for _ in range(60):
        acting.roll_d12(battle=battle, by=alice, rng=Dice(5), reason="a long log line " * 5)
    long = sizes()
    assert Battle.objects.get(pk=battle.pk).actions.count() > 60
    # The same answer but for numbers (a seq, a count): a few bytes apart at most.
    assert abs(long[0] - short[0]) < 100
    assert abs(long[1] - short[1]) < 100


def card_keys(html: str) -> dict[int, str]:
    """The cards an answer sends whole, by figure: their keys."""
    found = re.finditer(
        r'id="figure-(\d+)" data-figure="\d+" data-key="(\w+)"(?! data-same)', html
    )
    return {int(m.group(1)): m.group(2) for m in found}


def test_an_answer_sends_the_cards_the_page_shows_as_they_are_empty(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    shown = card_keys(page.get(f"/play/{battle.pk}/").content.decode())
    assert len(shown) == 8
    form = {
        "type": "attack",
        "sheet_do": "attack",
        "figure": f["0:Ann"],
        "target": f["1:Ben"],
        "kind": "ranged",
        "weapon": "light-pistol",
        "dice": "12",
    }
    answer = page.post(
        f"/play/{battle.pk}/act/", form, HTTP_CARDS_SHOWN=" ".join(shown.values()), **HTMX
    )
    body = answer.content.decode()
    assert "Cards-Shown" in answer["Vary"]
    # Ann (activating now) and Ben (hit) whole, with new keys; the other six empty.
    sent = card_keys(body)
    assert set(sent) == {f["0:Ann"], f["1:Ben"]}
    assert sent[f["0:Ann"]] != shown[f["0:Ann"]]
    assert "Activating now" in card(body, f["0:Ann"])
    for figure in set(shown) - set(sent):
        assert (
            f'<li class="play-figure" id="figure-{figure}" data-figure="{figure}" '
            f'data-key="{shown[figure]}" data-same></li>'
        ) in body
    # Without the keys (a page that shows none yet), every card whole.
    poll = page.get(f"/play/{battle.pk}/state/", **HTMX).content.decode()
    assert len(card_keys(poll)) == 8
    assert "data-same" not in poll


def choices_key(html: str) -> str:
    return re.search(r'id="sheet-body".*? data-key="(\w+)"', html, re.DOTALL).group(1)


def test_the_sheets_choices_come_back_empty_when_the_page_shows_them(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    form = {
        "type": "attack",
        "sheet_do": "attack",
        "figure": f["0:Ann"],
        "target": f["1:Ben"],
        "kind": "ranged",
        "weapon": "light-pistol",
    }
    shown = page.post(f"/play/{battle.pk}/sheet/", form, **HTMX).content.decode()
    key = choices_key(shown)
    answer = page.post(
        f"/play/{battle.pk}/act/", form | {"dice": "12"}, HTTP_CHOICES_SHOWN=key, **HTMX
    )
    assert "Choices-Shown" in answer["Vary"]
    sheet = part(answer.content.decode(), "sheet")
    assert 'id="sheet-body"' in sheet
    assert f'data-key="{key}" data-same>' in sheet
    assert 'name="target"' not in sheet  # the choices are the page's own
    assert 'name="dice" inputmode="numeric" autocomplete="off" value=""' in sheet  # used once
    # A tick that roll's situation had: the choices change (unticked), sent whole.
    ticked = page.post(f"/play/{battle.pk}/sheet/", form | {"rear_arc": "on"}, **HTMX)
    key = choices_key(ticked.content.decode())
    again = page.post(
        f"/play/{battle.pk}/act/",
        form | {"rear_arc": "on", "dice": "1"},
        HTTP_CHOICES_SHOWN=key,
        **HTMX,
    ).content.decode()
    sheet = part(again, "sheet")
    assert "data-same" not in sheet[: sheet.index("play-sheet__foot")]
    assert f'<option value="{f["1:Ben"]}" selected>' in sheet
    assert 'name="rear_arc">' in sheet


# --- statements -------------------------------------------------------------------------------


def statements(do) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = do()
    assert response.status_code in (200, 400)
    return len(captured)


def test_the_sheet_and_an_answer_cost_the_same_however_long_the_battle(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    form = {
        "type": "attack",
        "sheet_do": "attack",
        "figure": f["0:Ann"],
        "target": f["1:Emma"],
        "kind": "ranged",
        "weapon": "light-pistol",
        "dice": "1",
    }

    def costs():
        return (
            statements(lambda: page.get(f"/play/{battle.pk}/sheet/?figure={f['0:Ann']}", **HTMX)),
            statements(lambda: page.post(f"/play/{battle.pk}/odds/", form, **HTMX)),
            statements(lambda: page.post(f"/play/{battle.pk}/act/", form, **HTMX)),
        )

    short = costs()
    for _ in range(15):
        shoot(battle, alice, f["0:Ann"], f["1:Emma"], die=1)
        acting.roll_d12(battle=battle, by=alice, rng=Dice(5))
    assert costs() == short
    assert short[0] <= 12
    assert short[2] <= 30
    assert Battle.objects.get(pk=battle.pk).actions.count() > 30
    assert get_catalogue()  # the cards' names come from the catalogue, not the database


def test_each_spell_brings_only_its_own_fields(alice, bob):
    battle = storm(alice, bob)
    f = ids(battle)
    eve = services.BattleFigure.objects.get(pk=f["0:Eve"])
    eve.numbers = {
        **eve.numbers,
        "spells": [*eve.numbers["spells"], "dragon-slayer", "mana-obliteration"],
    }
    eve.save()
    page = client_for(alice)

    def sheet_for(spell: str) -> str:
        form = {"figure": f["0:Eve"], "sheet_do": "spell", "spell": spell}
        return page.post(f"/play/{battle.pk}/sheet/", form, **HTMX).content.decode()

    slayer = sheet_for("dragon-slayer")
    assert "Dragon Slayer's value (1-6)" in slayer
    assert "The target forgets" not in slayer
    obliteration = sheet_for("mana-obliteration")
    assert "The target forgets (3+)" in obliteration
    assert "Dragon Slayer's value" not in obliteration
    assert '<option value="seraphic-bolt">Seraphic Bolt</option>' in obliteration


def test_heal_revive_and_an_item_from_the_sheet(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    cat = services.BattleFigure.objects.get(pk=f["0:Cat"])
    cat.numbers = {**cat.numbers, "equipment": [*cat.numbers["equipment"], "smoke-grenade"]}
    cat.save()
    page = client_for(alice)
    url = f"/play/{battle.pk}/sheet/?figure="
    heal = page.get(f"{url}{f['0:Emma']}&do=heal", **HTMX).content.decode()
    assert ">Heal</a>" in heal
    assert ">Revive</a>" not in heal  # nobody of hers is down
    assert "Ann (HP 11/11, FR 5)" in heal
    acting.change_figure(
        battle=battle,
        by=alice,
        change=table.state.Change(figure=f["0:Ann"], hp=0, status="unconscious"),
    )
    revive = page.get(f"{url}{f['0:Emma']}&do=revive", **HTMX).content.decode()
    assert 'aria-current="true">Revive</a>' in revive
    assert "Ann (HP 0/11, FR 5)" in revive
    item = page.get(f"{url}{f['0:Cat']}&do=item", **HTMX).content.decode()
    assert '<option value="smoke-grenade">Smoke Grenade</option>' in item
    used = page.post(
        f"/play/{battle.pk}/act/",
        {"type": "change", "sheet_do": "item", "figure": f["0:Cat"], "discard": "smoke-grenade"},
        **HTMX,
    ).content.decode()
    assert "Cat: discards smoke grenade." in part(used, "act-result")
    assert ">Item</a>" not in part(used, "sheet")  # nothing left to use
    assert "<del>Smoke Grenade</del>" in card(used, f["0:Cat"])


def test_without_javascript_a_change_comes_back_to_its_sheet(campaign_battle, alice):
    battle = campaign_battle
    f = ids(battle)
    page = client_for(alice)
    form = {
        "type": "jump",
        "sheet_do": "jump",
        "figure": f["0:Ann"],
        "distance": "1",
        "dice": "12",
    }
    jumped = page.post(f"/play/{battle.pk}/act/", form)
    assert jumped.status_code == 302
    assert jumped["Location"] == f"/play/{battle.pk}/?figure={f['0:Ann']}&do=jump#sheet"
    done = page.post(
        f"/play/{battle.pk}/act/",
        {"type": "activate", "sheet_do": "activate", "figure": f["0:Ann"]},
    )
    assert done["Location"] == f"/play/{battle.pk}/"  # "Activated" closes the sheet
    screen = page.get(done["Location"]).content.decode()
    assert "Ann has activated." in part(screen, "act-result")
