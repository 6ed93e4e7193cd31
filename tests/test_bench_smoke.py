"""The benchmarks' own pieces, quickly: the scale seed at a tiny scale, the floor view, the
scenarios' counts and sizes, the load script, the figures' arithmetic. The browser part runs
in tests/browser/test_bench_browser.py.

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
def test_a_scenario_counts_the_queries_of_one_request(client):
    """`count_queries`: a request that sends one statement more is counted one more, on a
    request of its own, after its preparation (which is not counted)."""
    player = get_user_model().objects.create_user("floor", password="pw-floor-1234")
    client.force_login(player)

    def floor_and_one_more():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return client.get("/bench/floor/")

    floor = Scenario("floor", "floor", lambda: client.get("/bench/floor/"))
    one_more = Scenario("one", "one more", floor_and_one_more)
    prepared = []
    one_more.prepare = lambda: prepared.append(client.get("/bench/floor/"))
    floor_queries = count_queries(floor)
    assert floor_queries >= 1  # the session, at least
    assert count_queries(one_more) == floor_queries + 1
    assert len(prepared) == 1  # prepared once, outside the count


def test_a_scenario_keeps_the_size_sent_and_the_whole_answer(client):
    """A gzipped answer's size as sent and uncompressed, as the results list them."""
    rules = Scenario("rules", "rules", lambda: client.get("/rules/", HTTP_ACCEPT_ENCODING="gzip"))
    response = rules.call()
    assert response["Content-Encoding"] == "gzip"
    assert rules.size == len(response.content)
    assert rules.whole == len(client.get("/rules/").content) > 3 * rules.size
    plain = Scenario("plain", "plain", lambda: client.get("/rules/"))
    plain.call()
    assert plain.size == plain.whole == rules.whole


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
        players=(Player(1, 2, 3, 4, 11), Player(6, 7, 8, 9, 12)),
        live_battle_id=10,
        rival_id=13,
    )
    assert World.from_dict(json.loads(json.dumps(dataclasses.asdict(world)))) == world


def test_the_players_script_gives_each_connection_its_own_player_and_pauses():
    from bench.load import TABLE_ROUND, players_script

    players = [
        {"cookie": f'sessionid=s{i}; csrftoken="t{i}"', "csrf": f"t{i}", "state": f"/play/{i}/"}
        for i in range(2)
    ]
    script = players_script(players, (("poll", 500), ("act", 2000)))
    assert 'cookie = "sessionid=s0; csrftoken=\\"t0\\""' in script
    assert 'state = "/play/1/"' in script
    assert "me = players[(number - 1) % #players + 1]" in script
    assert 'local round = {"poll", "act"}' in script
    assert "local waits = {500, 2000}" in script
    assert "%%" not in script  # the template's own percent signs came through once
    # A player at the table polls every half second and acts every 20 s.
    assert sum(wait for _, wait in TABLE_ROUND) == 20_000
    assert [kind for kind, _ in TABLE_ROUND].count("act") == 1


def test_the_ramp_reports_the_most_players_served_in_time():
    from bench.load import LoadResult, Step, served

    def step(players: int, p95: float, errors: int = 0) -> Step:
        return Step(players, LoadResult("", 100, 1.0, 10, 20, p95, 300, 400, errors, ""))

    steps = [step(10, 50), step(15, 120), step(22, 199.9), step(33, 200)]
    assert served(steps, 200).players == 22
    assert served([step(10, 250)], 200) is None
    assert served([step(10, 50), step(15, 90, errors=1)], 200).players == 10


def test_the_bench_reads_the_polling_pauses_from_play_js():
    from bench.__main__ import poll_cadence

    text = (BASE_DIR / "static" / "js" / "play.js").read_text()
    cadence = poll_cadence()
    assert set(cadence) == {
        "PLAYING_MS",
        "PLAYING_FOR_MS",
        "QUIET_MS",
        "RESTING_AFTER_MS",
        "RESTING_MS",
    }
    for name, value in cadence.items():
        assert f"var {name} = " in text
        assert value > 0
    assert cadence["PLAYING_MS"] < cadence["QUIET_MS"] < cadence["RESTING_MS"]


def test_percentiles_are_values_that_were_measured():
    from bench.browser import percentile

    assert percentile([5, 1, 4, 2, 3], 90) == 5
    assert percentile([5, 1, 4, 2, 3], 50) == 3
    assert percentile(list(range(1, 21)), 90) == 18
    assert percentile([7], 90) == 7


def test_a_watching_phone_per_hour():
    from bench.browser import Watching

    assert Watching(10, 18, 18, 9_000, 8_000).per_hour() == (6_480, 6_120_000)
    assert Watching(10, 0, 0, 0, 0).per_hour() == (0, 0)


def test_the_networks_say_what_they_emulate():
    from bench.browser import FOUR_G, LOOPBACK, NETWORKS, SLOW_4G

    assert NETWORKS == (LOOPBACK, FOUR_G, SLOW_4G)
    assert LOOPBACK.words() == "loopback: no emulation"
    assert FOUR_G.words() == "4G: 60 ms latency, 9 Mbps down, 1.5 Mbps up"
    assert SLOW_4G.words() == "slow 4G: 150 ms latency, 1.6 Mbps down, 0.75 Mbps up"


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
