import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from campaign import selectors
from campaign.models import Campaign
from roster.demo import DEMO_BATTLES, DEMO_PASSWORD, DEMO_USERNAME, demo_force, rival_force
from roster.engine import evaluate
from roster.models import Force

pytestmark = pytest.mark.django_db


def test_the_demo_force_is_legal_and_uses_the_rulebook_examples(catalogue):
    evaluation = evaluate(demo_force(), catalogue)
    assert evaluation.valid, evaluation.errors
    assert evaluation.warnings == []
    emma, julius = evaluation.members[0], evaluation.members[1]
    assert emma.stats == {"ME": 1, "RA": 1, "CA": 4, "DF": 8, "HP": 12, "FR": 3}
    assert julius.purchase_costs == [4, 6]
    assert evaluation.total_cost <= 50


def test_the_rival_force_is_legal(catalogue):
    evaluation = evaluate(rival_force(), catalogue)
    assert evaluation.valid, evaluation.errors


def test_seed_demo_creates_the_user_force_and_campaign_once(settings, capsys):
    settings.DEBUG = True
    call_command("seed_demo")
    call_command("seed_demo")
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    assert user.check_password(DEMO_PASSWORD)
    freeform = Force.objects.filter(owner=user, campaign_entry__isnull=True)
    assert freeform.count() == 1
    assert freeform.get().is_legal
    assert DEMO_PASSWORD in capsys.readouterr().out
    # The campaign: two forces, every demo battle confirmed, standings and charts filled.
    campaign = Campaign.objects.get(organiser=user)
    assert campaign.forces.count() == 2
    assert list(campaign.battles.values_list("status", flat=True)) == ["confirmed"] * len(
        DEMO_BATTLES
    )
    rows = selectors.standings(campaign=campaign)
    assert sorted((r.won, r.drawn, r.lost) for r in rows) == [(1, 1, 1), (1, 1, 1)]
    assert all(series for series in selectors.resources_history(campaign=campaign).values())


def test_seed_demo_refuses_without_debug(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("seed_demo")
    assert not get_user_model().objects.filter(username=DEMO_USERNAME).exists()


def test_seed_demo_refuses_a_database_with_other_peoples_accounts(settings):
    settings.DEBUG = True
    get_user_model().objects.create_user("someone", password="pw-someone-1234")
    with pytest.raises(CommandError) as refused:
        call_command("seed_demo")
    assert "holds 1 other account(s)" in str(refused.value)
    assert "--force" in str(refused.value)
    assert not get_user_model().objects.filter(username=DEMO_USERNAME).exists()
    assert not Force.objects.exists()


def test_seed_demo_seeds_beside_other_accounts_when_forced(settings):
    settings.DEBUG = True
    get_user_model().objects.create_user("someone", password="pw-someone-1234")
    call_command("seed_demo", "--force")
    assert get_user_model().objects.filter(username=DEMO_USERNAME).exists()
