"""In-process timings: Django's test client through the whole handler and middleware,
against the bench database, signed in with a real session.

Rounds interleave the scenarios (a few requests of each in turn, round after round),
so a slow moment of the machine lands on all of them alike and ratios to the floor,
measured in the same rounds, cancel it.
"""

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.http import HttpResponse
from django.test import Client
from django.urls import NoReverseMatch, reverse

from bench.world import World


@dataclass(slots=True)
class Scenario:
    key: str
    label: str
    request: Callable[[], HttpResponse]
    expect: int = 200
    samples: list[float] = field(default_factory=list)  # milliseconds

    def call(self) -> HttpResponse:
        response = self.request()
        if response.status_code != self.expect:
            raise RuntimeError(
                f"{self.label}: expected {self.expect}, got {response.status_code}: "
                f"{response.content[:300]!r}"
            )
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


def scenarios(client: Client, world: World, document: dict) -> list[Scenario]:
    force_url = reverse("roster:detail", args=[world.force_id])
    # A page with forms sets the CSRF cookie; htmx sends the token back in a header.
    client.get(force_url)
    csrf = {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}
    htmx = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": force_url, **csrf}
    edit = {
        step: reverse("roster:member_edit", args=[world.force_id, world.member_id, step])
        for step in ("equipment-add", "equipment-remove")
    }
    # What the page asks for after an edit, for each other step that is in view.
    step_url = reverse("roster:member_step", args=[world.force_id, world.member_id, "purchases"])
    added = {"flag": False}

    def htmx_edit() -> HttpResponse:
        """Add a medical kit, then take it off again: the force never grows."""
        if added["flag"]:
            data = {"index": str(world.member_equipment)}
            response = client.post(edit["equipment-remove"], data, **htmx)
        else:
            response = client.post(edit["equipment-add"], {"add": "medical-kit"}, **htmx)
        added["flag"] = not added["flag"]
        return response

    body = json.dumps(document)
    api_detail = f"/api/v1/rosters/{world.force_id}/"
    try:
        dashboard = reverse("campaign:dashboard", args=[world.campaign_id])
    except NoReverseMatch:  # the campaign pages are not there (yet): leave the row out
        dashboard = None
    found = [
        Scenario("floor", "floor (tiny template, signed in)", lambda: client.get("/bench/floor/")),
        Scenario("force_page", "force page (7 busy members)", lambda: client.get(force_url)),
        Scenario("htmx_edit", "htmx edit round-trip (member builder)", htmx_edit),
        Scenario(
            "step_refresh",
            "step refresh after an edit (one builder step, htmx GET)",
            lambda: client.get(step_url, **htmx),
        ),
        Scenario("api_detail", "roster API detail", lambda: client.get(api_detail)),
        Scenario(
            "dashboard",
            f"campaign dashboard ({world.battles} battles)",
            lambda: client.get(dashboard),
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
    return [s for s in found if dashboard is not None or s.key != "dashboard"]


def play_scenarios(client: Client, battle_id: int, csrf: dict[str, str]) -> list[Scenario]:
    """Play mode: a player's action (a plain d12 through the battle screen's form, answered
    with the state panel) and an idle watcher's poll (If-None-Match: 304, no body)."""
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
            scenario.call()
    for number in range(rounds):
        for scenario in chosen:
            for _ in range(per_round):
                start = time.perf_counter_ns()
                scenario.call()
                scenario.samples.append((time.perf_counter_ns() - start) / 1e6)
        if (number + 1) % max(1, rounds // 4) == 0:
            say(f"  round {number + 1}/{rounds}")
    return {s.key: Stats.of(s.samples) for s in chosen}


def profile(chosen: list[Scenario], *, requests: int, directory: Path) -> list[Path]:
    """pyinstrument profiles of `requests` requests of each scenario: `<key>.html` with every
    frame, to browse, and `<key>.txt` with library frames folded, to read."""
    from pyinstrument import Profiler

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for scenario in chosen:
        profiler = Profiler(interval=0.0002)
        profiler.start()
        for _ in range(requests):
            scenario.call()
        profiler.stop()
        text = directory / f"{scenario.key}.txt"
        text.write_text(profiler.output_text(unicode=True, color=False))
        html = directory / f"{scenario.key}.html"
        html.write_text(profiler.output_html())
        written += [text, html]
    return written
