"""Server time: Django's test client through the whole handler and middleware, against
the bench database, signed in with a real session, asking for gzip as a browser does (so
the time includes compressing the answer).

Rounds interleave the scenarios (a few requests of each in turn, round after round), so a
slow moment of the machine lands on all of them alike.
"""

import dataclasses
import gzip
import itertools
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

from bench.world import Player, World


@dataclass(slots=True)
class Scenario:
    key: str
    label: str
    request: Callable[[], HttpResponse]
    expect: int = 200
    # Done before each timed request, untimed (an edit, so the view after it misses).
    prepare: Callable[[], object] | None = None
    samples: list[float] = field(default_factory=list)  # milliseconds
    size: int = 0  # bytes of the last answer's body as sent (gzipped where it may be)
    whole: int = 0  # the same body uncompressed
    queries: int = 0  # SQL statements one request sends (`count_queries`)

    def call(self) -> HttpResponse:
        response = self.request()
        if response.status_code != self.expect:
            raise RuntimeError(
                f"{self.label}: expected {self.expect}, got {response.status_code}: "
                f"{response.content[:300]!r}"
            )
        self.size = len(response.content)
        zipped = response.get("Content-Encoding") == "gzip"
        self.whole = len(gzip.decompress(response.content)) if zipped else self.size
        return response


@dataclass(frozen=True, slots=True)
class Stats:
    median: float
    p10: float
    p90: float
    n: int

    @classmethod
    def of(cls, samples: list[float]) -> "Stats":
        deciles = statistics.quantiles(samples, n=10)
        return cls(statistics.median(samples), deciles[0], deciles[-1], len(samples))


def signed_in_client(user_id: int) -> Client:
    """A client with a real session and CSRF checks on, accepting gzip, as a browser."""
    from django.contrib.auth import get_user_model

    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    client.force_login(get_user_model().objects.get(pk=user_id))
    return client


@dataclass(frozen=True, slots=True)
class Urls:
    """What a player's browser asks for, for one player."""

    force_page: str
    builder_page: str
    edit_add: str
    edit_remove: str
    open_step: str  # a step the player opens after an equipment edit (the one below it)
    api_detail: str


def urls_for(player: Player) -> Urls:
    def edit(step: str) -> str:
        return reverse("roster:member_edit", args=[player.force_id, player.member_id, step])

    return Urls(
        force_page=reverse("roster:detail", args=[player.force_id]),
        builder_page=reverse("roster:member", args=[player.force_id, player.member_id]),
        edit_add=edit("equipment-add"),
        edit_remove=edit("equipment-remove"),
        open_step=reverse(
            "roster:member_step", args=[player.force_id, player.member_id, "spells"]
        ),
        api_detail=f"/api/v1/rosters/{player.force_id}/",
    )


