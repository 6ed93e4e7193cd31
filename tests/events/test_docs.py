"""docs/events.md says what the code does: every kind of event, the retry schedule, and
where the worker runs (`make run`, docker-compose)."""

import re
import subprocess
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
    assert compose["services"]["worker"]["command"][:2] == ["sh", "-c"]


def compose_worker_runs(tmp_path: Path, tasks_queue_url: str) -> str:
    """What docker-compose's worker service runs, given TASKS_QUEUE_URL: its command line
    run by `sh`, with a `python` that prints its arguments."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    line = compose["services"]["worker"]["command"][2].replace("$$", "$")  # compose's escape
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho "$@"\n')
    fake.chmod(0o755)
    environ = {"PATH": f"{tmp_path}:/usr/bin:/bin", "TASKS_QUEUE_URL": tasks_queue_url}
    done = subprocess.run(["sh", "-c", line], env=environ, capture_output=True, text=True)
    return done.stdout.strip()


def test_the_compose_worker_runs_the_queue_the_settings_name(tmp_path):
    assert compose_worker_runs(tmp_path, "") == "manage.py db_worker --no-reload --queue-name *"
    assert compose_worker_runs(tmp_path, "redis://queue:6379/0") == (
        "manage.py rqworker --with-scheduler --job-class django_tasks_rq.Job default"
    )
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert services["queue"]["profiles"] == ["rq"]
    for name in ("web", "worker"):
        assert services[name]["environment"]["TASKS_QUEUE_URL"] == "${TASKS_QUEUE_URL:-}"
