"""Site-wide page behaviour: private pages are never kept by the browser, the favicon, the
visitors' home page, and htmx's script without django-htmx's DEBUG error handler."""

import re
import struct
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse

from roster import services
from tests.roster.builders import legal_force

pytestmark = pytest.mark.django_db

STATIC = Path(settings.BASE_DIR) / "static"


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("owner", password="pw-owner-1234")


@pytest.fixture
def as_owner(owner) -> Client:
    client = Client()
    client.force_login(owner)
    return client


def _no_store(response) -> bool:
    return "no-store" in response.get("Cache-Control", "")


def test_every_page_with_a_players_data_is_sent_no_store(as_owner, owner):
    force = services.import_force(owner=owner, document=legal_force())
    member = force.members.first()
    for url in [
        reverse("home"),
        reverse("roster:list"),
        reverse("roster:detail", args=[force.pk]),
        reverse("roster:member", args=[force.pk, member.pk]),
        reverse("roster:print", args=[force.pk]),
        reverse("campaign:list"),
        reverse("accounts:account"),
    ]:
        response = as_owner.get(url)
        assert response.status_code == 200, url
        assert _no_store(response), (url, response.get("Cache-Control"))
        assert "private" in response["Cache-Control"], url
    # htmx partials too (a builder step, the force page's own parts).
    response = as_owner.get(
        reverse("roster:member_step", args=[force.pk, member.pk, "equipment"]),
        headers={"HX-Request": "true"},
    )
    assert _no_store(response)


@override_settings(DEBUG=False)
def test_no_store_does_not_depend_on_debug(as_owner):
    assert _no_store(as_owner.get(reverse("roster:list")))


def test_public_pages_and_files_are_left_cacheable(client, as_owner, owner):
    assert not _no_store(client.get(reverse("home")))
    assert not _no_store(client.get(reverse("rules:index")))
    force = services.import_force(owner=owner, document=legal_force())
    # The roster API detail keeps its own conditional caching (ETag, private, no-cache).
    api = as_owner.get(f"/api/v1/rosters/{force.pk}/")
    assert api.status_code == 200
    assert not _no_store(api)
    assert "no-cache" in api["Cache-Control"]
    # A download is not a page.
    export = as_owner.get(reverse("roster:export", args=[force.pk]))
    assert not _no_store(export)


def test_favicon_is_a_real_icon_served_as_a_static_file(client):
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (301, "/static/favicon.ico")
    data = (STATIC / "favicon.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind, count) == (0, 1, 1)  # an ICO file holding one image
    width, height = data[6], data[7]
    assert (width, height) == (32, 32)
    assert data[22:30] == b"\x89PNG\r\n\x1a\n"
    page = client.get(reverse("home")).content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in page
    assert 'rel="icon" href="/favicon.ico"' in page


def test_a_visitor_sees_what_the_site_does_with_the_demo_force(client):
    page = client.get(reverse("home")).content.decode()
    assert "Build your force. Play your campaign." in page
    assert "An example: Literature Club Irregulars" in page
    for name in ["Emma", "Julius", "Kenji", "Mio"]:
        assert f"<strong>{name}</strong>" in page
    assert re.search(r"\d+ of 50 Resources spent", page)
    assert '<span class="badge badge--ok">Legal</span>' in page
    assert f'href="{reverse("accounts:signup")}">Sign up and build a force</a>' in page


def test_a_signed_in_player_gets_their_own_links_instead(as_owner):
    page = as_owner.get(reverse("home")).content.decode()
    assert "An example" not in page
    assert f'href="{reverse("roster:list")}">My forces</a>' in page


@pytest.mark.parametrize("debug", [False, True])
def test_htmx_loads_without_the_debug_error_handler(client, debug):
    """django-htmx's DEBUG script replaces the whole document with a 4xx answer; refused
    changes must look the same under `make run` as in production (site.js shows them)."""
    with override_settings(DEBUG=debug):
        page = client.get(reverse("home")).content.decode()
    assert "/static/django_htmx/htmx-2.min.js" in page
    assert "django-htmx.js" not in page


def test_my_forces_groups_campaign_copies_under_their_campaign(django_user_model):
    """A campaign copy is a force of the same name; it is marked, listed under its
    campaign, and offers no Delete (the campaign refuses it)."""
    from campaign import services as campaign_services
    from roster.demo import demo_force

    player = django_user_model.objects.create_user("player", password="pw-player-1234")
    own = services.import_force(owner=player, document=demo_force())
    campaign = campaign_services.create_campaign(organiser=player, name="Spring Term League")
    campaign_services.enter_force(campaign=campaign, player=player, force=own)
    client = Client()
    client.force_login(player)
    page = client.get(reverse("roster:list")).content.decode()
    own_part, _, campaign_part = page.partition("In the campaign")
    assert "<h2>Your own forces</h2>" in own_part
    assert own_part.count('class="force-card__name"') == 1
    assert f'href="{reverse("roster:delete", args=[own.pk])}"' in own_part
    assert campaign_part.count('class="force-card__name"') == 1
    assert "Campaign copy: Spring Term League" in campaign_part
    assert "/delete/" not in campaign_part
