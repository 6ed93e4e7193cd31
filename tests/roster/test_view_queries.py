"""Pages cost the same number of queries however many members a force has, and what they
cache follows every change."""

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from roster import member_rows, services
from roster.models import Member
from tests.roster.builders import emma, force, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db


def build(owner, size: int):
    """A force of `size` members, each rolling once on a skill line (rolls are shown too)."""
    members = [emma()] + [
        student(f"Student {i}", free_advancements=[{"line": 4}, {"line": 3}])
        for i in range(1, size)
    ]
    saved = services.import_force(owner=owner, document=force(*members, resources=500))
    for member in saved.members.exclude(name="Emma"):
        services.roll_skill(
            force=member.force,
            member_id=member.pk,
            slot="free_advancements/0",
            actor=owner,
            rng=ScriptedDice(2),
        )
    return saved


def count_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


@pytest.mark.parametrize("page", ["roster:detail", "roster:print"])
def test_force_pages_do_not_grow_with_members(client, owner, page):
    client.force_login(owner)
    small, large = build(owner, 4), build(owner, 7)
    count_queries(client, reverse(page, args=[small.pk]))  # warm the session and catalogue
    cache.clear()
    four = count_queries(client, reverse(page, args=[small.pk]))
    seven = count_queries(client, reverse(page, args=[large.pk]))
    assert four == seven
    assert four <= 6


def test_the_force_page_reads_no_members_while_its_body_is_cached(client, owner):
    client.force_login(owner)
    small, large = build(owner, 4), build(owner, 7)
    count_queries(client, reverse("roster:detail", args=[small.pk]))  # session, catalogue
    cache.clear()
    url = reverse("roster:detail", args=[large.pk])
    with CaptureQueriesContext(connection) as first:
        client.get(url)
    with CaptureQueriesContext(connection) as again:
        client.get(url)
    member_table = Member._meta.db_table
    assert any(member_table in q["sql"] for q in first.captured_queries)
    assert not any(member_table in q["sql"] for q in again.captured_queries)
    assert len(again) == len(first) - 2  # the members, their rolls


def test_the_member_page_does_not_grow_with_members(client, owner, django_assert_num_queries):
    client.force_login(owner)
    small, large = build(owner, 4), build(owner, 7)
    first = small.members.get(name="Student 1")
    last = large.members.get(name="Student 6")
    count_queries(client, reverse("roster:member", args=[small.pk, first.pk]))
    four = count_queries(client, reverse("roster:member", args=[small.pk, first.pk]))
    with django_assert_num_queries(four):
        client.get(reverse("roster:member", args=[large.pk, last.pk]))


