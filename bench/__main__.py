"""`python -m bench` (`make bench`): what players feel, measured; bench/results.md written.

About five minutes on 2 cores:

1. a fresh PostgreSQL database (`dbd_bench`: migrate, rules, collectstatic) holding the
   bench's world (`bench.world`);
2. server time of each page and edit, in-process: median, p90, the SQL statements one
   request sends, the answer's size as sent and whole;
3. the measured campaign grown from 200 to 5,000 battles, and the pages that read
   campaigns and battles measured again: their statements must stay the same;
4. Chromium against gunicorn (`bench.browser`): click to updated screen on loopback and
   on emulated 4G and slow 4G (a builder edit; on a phone, an attack, a Friendship
   transfer and an undo); a change on one phone to the other's screen; what a phone
   watching a battle costs in requests and bytes an hour;
5. players served per core with 95% of answers under 200 ms (`bench.load`): gunicorn on
   one core, players at the table and at the builder pausing between requests as people do.

`make bench-scale` (`python -m bench --scale`) grows the site to a million campaign
battles and a million table battles instead and measures the same pages at each step
(bench/results-scale.md).

The machine may be shared: the load average sampled during each phase is reported with
it, and nothing is asserted. The database is dropped at the end (`--keep-db` keeps it).
"""

import argparse
import dataclasses
import importlib.util
import os
import platform
import random
import re
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
BASE_DIR = BENCH_DIR.parent
RESULTS = BENCH_DIR / "results.md"
SCALE_RESULTS = BENCH_DIR / "results-scale.md"
DECISIONS = BENCH_DIR / "decisions.md"
QUICK_RESULTS = BASE_DIR / "var" / "bench-results-quick.md"
PROFILES = BASE_DIR / "var" / "bench-profiles"
PLAY_JS = BASE_DIR / "static" / "js" / "play.js"

OTHER_PHONE_TARGET_MS = 1000  # issue #30: a change shows on the other phone within 1 s, p90
LOAD_LIMIT_MS = 200  # players served while 95% of answers take less than this
GROWTH_KEYS = (
    "dashboard",
    "standings",
    "campaign_list",
    "battle_list",
    "battle_list_api",
    "force_page_miss",
    "api_detail_miss",
)
WORKERS_PER_CORE = 3  # 2 x cores + 1, as the Dockerfile runs gunicorn, for one core
WORKERS = 2 * (os.cpu_count() or 1) + 1


@dataclass(frozen=True, slots=True)
class Plan:
    runs: int  # in-process runs, each in a process of its own
    rounds: int
    per_round: int
    warmup: int
    campaign_battles: int  # the measured campaign grown to this
    builder_clicks: int  # per network
    play_cycles: int  # per network: attack, transfer, undo, undo; twice as many on 4G
    watch_seconds: float
    load_seconds: int  # each step of a ramp
    load_steps: int
    table_start: int  # players at the table in a ramp's first step
    builder_start: int


FULL = Plan(3, 4, 5, 3, 5_000, 8, 3, 10, 8, 6, 8, 24)
QUICK = Plan(1, 2, 2, 2, 300, 2, 1, 2, 2, 2, 4, 4)


@dataclass(frozen=True, slots=True)
class ScalePlan:
    users: int
    forces: int
    campaigns: int
    campaign_battles: int
    site_battles: int
    battles_per_campaign: int


SCALE = ScalePlan(10_000, 100_000, 1_000, 5_000, 1_000_000, 30_000)
SCALE_QUICK = ScalePlan(1_000, 10_000, 100, 1_000, 30_000, 10_000)

_started = time.monotonic()
_load_at_start = os.getloadavg()


def say(message: str) -> None:
    print(f"[{time.monotonic() - _started:6.1f}s] {message}", flush=True)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--scale", action="store_true", help="the million-battle run instead")
    parser.add_argument("--profile", action="store_true", help="pyinstrument profiles too")
    parser.add_argument("--skip-load", action="store_true", help="no players-per-core ramp")
    parser.add_argument("--skip-browser", action="store_true", help="no Chromium")
    parser.add_argument("--skip-growth", action="store_true", help="no 5,000-battle campaign")
    parser.add_argument("--keep-db", action="store_true", help="keep dbd_bench afterwards")
    parser.add_argument("--output", type=Path, help="where to write the results")
    args = parser.parse_args(argv)
    if args.profile and importlib.util.find_spec("pyinstrument") is None:
        # Said before the run, not at its end: `make bench` installs it for --profile.
        parser.error(
            "--profile needs pyinstrument: run `make bench BENCH_ARGS=--profile`, which "
            "installs it, or `pip install pyinstrument`"
        )
    return args


