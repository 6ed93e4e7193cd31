"""Click to updated DOM in Chromium, and what an idle battle watcher costs the server.

The clicks are measured by the browser tests that already drive those pages
(`tests/browser/test_pages_ux.py` for a builder edit, `tests/browser/test_play_flow.py`
for an attack roll on the battle screen): from the click, caught before htmx sees it, to
`htmx:afterSwap`, and to the next frame after it. They print `[measure]` lines and assert
no time; this runs them in a
pytest of their own (SQLite, as `make test` runs them) and reads the lines back.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
MEASURING_TESTS = (
    "tests/browser/test_pages_ux.py::test_builder_edits_measured_click_to_updated_dom",
    "tests/browser/test_play_flow.py::test_attack_rolls_measured_click_to_updated_dom",
)
LINE = re.compile(
    r"\[measure\] (?P<view>[\w-]+): (?P<what>.+?) click-to-DOM median (?P<median>\d+) ms, "
    r"p90 (?P<p90>\d+) ms; to the next frame median (?P<frame>\d+) ms, p90 (?P<frame_p90>\d+) ms"
)
# (view, what, median ms, p90 ms, next frame's median ms, its p90 ms)
Click = tuple[str, str, int, int, int, int]
CLICK_TARGET_MS = 50  # issue #14: click to updated DOM, median, in Chromium
POLL_SECONDS = 1  # the battle screen's state panel: hx-trigger="every 1s"


def click_to_dom() -> list[Click]:
    """The figures the measuring browser tests print; [] without Chromium."""
    if not CHROMIUM.exists():
        return []
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "browser", "-p", "no:randomly", "-s", "-q",
         *MEASURING_TESTS],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    return read_clicks(done.stdout)


def read_clicks(printed: str) -> list[Click]:
    numbers = ("median", "p90", "frame", "frame_p90")
    return [(m["view"], m["what"], *(int(m[k]) for k in numbers)) for m in LINE.finditer(printed)]


def click_rows(measured: list[Click]) -> list[str]:
    return [
        f"| {what} | {view} | {median} | {p90} | "
        f"{'met' if median <= CLICK_TARGET_MS else '**missed**'} | {frame} | {frame_p90} |"
        for view, what, median, p90, frame, frame_p90 in measured
    ]


def watcher_line(poll_ms: float) -> str:
    """An idle watcher polls once a second and is answered 304 (no body)."""
    per_minute = 60 // POLL_SECONDS
    return (
        f"An idle battle watcher sends {per_minute} requests a minute (the state panel polls "
        f"every {POLL_SECONDS} s) and is answered `304` with no body: at the poll's median "
        f"{poll_ms:.2f} ms that is {per_minute * poll_ms:.0f} ms of server time per watcher "
        "per minute."
    )
