"""Idempotency keys (docs/idempotency.md): a write sent again with its key is done once and
answered as the first time; another request under the same key is refused; keys are the
user's own and last 24 hours. Checked on the battle's API and screen, and the builder's
pages and API."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from idempotency.decorators import KEPT_FOR
from idempotency.models import IdempotentRequest
from play.models import Battle, BattleAction
from roster.models import SkillRoll
from tests.play.conftest import ids, play_force, two_players
from tests.roster.builders import legal_force

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def keyed(key: str) -> dict[str, str]:
    return {"HTTP_IDEMPOTENCY_KEY": key}


def act(client, battle, body, key: str | None = None):
    headers = keyed(key) if key is not None else {}
    return client.post(f"/api/v1/battles/{battle.pk}/actions/", body, format="json", **headers)


def log_kinds(battle) -> list[str]:
    return list(battle.actions.order_by("seq").values_list("kind", flat=True))


def same_answer(first, second) -> None:
    """The whole answer again: status, body and the headers a client reads."""
    assert (second.status_code, second.content) == (first.status_code, first.content)
    for header in ("Content-Type", "ETag", "Location", "HX-Trigger"):
        assert second.get(header) == first.get(header)
    assert first.get("Idempotent-Replayed") is None
    assert second["Idempotent-Replayed"] == "true"


@pytest.fixture
def one_off(alice, bob):
    forces = [play_force(alice, "Alice's Club"), play_force(bob, "Bob's Club")]
    return two_players(alice, forces, "Practice", bob)


# --- the battle's API ----------------------------------------------------------------------


def test_an_action_sent_twice_with_its_key_is_done_once_and_answered_alike(one_off, alice_api):
    roll = {"type": "roll", "count": 3, "reason": "an objective"}
    started = one_off.version
    first = act(alice_api, one_off, roll, "roll-1")
    second = act(alice_api, one_off, roll, "roll-1")
    assert first.status_code == 201
    same_answer(first, second)
    assert log_kinds(one_off) == ["start", "roll"]
    one_off.refresh_from_db()
    assert one_off.version == started + 1


def test_without_a_key_each_request_is_its_own(one_off, alice_api):
    roll = {"type": "roll", "count": 1}
    assert act(alice_api, one_off, roll).status_code == 201
    assert act(alice_api, one_off, roll).status_code == 201
    assert log_kinds(one_off) == ["start", "roll", "roll"]
    assert IdempotentRequest.objects.count() == 0


def test_another_body_under_a_used_key_is_refused_and_does_nothing(one_off, alice_api):
    act(alice_api, one_off, {"type": "roll", "count": 1}, "k")
    refused = act(alice_api, one_off, {"type": "roll", "count": 2}, "k")
    assert refused.status_code == 400
    assert refused.json() == {
        "errors": [
            {
                "pointer": "",
                "code": "idempotency-key-reused",
                "message": "This Idempotency-Key was sent with another request; nothing was "
                "done. Send a new key for a new request.",
            }
        ]
    }
    # Another address under the same key is another request too.
    undo = alice_api.post(f"/api/v1/battles/{one_off.pk}/undo/", **keyed("k"))
    assert undo.json()["errors"][0]["code"] == "idempotency-key-reused"
    assert log_kinds(one_off) == ["start", "roll"]
    assert not one_off.actions.filter(undone_at__isnull=False).exists()


def test_a_key_is_the_users_own(one_off, alice_api, bob_api):
    roll = {"type": "roll", "count": 1}
    assert act(alice_api, one_off, roll, "shared-key").status_code == 201
    bobs = act(bob_api, one_off, roll, "shared-key")
    assert bobs.status_code == 201
    assert "Idempotent-Replayed" not in bobs
    assert list(one_off.actions.order_by("seq").values_list("actor__username", flat=True)) == [
        "alice",
        "alice",
        "bob",
    ]


@pytest.mark.parametrize(
    ("age", "replayed"),
    [(KEPT_FOR - timedelta(seconds=5), True), (KEPT_FOR + timedelta(seconds=1), False)],
)
def test_a_key_is_kept_24_hours_then_free(one_off, alice_api, age, replayed):
    roll = {"type": "roll", "count": 1}
    act(alice_api, one_off, roll, "old")
    IdempotentRequest.objects.update(created_at=timezone.now() - age)
    again = act(alice_api, one_off, roll, "old")
    assert again.status_code == 201
    assert ("Idempotent-Replayed" in again) is replayed
    assert log_kinds(one_off) == ["start", "roll"] + ([] if replayed else ["roll"])
    # An expired key's row is gone once its user writes again; a kept one stays, once.
    assert IdempotentRequest.objects.count() == 1


def test_a_refusal_is_not_kept_so_its_key_may_be_used_again(one_off, alice_api):
    refused = act(alice_api, one_off, {"type": "attack", "figure": 1, "target": 2}, "k")
    assert refused.status_code == 400
    assert IdempotentRequest.objects.count() == 0
    done = act(alice_api, one_off, {"type": "roll", "count": 1}, "k")
    assert done.status_code == 201
    assert log_kinds(one_off) == ["start", "roll"]


@pytest.mark.parametrize(
    ("key", "accepted"),
    [
        ("a", True),
        ("x" * 255, True),
        ("~!#-_.09AZaz", True),
        ("", False),
        ("x" * 256, False),
        ("two words", False),
        ("caf\u00e9", False),
    ],
)
def test_a_key_is_1_to_255_visible_ascii_characters(one_off, alice_api, key, accepted):
    response = act(alice_api, one_off, {"type": "roll", "count": 1}, key)
    if accepted:
        assert response.status_code == 201
        assert log_kinds(one_off) == ["start", "roll"]
    else:
        assert response.status_code == 400
        assert [e["code"] for e in response.json()["errors"]] == ["idempotency-key-invalid"]
        assert log_kinds(one_off) == ["start"]


def test_undo_and_end_sent_twice_are_done_once(one_off, alice_api):
    act(alice_api, one_off, {"type": "roll", "count": 1})
    act(alice_api, one_off, {"type": "roll", "count": 2})
    undo = f"/api/v1/battles/{one_off.pk}/undo/"
    first = alice_api.post(undo, **keyed("undo-1"))
    same_answer(first, alice_api.post(undo, **keyed("undo-1")))
    assert list(one_off.actions.filter(undone_at__isnull=False).values_list("seq", flat=True)) == [
        3
    ]

    end = f"/api/v1/battles/{one_off.pk}/end/"
    first = alice_api.post(end, {"winner": 0}, format="json", **keyed("end-1"))
    assert first.status_code == 200
    same_answer(first, alice_api.post(end, {"winner": 0}, format="json", **keyed("end-1")))
    assert log_kinds(one_off) == ["start", "roll", "roll", "end"]


def test_a_replay_answers_as_the_first_time_even_after_the_battle_moved_on(
    one_off, alice_api, bob_api
):
    roll = {"type": "roll", "count": 1}
    started = one_off.version
    first = act(alice_api, one_off, roll, "mine")
    act(bob_api, one_off, roll)
    again = act(alice_api, one_off, roll, "mine")
    same_answer(first, again)
    assert again.json()["version"] == started + 1
    assert Battle.objects.get(pk=one_off.pk).version == started + 2


# --- the battle screen ---------------------------------------------------------------------


def test_the_screens_action_and_undo_sent_twice_are_done_once(one_off, alice, client):
    client.force_login(alice)
    f = ids(one_off)
    activate = {"type": "activate", "figure": f["0:Ann"]}
    first = client.post(f"/play/{one_off.pk}/act/", activate, **HTMX, **keyed("tap-1"))
    assert first.status_code == 200
    same_answer(first, client.post(f"/play/{one_off.pk}/act/", activate, **HTMX, **keyed("tap-1")))
    assert log_kinds(one_off) == ["start", "activate"]

    first = client.post(f"/play/{one_off.pk}/undo/", **HTMX, **keyed("tap-2"))
    same_answer(first, client.post(f"/play/{one_off.pk}/undo/", **HTMX, **keyed("tap-2")))
    assert BattleAction.objects.filter(battle=one_off, undone_at__isnull=False).count() == 1


def test_the_screens_refusals_of_a_key_leave_the_page_as_it_is(one_off, alice, client):
    client.force_login(alice)
    client.post(f"/play/{one_off.pk}/act/", {"type": "roll"}, **HTMX, **keyed("tap"))
    refused = client.post(
        f"/play/{one_off.pk}/act/", {"type": "next-turn"}, **HTMX, **keyed("tap")
    )
    assert refused.status_code == 400
    assert refused["HX-Reswap"] == "none"
    assert refused.content.decode() == (
        "This Idempotency-Key was sent with another request; nothing was done. Send a new "
        "key for a new request."
    )
    assert log_kinds(one_off) == ["start", "roll"]


def test_the_end_form_carries_a_fresh_key_and_a_second_post_is_answered_alike(
    one_off, alice, client
):
    client.force_login(alice)
    page = client.get(f"/play/{one_off.pk}/end/").content.decode()
    keys = [p.split('"')[0] for p in page.split('name="idempotency_key" value="')[1:]]
    again = client.get(f"/play/{one_off.pk}/end/").content.decode()
    assert len(keys) == 1
    assert keys[0] not in again  # each time the form is shown, a key of its own
    form = {"winner": "draw", "idempotency_key": keys[0]}
    first = client.post(f"/play/{one_off.pk}/end/", form)
    assert first.status_code == 302
    same_answer(first, client.post(f"/play/{one_off.pk}/end/", form))
    assert log_kinds(one_off) == ["start", "end"]


# --- the builder ---------------------------------------------------------------------------


@pytest.fixture
def ann(alice):
    """Alice's Ann, with a Movement skill line waiting for its roll (R5)."""
    from roster import services

    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    return services.import_force(owner=alice, document=document).members.get(name="Ann")