# --- figures -------------------------------------------------------------------------------


def kb(size: float) -> str:
    return f"{size / 1024:.1f}"


def ms_pair(values: list[float]) -> str:
    """Median / p90 in whole ms."""
    from bench.browser import percentile

    return f"{statistics.median(values):.0f} / {percentile(values, 90):.0f}"


def mb(size: float) -> str:
    return f"{size / 1_000_000:.1f} MB"


@dataclass(slots=True)
class Measured:
    """One scenario over the in-process runs."""

    label: str
    samples: list[float] = field(default_factory=list)  # ms
    size: int = 0  # bytes sent
    whole: int = 0  # bytes uncompressed
    queries: set[int] = field(default_factory=set)

    def median(self) -> float:
        return statistics.median(self.samples)

    def p90(self) -> float:
        from bench.browser import percentile

        return percentile(self.samples, 90)

    def statements(self) -> str:
        fewest, most = min(self.queries), max(self.queries)
        return str(fewest) if fewest == most else f"{fewest}-{most}"


def measure_runs(plan: Plan, world, keys=None) -> dict[str, Measured]:
    """`plan.runs` runs of the scenarios (all, or `keys`), each in a fresh process."""
    from bench import inprocess

    results: dict[str, Measured] = {}
    for number in range(plan.runs):
        say(f"  run {number + 1}/{plan.runs}, in a fresh process")
        found = inprocess.in_a_fresh_process(
            world, keys or [], rounds=plan.rounds, per_round=plan.per_round, warmup=plan.warmup
        )
        for key, run in found.items():
            m = results.setdefault(key, Measured(run.label))
            m.samples += run.samples
            m.size, m.whole = run.size, run.whole
            m.queries.add(run.queries)
    return results


def server_section(results: dict[str, Measured], plan: Plan, load: str) -> list[str]:
    rows = [
        f"| {m.label} | {m.median():.1f} | {m.p90():.1f} | {m.statements()} | "
        f"{kb(m.size)} ({kb(m.whole)}) |"
        for m in results.values()
    ]
    return [
        "## Server time of each page and edit",
        "",
        "In-process: Django's test client through every middleware, signed in (session in "
        "the database, CSRF checks on), asking for gzip as a browser does, so the time "
        f"includes compressing the answer. {plan.runs} run(s), each in a fresh Python process "
        f"loaded as a gunicorn worker is, of {plan.rounds * plan.per_round} requests per row "
        f"in {plan.rounds} interleaved rounds after {plan.warmup} warm-up requests. "
        "Statements: the SQL one request sends (counted on a request of its own; a range "
        "when runs differ). An edit alternates adding and removing a Medical Kit; 'after an "
        "edit' rows make an untimed edit before each request, so nothing of the new state "
        "is kept yet; the attack is a miss (a 1 entered), so the battle only grows its log. "
        f"Load average meanwhile: {load}.",
        "",
        "| what | median (ms) | p90 (ms) | SQL statements | answer sent, KB (whole) |",
        "| --- | --- | --- | --- | --- |",
        *rows,
        "",
    ]


# --- growth --------------------------------------------------------------------------------


def growth_section(
    small: dict[str, Measured], grown: dict[str, Measured], battles: int, load: str
) -> tuple[list[str], list[str]]:
    """The section, and the keys whose statements grew."""
    rows, grew = [], []
    for key in GROWTH_KEYS:
        if key not in small or key not in grown:
            continue
        before, after = small[key], grown[key]
        same = before.queries == after.queries
        if not same:
            grew.append(before.label)
        rows.append(
            f"| {before.label} | {before.median():.1f} | {after.median():.1f} | "
            f"{after.median() / before.median():.2f}x | {before.statements()} | "
            f"{after.statements()} | {'flat' if same else '**grew**'} |"
        )
    lines = [
        f"## Flat growth: a campaign of 200, then {battles:,} battles",
        "",
        f"`manage.py seed_scale --grow-campaign <the bench campaign> --to-battles {battles}` "
        "(older battles among its three forces, with results, XP, Resources and stored "
        "evaluations brought up to date), `VACUUM ANALYZE`, then the pages that read "
        "campaigns and battles measured again as above. Flat means the same SQL "
        "statements; times are medians and move with the machine's load as much as with "
        f"the data. Load average meanwhile: {load}.",
        "",
        f"| what | 200 battles (ms) | {battles:,} battles (ms) | time | statements, 200 | "
        f"statements, {battles:,} | |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
    ]
    return lines, grew


