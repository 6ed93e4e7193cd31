"""`manage.py seed_table_battles --battles N`: finished table battles between seeded players, fast,
for the scale benchmark's growth step (`python -m bench`).

Battles and their two sides go in with COPY (PostgreSQL, `dbd_site.bulk`),
until the site holds N table battles. Each seeded player (one per
`BATTLES_PER_PLAYER` battles) meets many opponents. Their figures and logs are left out:
only the sides' players could open them, and seeded players cannot log in (their password
is random and not kept); a list of battles reads neither.
"""

import datetime
import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from dbd_site.bulk import Seeding, batched, copy_in, copy_rows, reserve_ids
from play import table
from play.models import Battle, BattleSide, new_spectator_token

BATTLE_COLUMNS = (
    "id",
    "scenario",
    "status",
    "spectator_token",
    "entered_rolls_allowed",
    "version",
    "state",
    "created_at",
    "updated_at",
    "created_by_id",
)
SIDE_COLUMNS = ("battle_id", "position", "player_id", "force_name")
BATTLES_PER_PLAYER = 100
ENDED = Battle.Status.ENDED.value


def table_battles(seeder: Seeding, total: int) -> int:
    """Finished battles between seeded players until the site holds `total`, the latest
    with the highest id; returns how many were added."""
    added = total - Battle.objects.count()
    if added <= 0:
        return 0
    players = seeder.users(max(2, added // BATTLES_PER_PLAYER))
    state = json.dumps(table.state.new_state({}))  # no figures: they are left out
    now = timezone.now()
    for chunk in batched(range(added), seeder.batch_size * 10):
        battles, sides = [], []
        for number, battle_id in zip(chunk, reserve_ids(Battle, len(chunk)), strict=True):
            first = number % len(players)
            # Another player each time round: an offset of 1 to len - 1, never 0.
            second = (first + 1 + (number // len(players)) % (len(players) - 1)) % len(players)
            at = now - datetime.timedelta(minutes=added - number)
            scenario = f"Table battle {number + 1}"
            token, creator = new_spectator_token(), players[first]
            battles.append((battle_id, scenario, ENDED, token, True, 1, state, at, at, creator))
            for position, seat in enumerate((first, second)):
                sides.append((battle_id, position, players[seat], f"Club {seat + 1}"))
        copy_rows(Battle, BATTLE_COLUMNS, battles)
        copy_rows(BattleSide, SIDE_COLUMNS, sides)
        seeder.count("table battles", len(chunk))
        seeder.progress("table battles", chunk[-1] + 1, added)
    return added


class Command(BaseCommand):
    help = (
        "Add finished table battles between seeded players until the site holds N "
        "(PostgreSQL, for `python -m bench`). Seeded users cannot log in."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--battles", type=int, required=True, help="Table battles on the site afterwards."
        )
        parser.add_argument(
            "--prefix", default="table", help="Seeded usernames are '<prefix>-000001'."
        )
        parser.add_argument("--batch-size", type=int, default=2_000)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1.")
        seeding = Seeding(
            prefix=options["prefix"], batch_size=options["batch_size"], out=self.stdout
        )
        added, seconds = copy_in(
            "seed_table_battles",
            seeding,
            lambda seeding: table_battles(seeding, options["battles"]),
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {added:,} table battles ({Battle.objects.count():,} on the site) "
                f"in {seconds:.1f} s."
            )
        )
