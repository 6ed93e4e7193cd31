"""`python -m bench` (`make bench`): measure, then write bench/results.md.

Every figure is a median of many runs in one process, reported with its spread (p10-p90),
and pages are given as ratios to the floor measured in the same run, so machine noise
cancels. Nothing here asserts a time; the targets are reported as met or missed.

Steps: a fresh PostgreSQL database (`dbd_bench`: migrate, rules, collectstatic into a
temporary directory), the engine, the small database in-process, load under gunicorn
and wrk on loopback, then the scale seed (`manage.py seed_scale`) and the in-process
figures again. The database is dropped at the end (`--keep-db` keeps it).

    python -m bench               the full run (4-5 minutes on 2 cores)
    python -m bench --quick       a short smoke run, written to var/bench-results-quick.md
    python -m bench --profile     also pyinstrument profiles into var/bench-profiles/
"""

import argparse
import os
import platform
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
BASE_DIR = BENCH_DIR.parent
RESULTS = BENCH_DIR / "results.md"
FINDINGS = BENCH_DIR / "findings.md"
QUICK_RESULTS = BASE_DIR / "var" / "bench-results-quick.md"
PROFILES = BASE_DIR / "var" / "bench-profiles"

# Ratio targets from the issue ("Hardening and measurement").
FLOOR_TARGETS = {"htmx_edit": 2.0, "api_detail": 2.0}
LOAD_THROUGHPUT_TARGET = 0.5  # the force page's req/s, as a share of the floor's
LOAD_TAIL_TARGET = 5.0  # p99 / p50
WORKERS = 2 * (os.cpu_count() or 1) + 1  # as the Dockerfile runs gunicorn
# Scale target: each page's multiple of the floor at scale over the same at small size, so
# whatever else the machine does between the two phases cancels (as the floor's own raw
# scale / small ratio shows, it is not small after seeding 100,000 forces).
SCALE_TARGET = 1.5


@dataclass(frozen=True, slots=True)
class Plan:
    engine_runs: tuple[int, int]
    rounds: int
    per_round: int
    warmup: int
    load_seconds: int
    connections: int
    users: int
    forces: int
    campaigns: int


FULL = Plan((3000, 1000), 20, 15, 20, 30, 32, 10_000, 100_000, 1_000)
QUICK = Plan((300, 100), 4, 5, 5, 5, 32, 1_000, 10_000, 100)

_started = time.monotonic()
_load_at_start = os.getloadavg()


def say(message: str) -> None:
    print(f"[{time.monotonic() - _started:6.1f}s] {message}", flush=True)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--profile", action="store_true", help="pyinstrument profiles too")
    parser.add_argument("--skip-load", action="store_true", help="no gunicorn/wrk")
    parser.add_argument("--skip-scale", action="store_true", help="no scale seed")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="SCENARIO",
        help="leave an in-process scenario out (e.g. dashboard); may repeat",
    )
    parser.add_argument("--keep-db", action="store_true", help="keep dbd_bench afterwards")
    parser.add_argument("--output", type=Path, help="where to write the results")
    args = parser.parse_args(argv)
    if "floor" in args.skip:
        parser.error("the floor is what every page is measured against; it cannot be skipped")
    return args


# --- engine ------------------------------------------------------------------------------


def _timings_us(func: Callable[[], object], *, runs: int, warmup: int = 50) -> list[float]:
    for _ in range(warmup):
        func()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        func()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def engine_rows(plan: Plan) -> list[str]:
    from bench.forces import full_force, twenty_members
    from roster.engine import evaluate
    from rules.loader import get_catalogue

    catalogue = get_catalogue()
    full, twenty = full_force(), twenty_members()
    for document in (full, twenty):
        evaluation = evaluate(document, catalogue)
        if evaluation.malformed:
            raise SystemExit(f"bench document is malformed: {evaluation.malformed}")
    rows = []
    for label, document, runs in (
        ("full force (6 students + mentor)", full, plan.engine_runs[0]),
        ("20-member document", twenty, plan.engine_runs[1]),
    ):
        samples = _timings_us(lambda d=document: evaluate(d, catalogue), runs=runs)
        deciles = statistics.quantiles(samples, n=10)
        median = statistics.median(samples)
        rows.append(f"| {label} | {median:.0f} | {deciles[0]:.0f}-{deciles[-1]:.0f} | {runs} |")
        say(f"  engine, {label}: median {median:.0f} µs")
    return rows


# --- report helpers ----------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


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
        f"PostgreSQL {server_version(database_url)}, gunicorn {gunicorn.__version__}, "
        f"{wrk_version()}",
    ]


