"""A force keeps the edition of the rules it was built under; its owner reviews the
difference a new edition makes and accepts the move (issue #13)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dbd_site.errors import Conflict
from roster import selectors, services
from roster.engine import evaluation_version
from roster.models import Force
from tests.roster.builders import legal_force, student

pytestmark = pytest.mark.django_db

# The second edition the tests publish: the Medical Kit (Emma's, 1.5xFR) costs 60 more,
# so the force of cost 5 and 50 Resources goes over budget (R7, R11).
OVER_BUDGET = {
    "pointer": "/resources",
    "code": "over-budget",
    "message": "The force costs 65 but has 50 Resources.",
}
PREVIEW = {
    "rules_version": {"before": "dbd-core-1", "after": "dbd-core-2"},
    "cost": {"before": 5, "after": 65},
    "resources": {"before": 50, "after": 50},
    "legal": {"before": True, "after": False},
    "errors": {"added": [OVER_BUDGET], "removed": []},
    "warnings": {"added": [], "removed": []},
    "refusals": [],
}


@pytest.fixture
def force(owner) -> Force:
    return services.import_force(owner=owner, document=legal_force())


@pytest.fixture
def new_edition(rules_change):
    return rules_change(edition="dbd-core-2", equipment="medical-kit", cost_constant=60)


def stored(force: Force) -> Force:
    return Force.objects.get(pk=force.pk)


def url(force: Force) -> str:
    return f"/api/v1/rosters/{force.pk}/rules-update/"


def etag(response) -> str:
    return response.headers["ETag"]


# --- the API -----------------------------------------------------------------------------


def test_the_detail_points_at_the_review_only_while_there_is_one(owner_api, force, rules_change):
    assert owner_api.get(f"/api/v1/rosters/{force.pk}/").json()["rules_update_url"] is None
    rules_change(edition="dbd-core-2")
    detail = owner_api.get(f"/api/v1/rosters/{force.pk}/").json()
    assert detail["rules_update_url"] == f"http://testserver{url(force)}"
    assert detail["rules_version"] == "dbd-core-1"


def test_the_preview_shows_the_whole_difference_and_stores_nothing(owner_api, force, new_edition):
    before = stored(force)
    answer = owner_api.get(url(force))
    assert answer.status_code == 200
    assert answer.json() == PREVIEW
    detail = owner_api.get(f"/api/v1/rosters/{force.pk}/")
    assert etag(answer) == etag(detail)
    now = stored(force)
    assert (now.rules_version, now.evaluation, now.version) == (
        before.rules_version,
        before.evaluation,
        before.version,
    )


def test_a_difference_that_mends_the_force_lists_what_it_removes(owner, owner_api, rules_change):
    force = services.import_force(owner=owner, document=legal_force())
    rules_change(equipment="medical-kit", cost_constant=60)  # the same edition: refreshed
    over = owner_api.get(f"/api/v1/rosters/{force.pk}/").json()["evaluation"]
    assert over["errors"] == [OVER_BUDGET]
    rules_change(edition="dbd-core-2", equipment="medical-kit", cost_constant=0)
    assert owner_api.get(url(force)).json() == {
        **PREVIEW,
        "cost": {"before": 65, "after": 5},
        "legal": {"before": False, "after": True},
        "errors": {"added": [], "removed": [OVER_BUDGET]},
    }


def test_accepting_moves_the_edition_the_evaluation_and_the_version(owner_api, force, new_edition):
    preview = owner_api.get(url(force))
    answer = owner_api.post(url(force), HTTP_IF_MATCH=etag(preview))
    assert answer.status_code == 200
    now = stored(force)
    assert now.rules_version == "dbd-core-2"
    assert now.version == force.version + 1
    assert now.evaluation_version == evaluation_version(new_edition)
    assert (
        now.evaluation
        == selectors.evaluate_force(
            force=selectors.get_force(user=force.owner, force_id=force.pk)
        ).as_dict()
    )
    body = answer.json()
    assert (body["rules_version"], body["rules_update_url"]) == ("dbd-core-2", None)
    assert body["evaluation"]["errors"] == [OVER_BUDGET]
    assert etag(answer) == etag(owner_api.get(f"/api/v1/rosters/{force.pk}/"))
    assert etag(answer) != etag(preview)
    # Nothing more to move.
    again = owner_api.post(url(force))
    assert (again.status_code, again.json()["errors"][0]["code"]) == (409, "rules-up-to-date")
    preview_again = owner_api.get(url(force))
    assert preview_again.status_code == 409


def test_accepting_on_a_stale_tag_changes_nothing(owner_api, force, new_edition):
    preview = owner_api.get(url(force))
    Force.objects.filter(pk=force.pk).update(version=force.version + 1)  # a change elsewhere
    answer = owner_api.post(url(force), HTTP_IF_MATCH=etag(preview))
    assert answer.status_code == 412
    assert answer.json()["errors"][0]["code"] == "precondition-failed"
    assert stored(force).rules_version == "dbd-core-1"


def test_a_force_on_an_old_edition_refuses_its_owners_changes(owner_api, force, new_edition):
    detail = owner_api.get(f"/api/v1/rosters/{force.pk}/")
    answer = owner_api.patch(
        f"/api/v1/rosters/{force.pk}/",
        {"name": "Renamed"},
        format="json",
        HTTP_IF_MATCH=etag(detail),
    )
    assert answer.status_code == 409
    assert answer.json() == {
        "errors": [
            {
                "pointer": "",
                "code": "rules-update-pending",
                "message": "Test Force was built under the rules dbd-core-1; the site now "
                "plays dbd-core-2. Review the difference and move the force to the new rules "
                "before changing it.",
            }
        ]
    }
    assert stored(force).name == force.name


def test_every_player_command_waits_and_bookkeeping_does_not(owner, force, new_edition):
    commands = {
        "add_member": lambda: services.add_member(force=force, actor=owner, data=student("Dan")),
        "update_force_details": lambda: services.update_force_details(
            force=force, actor=owner, name="Renamed"
        ),
        "duplicate_force": lambda: services.duplicate_force(force=force, owner=owner, actor=owner),
    }
    for name, command in commands.items():
        with pytest.raises(Conflict) as refused:
            command()
        assert [p.code for p in refused.value.problems] == ["rules-update-pending"], name
    # The app's own bookkeeping (no actor) still runs; the force stays on its edition.
    services.refresh(force=force)
    assert stored(force).rules_version == "dbd-core-1"
    services.set_share_link(force=force, actor=owner, enabled=True)  # nothing rules see
    assert stored(force).share_token


def test_a_stranger_sees_no_review(stranger_api, force, new_edition):
    assert stranger_api.get(url(force)).status_code == 404
    assert stranger_api.post(url(force)).status_code == 404
    assert stored(force).rules_version == "dbd-core-1"


def test_a_force_on_the_current_edition_has_nothing_to_review(owner_api, force):
    answer = owner_api.get(url(force))
    assert answer.status_code == 409
    assert answer.json()["errors"][0]["code"] == "rules-up-to-date"


def test_the_preview_reads_a_bounded_number_of_queries(owner, owner_api, rules_change):
    small = services.import_force(owner=owner, document=legal_force())
    document = legal_force()
    document["members"] += [student(f"S{i}") for i in range(4)]
    large = services.import_force(owner=owner, document=document)
    rules_change(edition="dbd-core-2")
    counts = []
    for force in (small, large):
        with CaptureQueriesContext(connection) as captured:
            assert owner_api.get(url(force)).status_code == 200
        counts.append(len(captured))
    assert counts[0] == counts[1]


def test_the_schema_names_the_refusal_on_every_roster_edit(client):
    paths = client.get("/api/schema/?format=json").json()["paths"]
    edits = [
        paths["/api/v1/rosters/{force_id}/"]["put"],
        paths["/api/v1/rosters/{force_id}/"]["patch"],
        paths["/api/v1/rosters/{force_id}/members/{member_index}/rolls/"]["post"],
        paths["/api/v1/rosters/{force_id}/members/{member_index}/picks/"]["post"],
    ]
    assert all("`rules-update-pending`" in op["responses"]["409"]["description"] for op in edits)
    accept = paths["/api/v1/rosters/{force_id}/rules-update/"]["post"]
    assert {"200", "404", "409", "412"} <= set(accept["responses"])


# --- the pages ---------------------------------------------------------------------------


def page_url(force: Force) -> str:
    return f"/forces/{force.pk}/rules/"


def text(response) -> str:
    return " ".join(response.content.decode().split())


def test_the_force_page_shows_a_notice_only_on_an_old_edition(client, owner, force, rules_change):
    client.force_login(owner)
    assert "Review the difference" not in text(client.get(f"/forces/{force.pk}/"))
    rules_change(edition="dbd-core-2")
    page = text(client.get(f"/forces/{force.pk}/"))
    assert "New rules: dbd-core-2." in page
    assert f'href="{page_url(force)}"' in page
    # The shared (read-only) page has no notice: its visitors cannot move the force.
    services.set_share_link(force=force, actor=None, enabled=True)
    shared = text(client.get(f"/forces/shared/{stored(force).share_token}/"))
    assert "Review the difference" not in shared


def test_the_review_page_shows_the_difference(client, owner, force, new_edition):
    client.force_login(owner)
    page = text(client.get(page_url(force)))
    assert "Move Test Force to the rules dbd-core-2?" in page
    assert '<th scope="row">Cost</th><td>5</td><td>65</td>' in page
    assert '<th scope="row">Resources</th><td>50</td><td>50</td>' in page
    assert '<th scope="row">Legal</th><td>Yes</td><td>No</td>' in page
    assert "Problems the move brings</h2> <ul><li>The force costs 65 but has 50 Resources." in page
    assert "Problems the move mends" not in page
    assert f'name="version" value="{force.version}"' in page


def test_accepting_on_the_page_moves_the_force(client, owner, force, new_edition):
    client.force_login(owner)
    answer = client.post(page_url(force), {"version": force.version})
    assert (answer.status_code, answer["Location"]) == (302, f"/forces/{force.pk}/")
    now = stored(force)
    assert (now.rules_version, now.version) == ("dbd-core-2", force.version + 1)
    assert now.evaluation["total_cost"] == 65
    # Nothing left to review: the review sends the owner back to the force.
    again = client.get(page_url(force))
    assert (again.status_code, again["Location"]) == (302, f"/forces/{force.pk}/")


def test_accepting_a_stale_page_changes_nothing(client, owner, force, new_edition):
    client.force_login(owner)
    answer = client.post(page_url(force), {"version": force.version - 1})
    assert answer.status_code == 409
    assert "This force changed since this page was loaded" in text(answer)
    assert stored(force).rules_version == "dbd-core-1"


def test_a_stranger_cannot_review_or_move(client, stranger, force, new_edition):
    client.force_login(stranger)
    assert client.get(page_url(force)).status_code == 404
    assert client.post(page_url(force), {"version": force.version}).status_code == 404
    assert stored(force).rules_version == "dbd-core-1"


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("duplicate/", {}),
        ("edit/", {"name": "Renamed", "resources": 50}),
        ("members/{member}/remove/", {}),
    ],
)
def test_builder_changes_wait_for_the_move(client, owner, force, new_edition, path, data):
    client.force_login(owner)
    before = stored(force)
    member = force.members.first().pk
    answer = client.post(f"/forces/{force.pk}/{path.format(member=member)}", data)
    assert answer.status_code in (302, 400, 409), answer.status_code
    followed = text(client.get(answer["Location"]) if answer.status_code == 302 else answer)
    assert "move the force to the new rules before changing it" in followed
    now = stored(force)
    assert (now.name, now.version, Force.objects.count()) == (before.name, before.version, 1)
    assert now.members.count() == 4
