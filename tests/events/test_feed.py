"""The feed, /api/v1/events/: each user's own events, oldest first, read on with an
opaque cursor; a bounded page; refusals in the one error shape."""

import base64
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from campaign import services
from dbd_site.errors import Invalid
from events import kinds
from events.models import Event
from events.selectors import Position
from events.services import emit
from tests.campaign.conftest import api_problems, freeform_force, record
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db
URL = "/api/v1/events/"


def read_all(client, url: str = URL) -> tuple[list[dict], str]:
    """Every page from `url` on; the events and the last `next`."""
    events: list[dict] = []
    while True:
        answer = client.get(url)
        assert answer.status_code == 200, answer.content
        body = answer.json()
        events += body["results"]
        url = body["next"]
        if not body["has_more"]:
            return events, url


def test_a_user_reads_their_own_events_in_order_and_nothing_else(
    campaign, alice, bob, eve, red, blue
):
    freeform_force(eve, "Eve's Own")
    battle = record(campaign, alice, red, blue)
    answer = signed_in(bob).get(URL)
    assert answer.status_code == 200
    body = answer.json()
    mine = Event.objects.filter(user=bob).order_by("id")
    assert [e["id"] for e in body["results"]] == [e.pk for e in mine]
    assert [e["kind"] for e in body["results"]] == [
        kinds.INVITED,  # joined Spring League
        kinds.FORCE_CHANGED,  # Blue Club, the freeform original
        kinds.FORCE_CHANGED,  # the campaign's copy: made ...
        kinds.FORCE_CHANGED,  # ... and evaluated with the campaign's Resources
        kinds.BATTLE_RECORDED,
        kinds.AWAITING_CONFIRMATION,
    ]
    last = body["results"][-1]
    assert last == {
        "id": last["id"],
        "kind": kinds.AWAITING_CONFIRMATION,
        "created": last["created"],
        "campaign": campaign.pk,
        "force": None,
        "battle": battle.pk,
        "data": Event.objects.get(pk=last["id"]).data,
        "cursor": Position.of(Event.objects.get(pk=last["id"])).cursor(),
    }
    assert last["created"].endswith("Z")
    assert body["has_more"] is False
    assert body["next"] == f"http://testserver{URL}?after={last['cursor']}"
    assert signed_in(eve).get(URL).json()["results"][0]["kind"] == kinds.FORCE_CHANGED
    assert {e["force"] for e in signed_in(eve).get(URL).json()["results"]} == {
        Event.objects.get(user=eve).force_id
    }


def test_paging_by_the_cursor_gives_each_event_once(campaign, alice, bob, red, blue):
    for i in range(3):
        battle = record(campaign, alice, red, blue, scenario=f"Round {i}")
        services.void_battle(battle=battle, by=alice)
    client = signed_in(bob)
    paged, last_next = read_all(client, f"{URL}?limit=2")
    assert [e["id"] for e in paged] == list(
        Event.objects.filter(user=bob).order_by("id").values_list("id", flat=True)
    )
    assert last_next.endswith("&limit=2")
    # Nothing new: the last `next` answers an empty page and points at the same place.
    again = client.get(last_next).json()
    assert (again["results"], again["has_more"], again["next"]) == ([], False, last_next)
    record(campaign, alice, red, blue, scenario="Round 4")
    newer = client.get(last_next).json()
    assert [e["kind"] for e in newer["results"]] == [
        kinds.BATTLE_RECORDED,
        kinds.AWAITING_CONFIRMATION,
    ]


def test_a_page_is_bounded(alice):
    client = signed_in(alice)
    for query, pointer in (("limit=0", "/limit"), ("limit=201", "/limit"), ("limit=x", "/limit")):
        answer = client.get(f"{URL}?{query}")
        assert (answer.status_code, api_problems(answer)) == (400, [(pointer, "invalid")])
    assert client.get(f"{URL}?limit=200").status_code == 200


@pytest.mark.parametrize(
    "cursor",
    [
        "nonsense!",
        "MTIz",  # "123": no place
        Position(1, 2).cursor() + "x",
        Position(1, 2).cursor() + "!!",  # characters base64 would skip
        "Lg",  # "."
        Position(10**30, 1).cursor(),  # beyond any id
        base64.urlsafe_b64encode(b"01.2").decode(),  # not the feed's spelling of (1, 2)
    ],
)
def test_a_cursor_the_feed_never_gave_is_refused(alice, cursor):
    answer = signed_in(alice).get(f"{URL}?after={cursor}")
    assert (answer.status_code, api_problems(answer)) == (400, [("/after", "invalid-cursor")])


def test_only_a_signed_in_user_reads_a_feed(client):
    answer = client.get(URL)
    assert (answer.status_code, api_problems(answer)) == (401, [("", "not-authenticated")])


def test_the_cursor_is_opaque_and_round_trips():
    position = Position(txid=987654321, id=42)
    assert Position.from_cursor(position.cursor()) == position
    assert "42" not in position.cursor()


@pytest.mark.parametrize("limit", ["²", "١٢", "9" * 30, "1&limit=2"])
def test_unicode_digits_or_two_limits_are_refused(alice, limit):
    answer = signed_in(alice).get(f"{URL}?limit={limit}")
    assert (answer.status_code, api_problems(answer)) == (400, [("/limit", "invalid")])


def test_pruning_old_events_leaves_a_held_cursor_working(alice, bob):
    """`manage.py prune_events` deletes events older than --days; a cursor past them
    still reads on from its place."""
    old = emit(kinds.FORCE_CHANGED, [alice.pk, bob.pk], force_id=1)
    Event.objects.filter(pk__in=[e.pk for e in old]).update(
        created_at=timezone.now() - timedelta(days=91)
    )
    client = signed_in(alice)
    held = client.get(URL).json()["next"]
    newer = emit(kinds.FORCE_CHANGED, [alice.pk], force_id=2)
    call_command("prune_events", "--days", "90", stdout=StringIO())
    assert list(Event.objects.values_list("pk", flat=True)) == [newer[0].pk]
    assert [e["id"] for e in client.get(held).json()["results"]] == [newer[0].pk]


@pytest.mark.parametrize("count", [1, 30])
def test_reading_the_feed_does_not_grow_with_events(alice, count, django_assert_num_queries):
    for i in range(count):
        emit(kinds.FORCE_CHANGED, [alice.pk], force_id=i)
    client = signed_in(alice)
    client.get(URL)  # the session, once
    with django_assert_num_queries(3):  # session, user, the page
        answer = client.get(f"{URL}?limit=50")
    assert len(answer.json()["results"]) == count


@given(txid=st.integers(0, 2**63 - 1), id_=st.integers(1, 2**63 - 1))
def test_every_place_round_trips_through_its_cursor(txid, id_):
    assert Position.from_cursor(Position(txid, id_).cursor()) == Position(txid, id_)


@given(st.text(max_size=40))
def test_any_other_text_is_refused_or_is_the_spelling_of_a_place(text):
    try:
        outcome = Position.from_cursor(text).cursor()
    except Invalid as refusal:
        outcome = f"{refusal.code} at {refusal.pointer}"
    assert outcome in (text, "invalid-cursor at /after")