def stats_cell(stats) -> tuple[str, str]:
    return f"{stats.median:.2f}", f"{stats.p10:.2f}-{stats.p90:.2f}"


def inprocess_table(results: dict, labels: dict[str, str]) -> tuple[list[str], dict[str, bool]]:
    floor = results["floor"].median
    lines = [
        "| what | median (ms) | p10-p90 (ms) | x floor | target | |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    met: dict[str, bool] = {}
    for key, stats in results.items():
        median, spread = stats_cell(stats)
        ratio = stats.median / floor
        target = FLOOR_TARGETS.get(key)
        if target is not None:
            met[key] = ratio <= target
            goal, mark = f"<= {target:g}x", verdict(met[key])
        else:
            goal, mark = "", ""
        lines.append(f"| {labels[key]} | {median} | {spread} | {ratio:.2f} | {goal} | {mark} |")
    return lines, met


# --- the run -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    plan = QUICK if args.quick else FULL
    output = args.output or (QUICK_RESULTS if args.quick else RESULTS)

    database_url = (
        os.environ.get("BENCH_DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/dbd_bench"
    )
    static_root = tempfile.mkdtemp(prefix="dbd-bench-static-")
    os.environ.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        BENCH_DATABASE_URL=database_url,
        BENCH_STATIC_ROOT=static_root,
        SECRET_KEY=secrets.token_urlsafe(50),  # throw-away; gunicorn gets the same one
        DEBUG="0",
    )
    from bench import world as bench_world

    say(f"creating {database_url}")
    bench_world.create_database(database_url)
    try:
        return run(args, plan, output, database_url)
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep_db:
            say(f"kept {database_url}")
        else:
            bench_world.drop_database(database_url)
            say("dropped the bench database")
        shutil.rmtree(static_root, ignore_errors=True)


def run(args: argparse.Namespace, plan: Plan, output: Path, database_url: str) -> int:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from bench import inprocess
    from bench import world as bench_world
    from bench.forces import full_force

    say("migrate, loaddata rules, collectstatic")
    call_command("migrate", verbosity=0)
    call_command("loaddata", "rules", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)

    sections: list[str] = []
    summary: list[tuple[str, str, str]] = []  # (target, figure, verdict)

    say("engine")
    sections += [
        "## Engine",
        "",
        "`roster.engine.evaluate`, in-process, no database.",
        "",
        "| what | median (µs) | p10-p90 (µs) | runs |",
        "| --- | --- | --- | --- |",
        *engine_rows(plan),
        "",
    ]

    say("building the small database")
    world = bench_world.build()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as the scale database is, so the two compare
    client = inprocess.signed_in_client(world.user_id)
    chosen = [
        s for s in inprocess.scenarios(client, world, full_force()) if s.key not in args.skip
    ]
    if "dashboard" not in args.skip and "dashboard" not in {s.key for s in chosen}:
        say("no campaign:dashboard URL: the dashboard row is left out")
        args.skip.append("dashboard (no campaign:dashboard URL)")
    labels = {s.key: s.label for s in chosen}
    samples = plan.rounds * plan.per_round
    say(f"in-process, small database: {len(chosen)} scenarios x {samples} requests")
    small = inprocess.measure(
        chosen, rounds=plan.rounds, per_round=plan.per_round, warmup=plan.warmup, say=say
    )
    table, met = inprocess_table(small, labels)
    for key, ok in met.items():
        ratio = small[key].median / small["floor"].median
        summary.append(
            (f"{labels[key]} <= {FLOOR_TARGETS[key]:g}x floor", f"{ratio:.2f}x", verdict(ok))
        )
    skipped = f" Skipped: {', '.join(args.skip)}." if args.skip else ""
    sections += [
        "## In-process, small database",
        "",
        f"Django's test client through the full handler and middleware, signed in (session "
        f"in the database, CSRF checks on), {samples} requests each in {plan.rounds} "
        f"interleaved rounds after {plan.warmup} warm-up requests; time around each "
        f"`client.get/post`. The htmx edit alternates adding and removing a medical kit on "
        f"the first member (`equipment-add` / `equipment-remove` with `HX-Request`), each "
        f"answered with the step that changed, and the member's card, the force's status and "
        f"the notice out of band. After an edit the page refreshes each other step as it "
        f"comes into view; the step refresh row is one such GET (the purchases step), for the "
        f"cost a player's next scroll adds.{skipped}",
        "",
        *table,
        "",
    ]
    if args.profile:
        written = inprocess.profile(chosen, requests=50, directory=PROFILES / "small")
        say(f"profiles: {', '.join(str(p) for p in written)}")

    # What a browser sends back: the session, and the CSRF cookie its pages set.
    cookie = "; ".join(
        f"{name}={client.cookies[name].value}" for name in ("sessionid", "csrftoken")
    )
    targets = load_targets(world)
    small_load = None
    if not args.skip_load:
        lines, small_load = load_section(plan, cookie, targets, summary)
        sections += lines

    if not args.skip_scale:
        sections += scale_section(args, plan, chosen, labels, small, summary)
        if small_load is not None:
            sections += scale_load_section(plan, cookie, targets, small_load)

    connection.close()
    header = [
        "# Benchmarks",
        "",
        f"`make bench` (`python -m bench{' --quick' if args.quick else ''}`), "
        f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {time.monotonic() - _started:.0f} s in all.",
        "",
        *machine_lines(database_url),
        f"- Load average (1 min) at the start {_load_at_start[0]:.2f}, at the end "
        f"{os.getloadavg()[0]:.2f}: anything else running on the machine shows up as "
        "spread (p10-p90), and cancels in the ratios only as far as it is even.",
        "- Settings: `bench.settings` = `dbd_site.settings` with DEBUG off, a throw-away "
        "SECRET_KEY, the `dbd_bench` PostgreSQL database (made and dropped by the run), "
        "Django's ManifestStaticFilesStorage (collectstatic into a temporary directory; "
        "WhiteNoise's compressed variant only adds .gz/.br files, which no measured page "
        "serves), API throttle rates no run reaches, and `/bench/floor/` added to the URLs.",
        "",
        "## Targets",
        "",
        "| target | figure | |",
        "| --- | --- | --- |",
        *(f"| {target} | {figure} | {mark} |" for target, figure, mark in summary),
        "",
    ]
    text = "\n".join(header + sections)
    if FINDINGS.exists():
        text += "\n" + FINDINGS.read_text()
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text.rstrip() + "\n")
    say(f"wrote {output}")
    print(text)
    return 0


