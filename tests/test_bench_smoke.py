"""The benchmarks' own pieces, quickly: the scale seed at a tiny scale and the floor view.

No timings here: `make bench` measures, and reports rather than asserts.
"""

import importlib.machinery
import io
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Sum
from django.urls import reverse

from bench.inprocess import Scenario, count_queries
from campaign.management.commands.seed_scale import template_documents
from campaign.models import (
    Battle,
    BattleForce,
    BattleMemberResult,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
)
from campaign.tallies import TALLIES, recounted
from play.models import Battle as PlayBattle
from play.table.state import new_state
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


def assert_tallies_recount() -> None:
    """The standings' tallies the seed leaves are what the battles and ledger give."""
    forces = CampaignForce.objects.all()
    stored = {
        pk: dict(zip(TALLIES, values, strict=True))
        for pk, *values in forces.values_list("pk", *TALLIES)
    }
    assert stored == recounted(forces)


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
    assert_tallies_recount()


def test_seed_scale_refuses_a_prefix_twice_and_too_few_forces():
    seed(users=5, forces=20, campaigns=1)
    with pytest.raises(CommandError, match="another --prefix"):
        seed(users=5, forces=20, campaigns=1)
    with pytest.raises(CommandError, match="--forces must be at least"):
        seed(prefix="other", forces=5)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY is PostgreSQL's")
def test_table_battles_grow_the_site_between_seeded_players():
    out = io.StringIO()
    call_command("seed_table_battles", battles=250, batch_size=10, stdout=out)  # chunks of 100
    assert "Added 250 table battles (250 on the site)" in out.getvalue()
    players = set(
        get_user_model().objects.filter(username__startswith="table-").values_list("pk", flat=True)
    )
    assert len(players) == 2  # one per 100 battles, at least two
    battles = list(PlayBattle.objects.order_by("id").prefetch_related("sides"))
    assert [b.scenario for b in battles] == [f"Table battle {n}" for n in range(1, 251)]
    assert [b.updated_at for b in battles] == sorted(b.updated_at for b in battles)
    assert len({b.spectator_token for b in battles}) == 250
    for battle in battles:
        sides = list(battle.sides.all())
        assert [s.position for s in sides] == [0, 1]
        assert sides[0].player_id != sides[1].player_id
        assert {s.player_id for s in sides} <= players
        assert battle.created_by_id == sides[0].player_id
        assert (battle.status, battle.state, battle.version) == (
            PlayBattle.Status.ENDED,
            new_state({}),
            1,
        )
    # Already there: nothing added, under another prefix; the same prefix is refused.
    out = io.StringIO()
    call_command("seed_table_battles", battles=250, prefix="again", stdout=out)
    assert "Added 0 table battles (250 on the site)" in out.getvalue()
    with pytest.raises(CommandError, match="another --prefix"):
        call_command("seed_table_battles", battles=300, stdout=io.StringIO())
    with pytest.raises(CommandError, match="--batch-size must be at least 1"):
        call_command("seed_table_battles", battles=300, prefix="third", batch_size=0)


def test_table_battles_are_copied_in_on_postgresql_alone():
    if connection.vendor == "postgresql":
        pytest.skip("the refusal is for other databases")
    with pytest.raises(CommandError, match="PostgreSQL only"):
        call_command("seed_table_battles", battles=10, stdout=io.StringIO())


@pytest.mark.urls("bench.urls")
def test_the_floor_answers_a_signed_in_user(client):
    user = get_user_model().objects.create_user("floor", password="pw-floor-1234")
    response = client.get("/bench/floor/")
    assert response.status_code == 302  # signed out: to the login page
    client.force_login(user)
    response = client.get("/bench/floor/")
    assert response.status_code == 200
    assert "Signed in as floor." in response.content.decode()


@pytest.mark.urls("bench.urls")
def test_the_floor_with_one_read_reads_the_players_own_force_alone(client):
    player = get_user_model().objects.create_user("floor", password="pw-floor-1234")
    other = get_user_model().objects.create_user("other", password="pw-other-1234")
    mine = Force.objects.create(owner=player, name="Mine", resources=50)
    theirs = Force.objects.create(owner=other, name="Theirs", resources=50)
    url = reverse("bench-floor-one-read", args=[mine.pk])
    assert client.get(url).status_code == 302  # signed out: to the login page
    client.force_login(player)
    response = client.get(url)
    assert response.status_code == 200
    assert "Signed in as floor." in response.content.decode()
    assert client.get(reverse("bench-floor-one-read", args=[theirs.pk])).status_code == 404


