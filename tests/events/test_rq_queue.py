"""Deliveries through the Redis queue (`TASKS_QUEUE_URL`: django-tasks-rq, RQ): what
`TASKS_QUEUE_URL` switches on, and a webhook delivered and retried by RQ's own worker,
run in this process in burst mode (what `manage.py rqworker --burst` runs), against the
Redis of 127.0.0.1:6379 (CI starts it), in a database number of its own.

RQ holds a retry in its scheduled-job registry until its time, and the scheduler of the
worker (`--with-scheduler`) moves it to the queue once that time has come. Here the
scheduler's clock is set to the retry's time, so nothing sleeps. One test runs the
documented `manage.py rqworker` command itself, in a process of its own.
"""

import json
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import django_rq
import pytest
import rq.scheduler
from django.db import connection
from django.test import override_settings
from django_tasks_rq import Job
from redis.exceptions import ConnectionError as RedisConnectionError
from rq import SimpleWorker
from rq.registry import ScheduledJobRegistry

from events import delivery, kinds, services
from events.models import Delivery, Webhook
from tests.events.test_delivery import documented_verify, tries

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
QUEUE_URL = "redis://127.0.0.1:6379/14"
RQ_SETTINGS = {
    "TASKS": {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}},
    "RQ_QUEUES": {"default": {"URL": QUEUE_URL}},
}


@pytest.fixture
def rq_queue():
    """The RQ backend on Redis database 14, its queue empty at the start and the end of
    the test. The suite's processes (pytest-xdist) share that database: one such test
    runs at a time, under a lock in it."""
    with override_settings(**RQ_SETTINGS):
        queue = django_rq.get_queue("default", job_class=Job)
        try:
            queue.connection.ping()
        except RedisConnectionError:
            pytest.skip("no Redis at 127.0.0.1:6379 (CI starts one)")
        with queue.connection.lock("dbd-tests:rq-queue", timeout=300):
            forget_rq(queue.connection)
            yield queue
            forget_rq(queue.connection)


def forget_rq(redis) -> None:
    """Every key RQ keeps (queues, jobs, registries, workers): all begin with `rq:`."""
    keys = list(redis.scan_iter("rq:*"))
    if keys:
        redis.delete(*keys)


def work(queue, monkeypatch=None, clock=None) -> None:
    """One burst of RQ's worker in this process: the scheduler first (at `clock`, a
    Unix time, when given), then every job queued, then it stops."""
    if clock is not None:
        monkeypatch.setattr(rq.scheduler, "current_timestamp", lambda: clock)
    worker = SimpleWorker([queue], connection=queue.connection, job_class=Job)
    kept = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        worker.work(burst=True, with_scheduler=True)
    finally:  # the worker takes over Ctrl-C and SIGTERM: give them back to pytest
        for number, handler in kept.items():
            signal.signal(number, handler)


def retry_times(queue) -> list[int]:
    registry = ScheduledJobRegistry(queue=queue)
    return [
        int(registry.get_scheduled_time(job_id).timestamp()) for job_id in registry.get_job_ids()
    ]


def test_a_delivery_queued_in_redis_is_run_by_the_rq_worker(
    alice, receiver, rq_queue, django_capture_on_commit_callbacks
):
    hook = services.create_webhook(user=alice, url=receiver.url, kinds=[kinds.FORCE_CHANGED])
    with django_capture_on_commit_callbacks(execute=True):
        [event] = services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7, data={"name": "R"})
    assert (rq_queue.count, receiver.received) == (1, [])  # queued in Redis, not yet run
    work(rq_queue)
    [(headers, body)] = receiver.received
    assert json.loads(body) == services.event_json(event)
    assert documented_verify()(hook.secret, headers["DBD-Signature"], body)
    made = Delivery.objects.get()
    assert (made.status, made.attempts, [t[2] for t in tries(made)]) == ("delivered", 1, [200])
    assert (rq_queue.count, retry_times(rq_queue)) == (0, [])


def wait_after_last_try(made: Delivery) -> timedelta:
    """How long after its last try the delivery's next one is due."""
    made.refresh_from_db()
    return made.next_attempt_at - tries(made)[-1][1]


def test_failed_tries_are_retried_by_rq_with_backoff(alice, receiver, rq_queue, monkeypatch):
    """Each retry waits in RQ's scheduled registry for its `next_attempt_at` (30 s after
    the first try, 2 min after the second): a second before, the worker runs nothing; at
    its time, it makes the try."""
    receiver.statuses = [503, 500, 200]
    services.create_webhook(user=alice, url=receiver.url, kinds=[kinds.FORCE_CHANGED])
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    made = Delivery.objects.get()
    delivery.enqueue(made.pk)
    work(rq_queue)
    for number, wait in ((1, timedelta(seconds=30)), (2, timedelta(minutes=2))):
        assert (wait_after_last_try(made), made.status, rq_queue.count) == (wait, "pending", 0)
        due = int(made.next_attempt_at.timestamp())
        assert retry_times(rq_queue) == [due]
        work(rq_queue, monkeypatch, clock=due - 1)
        assert (len(receiver.received), retry_times(rq_queue)) == (number, [due])
        work(rq_queue, monkeypatch, clock=due)
    made.refresh_from_db()
    assert (made.status, [t[2] for t in tries(made)]) == ("delivered", [503, 500, 200])
    assert (len(receiver.received), rq_queue.count, retry_times(rq_queue)) == (3, 0, [])


