"""The member builder: building members step by step through the pages' POSTs, with
the server's dice (R5) injected."""

import json
import re

import pytest
from django.urls import reverse

from roster import engine, selectors, services, views
from roster.models import Force, Member, SkillRoll
from tests.pages import html
from tests.roster.builders import emma, legal_force, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
ALL = "?step=all"  # the member page with every step open (one at a time otherwise)


@pytest.fixture
def browser(client, owner):
    client.force_login(owner)
    return client


@pytest.fixture
def dice(monkeypatch):
    """Script the server's d12s: `dice(3, 12)` makes the next rolls come up 3 then 12."""

    def script(*faces: int) -> None:
        scripted = ScriptedDice(*faces)
        monkeypatch.setattr("rules.dice.server_dice", lambda: scripted)

    return script


def result_for(force_id: int, name: str) -> dict:
    evaluation = Force.objects.get(pk=force_id).evaluation
    return next(m for m in evaluation["members"] if m["name"] == name)


def edit(client, member: Member, step: str, data: dict, **extra):
    url = reverse("roster:member_edit", args=[member.force_id, member.pk, step])
    return client.post(url, data, **extra)


# --- Emma, the rulebook's example, through the pages -----------------------------------


def test_build_emma_step_by_step(browser, owner):
    response = browser.post(reverse("roster:create"), {"name": "Irregulars", "resources": 50})
    built = Force.objects.get(owner=owner)
    assert response["Location"] == reverse("roster:detail", args=[built.pk])

    # Steps 1 and 2: name, base 1/2/3/2 (R1), Literature Club, academic choosing RA (R2).
    response = browser.post(
        reverse("roster:member_add", args=[built.pk]),
        {
            "name": "Emma",
            "role": "student",
            "ME": 1,
            "RA": 2,
            "CA": 3,
            "DF": 2,
            "club_name": "Literature Club",
            "society": "academic:RA",
        },
    )
    member = Member.objects.get(force=built, name="Emma")
    assert response["Location"] == reverse("roster:member", args=[built.pk, member.pk])
    stats = result_for(built.pk, "Emma")["stats"]
    assert stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 10, "FR": 5}

    # Step 3: the Spellcasting line, its skill picked (-2 FR); then +2 HP (R4, R5).
    assert edit(browser, member, "free", {"slot": "0", "option": "4"}).status_code == 302
    pick = reverse("roster:pick", args=[built.pk, member.pk])
    browser.post(pick, {"slot": "free_advancements/0", "skill": "spellcasting/spell-focus"})
    edit(browser, member, "free", {"slot": "1", "option": "2"})

    # Step 5: equipment (R7, R8); step 6: a core school and a spell (R9).
    edit(browser, member, "equipment-add", {"add": "simple-weapon"})
    edit(browser, member, "equipment-add", {"add": "medical-kit"})
    edit(browser, member, "schools", {"core_school": "restoration"})
    edit(browser, member, "spell-add", {"add": "healing-spring"})

    emma_now = result_for(built.pk, "Emma")
    assert emma_now["stats"] == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3}
    assert emma_now["cost"] == {"advancements": 0, "equipment": 5, "total": 5}
    saved = selectors.get_force(user=owner, force_id=built.pk)
    assert selectors.force_document(force=saved)["members"] == [emma()]

    page = html(browser.get(reverse("roster:member", args=[built.pk, member.pk]) + ALL))
    assert "<td>1</td><td>1</td><td>4</td>" in page
    assert "<td>8</td><td>12</td><td>3</td>" in page
    assert '<div class="cost-list__total"><dt>Total</dt><dd>5 Resources</dd></div>' in page
    assert "5 of 50 Resources spent, 45 left." in page
    force_page = html(browser.get(reverse("roster:detail", args=[built.pk])))
    assert "<dd>5 Resources</dd>" in force_page
    # One member is not a force yet (R10): saved as a draft, and the page says why.
    assert "Not legal" in force_page
    assert "A force has 4 to 6 students; this has 1." in force_page