@pytest.mark.urls("bench.urls")
def test_a_scenario_counts_the_queries_of_one_request(client):
    """`count_queries`: the floor with one read sends one statement more than the floor,
    counted on requests of their own."""
    player = get_user_model().objects.create_user("floor", password="pw-floor-1234")
    force = Force.objects.create(owner=player, name="Mine", resources=50)
    client.force_login(player)
    url = reverse("bench-floor-one-read", args=[force.pk])
    floor = Scenario("floor", "floor", lambda: client.get("/bench/floor/"))
    one_read = Scenario("one", "one read", lambda: client.get(url))
    prepared = []
    one_read.prepare = lambda: prepared.append(client.get("/bench/floor/"))
    floor_queries = count_queries(floor)
    assert floor_queries >= 1  # the session, at least
    assert count_queries(one_read) == floor_queries + 1
    assert len(prepared) == 1  # prepared once, outside the count


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


def test_grow_campaign_adds_older_battles_and_keeps_the_campaign_consistent():
    seed(users=10, forces=20, campaigns=1)
    campaign = Campaign.objects.get()
    latest = list(campaign.battles.order_by("-played_on", "-id")[:3])
    out = io.StringIO()
    call_command("seed_scale", grow_campaign=campaign.pk, to_battles=25, stdout=out)
    assert "Added 15 battles" in out.getvalue()
    assert campaign.battles.filter(status=Battle.Status.CONFIRMED).count() == 25
    assert list(campaign.battles.order_by("-played_on", "-id")[:3]) == latest
    for cf in CampaignForce.objects.select_related("force"):
        balance = LedgerEntry.objects.filter(campaign_force=cf).aggregate(t=Sum("amount"))["t"]
        assert cf.force.resources == max(1, cf.force.evaluation["total_cost"] + balance)
        for member in cf.force.members.all():
            earned = BattleMemberResult.objects.filter(member=member).aggregate(
                t=Sum("xp_awarded")
            )["t"]
            assert member.xp == earned
    forces = Force.objects.select_related("campaign_entry__campaign").prefetch_related(
        "members__rolls"
    )
    for force in forces:
        assert force.evaluation == selectors.evaluate_force(force=force).as_dict(), force.name
    assert_tallies_recount()
    assert sum(campaign.forces.values_list("won", flat=True)) > 0
    # Already there: nothing to add.
    out = io.StringIO()
    call_command("seed_scale", grow_campaign=campaign.pk, to_battles=25, stdout=out)
    assert "Added 0 battles" in out.getvalue()
    with pytest.raises(CommandError, match="No campaign"):
        call_command("seed_scale", grow_campaign=campaign.pk + 1, stdout=io.StringIO())


@pytest.mark.skipif(connection.vendor != "postgresql", reason="COPY is PostgreSQL's")
def test_site_battles_grow_the_site_in_long_campaigns_of_three():
    seed(users=10, forces=20, campaigns=1)
    out = io.StringIO()
    call_command("seed_scale", site_battles=75, battles_per_campaign=30, prefix="site", stdout=out)
    assert "Added 65 battles (75 on the site)" in out.getvalue()
    grown = Campaign.objects.filter(name__startswith="site league ").order_by("id")
    assert [c.battles.count() for c in grown] == [30, 30, 5]
    for campaign in grown:
        assert campaign.forces.count() == 3
        battles = campaign.battles.count()
        assert BattleForce.objects.filter(battle__campaign=campaign).count() == 2 * battles
        assert campaign.ledger.filter(kind=LedgerEntry.Kind.BATTLE).count() == 2 * battles
        for battle in campaign.battles.prefetch_related("battle_forces"):
            outcomes = sorted(bf.outcome for bf in battle.battle_forces.all())
            winner = [
                bf.campaign_force_id for bf in battle.battle_forces.all() if bf.outcome == "win"
            ]
            assert outcomes in (["loss", "win"], ["draw", "draw"])
            assert [battle.winner_id] == (winner or [None])
        played = campaign.forces.values_list("won", "drawn", "lost")
        assert sum(sum(tallies) for tallies in played) == 2 * battles
    assert_tallies_recount()


def test_the_counting_cache_counts_what_it_knows_and_keeps_the_rest():
    from bench.cache import COUNTS, CountingCache

    cache = CountingCache(
        "", {"OPTIONS": {"INNER": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}}
    )
    before = COUNTS.copy()
    cache.set("roster-api-detail-json:1:x", {"a": 1})
    assert cache.get("roster-api-detail-json:1:x") == {"a": 1}
    assert cache.get("roster-api-detail-json:2:x", "none") == "none"
    assert cache.get("template.cache.roster-force-page.abc") is None
    cache.set("throttle:1", 5)
    assert cache.get("throttle:1") == 5  # kept, not counted
    cache.set("member-card:a", "<article>")
    found = cache.get_many(["member-card:a", "member-card:b", "throttle:1"])
    assert found == {"member-card:a": "<article>", "throttle:1": 5}
    assert COUNTS - before == {
        ("API detail", "hit"): 1,
        ("API detail", "miss"): 1,
        ("force page", "miss"): 1,
        ("member cards", "hit"): 1,
        ("member cards", "miss"): 1,
    }


