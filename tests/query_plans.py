"""What PostgreSQL's plans read: the rows each table's scans touch when queries run under
`EXPLAIN ANALYZE`. The bounded-read tests hold a page's reads to its own rows with these,
timing nothing."""

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext


def rows_read(plan: dict[str, Any]) -> Counter:
    """{table: rows its scans read} in one EXPLAIN ANALYZE plan: returned plus filtered
    out, times the scan's loops."""
    found: Counter = Counter()
    relation = plan.get("Relation Name")
    if relation:
        per_loop = (
            plan.get("Actual Rows", 0)
            + plan.get("Rows Removed by Filter", 0)
            + plan.get("Rows Removed by Index Recheck", 0)
        )
        found[relation] += per_loop * plan.get("Actual Loops", 1)
    for child in plan.get("Plans", []):
        found += rows_read(child)
    return found


def read_by(call: Callable[[], Any]) -> Counter:
    """{table: rows read} summed over every query `call` runs, each explained again."""
    with CaptureQueriesContext(connection) as captured:
        call()
    total: Counter = Counter()
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + query["sql"])
            (plan,) = cursor.fetchone()
            plan = plan if isinstance(plan, list) else json.loads(plan)
            total += rows_read(plan[0]["Plan"])
    return total


def reads_beyond_own(
    reads: dict[str, Callable[[], Any]], own: dict[str, int]
) -> dict[tuple[str, str], tuple[int, int]]:
    """{(read, table): (rows read, own rows)} for every read that touched more of a table
    in `own` than a few times its own rows (an index probe per row, say): none, when the
    reads are bounded by what they show."""
    over = {}
    for name, read in reads.items():
        read_rows = read_by(read)
        for table, mine in own.items():
            if read_rows[table] > 3 * mine + 10:
                over[(name, table)] = (read_rows[table], mine)
    return over