# --- browser -------------------------------------------------------------------------------


@dataclass(slots=True)
class BrowserFigures:
    builder: dict[str, object] = field(default_factory=dict)  # network -> Figures
    play: dict[str, object] = field(default_factory=dict)  # network -> PlayFigures
    watching: object = None  # Watching, in play, visible
    hidden: object = None  # Watching, hidden


def poll_cadence() -> dict[str, int]:
    """The polling pauses static/js/play.js declares (ms), read from the file itself."""
    text = PLAY_JS.read_text()
    names = ("PLAYING_MS", "PLAYING_FOR_MS", "QUIET_MS", "RESTING_AFTER_MS", "RESTING_MS")
    found = {}
    for name in names:
        match = re.search(rf"var {name} = ([\d\s*]+);", text)
        if match is None:
            raise SystemExit(f"static/js/play.js declares no {name}; bench/__main__.py reads it")
        found[name] = 1
        for factor in match.group(1).split("*"):
            found[name] *= int(factor)
    return found


def browser_phase(plan: Plan, world, phases) -> BrowserFigures:
    """Chromium against gunicorn on loopback, each network in turn."""
    from playwright.sync_api import sync_playwright

    from bench import browser, inprocess, load

    figures = BrowserFigures()
    sessions = {
        who: inprocess.signed_in_client(user_id).cookies["sessionid"].value
        for who, user_id in (("bench", world.user_id), ("rival", world.rival_id))
    }
    log = BASE_DIR / "var" / "bench-gunicorn.log"
    rng = random.Random(12)  # the pauses before each change: the same every run
    with (
        LoadSamplerFor(phases, "browser: Chromium against gunicorn"),
        load.gunicorn(
            _server_env(), workers=WORKERS, log=log, cookie=f"sessionid={sessions['bench']}"
        ) as base,
        sync_playwright() as playwright,
    ):
        chromium = playwright.chromium.launch(
            executable_path=str(browser.CHROMIUM), headless=True, args=browser.CHROMIUM_ARGS
        )
        builder_url = f"{base}/forces/{world.force_id}/members/{world.member_id}/?step=equipment"
        battle_url = f"{base}/play/{world.live_battle_id}/"
        for network in browser.NETWORKS:
            say(f"browser, {network.name}: {plan.builder_clicks} builder edits on a phone")
            phone = browser.open_phone(chromium, base, sessions["bench"], network)
            figures.builder[network.name] = browser.builder_edits(
                phone, builder_url, plan.builder_clicks
            )
            phone.page.context.close()
            say(f"browser, {network.name}: rounds at the battle")
            a = browser.open_phone(chromium, base, sessions["bench"], network)
            b = browser.open_phone(chromium, base, sessions["rival"], network)
            browser.start_play(a, b, battle_url)
            # The target is 4G's p90: twice the rounds there.
            cycles = plan.play_cycles * (2 if network is browser.FOUR_G else 1)
            figures.play[network.name] = browser.play_cycles(a, b, cycles, rng=rng)
            if network is browser.FOUR_G:
                say(f"browser, {network.name}: a phone watching, then hidden")
                figures.watching = browser.watch(b, plan.watch_seconds)
                figures.hidden = browser.watch(b, plan.watch_seconds, hidden=True)
            a.page.context.close()
            b.page.context.close()
        chromium.close()
    return figures