def test_a_deleted_hook_leaves_its_queued_retry_nothing_to_send(
    alice, receiver, rq_queue, monkeypatch
):
    receiver.statuses = [503]
    hook = services.create_webhook(user=alice, url=receiver.url, kinds=[kinds.FORCE_CHANGED])
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)
    delivery.enqueue(Delivery.objects.get().pk)
    work(rq_queue)
    [due] = retry_times(rq_queue)
    Webhook.objects.filter(pk=hook.pk).delete()
    work(rq_queue, monkeypatch, clock=due)
    assert (len(receiver.received), rq_queue.count, retry_times(rq_queue)) == (1, 0, [])


def database_url() -> str:
    """The test database as a DATABASE_URL, for a process of the site's own."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@pytest.mark.django_db(transaction=True)  # the worker's process reads what this one wrote
def test_the_documented_rqworker_command_delivers(alice, receiver, rq_queue):
    """`manage.py rqworker --with-scheduler --job-class django_tasks_rq.Job default`, as
    docs/operations.md gives it (with `--burst`, to stop when the queue is empty), run
    by the site's settings with TASKS_QUEUE_URL: RQ's forking worker makes the try."""
    hook = services.create_webhook(user=alice, url=receiver.url, kinds=[kinds.FORCE_CHANGED])
    services.emit(kinds.FORCE_CHANGED, [alice.pk], force_id=7)  # queued as it commits
    assert rq_queue.count == 1
    environ = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "RELEASE")}
    environ |= {
        "DJANGO_SETTINGS_MODULE": "dbd_site.settings",
        "DEBUG": "1",  # loopback receivers allowed, as in `make run`
        "DATABASE_URL": database_url(),
        "TASKS_QUEUE_URL": QUEUE_URL,
    }
    command = "rqworker --burst --with-scheduler --job-class django_tasks_rq.Job default"
    done = subprocess.run(
        [sys.executable, "manage.py", *command.split()],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    [(headers, body)] = receiver.received
    assert documented_verify()(hook.secret, headers["DBD-Signature"], body)
    made = Delivery.objects.get()
    assert (made.status, made.attempts, rq_queue.count) == ("delivered", 1, 0)


# --- the switch -------------------------------------------------------------------------

PRINT_TASKS = """
import json
import django
django.setup()
from django.conf import settings
from django.core.checks import run_checks
print(json.dumps({
    "tasks": settings.TASKS,
    "rq_queues": getattr(settings, "RQ_QUEUES", None),
    "apps": [a for a in settings.INSTALLED_APPS if "rq" in a or "tasks" in a],
    "problems": [str(m) for m in run_checks() if m.is_serious()],
}))
"""


def site_settings(**env: str) -> dict:
    """The tasks settings a fresh process reads from `env`, and its serious checks."""
    environ = {k: v for k, v in os.environ.items() if k != "TASKS_QUEUE_URL"}
    environ |= {"DJANGO_SETTINGS_MODULE": "dbd_site.settings", "DEBUG": "1", **env}
    done = subprocess.run(
        [sys.executable, "-c", PRINT_TASKS], cwd=ROOT, env=environ, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_database_queue_is_the_default():
    assert site_settings() == {
        "tasks": {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
        "rq_queues": None,
        "apps": ["django_tasks", "django_tasks_db"],
        "problems": [],
    }


def test_tasks_queue_url_puts_the_queue_in_redis():
    assert site_settings(TASKS_QUEUE_URL=QUEUE_URL) == {
        "tasks": {"default": {"BACKEND": "django_tasks_rq.RQBackend", "QUEUES": ["default"]}},
        "rq_queues": {"default": {"URL": QUEUE_URL}},
        "apps": ["django_tasks", "django_tasks_db", "django_rq", "django_tasks_rq"],
        "problems": [],
    }


def test_a_tasks_queue_url_that_is_not_redis_stops_the_site():
    environ = {**os.environ, "DJANGO_SETTINGS_MODULE": "dbd_site.settings", "DEBUG": "1"}
    environ["TASKS_QUEUE_URL"] = "postgres://user:hunter2@db/queue"
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "TASKS_QUEUE_URL must be a Redis URL" in done.stderr
    assert "hunter2" not in done.stderr