def load_targets(world) -> list[tuple[str, str, str]]:
    from django.urls import reverse

    return [
        ("floor", "floor", "/bench/floor/"),
        ("force_page", "force page", reverse("roster:detail", args=[world.force_id])),
        ("api_detail", "roster API detail", f"/api/v1/rosters/{world.force_id}/"),
    ]


def run_load(plan: Plan, cookie: str, targets, *, seconds: int) -> dict:
    """gunicorn up, a warm-up and a measured wrk run per URL, gunicorn down."""
    from bench import load

    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: `apt-get install wrk` (make bench installs it).")
    log = BASE_DIR / "var" / "bench-gunicorn.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    say(
        f"load: gunicorn with {WORKERS} workers, wrk {plan.connections} connections, "
        f"{seconds} s per URL"
    )
    results = {}
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    with load.gunicorn(env, workers=WORKERS, log=log, cookie=cookie) as base:
        for _, _, path in targets:
            load.check(base + path, cookie)
            # Warm every worker (catalogue, templates, connections) before measuring.
            load.run_wrk(
                "warm-up",
                base + path,
                cookie,
                seconds=2,
                connections=plan.connections,
                say=lambda _: None,
            )
        for key, label, path in targets:
            results[key] = load.run_wrk(
                label, base + path, cookie, seconds=seconds, connections=plan.connections, say=say
            )
    return results