def browser_sections(figures: BrowserFigures, load: str, summary: list) -> list[str]:
    from bench import browser

    networks = [n.name for n in browser.NETWORKS]
    header = "| what | answer, KB sent (whole) | " + " | ".join(
        f"{name}: median / p90 (ms)" for name in networks
    )
    lines = [
        "## Click to updated screen (Chromium)",
        "",
        "Debian's Chromium, headless, against gunicorn on loopback (the bench's PostgreSQL "
        "and Redis, as deployed), each network emulated through the DevTools protocol "
        f"(`Network.emulateNetworkConditions`): {'; '.join(n.words() for n in browser.NETWORKS)}. "
        "From the click (caught before htmx sees it) to the frame after the answer is "
        "swapped in (an animation frame, then a task: laid out and painted). Phones of "
        "390x844. The builder edit removes a Light Shield and adds it back on the equipment "
        "step; the battle is two phones, each its own browser context signed in "
        "as one of the battle's players: A's Mio shoots B's Julius (a 12 entered: a hit), B "
        "moves 1 damage onto Emma (Friendship), B undoes the transfer, A undoes the attack, "
        "each after a random pause of up to a second. Answer: the change's own answer, "
        "received bytes (headers and gzipped body) and the body decoded. Load average "
        f"meanwhile: {load}.",
        "",
        header + " |",
        "| --- | --- | " + " | ".join("---" for _ in networks) + " |",
    ]

    def row(label: str, by_network: dict) -> str:
        first = next(iter(by_network.values()))
        cells = [ms_pair(by_network[name].times) for name in networks]
        return (
            f"| {label} | {kb(statistics.median(first.wire))} "
            f"({kb(statistics.median(first.body))}) | " + " | ".join(cells) + " |"
        )

    lines.append(row("builder edit", figures.builder))
    for kind, label in (
        ("attack", "attack (phone)"),
        ("transfer", "Friendship transfer (phone)"),
        ("undo", "undo (phone)"),
    ):
        lines.append(row(label, {n: figures.play[n].clicks[kind] for n in networks}))
    lines.append("")

    other = {name: figures.play[name].other_phone for name in networks}
    for name in networks:
        p90 = browser.percentile(other[name], 90)
        if name == browser.FOUR_G.name:
            summary.append(
                (
                    f"a change on one phone shown on the other, 4G, p90 <= "
                    f"{OTHER_PHONE_TARGET_MS} ms",
                    f"{p90:.0f} ms",
                    "met" if p90 <= OTHER_PHONE_TARGET_MS else "**missed**",
                )
            )
    lines += [
        "## From one phone to the other",
        "",
        "The same rounds: from the click on the acting phone to the frame on the other "
        "phone that shows the change (its state panel asks for news by itself: every half "
        "second while the battle is being played, `static/js/play.js`).",
        "",
        "| network | changes | median (ms) | p90 (ms) |",
        "| --- | --- | --- | --- |",
        *(
            f"| {name} | {len(other[name])} | {statistics.median(other[name]):.0f} | "
            f"{browser.percentile(other[name], 90):.0f} |"
            for name in networks
        ),
        "",
    ]
    lines += watching_section(figures)
    return lines


def watching_section(figures: BrowserFigures) -> list[str]:
    if figures.watching is None:
        return []
    cadence = poll_cadence()
    four_g = figures.play["4G"]
    poll = statistics.median(four_g.poll_wire)
    change = statistics.median(four_g.changed_poll_wire)
    watching, hidden = figures.watching, figures.hidden
    polls, _ = watching.per_hour()
    round_trip_s = watching.seconds / max(1, watching.polls) - cadence["PLAYING_MS"] / 1000

    def hourly(pause_ms: int, changes: int = 0) -> tuple[float, float]:
        count = 3600 / (pause_ms / 1000 + round_trip_s)
        return count, (count - changes) * poll + changes * change

    playing = hourly(cadence["PLAYING_MS"], 180)
    quiet = hourly(cadence["QUIET_MS"])
    resting = hourly(cadence["RESTING_MS"])
    return [
        "## What a phone watching a battle costs",
        "",
        "The other phone on 4G, its traffic counted by Chromium: request line and headers as "
        "sent, and every byte received (HTTP/1.1 headers and the gzipped body; under HTTP/2 "
        f"the repeated headers cost far less). One poll that finds nothing new: {poll:.0f} "
        f"bytes both ways (a bodyless 304); one that brings a change: {change:.0f} bytes. "
        f"Measured: {watching.seconds:g} s with the page shown and nothing changing, then "
        f"{hidden.seconds:g} s hidden. The rest from those sizes, the measured round trip "
        f"({round_trip_s * 1000:.0f} ms) and the pauses `static/js/play.js` declares.",
        "",
        "| the watching phone | requests an hour | bytes an hour |",
        "| --- | --- | --- |",
        f"| shown, in play, nothing changing (measured) | {polls:,.0f} | "
        f"{mb(watching.per_hour()[1])} |",
        f"| shown, in play, a change every 20 s | {playing[0]:,.0f} | {mb(playing[1])} |",
        f"| shown, quiet for a minute (a poll every {cadence['QUIET_MS'] / 1000:g} s) | "
        f"{quiet[0]:,.0f} | {mb(quiet[1])} |",
        f"| shown, quiet for {cadence['RESTING_AFTER_MS'] // 60000} minutes (every "
        f"{cadence['RESTING_MS'] / 1000:g} s) | {resting[0]:,.0f} | {mb(resting[1])} |",
        f"| hidden (measured) | {hidden.per_hour()[0]:,.0f} | {mb(hidden.per_hour()[1])} |",
        "",
    ]


