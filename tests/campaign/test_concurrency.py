"""Concurrent requests on PostgreSQL: no lost update, no overdraft, rewards applied once.

Real threads, each with its own database connection, against committed data
(`transaction=True`). SQLite serialises writers on its own and has no row locks, so
these run only on PostgreSQL (CI runs the suite there too).
"""

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.db.models import Sum

from campaign import selectors, services
from campaign.models import Battle, CampaignForce, LedgerEntry
from roster.models import Force, Member
from rules.loader import clear_catalogue_cache
from tests.campaign.conftest import record

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="row locks need PostgreSQL (CI runs it)"
    ),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture(autouse=True)
def _rules_loaded(transactional_db):
    """Transactional tests flush the database after each test, the rules included."""
    call_command("loaddata", "rules", verbosity=0)
    clear_catalogue_cache()


def at_once(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run `work(i)` in `count` threads released together; each result or exception."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except Exception as exc:
            results[i] = exc
        finally:
            connections.close_all()  # each thread's own connection

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    return results


def test_twenty_spends_at_once_never_overdraw(campaign, organiser, alice, red):
    services.adjust_resources(campaign_force=red, amount=5, reason="Round up", by=organiser)
    assert selectors.balance(campaign_force=red) == 50

    def spend(i: int) -> LedgerEntry:
        cf = CampaignForce.objects.get(pk=red.pk)
        return services.spend(campaign_force=cf, amount=5, reason=f"Spend {i}", by=alice)

    results = at_once(20, spend)
    succeeded = [r for r in results if isinstance(r, LedgerEntry)]
    refused = [r for r in results if isinstance(r, services.InsufficientResources)]
    assert len(results) == 20
    assert (len(succeeded), len(refused)) == (10, 10), results
    assert selectors.balance(campaign_force=red) == 0
    spends = LedgerEntry.objects.filter(campaign_force=red, reason__startswith="Spend ")
    assert spends.count() == 10
    assert spends.aggregate(total=Sum("amount"))["total"] == -50
    # The running balance never dips below 0 (R15), and the ledger adds up.
    running = [
        e.running_balance for e in selectors.ledger_with_running_balance(campaign_force=red)
    ]
    assert min(running) == 0
    assert running[-1] == sum(red.ledger_entries.values_list("amount", flat=True)) == 0
    force = Force.objects.get(pk=red.force_id)
    assert force.resources == max(1, force.evaluation["total_cost"])


def test_two_confirmations_at_once_apply_the_battle_once(
    campaign, organiser, alice, bob, red, blue
):
    battle = record(campaign, alice, red, blue)

    def confirm(i: int) -> Battle:
        return services.confirm_battle(
            battle=Battle.objects.get(pk=battle.pk), by=(bob, organiser)[i]
        )

    results = at_once(2, confirm)
    confirmed = [r for r in results if isinstance(r, Battle)]
    refused = [r for r in results if isinstance(r, services.CampaignError)]
    assert (len(confirmed), len(refused)) == (1, 1), results
    assert "already confirmed" in str(refused[0])
    assert LedgerEntry.objects.filter(battle=battle).count() == 2
    assert selectors.balance(campaign_force=red) == 55
    assert selectors.balance(campaign_force=blue) == 50
    assert set(Member.objects.filter(force_id=red.force_id).values_list("xp", flat=True)) == {2}
    assert set(Member.objects.filter(force_id=blue.force_id).values_list("xp", flat=True)) == {1}