def scenarios(client: Client, world: World) -> list[Scenario]:
    """Every page and edit the bench times, in the order the results list them."""
    player = world.players[0]
    urls = urls_for(player)
    # A page with forms sets the CSRF cookie; htmx sends the token back in a header.
    client.get(urls.force_page)
    csrf = {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}
    htmx = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": urls.builder_page, **csrf}
    added = {"flag": False}

    def builder_edit() -> HttpResponse:
        """Add a medical kit, then take it off again: the force never grows."""
        if added["flag"]:
            data = {"index": str(player.member_equipment)}
            response = client.post(urls.edit_remove, data, **htmx)
        else:
            response = client.post(urls.edit_add, {"add": "medical-kit"}, **htmx)
        added["flag"] = not added["flag"]
        return response

    # Unique to this process too: a run in a fresh process (`in_a_fresh_process`) must
    # not give the member a name an earlier run's process gave it.
    process = secrets.token_hex(4)
    renames = (f"{process} {n}" for n in itertools.count(1))

    def edit_to_a_new_state() -> None:
        """The edit before a cache-miss view: the member gets a name it never had, so the
        view finds nothing of the new state kept (a medical kit added and taken off again
        would return the member's card to a state already kept)."""
        from django.contrib.auth import get_user_model

        from roster import member_rows, selectors, services

        user = get_user_model().objects.get(pk=player.user_id)
        force = selectors.get_force(user=user, force_id=player.force_id)
        member = selectors.get_member(force=force, member_id=player.member_id)
        data = member_rows.member_json(member) | {"name": f"Edited {next(renames)}"}
        services.update_member(force=force, actor=user, member_id=member.pk, data=data)

    dashboard = reverse("campaign:dashboard", args=[world.campaign_id])
    standings = f"/api/v1/campaigns/{world.campaign_id}/standings/"
    found = [
        Scenario(
            "floor",
            "a signed-in tiny page (the least any page costs)",
            lambda: client.get("/bench/floor/"),
        ),
        Scenario(
            "force_page",
            "force page, kept (7 busy members)",
            lambda: client.get(urls.force_page),
            # Other rows edit the force; an untimed view first makes this one a hit.
            prepare=lambda: client.get(urls.force_page),
        ),
        Scenario(
            "force_page_miss",
            "force page after an edit",
            lambda: client.get(urls.force_page),
            prepare=edit_to_a_new_state,
        ),
        Scenario("builder_page", "member builder page", lambda: client.get(urls.builder_page)),
        Scenario("builder_edit", "builder edit (htmx, equipment)", builder_edit),
        Scenario(
            "open_step",
            "builder: open another step (htmx)",
            lambda: client.get(urls.open_step, **htmx),
        ),
        Scenario(
            "api_detail",
            "roster API detail, kept",
            lambda: client.get(urls.api_detail),
            prepare=lambda: client.get(urls.api_detail),
        ),
        Scenario(
            "api_detail_miss",
            "roster API detail after an edit",
            lambda: client.get(urls.api_detail),
            prepare=edit_to_a_new_state,
        ),
        Scenario("dashboard", "campaign dashboard", lambda: client.get(dashboard)),
        Scenario("standings", "campaign standings API", lambda: client.get(standings)),
        Scenario(
            "campaign_list",
            "my campaigns (each with its battles played)",
            lambda: client.get(reverse("campaign:list")),
        ),
    ]
    if world.live_battle_id:
        found += play_scenarios(client, world.live_battle_id, csrf)
    return found


def _attack_fields(battle_id: int) -> dict[str, str]:
    """The battle screen's attack form: the bench player's Mio shoots the rival's Julius
    with the Light Pistol, a 1 entered (a miss: the battle stays as it was but for its
    log)."""
    from play.models import BattleFigure

    figures = {
        (f.side.position, f.name): f.pk
        for f in BattleFigure.objects.filter(side__battle_id=battle_id).select_related("side")
    }
    return {
        "type": "attack",
        "figure": str(figures[(0, "Mio")]),
        "target": str(figures[(1, "Julius")]),
        "kind": "ranged",
        "weapon": "light-pistol",
        "obscured": "clear",
        "situation_movement": "moved",
        "dice": "1",
    }


def play_scenarios(client: Client, battle_id: int, csrf: dict[str, str]) -> list[Scenario]:
    """Play mode: the battle screen, an attack from its form (answered with the state
    panel), the other phone's poll finding nothing new (304, no body) and finding a change
    (200, the panel), and the player's list of battles, as a page and from the API."""
    battle_page = reverse("play:battle", args=[battle_id])
    state_url = reverse("play:state", args=[battle_id])
    act_url = reverse("play:act", args=[battle_id])
    htmx = {"HTTP_HX_REQUEST": "true", **csrf}
    seen = {"etag": client.get(state_url, **htmx)["ETag"]}
    fields = _attack_fields(battle_id)

    def attack() -> HttpResponse:
        response = client.post(act_url, fields, **htmx)
        seen["etag"] = response["ETag"]
        return response

    def roll() -> None:
        """Another phone's change: the poll after it brings the panel."""
        seen["before"] = seen["etag"]
        seen["etag"] = client.post(act_url, {"type": "roll", "count": "1"}, **htmx)["ETag"]

    return [
        Scenario("battle_page", "battle screen (whole page)", lambda: client.get(battle_page)),
        Scenario("play_attack", "play: an attack (htmx)", attack),
        Scenario(
            "play_poll",
            "play: a poll, nothing new (304)",
            lambda: client.get(state_url, HTTP_IF_NONE_MATCH=seen["etag"]),
            expect=304,
        ),
        Scenario(
            "play_poll_changed",
            "play: a poll after a change (the panel)",
            lambda: client.get(state_url, HTTP_IF_NONE_MATCH=seen["before"]),
            prepare=roll,
        ),
        Scenario(
            "battle_list", "play: my battles (the page)", lambda: client.get(reverse("play:list"))
        ),
        Scenario(
            "battle_list_api", "play API: my battles", lambda: client.get("/api/v1/battles/")
        ),
    ]