def test_a_builder_edit_does_not_grow_with_members(client, owner):
    """An htmx edit answers from the rows the write path stored (the member's rolls
    included), so it reads no more for a larger force, and shows the change."""
    client.force_login(owner)
    small, large = build(owner, 4), build(owner, 7)

    def add_tool_kit(built) -> tuple[int, str]:
        member = built.members.get(name="Student 1")
        url = reverse("roster:member_edit", args=[built.pk, member.pk, "equipment-add"])
        with CaptureQueriesContext(connection) as queries:
            response = client.post(url, {"add": "tool-kit"}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        return len(queries), response.content.decode()

    add_tool_kit(small)  # the session and the catalogue
    four, _ = add_tool_kit(small)
    seven, answer = add_tool_kit(large)
    assert four == seven
    # Session and user, the force's row, the write path's transaction (lock, members,
    # rolls, two updates, and the owner's event with a look for their webhooks,
    # docs/events.md); the answer's other members are the rows the write path read.
    assert seven <= 12
    assert "Added Tool Kit." in answer
    assert answer.count("Tool Kit") > 2  # carried, in the step and on the card
    assert "Roll history (1)" in answer  # the member's roll


def test_the_shared_page_does_not_grow_with_members(client, owner):
    small, large = build(owner, 4), build(owner, 7)
    services.set_share_link(force=small, actor=None, enabled=True)
    services.set_share_link(force=large, actor=None, enabled=True)
    count_queries(client, reverse("roster:shared", args=[small.share_token]))
    four = count_queries(client, reverse("roster:shared", args=[small.share_token]))
    seven = count_queries(client, reverse("roster:shared", args=[large.share_token]))
    assert four == seven


def test_my_forces_does_not_grow_with_forces(client, owner):
    client.force_login(owner)
    build(owner, 4)
    count_queries(client, reverse("roster:list"))
    one = count_queries(client, reverse("roster:list"))
    build(owner, 5)
    build(owner, 6)
    assert count_queries(client, reverse("roster:list")) == one


def card_renders(response) -> int:
    """How many member cards the request rendered (the rest came from the cache)."""
    return [t.name for t in response.templates].count("roster/_member_card.html")


def test_an_edit_renders_only_the_edited_members_card(client, owner):
    client.force_login(owner)
    built = build(owner, 7)
    url = reverse("roster:detail", args=[built.pk])
    cache.clear()
    assert card_renders(client.get(url)) == 7
    assert card_renders(client.get(url)) == 0  # the whole body is kept
    ann = built.members.get(name="Student 3")
    changed = member_rows.member_json(ann) | {"equipment": ["tool-kit"]}
    services.update_member(force=ann.force, actor=None, member_id=ann.pk, data=changed)
    page = client.get(url)
    assert card_renders(page) == 1
    assert page.content.decode().count("Tool Kit") == 1
    # The six cards kept are those a full render gives now.
    cache.clear()
    assert member_grid(client.get(url)) == member_grid(page)


def member_grid(response) -> str:
    """The page's member cards (the rest of a page has per-request tokens and nonces)."""
    page = response.content.decode()
    start = page.index('<div class="member-grid">')
    return page[start : page.index("</section>", start)]


def test_a_share_link_never_shows_the_owners_cards(client, owner):
    """The read-only page's cards have no Edit or Remove, even when the owner's cards of
    the same members are kept; and the owner's page keeps its own."""
    built = build(owner, 4)
    services.set_share_link(force=built, actor=None, enabled=True)
    client.force_login(owner)
    owners = client.get(reverse("roster:detail", args=[built.pk])).content.decode()
    client.logout()
    shared = client.get(reverse("roster:shared", args=[built.share_token])).content.decode()
    remove = reverse("roster:member_remove", args=[built.pk, built.members.first().pk])
    assert remove in owners
    assert "/remove/" not in shared
    assert "member-fold" in owners
    assert "member-fold" not in shared


def test_cached_member_cards_follow_every_change(client, django_user_model):
    """The force page caches its member cards; any write to the force shows at once."""
    from roster import services as roster_services
    from tests.roster.builders import legal_force

    owner = django_user_model.objects.create_user("cacher", password="pw-cacher-12345")
    client.force_login(owner)
    force = roster_services.import_force(owner=owner, document=legal_force())
    url = f"/forces/{force.pk}/"
    assert "Tool Kit" not in client.get(url).content.decode()
    assert "Tool Kit" not in client.get(url).content.decode()  # served from the cache
    ann = force.members.get(name="Ann")
    changed = member_rows.member_json(ann) | {"equipment": ["tool-kit"]}
    roster_services.update_member(force=ann.force, actor=None, member_id=ann.pk, data=changed)
    assert "Tool Kit" in client.get(url).content.decode()


def test_the_cached_force_page_follows_renames_share_links_and_members(client, owner):
    client.force_login(owner)
    built = build(owner, 4)
    url = reverse("roster:detail", args=[built.pk])
    assert "Make a link" in client.get(url).content.decode()
    services.update_force_details(force=built, actor=None, name="Renamed Irregulars", resources=77)
    page = client.get(url).content.decode()
    assert "Renamed Irregulars" in page
    assert "of 77 Resources" in page
    services.set_share_link(force=built, actor=None, enabled=True)
    page = client.get(url).content.decode()
    assert "Turn the link off" in page
    assert built.share_token in page
    services.remove_member(
        force=(built.members.get(name="Student 1")).force,
        actor=None,
        member_id=(built.members.get(name="Student 1")).pk,
    )
    assert "Student 1" not in client.get(url).content.decode()


def test_forms_on_a_cached_force_page_work_in_a_new_session(owner):
    """The page's forms carry CSRF tokens; a browser with its own CSRF secret must not be
    served another browser's tokens from the cache."""
    built = build(owner, 4)
    url = reverse("roster:detail", args=[built.pk])
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    for browser in (first, second):
        browser.force_login(owner)
        page = browser.get(url).content.decode()
        duplicate = page[page.index(reverse("roster:duplicate", args=[built.pk])) :]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', duplicate)[1]
        response = browser.post(
            reverse("roster:duplicate", args=[built.pk]), {"csrfmiddlewaretoken": token}
        )
        assert response.status_code == 302, response.status_code
