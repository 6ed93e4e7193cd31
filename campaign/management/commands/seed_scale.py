"""`manage.py seed_scale`: many users, forces and campaigns, fast, for the scale benchmark.

Everything is written with bulk inserts in batches, inside one transaction:

- users share one password hash (made once; the password itself is random and thrown
  away, so nobody can log in as a seeded user);
- a handful of template forces are saved through `roster.services` (so the engine
  evaluates them); every other force copies a template's members, and its stored
  evaluation is the template's, computed once per distinct content;
- each campaign has players, a campaign copy of a force per player, the Resources ledger
  (R15), confirmed battles with every member's results and XP (R16) and the campaign log.
  A campaign force's members carry the XP of their battles and its Resources are cost plus
  balance, as `campaign.services` keeps them (the standings' tallies too, recounted once
  the rows are in); its evaluation is computed once per distinct
  (template, XP, Resources) and reused.

Every stored evaluation equals what the engine says for that force's content
(`tests/test_bench_smoke.py` checks a sample). `bench` seeds 10,000 users, 100,000 forces
and 1,000 campaigns with it.

Two more modes, each on its own, for the scale benchmark's growth steps:

- `--grow-campaign ID --to-battles N` adds confirmed battles to one campaign among its
  active forces (older than its own, so its latest battles stay the latest) until it has
  N, with results, XP, Resources and stored evaluations brought up to date;
- `--site-battles N` adds long campaigns of `--battles-per-campaign` battles among three
  forces each until the site holds N battles: the shape that once made the standings read
  the whole battle table (few forces with thousands of battles each). On PostgreSQL the
  battles, their forces and ledger rows go in with COPY from plain tuples (a million
  battles in a few minutes); members' results and the log are left out for these, since
  no page reads another campaign's, and the forces' XP and Resources stay as entered.

`play`'s `seed_table_battles` grows the site's table battles with the same helpers.
"""

import copy
import datetime
import time
from argparse import ArgumentParser
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaign import progression
from campaign.models import (
    Battle,
    BattleForce,
    BattleMemberResult,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
)
from campaign.progression import HouseRules
from campaign.tallies import recount_battles_played, recount_standings
from dbd_site.bulk import Seeding, batched, copy_in, copy_rows, insert, reserve_ids
from roster import engine
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.demo import demo_force
from roster.models import Force, Member
from rules.loader import get_catalogue

# Member fields copied from a template member (everything but the keys).
COPIED_FIELDS = tuple(
    f.attname for f in Member._meta.concrete_fields if f.name not in ("id", "force")
)


def template_documents() -> list[dict[str, Any]]:
    """Four legal forces (R10, R11 at 50 Resources) of four or five members."""
    demo = demo_force()
    by_name = {m["name"]: m for m in demo["members"]}

    def force(name: str, *members: str, **renamed: str) -> dict[str, Any]:
        chosen = []
        for member in members:
            copied = copy.deepcopy(by_name[renamed.get(member, member)])
            copied["name"] = member
            chosen.append(copied)
        return {**demo, "name": name, "members": chosen}

    return [
        demo,
        force("Four Friends", "Emma", "Julius", "Kenji", "Mio"),
        force(
            "Robotics Regiment",
            "Kenji",
            "Mio",
            "Ms Tanaka",
            "Aiko",
            "Hana",
            Aiko="Mio",
            Hana="Kenji",
        ),
        force("The Archers", "Emma", "Julius", "Kenji", "Hana", "Ms Tanaka", Hana="Kenji"),
    ]