def measure(
    chosen: list[Scenario],
    *,
    rounds: int,
    per_round: int,
    warmup: int,
    say: Callable[[str], None],
) -> dict[str, Stats]:
    for scenario in chosen:
        scenario.samples.clear()
        for _ in range(warmup):
            if scenario.prepare is not None:
                scenario.prepare()
            scenario.call()
        scenario.queries = count_queries(scenario)
    for number in range(rounds):
        for scenario in chosen:
            for _ in range(per_round):
                if scenario.prepare is not None:
                    scenario.prepare()
                start = time.perf_counter_ns()
                scenario.call()
                scenario.samples.append((time.perf_counter_ns() - start) / 1e6)
        if (number + 1) % max(1, rounds // 4) == 0:
            say(f"  round {number + 1}/{rounds}")
    return {s.key: Stats.of(s.samples) for s in chosen}


def count_queries(scenario: Scenario) -> int:
    """The SQL statements one request of the scenario sends, counted on a request of its
    own (untimed, after its untimed preparation), so the timed ones carry no counter.
    Counted as the code's cursors send them (`execute_wrapper`), not with the tests'
    `CaptureQueriesContext`, which also logs a transaction's BEGIN and COMMIT: those are
    not built by the ORM, and the table prices every counted statement at one ORM read."""
    from django.db import connection

    sent = 0

    def counted(execute, sql, params, many, context):
        nonlocal sent
        sent += 1
        return execute(sql, params, many, context)

    if scenario.prepare is not None:
        scenario.prepare()
    with connection.execute_wrapper(counted):
        scenario.call()
    return sent


def profile(chosen: list[Scenario], *, requests: int, directory: Path) -> list[Path]:
    """pyinstrument profiles of `requests` requests of each scenario: `<key>.html` with every
    frame, to browse, and `<key>.txt` with library frames folded, to read."""
    from pyinstrument import Profiler

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for scenario in chosen:
        profiler = Profiler(interval=0.001)
        for _ in range(requests):
            # The profile holds the timed request alone, as `measure` times it: a cache
            # miss scenario's untimed edit comes first and is left out.
            if scenario.prepare is not None:
                scenario.prepare()
            profiler.start()
            scenario.call()
            profiler.stop()
        text = directory / f"{scenario.key}.txt"
        text.write_text(profiler.output_text(unicode=True, color=False))
        html = directory / f"{scenario.key}.html"
        html.write_text(profiler.output_html())
        written += [text, html]
    return written


@dataclass(frozen=True, slots=True)
class Run:
    """One scenario's part of a run in a process of its own."""

    label: str
    samples: list[float]  # milliseconds
    size: int
    whole: int
    queries: int


def answer_of(chosen: Sequence[Scenario]) -> dict[str, dict]:
    """A run's measurements as JSON data: what `bench.one_run` writes and
    `in_a_fresh_process` reads back as `Run`s."""
    return {
        s.key: {
            "label": s.label,
            "samples": s.samples,
            "size": s.size,
            "whole": s.whole,
            "queries": s.queries,
        }
        for s in chosen
    }


def in_a_fresh_process(
    world: World, keys: Sequence[str], *, rounds: int, per_round: int, warmup: int
) -> dict[str, Run]:
    """`measure` the scenarios named by `keys` (none: all) once, in a new Python process that loads
    the site as a gunicorn worker does (`bench.one_run`). The same code can measure as
    much as 20% apart from one process to the next, so each of a phase's runs gets its own
    process."""
    order = {
        "world": dataclasses.asdict(world),
        "keys": list(keys),
        "rounds": rounds,
        "per_round": per_round,
        "warmup": warmup,
    }
    with tempfile.TemporaryDirectory(prefix="dbd-bench-run-") as directory:
        order_path, answer_path = Path(directory) / "order.json", Path(directory) / "answer.json"
        order_path.write_text(json.dumps(order))
        command = [sys.executable, "-m", "bench.one_run", str(order_path), str(answer_path)]
        subprocess.run(command, check=True, cwd=Path(__file__).resolve().parent.parent)
        answer = json.loads(answer_path.read_text())
    return {
        key: Run(
            found["label"],
            found["samples"],
            found["size"],
            found["whole"],
            found["queries"],
        )
        for key, found in answer.items()
    }
