"""A lost answer (static/js/idempotent.js, docs/idempotency.md): the server takes a tap,
then the connection drops before its answer arrives. The phone does not say "nothing was
changed": it says it is checking, sends the same request with the same Idempotency-Key
when the connection is back, and shows the answer, the first answer replayed: the action
is in the log once.

The answer is held by routing the request: it is let through to the server, then the
browser goes offline and the answer is dropped. Nothing waits on time: each step waits
for what the page shows."""

import pytest
from django.urls import reverse
from playwright.sync_api import Page, Route, expect

from play import services
from play.models import BattleAction
from roster import services as roster_services
from roster.models import SkillRoll
from tests.browser.conftest import assert_accessible, signed_in_page
from tests.play import acting
from tests.play.conftest import play_force
from tests.roster.builders import legal_force

pytestmark = pytest.mark.django_db(transaction=True)

CHECKING = (
    "No answer came: the connection dropped. Checking whether the site made your change: "
    "it is sent again, once, when the connection is back."
)
DONE_BEFORE = (
    "Checked: the site had made your change before the connection dropped. It was made "
    "once; its result is shown."
)


@pytest.fixture
def battle(django_user_model):
    alice = django_user_model.objects.create_user("alice")
    bob = django_user_model.objects.create_user("bob")
    return services.start_battle(
        by=alice,
        forces=[play_force(alice, "Red Club"), play_force(bob, "Blue Club")],
        scenario="Bad signal",
    )


def hold_the_first_answer(page: Page, path: str) -> list[dict[str, str]]:
    """Route `path`: the first request reaches the server, then the phone goes offline
    and its answer is lost; later ones go through. Gives each request's headers."""
    sent: list[dict[str, str]] = []

    def route(route: Route) -> None:
        sent.append(route.request.headers)
        if len(sent) == 1:
            route.fetch()  # the server does it and answers...
            page.context.set_offline(True)
            route.abort("internetdisconnected")  # ...and the answer never arrives
        else:
            route.continue_()

    page.route(f"**{path}", route)
    return sent


def kinds(battle) -> list[str]:
    return list(
        BattleAction.objects.filter(battle=battle).order_by("seq").values_list("kind", flat=True)
    )


def test_a_roll_whose_answer_is_lost_is_checked_and_in_the_log_once(live_server, browser, battle):
    page = signed_in_page(browser, live_server, battle.created_by, "phone-light")
    page.goto(live_server.url + reverse("play:battle", args=[battle.pk]))
    page.locator("#log > summary").click()  # the log's lines come as its fold opens
    expect(page.locator(".play-log li")).to_have_count(1)
    sent = hold_the_first_answer(page, reverse("play:act", args=[battle.pk]))
    page.get_by_text("Roll plain d12").click()
    page.get_by_label("For", exact=True).fill("the crate")
    page.get_by_role("button", name="Roll d12").click()

    status = page.locator("#write-status p")
    expect(status).to_have_text(CHECKING)
    expect(status).to_be_in_viewport()
    assert_accessible(page)
    assert kinds(battle) == ["start", "roll"]  # the server took it
    # Nothing on the page claims the tap changed nothing.
    expect(page.get_by_text("nothing was changed")).to_have_count(0)

    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.context.set_offline(False)
    assert answer.value.headers["idempotent-replayed"] == "true"
    expect(status).to_have_text(DONE_BEFORE)
    expect(status).to_be_in_viewport()
    rolled = battle.actions.get(kind="roll")
    expect(page.locator("#act-result")).to_have_text(rolled.words)
    expect(page.locator(".play-log li", has_text="for the crate")).to_have_count(1)
    expect(page.locator("#log-lines > :not(li)")).to_have_count(0)  # lines, not lists
    expect(page.locator("#battle-state")).to_have_count(1)  # swapped as the tap would have
    assert kinds(battle) == ["start", "roll"]
    keys = [headers.get("idempotency-key") for headers in sent]
    assert len(keys) == 2
    assert keys[0] == keys[1]
    assert keys[0]
    page.context.close()


def test_log_lines_an_answer_brings_late_are_not_put_on_top_twice(live_server, browser, battle):
    """An answer made for the log as it stood before (a write's answer replayed after a
    lost connection, when a poll has brought its lines meanwhile) finds the fold already
    showing them: its lines and its key are left out."""
    acting.roll_d12(battle=battle, by=battle.created_by, count=1)
    page = signed_in_page(browser, live_server, battle.created_by, "phone-light")
    page.goto(live_server.url + reverse("play:battle", args=[battle.pk]))
    page.locator("#log > summary").click()
    expect(page.locator("#log-lines > li")).to_have_count(2)
    expect(page.locator("#log-key")).to_have_attribute("data-shows", "2.0")
    # The panel as it was answered to a phone showing only the first line.
    page.evaluate(
        """async (url) => {
             const late = await fetch(url, {headers: {"HX-Request": "true", "Log-After": "1.0"}});
             htmx.swap("#battle-state", await late.text(), {swapStyle: "none"});
           }""",
        reverse("play:state", args=[battle.pk]),
    )
    expect(page.locator("#log-lines > li")).to_have_count(2)
    expect(page.locator("#log-key")).to_have_attribute("data-shows", "2.0")
    page.context.close()


def test_an_undo_whose_answer_is_lost_is_not_asked_again_and_undoes_once(
    live_server, browser, battle
):
    acting.roll_d12(battle=battle, by=battle.created_by, count=1)
    acting.roll_d12(battle=battle, by=battle.created_by, count=2)
    page = signed_in_page(browser, live_server, battle.created_by, "phone-light")
    questions: list[str] = []

    def answer(dialog) -> None:
        questions.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    page.goto(live_server.url + reverse("play:battle", args=[battle.pk]))
    sent = hold_the_first_answer(page, reverse("play:undo", args=[battle.pk]))
    page.get_by_role("button", name="Undo: the roll of the dice").click()
    expect(page.locator("#write-status p")).to_have_text(CHECKING)

    page.context.set_offline(False)
    expect(page.locator("#write-status p")).to_have_text(DONE_BEFORE)
    undone = BattleAction.objects.filter(battle=battle, undone_at__isnull=False)
    assert list(undone.values_list("seq", flat=True)) == [3]  # the last roll alone
    assert len(questions) == 1  # asked once, when the player tapped
    assert len(sent) == 2
    page.context.close()


def test_a_builder_roll_whose_answer_is_lost_rolls_once(live_server, browser, django_user_model):
    owner = django_user_model.objects.create_user("olive")
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    ann = roster_services.import_force(owner=owner, document=document).members.get(name="Ann")
    page = signed_in_page(browser, live_server, owner, "phone-light")
    page.goto(
        live_server.url + reverse("roster:member", args=[ann.force_id, ann.pk]) + "?step=free"
    )
    sent = hold_the_first_answer(page, reverse("roster:roll", args=[ann.force_id, ann.pk]))
    page.get_by_role("button", name="Roll on the Movement table").click()
    expect(page.locator("#write-status p")).to_have_text(CHECKING)
    assert SkillRoll.objects.count() == 1

    page.context.set_offline(False)
    expect(page.locator("#write-status p")).to_have_text(DONE_BEFORE)
    roll = SkillRoll.objects.get()
    rolled = ", ".join(map(str, roll.dice))
    expect(page.get_by_text(f"You rolled {rolled}")).to_be_visible()
    assert SkillRoll.objects.count() == 1
    assert [h.get("idempotency-key") for h in sent] == [sent[0]["idempotency-key"]] * 2
    page.context.close()