# --- load ----------------------------------------------------------------------------------


def load_phase(plan: Plan, world, phases) -> dict[str, list]:
    from bench import inprocess, load

    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: `apt-get install wrk` (make bench installs it).")
    players = []
    for player in world.players:
        client = inprocess.signed_in_client(player.user_id)
        urls = inprocess.urls_for(player)
        client.get(urls.force_page)  # sets the CSRF cookie, as a browser's first visit
        players.append(
            {
                "cookie": _cookie(client),
                "csrf": client.cookies["csrftoken"].value,
                "add": urls.edit_add,
                "remove": urls.edit_remove,
                "index": str(player.member_equipment),
                "step": urls.open_step,
                "page": urls.force_page,
                "state": f"/play/{player.battle_id}/state/",
                "act": f"/play/{player.battle_id}/act/",
            }
        )
    pins = load.pinning()
    log = BASE_DIR / "var" / "bench-gunicorn.log"
    ramps: dict[str, list] = {}
    with (
        LoadSamplerFor(phases, "load: players per core"),
        load.gunicorn(
            _server_env(),
            workers=WORKERS_PER_CORE if pins else WORKERS,
            log=log,
            cookie=players[0]["cookie"],
            cpus=pins and pins[0],
        ) as server,
        load.behind_nginx(
            server, log.parent / "bench-nginx", cookie=players[0]["cookie"], cpus=pins and pins[1]
        ) as base,
    ):
        for name, round_, start in (
            ("at the table", load.TABLE_ROUND, plan.table_start),
            ("at the builder", load.BUILDER_ROUND, plan.builder_start),
        ):
            say(f"load: players {name}, {plan.load_seconds} s a step")
            ramps[name] = load.ramp(
                base,
                players,
                round_,
                start=start,
                limit_ms=LOAD_LIMIT_MS,
                seconds=plan.load_seconds,
                warmup=3,
                most_steps=plan.load_steps,
                cpus=pins and pins[1],
                say=say,
            )
    return ramps