def test_a_builder_roll_sent_twice_rolls_once(ann, alice, client):
    client.force_login(alice)
    url = reverse("roster:roll", args=[ann.force_id, ann.pk])
    data = {"slot": "free_advancements/0"}
    first = client.post(url, data, **HTMX, **keyed("roll-tap"))
    assert first.status_code == 200
    assert "builder-changed" in first["HX-Trigger"]
    same_answer(first, client.post(url, data, **HTMX, **keyed("roll-tap")))
    assert SkillRoll.objects.count() == 1


def test_a_builder_edit_sent_twice_is_made_once(ann, alice, client):
    client.force_login(alice)
    url = reverse("roster:member_edit", args=[ann.force_id, ann.pk, "equipment-add"])
    data = {"add": "light-pistol"}
    version = {"HTTP_X_FORCE_VERSION": str(ann.force.version)}
    first = client.post(url, data, **HTMX, **version, **keyed("buy-1"))
    assert first.status_code == 200
    # The retry carries the version the first was made on: replayed, not refused as stale.
    same_answer(first, client.post(url, data, **HTMX, **version, **keyed("buy-1")))
    ann.refresh_from_db()
    assert ann.equipment.count("light-pistol") == 1


def test_the_roster_apis_roll_and_patch_sent_twice_are_done_once(ann, alice, alice_api):
    rolls = f"/api/v1/rosters/{ann.force_id}/members/1/rolls/"
    body = {"slot": "free_advancements/0"}
    first = alice_api.post(rolls, body, format="json", **keyed("api-roll"))
    assert first.status_code == 201
    same_answer(first, alice_api.post(rolls, body, format="json", **keyed("api-roll")))
    assert SkillRoll.objects.count() == 1

    detail = f"/api/v1/rosters/{ann.force_id}/"
    etag = alice_api.get(detail)["ETag"]
    rename = {"name": "Renamed"}
    first = alice_api.patch(detail, rename, format="json", HTTP_IF_MATCH=etag, **keyed("p"))
    assert first.status_code == 200
    again = alice_api.patch(detail, rename, format="json", HTTP_IF_MATCH=etag, **keyed("p"))
    same_answer(first, again)  # not 412: the first answer, though the force has moved on


