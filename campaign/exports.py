"""A whole campaign as one JSON document, `dbd-campaign/1`, and back.

The export holds the campaign and its house rules, its players (by username), every
campaign force as a dbd-roster/1 document with its server roll history, the whole
ledger, every battle with its results, and the campaign log. Rows refer to each
other by position in their list (`"force": 0` is the first of `forces`, a member is
its index in that force's document), never by database id, so importing into an
empty site and exporting again gives the same JSON.

What does not travel, on purpose:
- database ids (positions replace them; event data ids are translated too);
- the invitation token (a secret: the import makes a new one) and share links;
- passwords: users the import creates get unusable passwords (a password reset, or
  an administrator, lets them in);
- `entered_from`, the link to the player's own freeform force, which is not part of
  the campaign (it is empty after an import);
- the stored engine evaluation, which is recomputed.
"""

from datetime import date, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Prefetch

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
from campaign.progression import HouseRules, InvalidHouseRules
from campaign.tallies import recount_battles_played, recount_standings
from dbd_site.errors import DomainError
from roster import selectors as roster_selectors
from roster import services as roster_services
from roster.documents import MalformedDocument
from roster.models import Force, Member, SkillRoll

FORMAT = "dbd-campaign/1"
# Event data keys holding ids, and the list their positions refer to.
_EVENT_REFERENCES = {"campaign_force": "forces", "battle": "battles"}
_EVENT_REFERENCE_LISTS = {"reversed_entries": "ledger"}


class CampaignImportError(ValueError):
    """The file is not a dbd-campaign/1 document this site can import; says why."""