def test_the_member_page_shows_costs_and_reasons_from_the_engine(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    page = html(browser.get(reverse("roster:member", args=[built.pk, member.pk]) + ALL))
    # Purchases (R6): +1 CA costs 2 x CA 4; the +2 HP line was a free advancement.
    plus_ca = page[page.index('<th scope="row">+1 CA</th>') :][:400]
    assert 'data-label="Cost">8' in plus_ca
    plus_hp = page[page.index('<th scope="row">+2 HP</th>') :][:400]
    assert "Already taken: at creation each statistic line is taken once (R6)." in plus_hp
    # Equipment (R7): a Medical Kit costs 1.5 x FR 3 = 4; Emma carries one already.
    kit = page[page.index('<th scope="row">Medical Kit') :][:1200]
    assert 'data-label="Cost">4<' in kit
    # Every other item (and all armour) is refused for the same reason, said on each
    # row beside the option, never as a bare "Not available".
    taken = "The one extra piece (backup weapon, armour or item) is taken."
    assert f'<span class="reason">{taken}</span>' in kit
    assert "Not available" not in page
    equipment = page[page.index('id="step-equipment"') : page.index('id="step-spells"')]
    rows = equipment.count("<tr data-anchor=")
    bought = equipment.count('<button type="submit" name="add"')
    assert equipment.count('<span class="reason">') == rows - bought  # each refusal its row
    assert equipment.count(taken) >= 2
    # Spells (R9): another school's spell takes 2 slots.
    bolt = page[page.index('<th scope="row">Seraphic Bolt</th>') :][:1500]
    assert 'data-label="Slots">2<' in bolt
    assert "Needs the Dragon Slayer skill." in page
    # Spell Focus is owned, so it can be switched on.
    assert "Turn Spell Focus on" in page


def test_a_ra_0_student_is_told_why_a_pistol_is_unavailable(browser, owner):
    zero = student(
        "Zero",
        club={"name": "Chess Club", "society": "academic", "choice": "RA"},
        base={"ME": 3, "RA": 1, "CA": 2, "DF": 2},
        free_advancements=[{"line": 2}, {"line": 3}],
    )
    built = services.import_force(owner=owner, document=legal_force())
    member = services.add_member(force=built, actor=None, data=zero)
    page = html(browser.get(reverse("roster:member", args=[built.pk, member.pk]) + ALL))
    pistol = page[page.index('<th scope="row">Light Pistol') :][:1200]
    assert '<span class="reason">Needs RA 1 or more.</span>' in pistol


def test_htmx_edit_answers_with_its_step_and_the_card_status_and_notice_out_of_band(
    browser, owner
):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    response = edit(browser, member, "purchase-add", {"add": "line:1:CA"}, **HTMX)
    page = html(response)
    assert response.status_code == 200
    assert "<html" not in page
    # The step that changed replaces itself (the builder's hx-target is "closest .step").
    assert page.lstrip().startswith('<section id="step-purchases"')
    assert '<span class="step__number">4.</span> Buy advancements' in page
    assert 'id="step-equipment"' not in page  # other steps refresh when next in view
    # Out of band: the card (morphed in, as the step is), the badge and Resources bar,
    # the notice for screen readers.
    assert 'id="builder-summary" class="builder__summary"' in page
    assert 'hx-swap-oob="morph">' in page[page.index('id="builder-summary"') :][:200]
    assert 'id="force-status" class="force-status" hx-swap-oob="true"' in page
    assert "13 of 50 Resources spent, 37 left." in page
    assert 'id="builder-notice" hx-swap-oob="innerHTML"' in page
    assert "Bought +1 CA." in page
    # The page is told which step is fresh, so it can refresh the rest.
    assert json.loads(response["HX-Trigger"]) == {"builder-changed": {"step": "step-purchases"}}
    assert result_for(built.pk, "Emma")["stats"]["CA"] == 5


def test_the_card_in_an_answer_shows_the_change(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    response = edit(browser, member, "equipment-add", {"add": "medical-kit"}, **HTMX)
    page = html(response)
    summary = page[page.index('id="builder-summary"') :]
    assert "Medical Kit" in summary[: summary.index("</aside>")]
    # The step's own options were judged again: a second extra piece is refused now.
    equipment = page[: page.index("</section>")]
    assert "beyond what is in hand" in equipment


def test_a_refused_htmx_change_answers_400_with_its_step_and_no_refresh(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    response = edit(browser, member, "equipment-add", {"add": "no-such-thing"}, **HTMX)
    assert response.status_code == 400
    page = html(response)
    assert page.lstrip().startswith('<section id="step-equipment"')
    assert "Choose a piece of equipment from the list." in page
    assert "HX-Trigger" not in response  # nothing changed, nothing is stale


@pytest.mark.parametrize("step", views.STEPS)
def test_each_step_can_be_fetched_on_its_own(browser, owner, step):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    url = reverse("roster:member_step", args=[built.pk, member.pk, step])
    response = browser.get(url, **HTMX)
    assert response.status_code == 200
    assert html(response).lstrip().startswith(f'<section id="step-{step}"')
    assert "no-cache" in response["Cache-Control"]
    # Without htmx: the whole page, at that step.
    plain = browser.get(url)
    assert plain.status_code == 302
    assert (
        plain["Location"]
        == reverse("roster:member", args=[built.pk, member.pk]) + f"?step={step}#step-{step}"
    )


def test_a_step_fetched_after_a_change_elsewhere_shows_the_new_state(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    url = reverse("roster:member_step", args=[built.pk, member.pk, "equipment"])
    before = html(browser.get(url, **HTMX))
    edit(browser, member, "purchase-add", {"add": "line:1:CA"}, **HTMX)
    after = html(browser.get(url, **HTMX))
    assert before != after  # CA went up, and with it what the equipment step says


def test_an_unknown_step_or_someone_elses_member_is_404(browser, owner, django_user_model):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    unknown = reverse("roster:member_step", args=[built.pk, member.pk, "hats"])
    assert browser.get(unknown, **HTMX).status_code == 404
    stranger = django_user_model.objects.create_user("stranger", password="pw-stranger-1234")
    browser.force_login(stranger)
    url = reverse("roster:member_step", args=[built.pk, member.pk, "equipment"])
    response = browser.get(url, **HTMX)
    assert response.status_code == 404
    assert "Emma" not in html(response)


def test_a_plain_post_redirects_back_to_its_step(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    response = edit(browser, member, "equipment-add", {"add": "tool-kit"})
    assert response.status_code == 302
    assert response["Location"] == (
        reverse("roster:member", args=[built.pk, member.pk]) + "?step=equipment#step-equipment"
    )
    page = html(browser.get(response["Location"]))
    assert "Added Tool Kit." in page  # the message after the redirect
    assert "Tool Kit: beyond what is in hand" in page  # saved anyway, a draft may break rules


def test_statistics_are_bought_before_skills(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    edit(browser, member, "purchase-add", {"add": "skill:movement/catfall"})
    edit(browser, member, "purchase-add", {"add": "line:1:RA"})
    member.refresh_from_db()
    assert member.purchases == [{"line": 1, "choice": "RA"}, {"skill": "movement/catfall"}]
    edit(browser, member, "purchase-remove", {"index": "1"})
    member.refresh_from_db()
    assert member.purchases == [{"line": 1, "choice": "RA"}]


def test_a_shape_problem_is_shown_and_nothing_is_saved(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    before = Force.objects.get(pk=built.pk).evaluation
    response = edit(browser, member, "purchase-add", {"add": "line:9"}, **HTMX)
    assert response.status_code == 400
    assert "<html" not in html(response)
    assert "purchases, entry 1: A purchase is either" in html(response)
    response = edit(browser, member, "purchase-add", {"add": "line:9"})
    assert response.status_code == 400
    assert "<html" in html(response)
    assert "purchases, entry 1: A purchase is either" in html(response)
    assert Force.objects.get(pk=built.pk).evaluation == before


def test_form_errors_show_next_to_the_fields(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    response = edit(browser, member, "basics", {"name": " ", "role": "student", "ME": 9}, **HTMX)
    page = html(response)
    assert response.status_code == 400
    assert "Every member needs a name." in page
    assert 'aria-invalid="true"' in page
    member.refresh_from_db()
    assert member.name == "Emma"


def test_base_statistics_that_are_not_3_2_2_1_are_saved_with_the_engines_error(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    data = {"name": "Emma", "role": "student", "ME": 3, "RA": 3, "CA": 3, "DF": 3}
    edit(browser, member, "basics", data)
    page = html(browser.get(reverse("roster:member", args=[built.pk, member.pk]) + ALL))
    assert "ME, RA, CA and DF take 3, 2, 2 and 1 in some order; this has" in page


def test_add_member_form_errors(browser, owner):
    built = services.create_force(owner=owner, name="Drafts")
    url = reverse("roster:member_add", args=[built.pk])
    page = html(browser.get(url))
    assert "Academic: -1 RA, +1 CA" in page  # each society's modifiers, from the catalogue
    response = browser.post(url, {"name": "", "club_name": ""})
    assert response.status_code == 400
    assert "Every member needs a name." in html(response)
    assert "Name the student&#x27;s club." in html(response)
    assert "Choose a society." in html(response)
    assert not Member.objects.exists()
    assert "<html" not in html(browser.get(url, **HTMX))


NEW_ANN = {"name": "Ann", "role": "student", "club_name": "Chess Club", "society": "academic:ME"}


@pytest.mark.parametrize(
    ("base", "given"),
    [
        ({"ME": 3, "RA": 3, "CA": 2, "DF": 1}, "ME 3, RA 3, CA 2, DF 1"),  # two 3s
        ({"ME": 3, "RA": 2, "CA": 1, "DF": 1}, "ME 3, RA 2, CA 1, DF 1"),  # two 1s
        ({"ME": 2, "RA": 2, "CA": 2, "DF": 1}, "ME 2, RA 2, CA 2, DF 1"),  # no 3
    ],
)
def test_the_add_form_refuses_a_spread_r1_forbids_beside_the_statistics(
    browser, owner, base, given
):
    built = services.create_force(owner=owner, name="Drafts")
    response = browser.post(reverse("roster:member_add", args=[built.pk]), {**NEW_ANN, **base})
    assert response.status_code == 400
    assert not Member.objects.exists()
    page = html(response)
    refusal = f"ME, RA, CA and DF take 3, 2, 2 and 1 in some order; this has {given}."
    # Beside the statistics (after their help, before the first select), said once.
    assert page.count(refusal) == 1
    assert page.index('id="base-help"') < page.index(refusal) < page.index('name="ME"')
    assert f'<p id="base-error" class="error" role="alert">{refusal}</p>' in page
    for statistic, value in base.items():
        select = re.search(rf'<select name="{statistic}"[^>]*>', page).group(0)
        assert 'aria-invalid="true"' in select
        assert 'aria-describedby="base-error"' in select
        # Nothing typed is lost: each statistic keeps the value given.
        chosen = page[page.index(select) :]
        assert f'<option value="{value}" selected>' in chosen[: chosen.index("</select>")]
    assert 'value="Ann"' in page
    assert 'value="Chess Club"' in page
    assert re.search(r'value="academic:ME"[^>]*checked', page)


@pytest.mark.parametrize(
    "base",
    [
        {"ME": 3, "RA": 2, "CA": 2, "DF": 1},
        {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
        {"ME": 2, "RA": 1, "CA": 2, "DF": 3},
    ],
)
def test_the_add_form_takes_every_order_of_3_2_2_1(browser, owner, base):
    built = services.create_force(owner=owner, name="Drafts")
    response = browser.post(reverse("roster:member_add", args=[built.pk]), {**NEW_ANN, **base})
    ann = Member.objects.get(force=built, name="Ann")
    assert response.status_code == 302
    assert response["Location"] == reverse("roster:member", args=[built.pk, ann.pk])
    assert (ann.base_me, ann.base_ra, ann.base_ca, ann.base_df) == tuple(base.values())


def test_the_add_form_says_every_refusal_at_once(browser, owner):
    """A bad spread and a missing club are both said on the first try."""
    built = services.create_force(owner=owner, name="Drafts")
    data = {"name": "Ann", "role": "student", "ME": 3, "RA": 3, "CA": 3, "DF": 3}
    page = html(browser.post(reverse("roster:member_add", args=[built.pk]), data))
    assert "this has ME 3, RA 3, CA 3, DF 3." in page
    assert "Name the student&#x27;s club." in page
    assert "Choose a society." in page


def test_a_mentor_can_be_added(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    data = {
        "name": "Ms Mori",
        "role": "mentor",
        "ME": 2,
        "RA": 3,
        "CA": 2,
        "DF": 1,
        "club_name": "Staff Room",
        "society": "technical:CA",
    }
    browser.post(reverse("roster:member_add", args=[built.pk]), data)
    mentor = Member.objects.get(name="Ms Mori")
    assert mentor.role == "mentor"


# --- server rolls (R5) ----------------------------------------------------------------------


@pytest.fixture
def rolling(owner):
    """Ann, technical, with the Movement line waiting for its roll."""
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    built = services.import_force(owner=owner, document=document)
    return built.members.get(name="Ann")


def roll(client, member: Member, data: dict | None = None, **extra):
    url = reverse("roster:roll", args=[member.force_id, member.pk])
    return client.post(url, {"slot": "free_advancements/0", **(data or {})}, **extra)


def test_a_roll_on_the_server_shows_the_die_and_is_stored(browser, rolling, owner, dice):
    page_url = reverse("roster:member", args=[rolling.force_id, rolling.pk]) + ALL
    before = html(browser.get(page_url))
    assert "Roll on the Movement table" in before
    assert "Pick instead (-2 FR)" in before

    dice(3)
    response = roll(browser, rolling)
    assert response["Location"] == page_url.replace(ALL, "?step=free#step-free")
    stored = SkillRoll.objects.get()
    assert (stored.table, stored.dice, stored.skill, stored.rolled_by) == (
        "movement",
        [3],
        "movement/wall-run",
        owner,
    )
    page = html(browser.get(page_url))
    assert "You rolled 3: Wall Run." in page
    assert '<span class="die">3</span>' in page
    assert "Re-roll (-1 FR)" in page
    assert "Roll history (1)" in page
    assert "Free advancement 1" in page
    assert result_for(rolling.force_id, "Ann")["unverified_rolls"] == 0

    # A re-roll costs 1 FR (R5) and is stored too.
    fr = result_for(rolling.force_id, "Ann")["stats"]["FR"]
    dice(9)
    roll(browser, rolling)
    assert result_for(rolling.force_id, "Ann")["stats"]["FR"] == fr - 1
    assert SkillRoll.objects.count() == 2
    assert "Roll history (2)" in html(browser.get(page_url))


def test_a_natural_12_lets_the_player_choose_a_table(browser, rolling, dice):
    page_url = reverse("roster:member", args=[rolling.force_id, rolling.pk]) + ALL
    dice(12)
    response = roll(browser, rolling)
    assert response.status_code == 302
    page = html(browser.get(page_url))
    assert "A natural 12: roll again on any table" in page
    assert '<select id="table-0" name="table">' in page

    # Without a table the server refuses, and says why (400 for htmx).
    dice(5)
    refused = roll(browser, rolling, **HTMX)
    assert refused.status_code == 400
    assert "choose the table to roll on" in html(refused)
    assert SkillRoll.objects.count() == 1

    dice(10)
    url = reverse("roster:roll", args=[rolling.force_id, rolling.pk])
    response = browser.post(url, {"slot": "free_advancements/0", "table": "melee"}, **HTMX)
    assert response.status_code == 200
    assert "You rolled 10: Dual Wield." in html(response)
    rolling.refresh_from_db()
    assert rolling.free_advancements[0] == {
        "line": 4,
        "skill": "melee/dual-wield",
        "method": "rolled",
        "natural_12": True,
    }
    assert Force.objects.get(pk=rolling.force_id).evaluation["valid"] is True


def test_a_roll_for_an_owned_skill_allows_a_free_pick(browser, rolling, dice):
    # Ann buys Catfall first, then rolls a 1 (Catfall) on her Movement line.
    edit(browser, rolling, "purchase-add", {"add": "skill:movement/catfall"})
    dice(1)
    roll(browser, rolling)
    page = html(browser.get(reverse("roster:member", args=[rolling.force_id, rolling.pk]) + ALL))
    assert "pick any of these, free" in page
    assert 'value="movement/wall-run"' in page
    free_pick = reverse("roster:free_pick", args=[rolling.force_id, rolling.pk])
    refused = browser.post(
        free_pick, {"slot": "free_advancements/0", "skill": "movement/catfall"}, **HTMX
    )
    assert refused.status_code == 400
    assert "is not one of the skills this roll lets you pick" in html(refused)
    fr = result_for(rolling.force_id, "Ann")["stats"]["FR"]
    browser.post(free_pick, {"slot": "free_advancements/0", "skill": "movement/wall-run"})
    rolling.refresh_from_db()
    assert rolling.free_advancements[0]["skill"] == "movement/wall-run"
    ann = result_for(rolling.force_id, "Ann")
    assert ann["stats"]["FR"] == fr  # a free pick is free (R5)
    assert ann["unverified_rolls"] == 0


def test_pick_instead_costs_two_fr(browser, rolling):
    fr = result_for(rolling.force_id, "Ann")["stats"]["FR"]
    url = reverse("roster:pick", args=[rolling.force_id, rolling.pk])
    browser.post(url, {"slot": "free_advancements/0", "skill": "movement/heroic-leap"})
    assert result_for(rolling.force_id, "Ann")["stats"]["FR"] == fr - 2
    response = browser.post(url, {"slot": "free_advancements/0", "skill": "no/such"}, **HTMX)
    assert response.status_code == 400
    assert "Choose one of the listed skills." in html(response)


def test_rolling_a_statistic_line_is_refused(browser, rolling, dice):
    dice(3)
    response = roll(browser, rolling, {"slot": "free_advancements/1"})
    assert response.status_code == 400
    assert "<html" in html(response)
    assert "Only a skill line is rolled for" in html(response)
    assert not SkillRoll.objects.exists()


def test_the_roll_history_shows_who_when_table_dice_and_outcome(browser, rolling, dice):
    dice(11, 2)
    roll(browser, rolling)
    page = html(browser.get(reverse("roster:detail", args=[rolling.force_id])))
    history = page[page.index("Roll history (1)") :]
    assert "by you" in history
    assert '<td data-label="Table">Movement</td>' in history
    assert '<td class="num" data-label="Dice">11, 2</td>' in history
    assert '<td class="wide" data-label="Result">Quick Mantle</td>' in history
    assert "<time datetime=" in history


def test_free_advancement_lines_show_why_one_is_unavailable(browser, owner):
    built = services.import_force(owner=owner, document=legal_force())
    member = built.members.get(name="Emma")
    page = html(browser.get(reverse("roster:member", args=[built.pk, member.pk]) + ALL))
    taken_twice = (
        "Free advancements come from two different lines; Spellcasting Skill is taken twice."
    )
    assert taken_twice in page
    edit(browser, member, "free-clear", {"slot": "1"})
    member.refresh_from_db()
    assert len(member.free_advancements) == 1
    refused = edit(browser, member, "free-clear", {"slot": "5"}, **HTMX)
    assert refused.status_code == 400


def test_spell_steps(browser, owner):
    document = legal_force()
    document["members"][0]["free_advancements"][0]["skill"] = "spellcasting/supreme-spell-mastery"
    built = services.import_force(owner=owner, document=document)
    member = built.members.get(name="Emma")
    edit(browser, member, "mastery", {"mastery": "healing-spring"})
    member.refresh_from_db()
    assert member.mastery == "healing-spring"
    assert result_for(built.pk, "Emma")["spell_slots"] == {"total": 4, "used": 2}
    edit(browser, member, "spell-remove", {"index": "0"})
    member.refresh_from_db()
    assert (member.spells, member.mastery) == ([], None)  # R9: Mastery must be known


def test_taking_an_or_line_says_which_option_was_taken(browser, owner):
    force = services.create_force(owner=owner, name="Say what")
    member = services.add_member(
        force=force, actor=None, data=student("Ann", free_advancements=[])
    )
    response = edit(
        browser, member, "free", {"slot": "0", "option": "2:HP"}, HTTP_HX_REQUEST="true"
    )
    assert "Took +1 HP." in response.content.decode()


def test_the_pick_says_what_it_costs_after_re_rolls_r5a(browser, rolling, dice):
    page_url = reverse("roster:member", args=[rolling.force_id, rolling.pk]) + "?step=free"
    dice(3, 9)
    roll(browser, rolling)
    assert "already paid for re-rolls" not in html(browser.get(page_url))
    roll(browser, rolling)  # a re-roll: 1 FR
    page = html(browser.get(page_url))
    assert (
        "The 1 FR already paid for re-rolls stay paid: with the pick this advancement "
        "costs 3 FR in all (R5a)."
    ) in page


# --- R5a: no re-roll the member's FR cannot pay ----------------------------------------------

ALERTS = re.compile(r'<p class="error" role="alert">(.*?)</p>', re.S)
REROLL_BUTTON = f"Re-roll (-{engine.REROLL_FR_COST} FR)"
NO_REROLL = "No re-roll: FR cannot go below 0 (R5a)."


def rolled_down_to(member: Member, owner, fr: int) -> None:
    """Roll Ann's Movement line on the server, then re-roll until her FR is `fr`: each
    re-roll costs engine.REROLL_FR_COST (R5)."""
    force = member.force
    services.roll_skill(
        force=force,
        actor=owner,
        member_id=member.pk,
        slot="free_advancements/0",
        rng=ScriptedDice(3),
    )
    while (now := result_for(force.pk, "Ann")["stats"]["FR"]) > fr:
        assert now - engine.REROLL_FR_COST >= fr
        services.roll_skill(
            force=Force.objects.get(pk=force.pk),
            actor=owner,
            member_id=member.pk,
            slot="free_advancements/0",
            rng=ScriptedDice(3),
        )
    assert result_for(force.pk, "Ann")["stats"]["FR"] == fr


def stored(force_id: int) -> tuple:
    """What a refused re-roll must leave as it was."""
    force = Force.objects.get(pk=force_id)
    ann = force.members.get(name="Ann")
    return force.version, ann.free_advancements, SkillRoll.objects.count(), force.evaluation


def test_r5a_a_reroll_is_offered_while_fr_can_pay_for_it(browser, rolling, owner, dice):
    # FR exactly the re-roll's cost: offered, and taking it leaves FR at 0 (R3, R5a).
    rolled_down_to(rolling, owner, fr=engine.REROLL_FR_COST)
    page_url = reverse("roster:member", args=[rolling.force_id, rolling.pk]) + "?step=free"
    page = html(browser.get(page_url))
    assert page.count(REROLL_BUTTON) == 1
    assert NO_REROLL not in page
    dice(5)
    response = roll(browser, rolling, **HTMX)
    assert response.status_code == 200
    assert ALERTS.findall(html(response)) == []
    assert result_for(rolling.force_id, "Ann")["stats"]["FR"] == 0


def test_r5a_no_reroll_is_offered_one_fr_short_and_a_forged_one_is_refused(
    browser, rolling, owner, dice
):
    rolled_down_to(rolling, owner, fr=engine.REROLL_FR_COST - 1)
    page_url = reverse("roster:member", args=[rolling.force_id, rolling.pk]) + "?step=free"
    page = html(browser.get(page_url))
    assert REROLL_BUTTON not in page
    assert page.count(NO_REROLL) == 1
    before = stored(rolling.force_id)
    refusal = "Ann has no FR left to pay for this (R5a: FR may not go below 0)."
    for extra in (HTMX, {}):  # the step in place (htmx), or the page again (a plain post)
        dice(5)
        response = roll(browser, rolling, **extra)
        assert response.status_code == 400
        answer = html(response)
        assert ALERTS.findall(answer) == [refusal]
        assert REROLL_BUTTON not in answer
        assert answer.count(NO_REROLL) == 1
        assert stored(rolling.force_id) == before
