import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from roster.demo import DEMO_PASSWORD, DEMO_USERNAME, demo_force
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


def test_seed_demo_creates_the_user_and_force_once(settings, capsys):
    settings.DEBUG = True
    call_command("seed_demo")
    call_command("seed_demo")
    user = get_user_model().objects.get(username=DEMO_USERNAME)
    assert user.check_password(DEMO_PASSWORD)
    assert Force.objects.filter(owner=user).count() == 1
    assert Force.objects.get(owner=user).is_legal
    assert DEMO_PASSWORD in capsys.readouterr().out


def test_seed_demo_refuses_without_debug(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("seed_demo")
    assert not get_user_model().objects.filter(username=DEMO_USERNAME).exists()
