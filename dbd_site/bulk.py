"""Rows in bulk, for the commands that seed scale data for the bench (`seed_scale`,
`seed_table_battles`): COPY on PostgreSQL, `bulk_create` elsewhere.

Only the seeding commands use this: the site's own writes go through the apps' services.
"""

import json
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.db.models import CharField, Field, ForeignKey, IntegerField, JSONField, Model
from django.utils import timezone

T = TypeVar("T")
M = TypeVar("M", bound=Model)


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _copy_value(field: "Field[Any, Any]", value: Any, dumped: dict[int, tuple[Any, str]]) -> Any:
    """A value as COPY's text format takes it. JSON is dumped once per distinct object
    (copied members share their template's lists); plain integers and strings go as
    they are; anything else is prepared by its field, as `bulk_create` would."""
    if value is None:
        return None
    if isinstance(field, JSONField) and field.encoder is None:
        key = id(value)
        if key not in dumped:
            dumped[key] = (value, json.dumps(value))  # keep `value` alive: ids stay unique
        return dumped[key][1]
    if type(value) is int and isinstance(field, IntegerField | ForeignKey):
        return value
    if type(value) is str and isinstance(field, CharField):
        return value
    return field.get_db_prep_save(value, connection)


def insert(objects: Sequence[M], *, batch_size: int = 2000) -> Sequence[M]:
    """Save new model instances in bulk and set their primary keys.

    On PostgreSQL the rows go in with COPY (keys drawn from the table's sequence first),
    several times faster than `bulk_create` for rows full of JSON; elsewhere (SQLite in
    the tests) this is `bulk_create`. Field defaults, auto_now and related objects are
    handled as `bulk_create` handles them.
    """
    if not objects:
        return objects
    model = type(objects[0])
    if connection.vendor != "postgresql":
        return model.objects.bulk_create(objects, batch_size=batch_size)
    meta = model._meta
    for obj in objects:
        obj._prepare_related_fields_for_save(operation_name="bulk_create")
    quote = connection.ops.quote_name
    keyless = [obj for obj in objects if obj.pk is None]
    fields = meta.concrete_fields
    columns = ", ".join(quote(field.column) for field in fields)
    dumped: dict[int, tuple[Any, str]] = {}
    with connection.cursor() as cursor:
        if keyless:
            for obj, pk in zip(keyless, reserve_ids(model, len(keyless)), strict=True):
                obj.pk = pk
        with cursor.cursor.copy(f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN") as copy:
            for obj in objects:
                copy.write_row([_copy_value(f, f.pre_save(obj, True), dumped) for f in fields])
    for obj in objects:
        obj._state.adding = False
        obj._state.db = connection.alias
    return objects


def reserve_ids(model: type[Model], n: int) -> list[int]:
    """`n` new primary keys from the table's sequence (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [model._meta.db_table, model._meta.pk.column, n],
        )
        return [pk for (pk,) in cursor.fetchall()]


def copy_rows(model: type[Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Plain rows (tuples in `columns`' order) into `model`'s table with COPY (PostgreSQL)."""
    quote = connection.ops.quote_name
    names = ", ".join(quote(c) for c in columns)
    with connection.cursor() as cursor:
        statement = f"COPY {quote(model._meta.db_table)} ({names}) FROM STDIN"
        with cursor.cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(row)


class Seeding:
    """One seeding run: the prefix of its users' names, its batch size, and what it has
    added so far, reported as it goes."""

    def __init__(self, *, prefix: str, batch_size: int, out: Any) -> None:
        self.prefix = prefix
        self.batch_size = batch_size
        self.out = out
        self.counts: dict[str, int] = {}

    def say(self, message: str) -> None:
        self.out.write(message)
        self.out.flush()

    def progress(self, what: str, done: int, total: int) -> None:
        """A line at about every tenth of the way, and at the end."""
        step = max(1, total // 10)
        if done == total or done // step != (done - 1) // step:
            self.say(f"  {what}: {self.counts[what]:,} ({done / total:.0%} of this step)")

    def count(self, what: str, n: int) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def users(self, n: int) -> list[int]:
        """`n` new users named '<prefix>-000000' on; they cannot log in (one random
        password, hashed once and not kept)."""
        users = get_user_model()
        password = make_password(secrets.token_urlsafe(24))
        now = timezone.now()
        ids: list[int] = []
        for chunk in batched(range(n), self.batch_size):
            created = insert(
                [
                    users(username=f"{self.prefix}-{i:06d}", password=password, date_joined=now)
                    for i in chunk
                ],
                batch_size=self.batch_size,
            )
            ids += [u.pk for u in created]
        self.count("users", n)
        return ids


S = TypeVar("S", bound=Seeding)


def copy_in(mode: str, seeding: S, work: Callable[[S], int]) -> tuple[int, float]:
    """Run a COPY growth mode (`mode`, for messages) in one transaction, under users of its
    own prefix; returns what `work` added and the seconds it took."""
    if connection.vendor != "postgresql":
        raise CommandError(f"{mode} writes with COPY: PostgreSQL only.")
    if get_user_model().objects.filter(username__startswith=f"{seeding.prefix}-").exists():
        raise CommandError(
            f"Users named '{seeding.prefix}-...' exist already; choose another --prefix."
        )
    started = time.perf_counter()
    with transaction.atomic():
        with connection.cursor() as cursor:
            # The rows are made consistent here, and checking each of millions of
            # foreign keys one by one at COMMIT took most of the time.
            cursor.execute("SET LOCAL session_replication_role = replica")
        added = work(seeding)
    return added, time.perf_counter() - started