def load_section(ramps: dict[str, list], load_words: str, summary: list) -> list[str]:
    from bench import load

    pins = load.pinning()
    where = (
        f"gunicorn ({WORKERS_PER_CORE} sync workers) on CPU {pins[0]}; nginx in front of "
        f"it as deployed (deploy/nginx.conf), wrk, PostgreSQL and Redis on CPU {pins[1]}"
        if pins
        else f"gunicorn ({WORKERS} workers) behind nginx as deployed, unpinned (one core, "
        "or no taskset)"
    )
    lines = [
        "## Players served per core",
        "",
        f"{where}. `wrk` with one connection per player, each player one of the bench's "
        "sixteen (their own session, CSRF token, force and one-off battle), pausing between "
        "requests as a person does: at the table, the phone polls the battle's state every "
        "0.5 s (sending back the ETag it last got) and the player acts every 20 s (a d12); "
        "at the builder, an edit every 10 s with another step opened and the force page "
        "looked at between edits. After 3 s of the first step's players, not counted (the "
        "workers' first answers), each step doubles the players until 95% of answers no "
        f"longer come within {LOAD_LIMIT_MS} ms or one fails, then one step halfway back. "
        f"Load average meanwhile: {load_words}.",
        "",
        "| players | how many at once | req/s | p50 (ms) | p95 (ms) | p99 (ms) | errors |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, steps in ramps.items():
        for step in steps:
            r = step.result
            lines.append(
                f"| {name} | {step.players} | {r.rps:.0f} | {r.p50_ms:.0f} | {r.p95_ms:.0f} | "
                f"{r.p99_ms:.0f} | {r.errors} ({r.error_detail}) |"
            )
        best = load.served(steps, LOAD_LIMIT_MS)
        summary.append(
            (
                f"players {name} served by one core, p95 < {LOAD_LIMIT_MS} ms",
                f"{best.players}" if best else f"fewer than {steps[0].players}",
                "" if best is None or best is not steps[-1] else "(the ramp ended first)",
            )
        )
    return [*lines, ""]


# --- the run -------------------------------------------------------------------------------


class LoadSamplerFor:
    """A `LoadSampler` that records its phase in `phases` when it ends."""

    def __init__(self, phases: list, name: str) -> None:
        from bench.load import LoadSampler

        self.phases, self.name, self.sampler = phases, name, LoadSampler()

    def __enter__(self):
        self.sampler.__enter__()
        return self.sampler

    def __exit__(self, *exc) -> None:
        self.sampler.__exit__(*exc)
        self.phases.append((self.name, self.sampler.summary()))


def machine_lines(database_url: str) -> list[str]:
    import django
    import gunicorn

    from bench.load import wrk_version
    from bench.world import server_version

    cpu = "unknown CPU"
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f", {int(line.split()[1]) / 1024 / 1024:.0f} GiB RAM"
                break
    except OSError:
        pass
    return [
        f"- Machine: {cpu}, {os.cpu_count()} cores{memory}; {platform.platform()}",
        f"- Python {platform.python_version()}, Django {django.get_version()}, "
        f"PostgreSQL {server_version(database_url)}, "
        f"Redis {os.environ.get('BENCH_REDIS_VERSION', '?')}, gunicorn {gunicorn.__version__}, "
        f"{wrk_version()}",
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    database_url = (
        os.environ.get("BENCH_DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/dbd_bench"
    )
    from bench import world as bench_world

    # The cache the site is deployed with (docker-compose.yml: REDIS_URL), on a Redis
    # database of the bench's own.
    redis_url = os.environ.get("BENCH_REDIS_URL") or bench_world.DEFAULT_REDIS_URL
    redis_version = bench_world.empty_redis(redis_url)
    static_root = tempfile.mkdtemp(prefix="dbd-bench-static-")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        BENCH_DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        BENCH_REDIS_VERSION=redis_version,
        BENCH_STATIC_ROOT=static_root,
        SECRET_KEY=secrets.token_urlsafe(50),  # throw-away; gunicorn gets the same one
        DEBUG="0",
    )
    say(f"creating {database_url}")
    bench_world.create_database(database_url)
    try:
        world, phases = setup()
        if args.scale:
            output = args.output or (QUICK_RESULTS if args.quick else SCALE_RESULTS)
            text = scale_run(SCALE_QUICK if args.quick else SCALE, world, phases, database_url)
        else:
            output = args.output or (QUICK_RESULTS if args.quick else RESULTS)
            text = run(args, QUICK if args.quick else FULL, world, phases, database_url)
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text.rstrip() + "\n")
        say(f"wrote {output}")
        print(text)
        return 0
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep_db:
            say(f"kept {database_url}")
        else:
            bench_world.drop_database(database_url)
            say("dropped the bench database")
        bench_world.empty_redis(redis_url)
        shutil.rmtree(static_root, ignore_errors=True)


def setup():
    import django

    django.setup()
    from django.core.management import call_command

    from bench import world as bench_world

    phases: list[tuple[str, str]] = []
    with LoadSamplerFor(phases, "set-up: migrate, rules, static files, the world"):
        say("migrate, loaddata rules, collectstatic")
        call_command("migrate", verbosity=0)
        call_command("loaddata", "rules", verbosity=0)
        call_command("collectstatic", "--noinput", verbosity=0)
        say("building the bench's world")
        world = bench_world.build()
        analyse()
    # The site as gunicorn loads it (its WSGI module, which also freezes what loading made
    # out of the garbage collector's walks).
    import dbd_site.wsgi  # noqa: F401

    return world, phases


def run(args: argparse.Namespace, plan: Plan, world, phases, database_url: str) -> str:
    from django.core.management import call_command

    from bench import inprocess

    summary: list[tuple[str, str, str]] = []  # (what, figure, remark)
    sections: list[str] = []

    say(f"server time: {plan.runs} runs in fresh processes")
    with LoadSamplerFor(phases, "server time, in-process") as sampler:
        small = measure_runs(plan, world)
    sections += server_section(small, plan, sampler.summary())
    if args.profile:
        client = inprocess.signed_in_client(world.user_id)
        written = inprocess.profile(
            inprocess.scenarios(client, world), requests=50, directory=PROFILES
        )
        say(f"profiles: {', '.join(str(p) for p in written)}")

    if not args.skip_browser:
        figures = browser_phase(plan, world, phases)
        sections += browser_sections(figures, phases[-1][1], summary)

    if not args.skip_load:
        ramps = load_phase(plan, world, phases)
        sections += load_section(ramps, phases[-1][1], summary)

    if not args.skip_growth:
        say(f"grow the measured campaign to {plan.campaign_battles:,} battles")
        with LoadSamplerFor(phases, f"growth: the campaign to {plan.campaign_battles:,}"):
            call_command(
                "seed_scale",
                grow_campaign=world.campaign_id,
                to_battles=plan.campaign_battles,
                stdout=_Say(),
            )
            analyse()
            again = dataclasses.replace(plan, runs=max(1, plan.runs - 1))
            grown = measure_runs(again, world, keys=[k for k in GROWTH_KEYS if k in small])
        lines, grew = growth_section(small, grown, plan.campaign_battles, phases[-1][1])
        sections += lines
        summary.append(
            (
                f"campaign 200 -> {plan.campaign_battles:,} battles: SQL statements of its pages",
                "the same" if not grew else f"grew: {', '.join(grew)}",
                "flat" if not grew else "**not flat**",
            )
        )

    return page(
        title="What players feel",
        command=f"make bench` (`python -m bench{' --quick' if args.quick else ''}",
        database_url=database_url,
        phases=phases,
        summary=summary,
        glance=glance(small),
        sections=sections,
        decisions=True,
    )


def glance(small: dict[str, Measured]) -> list[tuple[str, str, str]]:
    """The headline rows of server time."""
    rows = []
    for key in ("builder_edit", "play_attack", "play_poll", "battle_page", "force_page_miss"):
        if key in small:
            m = small[key]
            rows.append(
                (
                    f"server time: {m.label}",
                    f"{m.median():.1f} / {m.p90():.1f} ms (median / p90)",
                    f"{m.statements()} SQL statements; {kb(m.size)} KB sent",
                )
            )
    return rows


def page(
    *,
    title: str,
    command: str,
    database_url: str,
    phases: list,
    summary: list,
    glance: list,
    sections: list[str],
    decisions: bool,
) -> str:
    header = [
        f"# {title}",
        "",
        f"`{command}`), {time.strftime('%Y-%m-%d %H:%M %Z')}, "
        f"{time.monotonic() - _started:.0f} s in all.",
        "",
        *machine_lines(database_url),
        f"- Load average (1 min) at the start {_load_at_start[0]:.2f}, at the end "
        f"{os.getloadavg()[0]:.2f}, and during each phase below. **The machine is shared**: "
        "above its core count every figure is slower and noisier than on a machine of its "
        "own; read each with the load average beside it.",
        "- Settings: `bench.settings` = `dbd_site.settings` with DEBUG off, a throw-away "
        "SECRET_KEY, the `dbd_bench` PostgreSQL database (made and dropped by the run), "
        "hashed static files, API throttle rates no run reaches, `/bench/floor/` added, "
        "and the site's cache as deployed (Redis, on the bench's own database "
        f"`{os.environ['REDIS_URL']}`, emptied before and after).",
        "",
        "## At a glance",
        "",
        "| what | figure | |",
        "| --- | --- | --- |",
        *(f"| {what} | {figure} | {remark} |" for what, figure, remark in summary + glance),
        "",
        "| phase | load average (1 min): min-max (mean) |",
        "| --- | --- |",
        *(f"| {phase} | {figure} |" for phase, figure in phases),
        "",
    ]
    text = "\n".join(header + sections)
    if decisions and DECISIONS.exists():
        text += "\n" + DECISIONS.read_text()
    return text


# --- scale ---------------------------------------------------------------------------------


def scale_run(plan: ScalePlan, world, phases, database_url: str) -> str:
    """The site grown to a million battles of each kind in three steps, the campaign and
    battle pages measured after each: bench/results-scale.md."""
    from django.core.management import call_command

    measure_plan = Plan(3, 4, 6, 5, 0, 0, 0, 0, 0, 0, 0, 0)
    keys = ["floor", *GROWTH_KEYS]
    steps: list[tuple[str, tuple[int, int], dict[str, Measured]]] = []

    def measure(name: str) -> None:
        with LoadSamplerFor(phases, f"in-process, {name}"):
            steps.append((name, battles_on_site(), measure_runs(measure_plan, world, keys=keys)))

    def seed(what: str, command: str = "seed_scale", **options) -> float:
        say(what)
        started = time.perf_counter()
        with LoadSamplerFor(phases, what):
            call_command(command, stdout=_Say(), **options)
            analyse()
        return time.perf_counter() - started

    measure("small database")
    seeded = seed(
        f"scale seed: {plan.users:,} users, {plan.forces:,} forces, {plan.campaigns:,} campaigns",
        users=plan.users,
        forces=plan.forces,
        campaigns=plan.campaigns,
    )
    measure("scale seed")
    grown = seed(
        f"grow the measured campaign to {plan.campaign_battles:,} battles",
        grow_campaign=world.campaign_id,
        to_battles=plan.campaign_battles,
    )
    measure(f"campaign of {plan.campaign_battles:,} battles")
    site = seed(
        f"grow the site to {plan.site_battles:,} battles",
        site_battles=plan.site_battles,
        battles_per_campaign=plan.battles_per_campaign,
        prefix="site",
    )
    tables = seed(
        f"grow the site to {plan.site_battles:,} table battles",
        command="seed_table_battles",
        battles=plan.site_battles,
    )
    measure(f"site of {plan.site_battles:,} battles of each kind")
    labels = steps[0][2]
    rows = []
    for key in keys:
        cells = [
            f"{found[key].median():.1f} ms, {found[key].statements()} SQL" for _, _, found in steps
        ]
        rows.append(f"| {labels[key].label} | " + " | ".join(cells) + " |")
    sections = [
        "## The same pages as the site grows",
        "",
        f"Four steps into one database, each followed by `VACUUM ANALYZE` and {measure_plan.runs} "
        "in-process runs (as `make bench` times its server rows): the bench's small world; "
        f"`manage.py seed_scale --users {plan.users} --forces {plan.forces} --campaigns "
        f"{plan.campaigns}` ({seeded:.0f} s); the bench campaign grown to "
        f"{plan.campaign_battles:,} battles ({grown:.0f} s); `--site-battles "
        f"{plan.site_battles} --battles-per-campaign {plan.battles_per_campaign}` (long "
        f"campaigns of three forces, {site:.0f} s) and `manage.py seed_table_battles "
        f"--battles {plan.site_battles}` ({tables:.0f} s). Each cell: median time and the SQL "
        "statements of one request; flat means the statements stay the same.",
        "",
        "| what | "
        + " | ".join(f"{name} ({_battles(on_site)})" for name, on_site, _ in steps)
        + " |",
        "| --- | " + " | ".join("---" for _ in steps) + " |",
        *rows,
        "",
    ]
    grew = [
        labels[key].label
        for key in GROWTH_KEYS
        if len({frozenset(found[key].queries) for _, _, found in steps}) > 1
    ]
    summary = [
        (
            "SQL statements of the campaign and battle pages, small site -> "
            f"{plan.site_battles:,} battles of each kind",
            "the same" if not grew else f"grew: {', '.join(grew)}",
            "flat" if not grew else "**not flat**",
        )
    ]
    return page(
        title="The site at a million battles",
        command="make bench-scale` (`python -m bench --scale",
        database_url=database_url,
        phases=phases,
        summary=summary,
        glance=[],
        sections=sections,
        decisions=False,
    )


def battles_on_site() -> tuple[int, int]:
    """(recorded campaign battles, battles played at the table) on the site."""
    from campaign.models import Battle
    from play.models import Battle as TableBattle

    return Battle.objects.count(), TableBattle.objects.count()


def _battles(on_site: tuple[int, int]) -> str:
    return f"{on_site[0]:,} battles, {on_site[1]:,} at the table"


def analyse() -> None:
    """VACUUM ANALYZE, as autovacuum leaves a database that has settled: statistics for
    the planner, and visibility maps for index-only scans."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def _cookie(client) -> str:
    """What a browser sends back: the session, and the CSRF cookie its pages set."""
    return "; ".join(f"{name}={client.cookies[name].value}" for name in ("sessionid", "csrftoken"))


def _server_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}


class _Say:
    """A stdout for call_command that prints through `say`."""

    def write(self, text: str) -> None:
        for line in text.splitlines():
            if line.strip():
                say(line.rstrip())

    def flush(self) -> None:
        pass


if __name__ == "__main__":
    sys.exit(main())
