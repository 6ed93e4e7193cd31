"""A Destruction spell on a phone (390x844): Alice casts Seraphic Bolt, the screen offers
its attacks with their odds, she picks a target and rolls them; Bob's phone shows the
damage without a reload (issue #12). Dice are entered as rolled (P5); axe on the card."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from play.models import BattleFigure
from tests.browser.conftest import (
    PASSWORD,
    assert_accessible,
    done,
    hp,
    htmx_settled,
    log_in,
    open_sheet,
    phone,
)
from tests.play.conftest import storm


@pytest.mark.django_db(transaction=True)
def test_a_phone_rolls_a_spells_attacks(live_server, browser, django_user_model):
    url = live_server.url
    alice = django_user_model.objects.create_user("alice", password=PASSWORD)
    bob = django_user_model.objects.create_user("bob", password=PASSWORD)
    battle = storm(alice, bob)
    ids = {
        f"{f.side.position}:{f.name}": f.pk
        for f in BattleFigure.objects.filter(side__battle=battle).select_related("side")
    }
    page_url = url + reverse("play:battle", args=[battle.pk])
    a = log_in(phone(browser), url, "alice")
    b = log_in(phone(browser), url, "bob")
    a.goto(page_url)
    b.goto(page_url)

    # CA 4 at Difficulty 6: 6, 6, 6, 1 is 3 successes: ROF 2, Acc +0.
    spell = open_sheet(a, ids["0:Eve"], "Cast")
    spell.locator('select[name="spell"]').select_option(label="Seraphic Bolt")
    # The spell's odds follow the choice, in the sheet (not over the battle's state).
    expect(spell.locator("#spell-odds")).to_contain_text("4 dice at Difficulty 6")
    expect(a.locator("#battle-state")).to_have_count(1)
    htmx_settled(a)
    spell.get_by_label("Dice rolled at the table").fill("6 6 6 1")
    done(a, lambda: spell.get_by_role("button", name="Cast").click())
    card = a.locator("#spell-attack")
    expect(card).to_contain_text("Eve's Seraphic Bolt: roll its attacks")
    expect(card).to_contain_text('one target, range 15": ROF 2, Acc +0')
    assert_accessible(a)

    # Ann (DF 10): RA 1 needs a 9; the odds follow the chosen target before rolling.
    card.locator('select[name="target"]').select_option(str(ids["1:Ann"]))
    odds = a.locator(f'#spell-attack-odds[data-for="{ids["1:Ann"]}"]')
    expect(odds).to_contain_text("needs 9+")
    expect(odds).to_contain_text("from 2 attacks")
    card.get_by_label("Dice rolled at the table").fill("12 8")
    done(a, lambda: card.get_by_role("button", name="Roll the spell's attacks").click())
    expect(a.locator("#act-result")).to_contain_text("Hit, Success Rating 3")
    expect(a.locator("#spell-attack")).to_have_count(0)  # one target: the cast is done
    expect(hp(b, ids["1:Ann"])).to_have_text("8")  # Bob sees it without reloading
    assert_accessible(b)
