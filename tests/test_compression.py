"""Answers are gzipped for a client that accepts it, except those that show a secret which
stays the same from answer to answer (BREACH; docs/operations.md, "Compression").

The site walk (tests/site_walk.py) opens every page and API answer as the owner of a
force with a share link, a campaign (its invitation link) and a battle (its spectator
link): no compressed answer may hold any of those tokens.
"""

import gzip

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from roster import services as roster_services
from roster.models import Force
from tests.site_walk import World, fill, make_world, routes

pytestmark = pytest.mark.django_db

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def world() -> World:
    return make_world()


def signed_in(world: World, client_class=Client):
    client = client_class()
    client.force_login(world.owner)
    return client


def compressed(response) -> bool:
    return response.get("Content-Encoding") == "gzip"


def body(response) -> bytes:
    """The answer as the client reads it."""
    if response.streaming:
        return b"".join(response.streaming_content)
    return gzip.decompress(response.content) if compressed(response) else response.content


def varies_on(response) -> set[str]:
    return {v.strip().lower() for v in response.get("Vary", "").split(",") if v.strip()}


def tokens_of(world: World) -> dict[str, str]:
    return {
        "share": world.values["token"],
        "invitation": world.campaign_values["token"],
        "spectator": world.play_values["token"],
    }


def test_no_compressed_answer_shows_a_capability_token(world):
    owner = signed_in(world)
    tokens = tokens_of(world)
    zipped, kept_whole = [], {}
    for path in (p for p in (fill(r, world) for r in routes()) if p):
        response = owner.get(path, **GZIP)
        shown = sorted(kind for kind, token in tokens.items() if token.encode() in body(response))
        if compressed(response):
            assert not shown, f"{path} is compressed with the {shown} token in it"
            assert "accept-encoding" in varies_on(response), path
            zipped.append(path)
        elif shown:
            kept_whole[path] = shown
    play, campaign = world.play_values["battle_id"], world.campaign_values["campaign_id"]
    force = world.values["force_id"]
    # Each kind of secret was met, and its answers were sent as they are.
    assert {
        f"/forces/{force}/": ["share"],
        f"/api/v1/rosters/{force}/": ["share"],
        f"/campaigns/{campaign}/": ["invitation"],
        f"/api/v1/campaigns/{campaign}/": ["invitation"],
        f"/play/{play}/spectator-link/": ["spectator"],
        f"/api/v1/battles/{play}/": ["spectator"],
        f"/play/watch/{tokens['spectator']}/": ["spectator"],
    }.items() <= kept_whole.items()
    # The rest of any size went compressed: the builder, the battle screen and its state
    # panel, the list of forces, the rules.
    member = world.values["member_id"]
    assert {
        f"/forces/{force}/members/{member}/",
        f"/play/{play}/",
        f"/play/{play}/state/",
        "/api/v1/rosters/",
        "/rules/",
    } <= set(zipped)


def test_a_builder_edit_is_compressed_when_the_client_accepts_gzip(world):
    owner = signed_in(world)
    force, member = world.values["force_id"], world.values["member_id"]
    url = reverse("roster:member_edit", args=[force, member, "equipment-add"])
    zipped = owner.post(url, {"add": "medical-kit"}, **HTMX, **GZIP)
    assert zipped.status_code == 200
    assert compressed(zipped)
    assert int(zipped["Content-Length"]) == len(zipped.content)
    assert {"accept-encoding", "hx-request"} <= varies_on(zipped)
    assert b"Added Medical Kit." in body(zipped)
    whole = owner.post(url, {"add": "medical-kit"}, **HTMX)  # no Accept-Encoding
    assert not compressed(whole)
    assert "accept-encoding" in varies_on(whole)
    assert b"Added Medical Kit." in whole.content
    assert len(zipped.content) < len(whole.content) / 3


def test_a_short_answer_goes_as_it_is_and_still_varies(world):
    owner = signed_in(world)
    # A 302 to the force page after a plain (not htmx) share-link change: no body to speak of.
    response = owner.post(reverse("roster:share", args=[world.values["force_id"]]), {}, **GZIP)
    assert response.status_code == 302
    assert not compressed(response)
    assert "accept-encoding" in varies_on(response)


def test_the_share_link_decides_for_the_force_page_and_its_api_answer(world):
    owner, api = signed_in(world), signed_in(world, APIClient)
    force = Force.objects.get(pk=world.values["force_id"])
    page, detail = reverse("roster:detail", args=[force.pk]), f"/api/v1/rosters/{force.pk}/"
    for _ in range(2):  # rendered, then from the cache
        assert not compressed(owner.get(page, **GZIP))
        assert not compressed(api.get(detail, **GZIP))
    roster_services.set_share_link(force=force, actor=None, enabled=False)
    for _ in range(2):
        assert compressed(owner.get(page, **GZIP))
        response = api.get(detail, **GZIP)
        assert compressed(response)
        assert b'"share_url":null' in body(response)