# --- cleanup ---------------------------------------------------------------------------------


def test_the_purge_command_deletes_expired_keys_only(one_off, alice_api, bob_api):
    act(alice_api, one_off, {"type": "roll", "count": 1}, "expired")
    act(bob_api, one_off, {"type": "roll", "count": 1}, "kept")
    IdempotentRequest.objects.filter(key="expired").update(
        created_at=timezone.now() - KEPT_FOR - timedelta(seconds=1)
    )
    call_command("purge_idempotency_keys", verbosity=0)
    assert list(IdempotentRequest.objects.values_list("key", flat=True)) == ["kept"]


def test_a_replay_is_sent_uncompressed_as_its_answer_may_show_a_secret(one_off, alice_api):
    roll = {"type": "roll", "count": 1}
    gzip = {"HTTP_ACCEPT_ENCODING": "gzip"}
    first = alice_api.post(
        f"/api/v1/battles/{one_off.pk}/actions/", roll, format="json", **gzip, **keyed("zip")
    )
    again = alice_api.post(
        f"/api/v1/battles/{one_off.pk}/actions/", roll, format="json", **gzip, **keyed("zip")
    )
    assert one_off.spectator_token in first.content.decode()  # the spectator link
    assert "Content-Encoding" not in first
    assert "Content-Encoding" not in again
    assert again.content == first.content
