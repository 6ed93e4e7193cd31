"""Stored evaluations follow the rules' content (issue #13): `manage.py
refresh_evaluations` after a new fixture, and a read that finds one stale."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from roster import engine, selectors, services
from roster.engine import ENGINE_VERSION, evaluation_version
from roster.models import Force
from rules.models import RulesVersion
from tests.roster.builders import legal_force

pytestmark = pytest.mark.django_db


@pytest.fixture
def force(owner) -> Force:
    """Emma (with a Medical Kit, 1.5xFR) and three plain students."""
    return services.import_force(owner=owner, document=legal_force())


def refresh() -> str:
    out = StringIO()
    call_command("refresh_evaluations", stdout=out)
    return out.getvalue().strip()


def stored(force: Force) -> Force:
    return Force.objects.get(pk=force.pk)


def test_a_new_cost_refreshes_the_stored_evaluation_once(force, rules_change):
    cost, version = force.evaluation["total_cost"], force.version
    catalogue = rules_change(equipment="medical-kit", cost_constant=2)
    assert stored(force).evaluation_version != evaluation_version(catalogue)

    assert refresh() == (
        f"Rules dbd-core-1 (content {catalogue.content_version}, engine {ENGINE_VERSION}): 1 "
        "evaluations refreshed "
        "(1 changed, 0 unchanged), 0 refused; 0 forces on another edition await their players."
    )
    now = stored(force)
    assert now.evaluation["total_cost"] == cost + 2
    assert (
        now.evaluation
        == selectors.evaluate_force(
            force=selectors.get_force(user=force.owner, force_id=force.pk)
        ).as_dict()
    )
    assert now.evaluation_version == evaluation_version(catalogue)
    assert now.version == version + 1  # the answer changed: If-Match on the old one fails

    # Idempotent: nothing is stale any more.
    assert refresh().endswith(
        ": 0 evaluations refreshed (0 changed, 0 unchanged), 0 refused; 0 forces on another "
        "edition await their players."
    )
    assert stored(force).version == version + 1


def test_an_unchanged_answer_keeps_the_version(force, rules_change):
    from rules.models import Equipment

    Equipment.objects.filter(slug="medical-kit").update(summary="Reworded, same rules.")
    catalogue = rules_change()  # read again: new content, the same numbers
    assert "1 evaluations refreshed (0 changed, 1 unchanged)" in refresh()
    now = stored(force)
    assert (now.version, now.evaluation) == (force.version, force.evaluation)
    assert now.evaluation_version == evaluation_version(catalogue)


def test_the_refresh_runs_in_batches(owner, force, rules_change):
    others = [services.import_force(owner=owner, document=legal_force()) for _ in range(2)]
    catalogue = rules_change(equipment="medical-kit", cost_constant=1)
    out = StringIO()
    call_command("refresh_evaluations", "--batch-size", "1", stdout=out)
    assert "3 evaluations refreshed (3 changed, 0 unchanged)" in out.getvalue()
    assert {stored(f).evaluation_version for f in [force, *others]} == {
        evaluation_version(catalogue)
    }


def test_a_force_on_another_edition_is_left_for_its_player(force, rules_change):
    rules_change(edition="dbd-core-2", equipment="medical-kit", cost_constant=2)
    assert refresh().endswith(
        ": 0 evaluations refreshed (0 changed, 0 unchanged), 0 refused; 1 forces on another "
        "edition await their players."
    )
    now = stored(force)
    assert (now.evaluation, now.version) == (force.evaluation, force.version)


# --- on read: pages and API never show a stale evaluation ------------------------------------


def test_the_force_page_refreshes_a_stale_evaluation(client, owner, force, rules_change):
    cost = force.evaluation["total_cost"]
    client.force_login(owner)
    rules_change(equipment="medical-kit", cost_constant=2)
    page = client.get(f"/forces/{force.pk}/").content.decode()
    now = stored(force)
    assert now.evaluation["total_cost"] == cost + 2
    assert now.version == force.version + 1
    assert str(cost + 2) in page
    # Read again: nothing more to refresh.
    client.get(f"/forces/{force.pk}/")
    assert stored(force).version == now.version


def test_the_api_refreshes_a_stale_evaluation(owner_api, force, rules_change):
    cost = force.evaluation["total_cost"]
    rules_change(equipment="medical-kit", cost_constant=2)
    detail = owner_api.get(f"/api/v1/rosters/{force.pk}/")
    assert detail.json()["evaluation"]["total_cost"] == cost + 2
    assert detail.json()["evaluation"] == stored(force).evaluation


def test_the_api_list_refreshes_a_stale_evaluation(owner_api, force, rules_change):
    cost = force.evaluation["total_cost"]
    rules_change(equipment="medical-kit", cost_constant=2)
    listed = owner_api.get("/api/v1/rosters/").json()["results"]
    assert [f["total_cost"] for f in listed] == [cost + 2]


def test_the_force_list_refreshes_a_stale_evaluation(client, owner, force, rules_change):
    client.force_login(owner)
    rules_change(equipment="medical-kit", cost_constant=2)
    client.get("/forces/")
    assert stored(force).version == force.version + 1


def test_a_fresh_force_is_read_without_writing(owner, force, django_assert_max_num_queries):
    with django_assert_max_num_queries(1):
        selectors.get_force_row(user=owner, force_id=force.pk)


def test_two_editions_loaded_stop_the_refresh_and_change_nothing(force, rules_change):
    catalogue = rules_change(equipment="medical-kit", cost_constant=2)
    RulesVersion.objects.create(code="dbd-core-2", title="A second edition")

    with pytest.raises(CommandError) as refused:
        refresh()

    assert str(refused.value) == (
        "2 editions of the rules are loaded (dbd-core-1, dbd-core-2); the tables hold only "
        "the newest one's content. Delete the editions no longer played (admin: Rules "
        "versions) and run this again."
    )
    assert stored(force).evaluation_version != evaluation_version(catalogue)
    assert stored(force).version == force.version


def test_one_edition_left_after_the_old_is_deleted_refreshes(force, rules_change):
    rules_change(equipment="medical-kit", cost_constant=2)
    RulesVersion.objects.create(code="dbd-core-2", title="A second edition")
    RulesVersion.objects.filter(code="dbd-core-2").delete()

    assert refresh().endswith(
        "1 evaluations refreshed (1 changed, 0 unchanged), 0 refused; "
        "0 forces on another edition await their players."
    )


# --- a change to the engine's code (issue #33) ----------------------------------------------


@pytest.fixture
def engine_change(monkeypatch):
    """Changes the engine's code as a release with a new ruling would: `ENGINE_VERSION`
    moves and, with `medical_kit_extra`, the Medical Kit costs that much more (R7)."""

    def change(*, medical_kit_extra: int = 0) -> int:
        price = engine.equipment_cost
        monkeypatch.setattr(
            engine,
            "equipment_cost",
            lambda item, stats: (
                price(item, stats) + (medical_kit_extra if item.slug == "medical-kit" else 0)
            ),
        )
        monkeypatch.setattr(engine, "ENGINE_VERSION", engine.ENGINE_VERSION + 1)
        return engine.ENGINE_VERSION

    return change


def test_a_new_engine_refreshes_the_stored_evaluation_once(force, catalogue, engine_change):
    cost, version = force.evaluation["total_cost"], force.version
    now_engine = engine_change(medical_kit_extra=2)

    assert refresh() == (
        f"Rules dbd-core-1 (content {catalogue.content_version}, engine {now_engine}): 1 "
        "evaluations refreshed (1 changed, 0 unchanged), 0 refused; 0 forces on another "
        "edition await their players."
    )
    now = stored(force)
    assert now.evaluation["total_cost"] == cost + 2
    assert now.evaluation_version == f"{catalogue.content_version}-e{now_engine}"
    assert now.version == version + 1
    assert refresh().endswith(
        ": 0 evaluations refreshed (0 changed, 0 unchanged), 0 refused; 0 "
        "forces on another edition await their players."
    )


def test_a_new_engine_with_the_same_answers_keeps_the_version(force, catalogue, engine_change):
    now_engine = engine_change()
    assert "1 evaluations refreshed (0 changed, 1 unchanged)" in refresh()
    now = stored(force)
    assert (now.version, now.evaluation) == (force.version, force.evaluation)
    assert now.evaluation_version == f"{catalogue.content_version}-e{now_engine}"


def test_the_force_page_refreshes_after_a_new_engine(client, owner, force, engine_change):
    cost = force.evaluation["total_cost"]
    client.force_login(owner)
    engine_change(medical_kit_extra=3)
    page = client.get(f"/forces/{force.pk}/").content.decode()
    now = stored(force)
    assert (now.evaluation["total_cost"], now.version) == (cost + 3, force.version + 1)
    assert str(cost + 3) in page


def test_the_api_refreshes_after_a_new_engine(owner_api, force, engine_change):
    cost = force.evaluation["total_cost"]
    engine_change(medical_kit_extra=3)
    detail = owner_api.get(f"/api/v1/rosters/{force.pk}/").json()
    assert detail["evaluation"]["total_cost"] == cost + 3
    assert detail["evaluation"] == stored(force).evaluation