def test_a_new_api_token_is_sent_as_it_is(world):
    owner = signed_in(world)
    response = owner.post(reverse("accounts:token_create"), {"name": "Script"}, **GZIP)
    assert response.status_code == 200
    assert b"Copy it now." in response.content
    assert not compressed(response)
    # The account page that lists tokens (prefixes only) is compressed.
    assert compressed(owner.get(reverse("accounts:account"), **GZIP))


def test_the_roster_api_etag_works_through_compression(world):
    api = signed_in(world, APIClient)
    force = Force.objects.get(pk=world.values["force_id"])
    roster_services.set_share_link(force=force, actor=None, enabled=False)
    url = f"/api/v1/rosters/{force.pk}/"
    first = api.get(url, **GZIP)
    assert compressed(first)
    etag = first["ETag"]
    assert (etag[0], etag[-6:]) == ('"', '-gzip"')  # other bytes: a strong tag of its own
    unchanged = api.get(url, HTTP_IF_NONE_MATCH=etag, **GZIP)
    assert (unchanged.status_code, unchanged.content) == (304, b"")
    assert unchanged["ETag"] == etag
    assert "accept-encoding" in varies_on(unchanged)
    # If-Match on a write: the tag the compressed answer gave is the one that matches.
    renamed = api.patch(url, {"name": "Renamed"}, format="json", HTTP_IF_MATCH=etag, **GZIP)
    assert renamed.status_code == 200
    assert compressed(renamed)
    stale = api.patch(url, {"name": "Again"}, format="json", HTTP_IF_MATCH=etag, **GZIP)
    assert stale.status_code == 412
    fresh = api.get(url, HTTP_IF_NONE_MATCH=etag, **GZIP)
    assert fresh.status_code == 200
    assert compressed(fresh)
    assert fresh["ETag"] != etag
    assert api.get(url, HTTP_IF_NONE_MATCH=fresh["ETag"], **GZIP).status_code == 304


def test_the_battle_screen_is_compressed_and_its_spectator_link_comes_apart(world):
    owner = signed_in(world)
    battle, token = world.play_values["battle_id"], world.play_values["token"]
    screen = owner.get(reverse("play:battle", args=[battle]), **GZIP)
    assert screen.status_code == 200
    assert compressed(screen)
    assert token.encode() not in body(screen)
    assert len(screen.content) < len(body(screen)) / 3
    link_page = reverse("play:spectator_link", args=[battle])
    # The screen's fold asks the link's page for it (htmx); without JavaScript, the page.
    assert f'href="{link_page}" hx-get="{link_page}"'.encode() in body(screen)
    for asked in (owner.get(link_page, **HTMX, **GZIP), owner.get(link_page, **GZIP)):
        assert asked.status_code == 200
        assert not compressed(asked)
        assert f"/play/watch/{token}/".encode() in asked.content


def test_the_battle_poll_stays_a_bodyless_304_and_its_change_comes_compressed(world):
    owner = signed_in(world)
    battle = world.play_values["battle_id"]
    state = reverse("play:state", args=[battle])
    first = owner.get(state, **HTMX, **GZIP)
    assert first.status_code == 200
    assert compressed(first)
    assert {"accept-encoding", "hx-request"} <= varies_on(first)
    idle = owner.get(state, HTTP_IF_NONE_MATCH=first["ETag"], **HTMX, **GZIP)
    assert (idle.status_code, idle.content) == (304, b"")
    assert idle["ETag"] == first["ETag"]
    assert "accept-encoding" in varies_on(idle)
    assert idle["Cache-Control"] == first["Cache-Control"] == "private, no-cache"
    # Sent to every watching phone many times a minute: without a document's guards,
    # which the 200 carries (a cache keeps them from it; a 304 never removes one).
    for guard in ("Content-Security-Policy", "X-Frame-Options"):
        assert guard in first
        assert guard not in idle
    acted = owner.post(
        reverse("play:act", args=[battle]), {"type": "roll", "count": "1"}, **HTMX, **GZIP
    )
    assert acted.status_code == 200
    assert compressed(acted)
    assert b'id="act-result"' in body(acted)
    changed = owner.get(state, HTTP_IF_NONE_MATCH=first["ETag"], **HTMX, **GZIP)
    assert changed.status_code == 200
    assert compressed(changed)
    assert changed["ETag"] == acted["ETag"] != first["ETag"]
