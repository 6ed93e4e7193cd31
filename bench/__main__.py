"""`python -m bench`: measure the engine and write bench/results.md.

Medians of many runs in one process; machine noise is reported as the spread
(p10-p90) beside each median rather than hidden.
"""

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

RESULTS = Path(__file__).with_name("results.md")


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dbd_site.settings")
    os.environ.setdefault("DEBUG", "1")
    os.environ["DATABASE_URL"] = "sqlite://:memory:"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("loaddata", "rules", verbosity=0)


def _timings_us(func: Callable[[], object], *, runs: int, warmup: int = 50) -> list[float]:
    for _ in range(warmup):
        func()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        func()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def _row(name: str, samples: list[float]) -> str:
    deciles = statistics.quantiles(samples, n=10)
    median = statistics.median(samples)
    return f"| {name} | {median:.0f} | {deciles[0]:.0f}-{deciles[-1]:.0f} | {len(samples)} |"


def main() -> int:
    _setup_django()
    from bench.forces import full_force, twenty_members
    from roster.engine import evaluate
    from rules.loader import get_catalogue

    catalogue = get_catalogue()
    full, twenty = full_force(), twenty_members()
    for document in (full, twenty):
        evaluation = evaluate(document, catalogue)
        if evaluation.malformed:
            print(evaluation.malformed, file=sys.stderr)
            return 1
    rows = [
        _row(
            "engine: full force (6 students + mentor)",
            _timings_us(lambda: evaluate(full, catalogue), runs=3000),
        ),
        _row(
            "engine: 20-member document",
            _timings_us(lambda: evaluate(twenty, catalogue), runs=1000),
        ),
    ]
    text = "\n".join(
        [
            "# Benchmarks",
            "",
            f"Python {platform.python_version()} on {platform.machine()}, "
            f"{os.cpu_count()} cores; `make bench`, {time.strftime('%Y-%m-%d')}.",
            "",
            "| what | median (µs) | p10-p90 (µs) | runs |",
            "| --- | --- | --- | --- |",
            *rows,
            "",
        ]
    )
    RESULTS.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