def _when(value: datetime | date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _username(user: User | None) -> str | None:
    return user.get_username() if user is not None else None


# --- export --------------------------------------------------------------------------------


def export_campaign(*, campaign: Campaign) -> dict[str, Any]:
    """The campaign as a dbd-campaign/1 document (plain JSON values).

    Long because it writes the document's sections in the order the format lists them.
    """
    campaign = Campaign.objects.select_related("organiser").get(pk=campaign.pk)
    players = list(campaign.players.select_related("user").order_by("joined_at", "id"))
    forces = list(
        campaign.forces.select_related("player", "force")
        .prefetch_related(
            Prefetch(
                "force__members",
                queryset=Member.objects.order_by("position", "id").prefetch_related(
                    Prefetch(
                        "rolls",
                        queryset=SkillRoll.objects.select_related("rolled_by").order_by(
                            "created_at", "id"
                        ),
                    )
                ),
            )
        )
        .order_by("entered_at", "id")
    )
    force_index = {cf.pk: i for i, cf in enumerate(forces)}
    member_index = {m.pk: i for cf in forces for i, m in enumerate(cf.force.members.all())}
    battles = list(
        campaign.battles.select_related("recorded_by", "confirmed_by", "voided_by")
        .prefetch_related(
            Prefetch(
                "battle_forces",
                queryset=BattleForce.objects.order_by("id").prefetch_related(
                    Prefetch("member_results", queryset=BattleMemberResult.objects.order_by("id"))
                ),
            )
        )
        .order_by("created_at", "id")
    )
    battle_index = {b.pk: i for i, b in enumerate(battles)}
    ledger = list(campaign.ledger.select_related("created_by").order_by("id"))
    ledger_index = {e.pk: i for i, e in enumerate(ledger)}
    events = list(campaign.events.select_related("actor").order_by("created_at", "id"))
    indexes = {"forces": force_index, "battles": battle_index, "ledger": ledger_index}

    def event_data(data: dict[str, Any]) -> dict[str, Any]:
        out = dict(data)
        for key, table in _EVENT_REFERENCES.items():
            if key in out:
                out[key] = indexes[table].get(out[key])
        for key, table in _EVENT_REFERENCE_LISTS.items():
            if key in out:
                out[key] = [indexes[table].get(pk) for pk in out[key]]
        return out

    return {
        "format": FORMAT,
        "campaign": {
            "name": campaign.name,
            "organiser": _username(campaign.organiser),
            "created_at": _when(campaign.created_at),
            "house_rules": campaign.house_rules.as_dict(),
        },
        "players": [
            {"username": _username(p.user), "joined_at": _when(p.joined_at)} for p in players
        ],
        "forces": [
            {
                "player": _username(cf.player),
                "entered_at": _when(cf.entered_at),
                "retired_at": _when(cf.retired_at),
                "rules_version": cf.force.rules_version,
                "created_at": _when(cf.force.created_at),
                "updated_at": _when(cf.force.updated_at),
                "document": roster_selectors.force_document(force=cf.force),
                "rolls": [
                    {
                        "member": i,
                        "slot": roll.slot,
                        "table": roll.table,
                        "dice": roll.dice,
                        "outcome": roll.outcome,
                        "skill": roll.skill,
                        "choices": roll.choices,
                        "rolled_by": _username(roll.rolled_by),
                        "created_at": _when(roll.created_at),
                    }
                    for i, m in enumerate(cf.force.members.all())
                    for roll in m.rolls.all()
                ],
            }
            for cf in forces
        ],
        "battles": [
            {
                "played_on": _when(b.played_on),
                "scenario": b.scenario,
                "status": b.status,
                "winner": force_index[b.winner_id] if b.winner_id else None,
                "recorded_by": _username(b.recorded_by),
                "confirmed_by": _username(b.confirmed_by),
                "confirmed_at": _when(b.confirmed_at),
                "voided_by": _username(b.voided_by),
                "voided_at": _when(b.voided_at),
                "void_reason": b.void_reason,
                "created_at": _when(b.created_at),
                "forces": [
                    {
                        "force": force_index[bf.campaign_force_id],
                        "outcome": bf.outcome,
                        "results": [
                            {
                                "member": member_index.get(r.member_id),
                                "member_name": r.member_name,
                                "unconscious": r.unconscious,
                                "out_of_action": r.out_of_action,
                                "enemies_out_of_action": r.enemies_out_of_action,
                                "objectives": r.objectives,
                                "xp_awarded": r.xp_awarded,
                            }
                            for r in bf.member_results.all()
                        ],
                    }
                    for bf in b.battle_forces.all()
                ],
            }
            for b in battles
        ],
        "ledger": [
            {
                "force": force_index[e.campaign_force_id],
                "amount": e.amount,
                "kind": e.kind,
                "reason": e.reason,
                "battle": battle_index[e.battle_id] if e.battle_id else None,
                "reverses": ledger_index[e.reverses_id] if e.reverses_id else None,
                "created_by": _username(e.created_by),
                "created_at": _when(e.created_at),
            }
            for e in ledger
        ],
        "log": [
            {
                "actor": _username(e.actor),
                "kind": e.kind,
                "message": e.message,
                "data": event_data(e.data),
                "created_at": _when(e.created_at),
            }
            for e in events
        ],
    }


# --- import --------------------------------------------------------------------------------


def _datetime(value: Any, what: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise CampaignImportError(f"{what}: '{value}' is not a date and time.") from exc
    if parsed.tzinfo is None:
        raise CampaignImportError(f"{what}: '{value}' has no time zone.")
    return parsed


def _moment(value: Any, what: str) -> datetime:
    """A date and time the file must hold."""
    moment = _datetime(value, what)
    if moment is None:
        raise CampaignImportError(f"{what}: a date and time is needed.")
    return moment


def _date(value: Any, what: str) -> date:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise CampaignImportError(f"{what}: '{value}' is not a date.") from exc


def _choice(value: Any, choices: Any, what: str) -> str:
    if value not in choices.values:
        raise CampaignImportError(f"{what}: '{value}' is not one of {', '.join(choices.values)}.")
    return value


def _usernames(data: dict[str, Any]) -> set[str]:
    names = {data["campaign"]["organiser"]}
    names |= {p["username"] for p in data["players"]}
    for force in data["forces"]:
        names.add(force["player"])
        names |= {r["rolled_by"] for r in force["rolls"]}
    for battle in data["battles"]:
        names |= {battle["recorded_by"], battle["confirmed_by"], battle["voided_by"]}
    names |= {e["created_by"] for e in data["ledger"]}
    names |= {e["actor"] for e in data["log"]}
    names.discard(None)
    return names


@transaction.atomic
def import_campaign(*, data: Any, reuse_users: bool = False) -> Campaign:
    """Create the campaign a dbd-campaign/1 document describes; all or nothing.

    Users are created as needed, with unusable passwords. A username that already
    exists is refused unless `reuse_users` (importing into a site that has people).
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CampaignImportError(f"This is not a {FORMAT} document.")
    try:
        return _import(data, reuse_users=reuse_users)
    except CampaignImportError:
        raise
    except (MalformedDocument, DomainError) as exc:
        problems = "; ".join(f"{p.pointer}: {p.message}" for p in exc.problems[:5])
        raise CampaignImportError(
            f"A force is not a valid dbd-roster/1 document: {problems}"
        ) from exc
    except InvalidHouseRules as exc:
        raise CampaignImportError(f"The house rules cannot be played: {exc}") from exc
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise CampaignImportError(
            f"The file is incomplete or damaged ({type(exc).__name__}: {exc})."
        ) from exc


def _import(data: dict[str, Any], *, reuse_users: bool) -> Campaign:
    """Long because it reads the document's sections in order, each referring to rows made
    before it; split, the positions would travel between functions."""
    User = get_user_model()
    names = _usernames(data)
    existing = {u.get_username(): u for u in User.objects.filter(username__in=names)}
    if existing and not reuse_users:
        raise CampaignImportError(
            "These users already exist on this site: " + ", ".join(sorted(existing)) + "."
        )
    users = dict(existing)
    for name in sorted(names - set(existing)):
        user = User(username=name)
        user.set_unusable_password()
        user.save()
        users[name] = user

    def user(name: str | None) -> User | None:
        return users[name] if name is not None else None

    info = data["campaign"]
    rules = HouseRules(**info["house_rules"])
    campaign = Campaign(
        name=info["name"],
        organiser=users[info["organiser"]],
        created_at=_datetime(info["created_at"], "campaign created_at"),
        **rules.as_dict(),
    )
    campaign.full_clean(exclude=["invite_token"])
    campaign.save()
    CampaignPlayer.objects.bulk_create(
        CampaignPlayer(
            campaign=campaign,
            user=users[p["username"]],
            joined_at=_datetime(p["joined_at"], "joined_at"),
        )
        for p in data["players"]
    )

    forces: list[CampaignForce] = []
    members: list[list[Member]] = []
    timestamps: list[tuple[Force, dict[str, Any]]] = []
    for i, entry in enumerate(data["forces"]):
        owner = users[entry["player"]]
        rolls = [
            roster_services.RestoredRoll(
                member=roll["member"],
                rolled_by=user(roll["rolled_by"]),
                slot=roll["slot"],
                table=roll["table"],
                dice=roll["dice"],
                outcome=_choice(roll["outcome"], SkillRoll.Outcome, "roll outcome"),
                skill=roll["skill"],
                choices=roll["choices"],
                created_at=_moment(roll["created_at"], "roll created_at"),
            )
            for roll in entry["rolls"]
        ]
        force = roster_services.restore_force(
            owner=owner,
            document=entry["document"],
            rules_version=entry["rules_version"],
            rolls=rolls,
        )
        force_members = list(force.members.order_by("position", "id"))
        forces.append(
            CampaignForce.objects.create(
                campaign=campaign,
                player=owner,
                force=force,
                entered_at=_datetime(entry["entered_at"], f"force {i} entered_at"),
                retired_at=_datetime(entry["retired_at"], f"force {i} retired_at"),
            )
        )
        members.append(force_members)
        timestamps.append((force, entry))

    battles: list[Battle] = []
    for i, b in enumerate(data["battles"]):
        battle = Battle.objects.create(
            campaign=campaign,
            played_on=_date(b["played_on"], f"battle {i} played_on"),
            scenario=b["scenario"],
            status=_choice(b["status"], Battle.Status, "battle status"),
            winner=forces[b["winner"]] if b["winner"] is not None else None,
            recorded_by=user(b["recorded_by"]),
            confirmed_by=user(b["confirmed_by"]),
            confirmed_at=_datetime(b["confirmed_at"], f"battle {i} confirmed_at"),
            voided_by=user(b["voided_by"]),
            voided_at=_datetime(b["voided_at"], f"battle {i} voided_at"),
            void_reason=b["void_reason"],
            created_at=_datetime(b["created_at"], f"battle {i} created_at"),
        )
        battles.append(battle)
        for side in b["forces"]:
            bf = BattleForce.objects.create(
                battle=battle,
                campaign_force=forces[side["force"]],
                outcome=_choice(side["outcome"], BattleForce.Outcome, "outcome"),
            )
            BattleMemberResult.objects.bulk_create(
                BattleMemberResult(
                    battle_force=bf,
                    member=(
                        members[side["force"]][r["member"]] if r["member"] is not None else None
                    ),
                    member_name=r["member_name"],
                    unconscious=bool(r["unconscious"]),
                    out_of_action=bool(r["out_of_action"]),
                    enemies_out_of_action=int(r["enemies_out_of_action"]),
                    objectives=int(r["objectives"]),
                    xp_awarded=int(r["xp_awarded"]),
                )
                for r in side["results"]
            )

    ledger: list[LedgerEntry] = []
    for i, e in enumerate(data["ledger"]):
        if e["reverses"] is not None and not 0 <= e["reverses"] < i:
            raise CampaignImportError(f"Ledger entry {i} reverses an entry that is not before it.")
        amount = e["amount"]
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise CampaignImportError(f"Ledger entry {i}: the amount is not a whole number.")
        ledger.append(
            LedgerEntry.objects.create(
                campaign=campaign,
                campaign_force=forces[e["force"]],
                amount=amount,
                kind=_choice(e["kind"], LedgerEntry.Kind, "ledger kind"),
                reason=e["reason"],
                battle=battles[e["battle"]] if e["battle"] is not None else None,
                reverses=ledger[e["reverses"]] if e["reverses"] is not None else None,
                created_by=user(e["created_by"]),
                created_at=_datetime(e["created_at"], f"ledger entry {i} created_at"),
            )
        )
    # R15: the balance never goes below 0; a file that says otherwise is refused.
    for i, cf in enumerate(forces):
        running = 0
        for entry in ledger:
            if entry.campaign_force_id == cf.pk:
                running += entry.amount
                if running < 0:
                    raise CampaignImportError(f"Force {i}'s ledger goes below 0 (R15).")

    tables = {"forces": forces, "battles": battles, "ledger": ledger}

    def event_data(raw: dict[str, Any]) -> dict[str, Any]:
        out = dict(raw)
        for key, table in _EVENT_REFERENCES.items():
            if out.get(key) is not None:
                out[key] = tables[table][out[key]].pk
        for key, table in _EVENT_REFERENCE_LISTS.items():
            if key in out:
                out[key] = [tables[table][n].pk if n is not None else None for n in out[key]]
        return out

    CampaignEvent.objects.bulk_create(
        CampaignEvent(
            campaign=campaign,
            actor=user(e["actor"]),
            kind=_choice(e["kind"], CampaignEvent.Kind, "log kind"),
            message=e["message"],
            data=event_data(e["data"]),
            created_at=_datetime(e["created_at"], f"log entry {i} created_at"),
        )
        for i, e in enumerate(data["log"])
    )
    # The standings' tallies and the battles played, from the battles and ledger just
    # imported.
    recount_standings(CampaignForce.objects.filter(pk__in=[cf.pk for cf in forces]))
    recount_battles_played(Campaign.objects.filter(pk=campaign.pk))
    # Each copy evaluated under the campaign's policy (its thresholds; Resources = cost
    # plus the ledger's balance), now that its ledger is in.
    for cf in forces:
        roster_services.refresh(force=cf.force, description="imported")
    # Last, so nothing above moves them: the roster forces' own timestamps.
    for force, entry in timestamps:
        roster_services.restore_times(
            force=force,
            created_at=_moment(entry["created_at"], "force created_at"),
            updated_at=_moment(entry["updated_at"], "force updated_at"),
        )
    return campaign
