"""`make bench`'s browser part (bench/browser.py), run for a few clicks against the test
server, so it keeps working as the builder and the battle screen change. Nothing here is
timed: it checks that every click was measured and every answer weighed."""

import random

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from bench import browser as bench_browser
from bench.forces import full_force
from play import services as play_services
from roster import services as roster_services
from roster.demo import demo_force

pytestmark = pytest.mark.django_db(transaction=True)


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_the_bench_measures_builder_edits(live_server, browser, django_user_model):
    player = django_user_model.objects.create_user("bench")
    force = roster_services.import_force(owner=player, document=full_force())
    member = force.members.order_by("position").first()
    phone = bench_browser.open_phone(
        browser, live_server.url, session_of(player), bench_browser.LOOPBACK
    )
    url = live_server.url + reverse("roster:member", args=[force.pk, member.pk])
    figures = bench_browser.builder_edits(phone, url + "?step=equipment", 2)
    assert len(figures.times) == len(figures.wire) == len(figures.body) == 2
    # Gzipped on the wire: each answer's body decoded is several times what came.
    assert all(body > 3 * wire > 0 for wire, body in zip(figures.wire, figures.body, strict=True))
    phone.page.context.close()


def test_the_bench_measures_a_round_at_the_battle(live_server, browser, django_user_model):
    ann = django_user_model.objects.create_user("ann")
    ria = django_user_model.objects.create_user("ria")
    battle = play_services.start_battle(
        by=ann,
        forces=[
            roster_services.import_force(owner=ann, document=demo_force()),
            roster_services.import_force(owner=ria, document=demo_force()),
        ],
        scenario="Bench Duel",
    )
    a, b = (
        bench_browser.open_phone(browser, live_server.url, session_of(u), bench_browser.LOOPBACK)
        for u in (ann, ria)
    )
    url = live_server.url + reverse("play:battle", args=[battle.pk])
    bench_browser.start_play(a, b, url)
    figures = bench_browser.play_cycles(a, b, 1, rng=random.Random(0), pause_s=0)
    assert {kind: len(f.times) for kind, f in figures.clicks.items()} == {
        "attack": 1,
        "transfer": 1,
        "undo": 2,
    }
    assert len(figures.other_phone) == 4  # each change seen on the other phone
    assert all(f.wire and f.body for f in figures.clicks.values())
    assert figures.changed_poll_wire  # the other phone's polls that brought a change
    battle.refresh_from_db()
    assert battle.version == 1 + 1 + 4  # started, initiative, four changes
    a.page.context.close()
    b.page.context.close()
