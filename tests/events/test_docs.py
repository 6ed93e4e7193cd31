"""docs/events.md says what the code does: every kind of event, the retry schedule, and
where the worker runs (`make run`, docker-compose)."""

import re
from datetime import timedelta
from pathlib import Path

import yaml
from django.conf import settings

from events import delivery
from events.kinds import KINDS

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "events.md").read_text()


def test_every_kind_is_documented_with_its_data():
    section = DOCS[DOCS.index("## Events") : DOCS.index("## The feed")]
    kinds_table, data_table = section.split("| Kind | `data` |")
    assert re.findall(r"^\| `([a-z-]+)`", kinds_table, re.M) == list(KINDS)  # in order
    first_cells = re.findall(r"^\| ([^|]+) \|", data_table, re.M)
    described = [kind for cell in first_cells for kind in re.findall(r"`([a-z-]+)`", cell)]
    assert sorted(described) == sorted(KINDS)  # and each kind's data, once


def test_the_retry_table_is_the_schedule():
    table = DOCS[DOCS.index("| Try | After the previous one |") :].split("\n\n")[0]
    waits = re.findall(r"^\| (\d) \| ([^|]+) \|", table, re.M)
    assert [int(n) for n, _ in waits] == list(range(1, settings.WEBHOOK_MAX_TRIES + 1))

    def words(wait: timedelta) -> str:
        hours, rest = divmod(int(wait.total_seconds()), 3600)
        minutes, seconds = divmod(rest, 60)
        parts = [f"{hours} h" * bool(hours), f"{minutes} min" * bool(minutes)]
        return " ".join(p for p in parts if p) or f"{seconds} s"

    documented = [w.split(" (")[0].strip() for _, w in waits[1:]]
    assert documented == [words(delivery.backoff(n)) for n in range(1, len(waits))]


def test_make_run_and_docker_compose_run_the_worker():
    makefile = (ROOT / "Makefile").read_text()
    run = makefile[makefile.index("\nrun:") : makefile.index("\n\n", makefile.index("\nrun:"))]
    assert "db_worker" in run
    assert "trap" in run  # stopped with the server
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert compose["services"]["worker"]["command"][:3] == ["python", "manage.py", "db_worker"]
