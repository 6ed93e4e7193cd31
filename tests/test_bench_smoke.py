"""The benchmarks' own pieces, quickly: the scale seed at a tiny scale and the floor view.

No timings here: `make bench` measures, and reports rather than asserts.
"""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db.models import Sum

from campaign.management.commands.seed_scale import template_documents
from campaign.models import (
    Battle,
    BattleMemberResult,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
)
from roster import selectors
from roster.engine import evaluate
from roster.models import Force, Member

pytestmark = pytest.mark.django_db

BASE_DIR = Path(__file__).resolve().parent.parent


def seed(**options) -> str:
    out = io.StringIO()
    call_command(
        "seed_scale", **{"users": 20, "forces": 50, "campaigns": 2, **options}, stdout=out
    )
    return out.getvalue()


def test_the_templates_are_legal_forces(catalogue):
    for document in template_documents():
        evaluation = evaluate(document, catalogue)
        assert evaluation.valid, (document["name"], evaluation.errors)
        assert evaluation.total_cost <= 50  # they enter a campaign with R11's 50


def test_seed_scale_at_a_tiny_scale():
    report = seed()
    assert "Seeded 20 users, 50 forces" in report
    users = get_user_model().objects.filter(username__startswith="scale-")
    assert users.count() == 20
    assert all(user.has_usable_password() for user in users)  # a real hash, unknown
    assert len({user.password for user in users}) == 1  # hashed once
    assert Force.objects.count() == 50
    assert Campaign.objects.count() == 2
    assert CampaignPlayer.objects.count() == 8
    assert CampaignForce.objects.count() == 8
    assert Battle.objects.filter(status=Battle.Status.CONFIRMED).count() == 20
    assert CampaignEvent.objects.filter(kind=CampaignEvent.Kind.BATTLE_CONFIRMED).count() == 20
    assert Member.objects.count() >= 4 * 50


def test_every_seeded_evaluation_is_the_engines():
    seed()
    forces = Force.objects.select_related("campaign_entry__campaign").prefetch_related(
        "members__rolls"
    )
    for force in forces:
        assert force.evaluation == selectors.evaluate_force(force=force).as_dict(), force.name


def test_seeded_campaigns_add_up():
    seed()
    for cf in CampaignForce.objects.select_related("force"):
        balance = LedgerEntry.objects.filter(campaign_force=cf).aggregate(t=Sum("amount"))["t"]
        assert balance >= 0  # R15: never below 0
        cost = cf.force.evaluation["total_cost"]
        assert cf.force.resources == max(1, cost + balance)
        for member in cf.force.members.all():
            earned = BattleMemberResult.objects.filter(member=member).aggregate(
                t=Sum("xp_awarded")
            )["t"]
            assert member.xp == earned
        outcomes = set(cf.battle_entries.values_list("outcome", flat=True))
        assert outcomes <= {"win", "draw", "loss"}


def test_seed_scale_refuses_a_prefix_twice_and_too_few_forces():
    seed(users=5, forces=20, campaigns=1)
    with pytest.raises(CommandError, match="another --prefix"):
        seed(users=5, forces=20, campaigns=1)
    with pytest.raises(CommandError, match="--forces must be at least"):
        seed(prefix="other", forces=5)


@pytest.mark.urls("bench.urls")
def test_the_floor_answers_a_signed_in_user(client):
    user = get_user_model().objects.create_user("floor", password="pw-floor-1234")
    response = client.get("/bench/floor/")
    assert response.status_code == 302  # signed out: to the login page
    client.force_login(user)
    response = client.get("/bench/floor/")
    assert response.status_code == 200
    assert "Signed in as floor." in response.content.decode()


def test_the_bench_settings_load():
    """`bench.settings` passes Django's checks (in a child process: it sets DEBUG=0)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "BENCH_STATIC_ROOT": str(BASE_DIR / "var" / "bench-static-check"),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