def battle_schedule(forces: int, battles: int) -> list[tuple[int, int, str]]:
    """`battles` pairings of `forces` forces, round the table: (first, second, first's
    outcome). Each time round the table, the first seats get the next outcome: win,
    loss, draw, win, ... so every force wins, draws and loses."""
    outcomes = ("win", "loss", "draw")
    return [(b % forces, (b + 1) % forces, outcomes[(b // forces) % 3]) for b in range(battles)]


OTHER_SIDE = {"win": "loss", "draw": "draw", "loss": "win"}


@dataclass(slots=True)
class Side:
    """A campaign force as the battle rows need it."""

    campaign_force: CampaignForce
    player_id: int
    members: Sequence[Member]


def bulk_battles(
    campaign: Campaign,
    sides: Sequence[Side],
    *,
    confirmed: int,
    pending: int = 0,
    last_played: datetime.date,
    rules: HouseRules,
    batch_size: int = 2000,
) -> dict[int, tuple[int, int]]:
    """Battle rows for one campaign as `campaign.services` would leave them: confirmed
    battles with their results, XP awarded, ledger entries and log; pending ones with
    results awaiting confirmation. Returns {campaign force pk: (XP per member, Resources
    earned)} from the confirmed battles; the caller brings members and forces up to date.

    Long because each battle's rows (battle, sides, results, ledger, log) are made together,
    as the services make them.
    """
    schedule = battle_schedule(len(sides), confirmed + pending)
    now = timezone.now()
    battles = []
    for number, (first, second, outcome) in enumerate(schedule):
        is_confirmed = number < confirmed
        winner = {"win": first, "loss": second}.get(outcome)
        battles.append(
            Battle(
                campaign=campaign,
                played_on=last_played - datetime.timedelta(days=len(schedule) - 1 - number),
                scenario=f"Battle {number + 1}",
                status=Battle.Status.CONFIRMED if is_confirmed else Battle.Status.PENDING,
                recorded_by_id=sides[first].player_id,
                confirmed_by_id=sides[second].player_id if is_confirmed else None,
                confirmed_at=now if is_confirmed else None,
                winner=sides[winner].campaign_force if winner is not None else None,
                created_at=now,
            )
        )
    insert(battles, batch_size=batch_size)
    totals = {side.campaign_force.pk: [0, 0] for side in sides}
    battle_forces, results, ledger, events = [], [], [], []
    for battle, (first, second, outcome) in zip(battles, schedule, strict=True):
        is_confirmed = battle.status == Battle.Status.CONFIRMED
        for index, side_outcome in ((first, outcome), (second, OTHER_SIDE[outcome])):
            side = sides[index]
            battle_force = BattleForce(
                battle=battle, campaign_force=side.campaign_force, outcome=side_outcome
            )
            battle_forces.append(battle_force)
            xp = progression.xp_earned(
                enemies_out_of_action=0, objectives=0, side_won=side_outcome == "win", rules=rules
            )
            results += [
                BattleMemberResult(
                    battle_force=battle_force,
                    member=member,
                    member_name=member.name,
                    xp_awarded=xp if is_confirmed else 0,
                )
                for member in side.members
            ]
            if is_confirmed:
                amount = progression.resources_earned(side_outcome, rules)
                totals[side.campaign_force.pk][0] += xp
                totals[side.campaign_force.pk][1] += amount
                ledger.append(
                    LedgerEntry(
                        campaign=campaign,
                        campaign_force=side.campaign_force,
                        amount=amount,
                        kind=LedgerEntry.Kind.BATTLE,
                        reason=f"{side_outcome.title()}: {battle.scenario} "
                        f"({battle.played_on.isoformat()})",
                        battle=battle,
                        created_by_id=battle.confirmed_by_id,
                        created_at=now,
                    )
                )
        events.append(
            CampaignEvent(
                campaign=campaign,
                actor_id=battle.recorded_by_id,
                kind=CampaignEvent.Kind.BATTLE_RECORDED,
                message=f"{battle.scenario} ({battle.played_on.isoformat()}) was recorded.",
                data={"battle": battle.pk},
                created_at=now,
            )
        )
        if is_confirmed:
            events.append(
                CampaignEvent(
                    campaign=campaign,
                    actor_id=battle.confirmed_by_id,
                    kind=CampaignEvent.Kind.BATTLE_CONFIRMED,
                    message=f"{battle.scenario} ({battle.played_on.isoformat()}) was confirmed.",
                    data={"battle": battle.pk},
                    created_at=now,
                )
            )
    insert(battle_forces, batch_size=batch_size)
    insert(results, batch_size=batch_size)
    insert(ledger, batch_size=batch_size)
    insert(events, batch_size=batch_size)
    # The standings' tallies and the battles played, as the services keep them, from the
    # rows just written.
    recount_standings(CampaignForce.objects.filter(pk__in=list(totals)))
    recount_battles_played(Campaign.objects.filter(forces__pk__in=list(totals)).distinct())
    return {pk: (xp, amount) for pk, (xp, amount) in totals.items()}


@dataclass(slots=True)
class Template:
    force: Force
    members: list[Member]
    document: dict[str, Any]  # as stored (canonical), from roster.selectors


class Seeder(Seeding):
    """A seeding run of forces, campaigns and their battles."""

    def __init__(self, *, prefix: str, batch_size: int, out: Any) -> None:
        super().__init__(prefix=prefix, batch_size=batch_size, out=out)
        self.catalogue = get_catalogue()
        self.rules = HouseRules()
        self.evaluations: dict[tuple[int, int, int], dict[str, Any]] = {}

    # --- forces ----------------------------------------------------------------------------

    def templates(self, owner_id: int) -> list[Template]:
        owner = get_user_model().objects.get(pk=owner_id)
        templates = []
        for document in template_documents():
            saved = roster_services.import_force(owner=owner, document=document)
            force = Force.objects.prefetch_related("members__rolls").get(pk=saved.pk)
            members = list(force.members.all())
            templates.append(
                Template(force, members, roster_selectors.force_document(force=force))
            )
        self.count("forces", len(templates))
        self.count("members", sum(len(t.members) for t in templates))
        return templates

    def _copy_forces(self, rows: list[tuple[Force, Template, int | None]]) -> None:
        """Save `rows` of (unsaved force, its template, XP for its members or None)."""
        insert([force for force, _, _ in rows], batch_size=self.batch_size)
        members = []
        for force, template, xp in rows:
            for member in template.members:
                values = {name: getattr(member, name) for name in COPIED_FIELDS}
                if xp is not None:
                    values["xp"] = xp
                members.append(Member(force_id=force.pk, **values))
        insert(members, batch_size=self.batch_size)
        self.count("forces", len(rows))
        self.count("members", len(members))

    def freeform_forces(self, n: int, owners: list[int], templates: list[Template]) -> None:
        version = self.catalogue.rules_version
        for chunk in batched(range(n), self.batch_size):
            rows = []
            for i in chunk:
                template = templates[i % len(templates)]
                force = Force(
                    owner_id=owners[i % len(owners)],
                    name=f"{template.force.name} #{i + 1}",
                    resources=template.force.resources,
                    rules_version=version,
                    evaluation=template.force.evaluation,
                    evaluation_version=engine.evaluation_version(self.catalogue),
                )
                rows.append((force, template, None))
            self._copy_forces(rows)
            self.progress("forces", chunk[-1] + 1, n)

    # --- campaigns -------------------------------------------------------------------------

    def evaluation(self, index: int, template: Template, xp: int, resources: int) -> dict:
        """The engine's answer for the template's content with this XP and Resources,
        under the default house rules; computed once per distinct key."""
        key = (index, xp, resources)
        if key not in self.evaluations:
            document = copy.deepcopy(template.document)
            document["resources"] = resources
            for member in document["members"]:
                member["xp"] = xp
            self.evaluations[key] = engine.evaluate(
                document,
                self.catalogue,
                verified_rolls=set(),
                level_thresholds=self.rules.level_thresholds,
            ).as_dict()
        return self.evaluations[key]

    def campaigns(
        self,
        n: int,
        users: list[int],
        templates: list[Template],
        *,
        players: int,
        battles: int,
        last_played: datetime.date,
    ) -> None:
        """Long because each campaign's rows are made together, as the services make them."""
        rules = self.rules
        version = self.catalogue.rules_version
        schedule = battle_schedule(players, battles)
        # Every campaign plays the same schedule, so each seat's XP and Resources earned
        # are known before anything is written.
        earned = [[0, 0] for _ in range(players)]
        for first, second, outcome in schedule:
            for seat, seat_outcome in ((first, outcome), (second, OTHER_SIDE[outcome])):
                earned[seat][0] += progression.xp_earned(
                    enemies_out_of_action=0,
                    objectives=0,
                    side_won=seat_outcome == "win",
                    rules=rules,
                )
                earned[seat][1] += progression.resources_earned(seat_outcome, rules)
        now = timezone.now()
        per_chunk = max(1, self.batch_size // (players * 4))
        for chunk in batched(range(n), per_chunk):
            campaigns = []
            seats: list[list[int]] = []
            for c in chunk:
                seated = [users[(c * players + j) % len(users)] for j in range(players)]
                seats.append(seated)
                campaigns.append(
                    Campaign(
                        name=f"{self.prefix} league {c + 1}",
                        organiser_id=seated[0],
                        created_at=now,
                    )
                )
            insert(campaigns, batch_size=self.batch_size)
            insert(
                [
                    CampaignPlayer(campaign=campaign, user_id=user, joined_at=now)
                    for campaign, seated in zip(campaigns, seats, strict=True)
                    for user in seated
                ],
                batch_size=self.batch_size,
            )
            rows, entries = [], []
            for c, campaign, seated in zip(chunk, campaigns, seats, strict=True):
                for j, player in enumerate(seated):
                    index = (c + j) % len(templates)
                    template = templates[index]
                    entry_cost = self.evaluation(index, template, 0, rules.starting_resources)[
                        "total_cost"
                    ]
                    xp, earned_resources = earned[j]
                    balance = rules.starting_resources - entry_cost + earned_resources
                    cost_now = self.evaluation(index, template, xp, rules.starting_resources)[
                        "total_cost"
                    ]
                    resources = max(1, cost_now + balance)
                    force = Force(
                        owner_id=player,
                        name=template.force.name,
                        resources=resources,
                        rules_version=version,
                        evaluation=self.evaluation(index, template, xp, resources),
                        evaluation_version=engine.evaluation_version(self.catalogue),
                    )
                    rows.append((force, template, xp))
                    entries.append((campaign, player, force, entry_cost))
            self._copy_forces(rows)
            campaign_forces = insert(
                [
                    CampaignForce(campaign=campaign, player_id=player, force=force, entered_at=now)
                    for campaign, player, force, _ in entries
                ],
                batch_size=self.batch_size,
            )
            insert(
                [
                    LedgerEntry(
                        campaign=cf.campaign,
                        campaign_force=cf,
                        amount=amount,
                        kind=kind,
                        reason=reason,
                        created_by_id=cf.player_id,
                        created_at=now,
                    )
                    for cf, (_, _, _, cost) in zip(campaign_forces, entries, strict=True)
                    for amount, kind, reason in (
                        (
                            rules.starting_resources,
                            LedgerEntry.Kind.START,
                            "Starting Resources (R11)",
                        ),
                        (-cost, LedgerEntry.Kind.PURCHASE, "Initial roster"),
                    )
                ],
                batch_size=self.batch_size,
            )
            insert(
                [
                    CampaignEvent(
                        campaign=campaign,
                        actor_id=seated[0],
                        kind=CampaignEvent.Kind.CAMPAIGN_CREATED,
                        message=f"The campaign {campaign.name} was created.",
                        data={"house_rules": rules.as_dict()},
                        created_at=now,
                    )
                    for campaign, seated in zip(campaigns, seats, strict=True)
                ]
                + [
                    CampaignEvent(
                        campaign=cf.campaign,
                        actor_id=cf.player_id,
                        kind=CampaignEvent.Kind.FORCE_ENTERED,
                        message=f"{cf.force.name} was entered.",
                        data={"campaign_force": cf.pk, "cost": cost},
                        created_at=now,
                    )
                    for cf, (_, _, _, cost) in zip(campaign_forces, entries, strict=True)
                ],
                batch_size=self.batch_size,
            )
            members: dict[int, list[Member]] = {}
            for member in Member.objects.filter(
                force_id__in=[cf.force_id for cf in campaign_forces]
            ).order_by("position", "id"):
                members.setdefault(member.force_id, []).append(member)
            for position in range(0, len(campaign_forces), players):
                sides = [
                    Side(cf, cf.player_id, members[cf.force_id])
                    for cf in campaign_forces[position : position + players]
                ]
                bulk_battles(
                    sides[0].campaign_force.campaign,
                    sides,
                    confirmed=battles,
                    last_played=last_played,
                    rules=rules,
                    batch_size=self.batch_size,
                )
            self.count("campaigns", len(campaigns))
            self.count("battles", len(campaigns) * battles)
            self.progress("campaigns", chunk[-1] + 1, n)


BATTLE_COLUMNS = (
    *("id", "campaign_id", "played_on", "scenario", "status", "recorded_by_id"),
    *("confirmed_by_id", "confirmed_at", "winner_id", "created_at", "void_reason"),
)
LEDGER_COLUMNS = (
    *("campaign_id", "campaign_force_id", "amount", "kind", "reason", "battle_id"),
    *("created_by_id", "created_at"),
)


def site_battles(seeder: "Seeder", total: int, *, per_campaign: int) -> int:
    """Long campaigns of `per_campaign` battles among three forces each until the site
    holds `total` battles; returns how many were added."""
    added = total - Battle.objects.count()
    if added <= 0:
        return 0
    count = -(-added // per_campaign)
    users = seeder.users(3 * count)
    templates = seeder.templates(users[0])
    seeder.campaigns(
        count, users, templates, players=3, battles=0, last_played=timezone.localdate()
    )
    campaigns = Campaign.objects.filter(name__startswith=f"{seeder.prefix} league ").order_by("id")
    now = timezone.now()
    today = timezone.localdate()
    rules = seeder.rules
    left = added
    for campaign in campaigns:
        forces = list(campaign.forces.order_by("id").values_list("pk", "player_id"))
        n = min(per_campaign, left)
        left -= n
        schedule = battle_schedule(len(forces), n)
        for start in range(0, n, seeder.batch_size * 10):
            chunk = schedule[start : start + seeder.batch_size * 10]
            battle_ids = reserve_ids(Battle, len(chunk))
            battles, battle_forces, ledger = [], [], []
            for number, battle_id, (first, second, outcome) in zip(
                range(start, start + len(chunk)), battle_ids, chunk, strict=True
            ):
                winner = {"win": forces[first][0], "loss": forces[second][0]}.get(outcome)
                played_on = today - datetime.timedelta(days=n - number)
                scenario = f"Battle {number + 1}"
                recorder, confirmer = forces[first][1], forces[second][1]
                battles.append(
                    (battle_id, campaign.pk, played_on, scenario, "confirmed", recorder)
                )
                battles[-1] += (confirmer, now, winner, now, "")
                for seat, seat_outcome in ((first, outcome), (second, OTHER_SIDE[outcome])):
                    cf_id = forces[seat][0]
                    battle_forces.append((battle_id, cf_id, seat_outcome))
                    amount = progression.resources_earned(seat_outcome, rules)
                    reason = f"{seat_outcome.title()}: {scenario} ({played_on.isoformat()})"
                    ledger.append((campaign.pk, cf_id, amount, "battle", reason, battle_id))
                    ledger[-1] += (confirmer, now)
            copy_rows(Battle, BATTLE_COLUMNS, battles)
            copy_rows(BattleForce, ["battle_id", "campaign_force_id", "outcome"], battle_forces)
            copy_rows(LedgerEntry, LEDGER_COLUMNS, ledger)
            seeder.count("battles", len(chunk))
            seeder.say(f"  battles: {seeder.counts['battles']:,} of {added:,}")
        recount_standings(campaign.forces.all())
        recount_battles_played(Campaign.objects.filter(pk=campaign.pk))
        if left == 0:
            break
    return added


def grow_campaign(campaign: Campaign, to_battles: int, *, batch_size: int = 2000) -> int:
    """Add confirmed battles to `campaign` among its active forces until it has
    `to_battles`, as the services would leave them; returns how many were added."""
    existing = campaign.battles.count()
    added = to_battles - existing
    if added <= 0:
        return 0
    forces = list(
        campaign.forces.filter(retired_at__isnull=True).select_related("force").order_by("id")
    )
    if len(forces) < 2:
        raise CommandError(f"Campaign {campaign.pk} has fewer than two active forces.")
    sides = [
        Side(cf, cf.player_id, list(Member.objects.filter(force_id=cf.force_id))) for cf in forces
    ]
    oldest = campaign.battles.order_by("played_on").values_list("played_on", flat=True).first()
    last_played = (oldest or timezone.localdate()) - datetime.timedelta(days=1)
    rules = campaign.house_rules
    earned = bulk_battles(
        campaign,
        sides,
        confirmed=added,
        last_played=last_played,
        rules=rules,
        batch_size=batch_size,
    )
    for cf in forces:
        xp, _ = earned[cf.pk]
        Member.objects.filter(force_id=cf.force_id).update(xp=F("xp") + xp)
        # Resources follow the ledger (cost + balance) under the campaign's policy.
        roster_services.refresh(force=Force.objects.get(pk=cf.force_id))
    return added


class Command(BaseCommand):
    help = (
        "Seed many users, forces and campaigns with bulk inserts (for `python -m bench`). "
        "Seeded users cannot log in: their password is random and not kept."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--users", type=int, default=10_000)
        parser.add_argument(
            "--forces",
            type=int,
            default=100_000,
            help="All forces, campaign copies included (default 100,000).",
        )
        parser.add_argument("--campaigns", type=int, default=1_000)
        parser.add_argument("--players", type=int, default=4, help="Players per campaign.")
        parser.add_argument(
            "--battles", type=int, default=10, help="Confirmed battles per campaign."
        )
        parser.add_argument("--batch-size", type=int, default=2_000)
        growth = parser.add_argument_group("growth modes (each instead of the seed above)")
        growth.add_argument(
            "--grow-campaign",
            type=int,
            metavar="ID",
            help="Add confirmed battles to this campaign until it has --to-battles.",
        )
        growth.add_argument("--to-battles", type=int, default=5_000)
        growth.add_argument(
            "--site-battles",
            type=int,
            metavar="N",
            help="Add long campaigns until the site holds N battles (PostgreSQL: COPY).",
        )
        growth.add_argument("--battles-per-campaign", type=int, default=30_000)
        parser.add_argument(
            "--prefix", default="scale", help="Seeded usernames are '<prefix>-000001'."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["grow_campaign"] is not None:
            return self.grow(options)
        if options["site_battles"] is not None:
            return self.grow_site(options)
        return self.seed(options)

    def grow(self, options: dict[str, Any]) -> None:
        campaign = Campaign.objects.filter(pk=options["grow_campaign"]).first()
        if campaign is None:
            raise CommandError(f"No campaign {options['grow_campaign']}.")
        started = time.perf_counter()
        with transaction.atomic():
            added = grow_campaign(
                campaign, options["to_battles"], batch_size=options["batch_size"]
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {added:,} battles to campaign {campaign.pk} "
                f"({campaign.battles.count():,} now) in {time.perf_counter() - started:.1f} s."
            )
        )

    def grow_site(self, options: dict[str, Any]) -> None:
        if options["battles_per_campaign"] < 1:
            raise CommandError("--battles-per-campaign must be at least 1.")
        seeder = Seeder(
            prefix=options["prefix"], batch_size=options["batch_size"], out=self.stdout
        )
        added, seconds = copy_in(
            "--site-battles",
            seeder,
            lambda seeder: site_battles(
                seeder, options["site_battles"], per_campaign=options["battles_per_campaign"]
            ),
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {added:,} battles ({Battle.objects.count():,} on the site) "
                f"in {seconds:.1f} s."
            )
        )

    def seed(self, options: dict[str, Any]) -> None:
        users, forces, campaigns = options["users"], options["forces"], options["campaigns"]
        players = options["players"]
        templates = len(template_documents())
        if users < 1 or players < 2 or players > users:
            raise CommandError("Seed at least one user, and 2 to --users players per campaign.")
        if campaigns < 0 or options["battles"] < 0 or options["batch_size"] < 1:
            raise CommandError("--campaigns, --battles and --batch-size cannot be negative.")
        freeform = forces - templates - campaigns * players
        if freeform < 0:
            raise CommandError(
                f"--forces must be at least {templates + campaigns * players}: "
                f"{templates} templates and {players} per campaign."
            )
        prefix = options["prefix"]
        if get_user_model().objects.filter(username__startswith=f"{prefix}-").exists():
            raise CommandError(
                f"Users named '{prefix}-...' exist already; choose another --prefix."
            )
        started = time.perf_counter()
        seeder = Seeder(prefix=prefix, batch_size=options["batch_size"], out=self.stdout)
        with transaction.atomic():
            user_ids = seeder.users(users)
            seeder.say(f"  users: {users:,}")
            made = seeder.templates(user_ids[0])
            seeder.freeform_forces(freeform, user_ids, made)
            seeder.campaigns(
                campaigns,
                user_ids,
                made,
                players=players,
                battles=options["battles"],
                last_played=timezone.localdate(),
            )
        elapsed = time.perf_counter() - started
        summary = ", ".join(f"{n:,} {what}" for what, n in seeder.counts.items())
        self.stdout.write(
            self.style.SUCCESS(
                f"Seeded {summary} in {elapsed:.1f} s "
                f"({len(seeder.evaluations) + len(made)} engine evaluations)."
            )
        )
