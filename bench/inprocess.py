"""In-process timings: Django's test client through the whole handler and middleware,
against the bench database, signed in with a real session.

Rounds interleave the scenarios (a few requests of each in turn, round after round),
so a slow moment of the machine lands on all of them alike and ratios to the floor,
measured in the same rounds, cancel it.
"""

import dataclasses
import itertools
import json
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
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
    cache: Counter = field(default_factory=Counter)  # (kind, hit/miss) while timed
    size: int = 0  # bytes of the last answer's body
    queries: int = 0  # SQL statements one request sends (`count_queries`)

    def call(self) -> HttpResponse:
        response = self.request()
        if response.status_code != self.expect:
            raise RuntimeError(
                f"{self.label}: expected {self.expect}, got {response.status_code}: "
                f"{response.content[:300]!r}"
            )
        self.size = len(response.content)
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
    """A client with a real session and CSRF checks on, as a browser would be."""
    from django.contrib.auth import get_user_model

    client = Client(enforce_csrf_checks=True)
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


def scenarios(client: Client, world: World, document: dict) -> list[Scenario]:
    player = world.players[0]
    urls = urls_for(player)
    # A page with forms sets the CSRF cookie; htmx sends the token back in a header.
    client.get(urls.force_page)
    csrf = {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}
    htmx = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": urls.builder_page, **csrf}
    added = {"flag": False}

    def htmx_edit() -> HttpResponse:
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

    body = json.dumps(document)
    dashboard = reverse("campaign:dashboard", args=[world.campaign_id])
    standings = f"/api/v1/campaigns/{world.campaign_id}/standings/"
    found = [
        Scenario("floor", "floor (tiny template, signed in)", lambda: client.get("/bench/floor/")),
        Scenario(
            "floor_one_read",
            "floor and one more query (a force's version by its key)",
            lambda: client.get(reverse("bench-floor-one-read", args=[player.force_id])),
        ),
        Scenario(
            "force_page",
            "force page, cache hit (7 busy members)",
            lambda: client.get(urls.force_page),
            # Other rows edit the force; an untimed view first makes this one a hit.
            prepare=lambda: client.get(urls.force_page),
        ),
        Scenario(
            "force_page_miss",
            "force page, cache miss (the view after an edit)",
            lambda: client.get(urls.force_page),
            prepare=edit_to_a_new_state,
        ),
        Scenario(
            "builder_page",
            "member builder page (not cached)",
            lambda: client.get(urls.builder_page),
        ),
        Scenario(
            "htmx_edit",
            "htmx edit (member builder, equipment step; the page sends nothing after it)",
            htmx_edit,
        ),
        Scenario(
            "open_step",
            "open another step (htmx GET, the player's choice)",
            lambda: client.get(urls.open_step, **htmx),
        ),
        Scenario(
            "api_detail",
            "roster API detail, cache hit",
            lambda: client.get(urls.api_detail),
            prepare=lambda: client.get(urls.api_detail),
        ),
        Scenario(
            "api_detail_miss",
            "roster API detail, cache miss (after an edit)",
            lambda: client.get(urls.api_detail),
            prepare=edit_to_a_new_state,
        ),
        Scenario(
            "dashboard",
            "campaign dashboard",
            lambda: client.get(dashboard),
        ),
        Scenario("standings", "campaign standings API", lambda: client.get(standings)),
        Scenario(
            "campaign_list",
            "my campaigns (list, with each one's battles played)",
            lambda: client.get(reverse("campaign:list")),
        ),
        Scenario(
            "validate",
            "validation endpoint (full force)",
            lambda: client.post(
                "/api/v1/rosters/validate/", body, content_type="application/json"
            ),
        ),
    ]
    if world.live_battle_id:
        found += play_scenarios(client, world.live_battle_id, csrf)
    return found


def play_scenarios(client: Client, battle_id: int, csrf: dict[str, str]) -> list[Scenario]:
    """Play mode: a player's action (a plain d12 through the battle screen's form, answered
    with the state panel), an idle watcher's poll (If-None-Match: 304, no body), and the
    player's list of battles, as a page and from the API."""
    state_url = reverse("play:state", args=[battle_id])
    act_url = reverse("play:act", args=[battle_id])
    htmx = {"HTTP_HX_REQUEST": "true", **csrf}
    seen = {"etag": client.get(state_url, **htmx)["ETag"]}

    def action() -> HttpResponse:
        response = client.post(act_url, {"type": "roll", "count": "1"}, **htmx)
        seen["etag"] = response["ETag"]
        return response

    return [
        Scenario("play_action", "play: an action round-trip (htmx, a d12)", action),
        Scenario(
            "play_poll",
            "play: an idle watcher's poll (304)",
            lambda: client.get(state_url, HTTP_IF_NONE_MATCH=seen["etag"], **htmx),
            expect=304,
        ),
        Scenario(
            "battle_list",
            "play: my battles (the list page)",
            lambda: client.get(reverse("play:list")),
        ),
        Scenario(
            "battle_list_api",
            "play API: my battles (list)",
            lambda: client.get("/api/v1/battles/"),
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
    from bench.cache import COUNTS

    for scenario in chosen:
        scenario.samples.clear()
        scenario.cache.clear()
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
                before = COUNTS.copy()
                start = time.perf_counter_ns()
                scenario.call()
                scenario.samples.append((time.perf_counter_ns() - start) / 1e6)
                scenario.cache.update(COUNTS - before)
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
    cache: Counter  # (kind, hit/miss) while timed
    size: int
    queries: int


def answer_of(chosen: Sequence[Scenario]) -> dict[str, dict]:
    """A run's measurements as JSON data: what `bench.one_run` writes and
    `in_a_fresh_process` reads back as `Run`s."""
    return {
        s.key: {
            "label": s.label,
            "samples": s.samples,
            "cache": [[kind, outcome, n] for (kind, outcome), n in s.cache.items()],
            "size": s.size,
            "queries": s.queries,
        }
        for s in chosen
    }


def in_a_fresh_process(
    world: World, keys: Sequence[str], *, rounds: int, per_round: int, warmup: int
) -> dict[str, Run]:
    """`measure` the scenarios named by `keys` once, in a new Python process that loads
    the site as a gunicorn worker does (`bench.one_run`). The same code can measure as
    much as 20% apart from one process to the next (bench/findings.md), so each of a
    phase's runs gets its own process and the runs' spread shows that too."""
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
            Counter({(kind, outcome): n for kind, outcome, n in found["cache"]}),
            found["size"],
            found["queries"],
        )
        for key, found in answer.items()
    }
