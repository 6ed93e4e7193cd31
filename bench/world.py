"""The benchmark database: created and dropped by the bench, and what it holds.

The small database is one signed-in player ("bench") with the full force of
`bench.forces` (six busy students and a mentor), and a campaign they organise with two
rivals: three campaign forces and 200 battles (197 confirmed, 3 waiting for the bench
player to confirm), written in bulk as `tests/campaign` does and then brought up to date
(XP, Resources, stored evaluations) through the services' own functions; a battle of
the campaign is being played between the bench player and "ria" (the two phones of the
browser phase). Fifteen more players ("player01".. "player15") have a full force each; every
load player (the bench player too) also has a one-off battle between two forces of their
own, for the load test's players at the table.
"""

import datetime
from dataclasses import dataclass
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

BENCH_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/dbd_bench"
START_HINT = (
    "Is PostgreSQL running? On Debian: "
    "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
)


def _admin_connection(url: str) -> tuple[psycopg.Connection, str]:
    """A connection to the server's maintenance database, and the bench database's name."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    if not name.startswith("dbd_bench"):
        raise SystemExit(
            f"Refusing to recreate '{name}': the bench database's name starts dbd_bench."
        )
    try:
        connection = psycopg.connect(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or 5432,
            user=parts.username or "postgres",
            password=parts.password,
            dbname="postgres",
            autocommit=True,
            connect_timeout=5,
        )
    except psycopg.OperationalError as exc:
        raise SystemExit(f"Cannot reach PostgreSQL for {url}: {exc}\n{START_HINT}") from exc
    return connection, name


def create_database(url: str) -> None:
    connection, name = _admin_connection(url)
    with connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_database(url: str) -> None:
    connection, name = _admin_connection(url)
    with connection:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


# The bench's own Redis database (the site's deployments use 0): emptied before and after.
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/15"


def empty_redis(url: str) -> str:
    """Empties the bench's Redis database and gives the server's version."""
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=5)
    try:
        client.flushdb()
        return str(client.info("server")["redis_version"])
    except redis.RedisError as exc:
        raise SystemExit(
            f"Cannot reach Redis at {url}: {exc}\nIs it running? redis-server --daemonize yes"
        ) from exc
    finally:
        client.close()


def server_version(url: str) -> str:
    connection, _ = _admin_connection(url)
    with connection:
        return connection.execute("SHOW server_version").fetchone()[0]


@dataclass(frozen=True, slots=True)
class Player:
    """A player of the load test: their own full force and the member they edit."""

    user_id: int
    force_id: int
    member_id: int
    member_equipment: int  # how many pieces of equipment the edited member has
    battle_id: int = 0  # a one-off battle between two forces of their own


@dataclass(frozen=True, slots=True)
class World:
    user_id: int
    force_id: int
    member_id: int
    member_equipment: int  # how many pieces of equipment the edited member has
    campaign_id: int
    battles: int
    players: tuple[Player, ...]  # the load test's players, the bench player first
    live_battle_id: int = 0  # a battle being played (play mode), the bench player's side first
    rival_id: int = 0  # the live battle's other player ("ria")

    @classmethod
    def from_dict(cls, data: dict) -> "World":
        """The world `dataclasses.asdict` wrote (to a process of its own, `bench.one_run`)."""
        players = tuple(Player(**player) for player in data["players"])
        return cls(**(data | {"players": players}))


BATTLES = 200
PENDING = 3
LOAD_PLAYERS = 16


def _player(user, force) -> Player:
    """A load player: their full force, and a battle of their own against a second one."""
    from bench.forces import full_force
    from play import services as play_services
    from roster import services as roster_services

    member = force.members.order_by("position").first()
    second = roster_services.import_force(owner=user, document=full_force())
    battle = play_services.start_battle(
        by=user, forces=[force, second], scenario=f"{user.get_username()} at the table"
    )
    return Player(user.pk, force.pk, member.pk, len(member.equipment), battle.pk)


def build() -> World:
    """Migrate-and-load is done; fill the small database."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from bench.forces import full_force
    from campaign import services as campaign_services
    from campaign.management.commands.seed_scale import Side, bulk_battles
    from play import services as play_services
    from roster import services as roster_services
    from roster.demo import demo_force
    from roster.models import Force, Member

    users = get_user_model()
    with transaction.atomic():
        player = users.objects.create_user("bench", password=None)
        rivals = [users.objects.create_user(name, password=None) for name in ("ria", "rob")]
        force = roster_services.import_force(owner=player, document=full_force())
        member = force.members.order_by("position").first()

        campaign = campaign_services.create_campaign(organiser=player, name="Bench League")
        campaign_forces = []
        for user in (player, *rivals):
            if user is not player:
                campaign_services.join_campaign(user=user, token=campaign.invite_token)
            original = roster_services.import_force(owner=user, document=demo_force())
            campaign_forces.append(
                campaign_services.enter_force(campaign=campaign, player=user, force=original)
            )
        # The rivals play the pending battles' first seats, so they wait for the bench player.
        order = [campaign_forces[1], campaign_forces[0], campaign_forces[2]]
        sides = [
            Side(cf, cf.player_id, list(Member.objects.filter(force_id=cf.force_id)))
            for cf in order
        ]
        earned = bulk_battles(
            campaign,
            sides,
            confirmed=BATTLES - PENDING,
            pending=PENDING,
            last_played=timezone.localdate() - datetime.timedelta(days=1),
            rules=campaign.house_rules,
        )
        for cf in campaign_forces:
            xp, _ = earned[cf.pk]
            Member.objects.filter(force_id=cf.force_id).update(xp=xp)
            # Resources follow the ledger (cost + balance) under the campaign's policy.
            roster_services.refresh(force=Force.objects.get(pk=cf.force_id))
        live = play_services.start_battle(
            by=player,
            forces=[Force.objects.get(pk=cf.force_id) for cf in campaign_forces[:2]],
            scenario="Bench Duel",
            campaign=campaign,
        )
        players = [_player(player, force)]
        for number in range(1, LOAD_PLAYERS):
            user = users.objects.create_user(f"player{number:02d}", password=None)
            players.append(
                _player(user, roster_services.import_force(owner=user, document=full_force()))
            )
    return World(
        user_id=player.pk,
        force_id=force.pk,
        member_id=member.pk,
        member_equipment=len(member.equipment),
        campaign_id=campaign.pk,
        battles=BATTLES,
        live_battle_id=live.pk,
        rival_id=rivals[0].pk,
        players=tuple(players),
    )