def load_section(plan: Plan, cookie: str, targets, summary) -> tuple[list[str], dict]:
    results = run_load(plan, cookie, targets, seconds=plan.load_seconds)
    floor_rps = results["floor"].rps
    lines = [
        "## Load",
        "",
        f"gunicorn `dbd_site.wsgi` with `DJANGO_SETTINGS_MODULE=bench.settings`, {WORKERS} "
        f"sync workers (2 x cores + 1), no access log, on 127.0.0.1; `wrk -t2 "
        f"-c{plan.connections} -d{plan.load_seconds}s --latency --timeout 10s` per URL with "
        "the bench player's session and CSRF cookies (as a browser sends them), one URL "
        "after another (after a 2 s warm-up "
        "each). wrk runs on the same 2 cores as the server. Errors: socket errors, "
        "timeouts and any answer but 200.",
        "",
        "| URL | req/s | x floor | p50 (ms) | p90 (ms) | p99 (ms) | p99/p50 | errors |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, label, path in targets:
        r = results[key]
        lines.append(
            f"| {label} `{path}` | {r.rps:.0f} | {r.rps / floor_rps:.2f} | {r.p50_ms:.1f} | "
            f"{r.p90_ms:.1f} | {r.p99_ms:.1f} | {r.p99_ms / r.p50_ms:.1f} | "
            f"{r.errors} ({r.error_detail}) |"
        )
    share = results["force_page"].rps / floor_rps
    summary.append(
        (
            f"load: force page req/s >= {LOAD_THROUGHPUT_TARGET:.0%} of the floor's",
            f"{share:.0%}",
            verdict(share >= LOAD_THROUGHPUT_TARGET),
        )
    )
    for key, label, _ in targets:
        r = results[key]
        tail = r.p99_ms / r.p50_ms
        summary.append(
            (
                f"load: {label} p99 <= {LOAD_TAIL_TARGET:g}x p50",
                f"{tail:.1f}x",
                verdict(tail <= LOAD_TAIL_TARGET),
            )
        )
        summary.append((f"load: {label} errors = 0", str(r.errors), verdict(r.errors == 0)))
    return [*lines, ""], results


def scale_load_section(plan: Plan, cookie: str, targets, small_load: dict) -> list[str]:
    seconds = max(5, plan.load_seconds // 3)
    results = run_load(plan, cookie, targets, seconds=seconds)
    lines = [
        "### Load at scale",
        "",
        f"The same load runs against the scale database, {seconds} s per URL (shorter, to "
        "keep `make bench` within its time): for comparison, not targets.",
        "",
        "| URL | req/s | req/s scale / small | p50 (ms) | p99 (ms) | p99 scale / small | errors |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, label, path in targets:
        r, before = results[key], small_load[key]
        lines.append(
            f"| {label} `{path}` | {r.rps:.0f} | {r.rps / before.rps:.2f} | {r.p50_ms:.1f} | "
            f"{r.p99_ms:.1f} | {r.p99_ms / before.p99_ms:.2f} | {r.errors} ({r.error_detail}) |"
        )
    return [*lines, ""]


def scale_section(args, plan: Plan, chosen, labels, small, summary) -> list[str]:
    from django.core.management import call_command
    from django.db import connection

    from bench import inprocess

    say(
        f"scale: seeding {plan.users:,} users, {plan.forces:,} forces, "
        f"{plan.campaigns:,} campaigns"
    )
    started = time.perf_counter()
    call_command(
        "seed_scale",
        users=plan.users,
        forces=plan.forces,
        campaigns=plan.campaigns,
        stdout=_Say(),
    )
    seeded = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    say(f"  seeded and analysed in {seeded:.0f} s")
    samples = plan.rounds * plan.per_round
    say(f"in-process, scale database: {len(chosen)} scenarios x {samples} requests")
    scale = inprocess.measure(
        chosen, rounds=plan.rounds, per_round=plan.per_round, warmup=plan.warmup, say=say
    )
    if args.profile:
        written = inprocess.profile(chosen, requests=50, directory=PROFILES / "scale")
        say(f"profiles: {', '.join(str(p) for p in written)}")
    lines = [
        "## Scale",
        "",
        f"`manage.py seed_scale --users {plan.users} --forces {plan.forces} --campaigns "
        f"{plan.campaigns}` into the same database after the figures above (bulk COPY; "
        f"{seeded:.0f} s with `ANALYZE`), then the same in-process requests as the same "
        "player. Each seeded campaign has 4 players, 4 campaign forces and 10 confirmed "
        "battles; freeform forces have 4 or 5 members.",
        "",
        "| what | small (ms) | scale (ms) | scale p10-p90 (ms) | raw scale / small | "
        "x floor (small) | x floor (scale) | scale / small, in floors | target | |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    floor = scale["floor"].median
    small_floor = small["floor"].median
    for key, stats in scale.items():
        raw = stats.median / small[key].median
        ratio = (stats.median / floor) / (small[key].median / small_floor)
        ok = ratio <= SCALE_TARGET
        lines.append(
            f"| {labels[key]} | {small[key].median:.2f} | {stats.median:.2f} | "
            f"{stats.p10:.2f}-{stats.p90:.2f} | {raw:.2f} | "
            f"{small[key].median / small_floor:.2f} | {stats.median / floor:.2f} | "
            f"{ratio:.2f} | <= {SCALE_TARGET:g} | {verdict(ok)} |"
        )
        summary.append(
            (
                f"scale: {labels[key]} within {SCALE_TARGET:g}x of small",
                f"{ratio:.2f}x",
                verdict(ok),
            )
        )
    return [*lines, ""]


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