def test_the_world_reaches_a_run_in_its_own_process_whole():
    """`bench.one_run` gets the world as JSON (`inprocess.in_a_fresh_process`)."""
    import dataclasses
    import json

    from bench.world import Player, World

    world = World(
        user_id=1,
        force_id=2,
        member_id=3,
        member_equipment=4,
        campaign_id=5,
        battles=200,
        players=(Player(1, 2, 3, 4), Player(6, 7, 8, 9)),
        live_battle_id=10,
    )
    assert World.from_dict(json.loads(json.dumps(dataclasses.asdict(world)))) == world


def test_the_players_load_script_gives_each_connection_its_own_player():
    from bench.load import MIXED_ROUND, mixed_script

    players = [
        {"cookie": f'sessionid=s{i}; csrftoken="t{i}"', "csrf": f"t{i}", "page": f"/forces/{i}/"}
        for i in range(2)
    ]
    script = mixed_script(players)
    assert 'cookie = "sessionid=s0; csrftoken=\\"t0\\""' in script
    assert 'page = "/forces/1/"' in script
    assert "me = players[number]" in script
    assert script.count('"edit_add"') == MIXED_ROUND.count("edit_add") == 1
    assert "%%" not in script  # the template's own percent signs came through once


def test_the_mixed_load_counts_from_the_last_warm_up_answer(tmp_path):
    """The measured run's lines start after every warm-up answer the workers logged."""
    from bench.load import wait_until_answered

    log = tmp_path / "access.log"
    log.write_text("BENCH GET /a/ 200 1000\nBENCH POST /b/ 200 4000000\n")
    assert wait_until_answered(log, quiet=0.2) == 2


def test_the_bench_reads_the_browser_tests_measure_lines():
    """`bench.browser` reads back what the measuring browser tests print."""
    from bench import browser

    printed = (
        "\n[measure] phone-light: builder edit click-to-DOM median 145 ms, p90 224 ms; "
        "to the next frame median 160 ms, p90 240 ms\n"
        "[measure] phone: attack roll click-to-DOM median 48 ms, p90 129 ms; "
        "to the next frame median 55 ms, p90 131 ms\n"
    )
    found = browser.read_clicks(printed)
    assert found == [
        ("phone-light", "builder edit", 145, 224, 160, 240),
        ("phone", "attack roll", 48, 129, 55, 131),
    ]
    assert browser.click_rows(found) == [
        "| builder edit | phone-light | 145 | 224 | **missed** | 160 | 240 |",
        "| attack roll | phone | 48 | 129 | met | 55 | 131 |",
    ]
    assert browser.watcher_line(3.92) == (
        "An idle battle watcher sends 60 requests a minute (the state panel polls every 1 s) "
        "and is answered `304` with no body: at the poll's median 3.92 ms that is 235 ms of "
        "server time per watcher per minute."
    )
    tests = (BASE_DIR / "tests" / "browser" / "test_play_flow.py").read_text()
    tests += (BASE_DIR / "tests" / "browser" / "test_pages_ux.py").read_text()
    for measuring in browser.MEASURING_TESTS:
        assert f"def {measuring.split('::')[1]}(" in tests


def test_profile_without_pyinstrument_is_refused_before_the_run(monkeypatch, capsys):
    from bench.__main__ import parse

    # Installed or not here (`make bench` installs it for --profile), both cases are made.
    installed = types.ModuleType("pyinstrument")
    installed.__spec__ = importlib.machinery.ModuleSpec("pyinstrument", None)
    monkeypatch.setitem(sys.modules, "pyinstrument", installed)
    assert parse(["--profile"]).profile
    monkeypatch.setitem(sys.modules, "pyinstrument", None)  # not installed
    with pytest.raises(SystemExit) as refused:
        parse(["--profile"])
    assert refused.value.code == 2
    assert "--profile needs pyinstrument" in capsys.readouterr().err
    assert not parse([]).profile


def test_a_figure_never_reads_as_its_target_when_it_is_not():
    from bench.__main__ import against

    assert against(5.004, 5.0) == "5.004"  # missed: written so, not as 5.00
    assert against(4.996, 5.0) == "4.996"  # met: not as 5.00 either
    assert against(5.0, 5.0) == "5.00"
    assert against(1.20004, 1.2) == "1.20004"
    assert against(9.153, 5.0) == "9.15"
    assert against(5.004, None) == "5.00"  # no target: two decimals
