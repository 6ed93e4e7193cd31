"""The site's own table: rate-limit counters, for a deployment without Redis.

`dbd_site.rate_limits` reads and writes it with one SQL statement per request (an upsert
that increments in place), never through the ORM's read-then-save: that is what makes the
count exact when many workers count the same client at once.
"""

from django.db import models

from dbd_site.rate_limits import COUNTER_TABLE, MAX_KEY


class RateCounter(models.Model):
    """One client's requests in one window of one limit (`dbd_site.rate_limits`)."""

    bucket = models.CharField(max_length=MAX_KEY, primary_key=True)
    hits = models.PositiveBigIntegerField()
    # When the window ends, in milliseconds since the epoch: plain integers compare the
    # same way in every database, with no time zone to convert.
    ends_ms = models.BigIntegerField(db_index=True)

    class Meta:
        db_table = COUNTER_TABLE

    def __str__(self) -> str:
        return f"{self.bucket}: {self.hits}"
