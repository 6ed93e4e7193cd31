"""The campaign's policy for its copies of forces: the rules of changes between battles.

Registered with the roster's write path in `CampaignConfig.ready`, so every write to a
campaign copy, from the builder, the roster API or the campaign's own services, is
judged here and nowhere else:

- who and when: only the owner; not while a battle of the force is pending (a move to
  a new edition of the rules included); not once the force has retired; Resources
  come from the ledger, never typed in (R11, R15);
- what: a member who has fought in a confirmed battle keeps their creation choices and
  XP (history); advancements bought after that are marked `between_battles` and only
  added (R17a); level-ups come one per level gained, through a level-up (R17) or go
  through a void (R15a); a recruit starts with no XP and no level-ups (R18a); R10 holds
  after every change (R18);
- what it costs: each purchase is one ledger entry of its own price (R17a): a
  between-battles advancement at its R6 price, a piece of equipment at its R7 price
  when bought (paid once), a recruit at their cost; a member still being recruited (not
  yet fought) pays what their cost rises by; nothing is refunded (R18). A purchase the
  balance cannot pay is refused with `insufficient-resources` at `/resources`.

A campaign copy's `Force.resources` is its cost plus its ledger balance, so the
engine's over-budget check (R11) holds exactly when the balance is not below 0.
"""

from collections import Counter
from typing import Any

from django.urls import reverse

from campaign.services.common import Debit
from dbd_site.errors import (
    Conflict,
    Invalid,
    Kind,
    NotAllowed,
    Problem,
    declare_codes,
    pointer,
)
from roster import documents, engine
from roster.models import Force
from roster.policy import Command, MemberState, Note, Proposal, Verdict

CODES = declare_codes(
    {
        "insufficient-resources": "The ledger balance cannot pay for this (R15, R17a).",
        "campaign-resources": "A campaign force's Resources come from its ledger (R11, R15).",
        "history-fixed": "A member who has fought keeps their creation choices (R17a, R18a).",
        "xp-from-battles": "XP changes only through battles (R16).",
        "not-between-battles": "An advancement bought after a member has fought is marked "
        "`between_battles` (R17a).",
        "purchase-history": "Advancements already bought stay bought; only new ones are added "
        "(R17a).",
        "level-ups-by-level": "Level-ups are taken one per level gained, through a level-up "
        "(R17).",
        "recruit-fresh": "A recruit starts with no XP and no level-ups (R16, R18a).",
    }
)

CONFLICT_CODES = declare_codes(
    {
        "battle-pending": "The force has a battle waiting for confirmation; changes wait "
        "until it is confirmed or voided.",
        "force-retired": "The force has retired from the campaign.",
        "campaign-force": "A campaign force is retired through its campaign, not deleted.",
        "void-breaks-force": "Taking the battle's XP and level-ups back would leave the force "
        "illegal; fix the force first (R15a).",
    },
    Kind.CONFLICT,
)

# The app's own bookkeeping (no actor): never refused for who or when.
BOOKKEEPING = frozenset({"refresh", "award-xp", "duplicate"})
# Changes to the roster that wait while a battle is pending.
NOT_WHILE_PENDING = frozenset(
    {
        "replace-document",
        "change-member",
        "recruit",
        "retire",
        "roll",
        "pick",
        "free-pick",
        "take-level-up",
        "move-to-rules",
    }
)
# A change of the rules themselves (issue #13): new content worked out again, or the move
# to a new edition. Costs change, purchases do not: nothing is debited or refunded.
RULES_CHANGES = frozenset({"rules-refresh", "move-to-rules"})
LEVEL_UP_COMMANDS = frozenset({"roll", "pick", "free-pick"})
R10_CODES = frozenset({"force-size", "too-many-mentors", "duplicate-name"})
# What a campaign copy's policy may refuse a command with (the roster API lists them).
POLICY_CODES = (CODES, CONFLICT_CODES, engine.CODES.only(*R10_CODES))


class CampaignPolicy:
    def __init__(self, entry: Any) -> None:
        self.entry = entry  # the CampaignForce

    # -- who and when ----------------------------------------------------------------------

    def lock(self) -> None:
        from campaign.services import lock_campaign_force

        self.entry = lock_campaign_force(self.entry)

    def permit(self, command: Command, force: Force) -> None:
        from campaign.services import has_pending_battle

        if command.actor is None:
            return  # the campaign's own bookkeeping, already authorised by its service
        if command.actor.pk != self.entry.player_id:
            raise NotAllowed("not-owner", "Only the force's owner can change a campaign force.")
        if command.kind == "set-resources":
            raise Invalid(
                "campaign-resources",
                "A campaign force's Resources come from its campaign ledger.",
                pointer="/resources",
            )
        if command.kind == "delete":
            raise Conflict(
                "campaign-force",
                f"{force.name} is in the campaign '{self.entry.campaign.name}': retire it "
                "there instead.",
            )
        if self.entry.retired_at is not None and command.kind != "share":
            raise Conflict("force-retired", f"{force.name} has retired from the campaign.")
        if command.kind in NOT_WHILE_PENDING and has_pending_battle(self.entry):
            raise Conflict(
                "battle-pending",
                f"{force.name} has a battle waiting for confirmation; changes wait until it "
                "is confirmed or voided.",
            )

    def level_thresholds(self) -> tuple[int, ...]:
        return tuple(self.entry.campaign.house_rules.level_thresholds)

    # -- what, and what it costs -----------------------------------------------------------

    def fixed_members(self) -> frozenset[int]:
        from campaign.selectors import members_who_fought

        return members_who_fought(force_id=self.entry.force_id)

    def balance(self) -> int:
        from campaign.services import balance_of

        return balance_of(self.entry)

    def offers(self, kind: str) -> bool:
        return kind not in {"set-resources", "delete"}

    def note(self) -> Note:
        campaign = self.entry.campaign
        return Note(
            text=f"This is your copy of the force in the campaign {campaign.name}: its "
            "Resources come from the campaign's ledger (R15), and it leaves the campaign "
            "by being retired there, not deleted.",
            link=reverse("campaign:force", args=[campaign.pk, self.entry.pk]),
            link_label=f"Its page in {campaign.name}",
        )

    def judge(self, proposal: Proposal) -> Verdict:
        """Long because each between-battles rule (R17a, R18a) is checked against the same
        before and after, in order."""
        command = proposal.command
        if command.kind in RULES_CHANGES:
            # Like a statistic that changes after a purchase (R17a): the ledger neither
            # charges nor refunds it; the balance stays, so Resources are the new cost
            # plus the balance (R11, R15).
            balance = self.balance()
            resources = max(1, proposal.after.total_cost + balance)
            return Verdict(resources=resources, notes={"debits": [], "spent": 0})
        if command.actor is not None and proposal.resources != proposal.force.resources:
            # A document sent whole (PUT, PATCH) carries Resources; a campaign's are its
            # ledger's (R11, R15), so a different number is refused, not quietly replaced.
            raise Invalid(
                "campaign-resources",
                f"{proposal.force.name}'s Resources come from its campaign ledger "
                f"({proposal.force.resources} now); send that number or leave it out.",
                pointer="/resources",
            )
        fought = self.fixed_members()
        before = {s.id: (i, s) for i, s in enumerate(proposal.before_members)}
        problems: list[Problem] = []
        debits: list[Debit] = []
        for index, state in enumerate(proposal.after_members):
            at = pointer("members", index)
            earlier = before.get(state.id) if state.id is not None else None
            if earlier is None:
                problems += _recruit_problems(state, at)
                cost = proposal.after.members[index].cost["total"]
                if cost > 0:
                    debits.append(Debit(cost, f"Recruited {state.data['name']}"))
                continue
            was_index, was = earlier
            problems += _level_up_problems(command, was, state, at)
            if was.data["xp"] != state.data["xp"] and command.kind != "award-xp":
                problems.append(
                    Problem(
                        f"{at}/xp",
                        "xp-from-battles",
                        f"{state.data['name']}'s XP changes only through battles (R16).",
                    )
                )
            if state.id in fought:
                problems += _history_problems(was, state, at)
                problems += _new_purchase_problems(proposal, was, state, at)
                debits += _fought_member_debits(proposal, was, state, index)
            else:
                before_cost = _member_cost(proposal.before, was_index)
                rise = proposal.after.members[index].cost["total"] - before_cost
                if rise > 0:
                    what = str(command.description or "a change")
                    name = state.data["name"]
                    reason = what if what.startswith(f"{name}: ") else f"{name}: {what}"
                    debits.append(Debit(rise, reason))
        r10 = [p for p in proposal.after.errors if p.code in R10_CODES]
        if r10 and command.actor is not None:
            problems += [Problem(p.pointer, p.code, p.message) for p in r10]
        if command.kind == "award-xp" and _level_ups_removed(proposal):
            broken = _new_errors(proposal)
            if broken:
                raise Conflict.of(
                    [
                        Problem(
                            p.pointer,
                            "void-breaks-force",
                            f"{proposal.force.name}: {p.message}",
                        )
                        for p in broken
                    ]
                )
        if problems:
            raise Invalid.of(problems)
        balance = self.balance()
        spent = sum(d.amount for d in debits)
        if spent > balance:
            raise Invalid(
                "insufficient-resources",
                f"{proposal.force.name} has {balance} Resources; this costs {spent}.",
                pointer="/resources",
            )
        resources = max(1, proposal.after.total_cost + balance - spent)
        return Verdict(resources=resources, notes={"debits": debits, "spent": spent})

    def settle(self, proposal: Proposal, verdict: Verdict) -> None:
        from campaign.services import record_change

        record_change(self.entry, proposal, verdict.notes["debits"])


def _member_cost(evaluation: dict[str, Any], index: int) -> int:
    members = evaluation.get("members", [])
    return int(members[index]["cost"]["total"]) if index < len(members) else 0


def _recruit_problems(state: MemberState, at: str) -> list[Problem]:
    problems = []
    if state.data["xp"]:
        problems.append(
            Problem(f"{at}/xp", "recruit-fresh", "A recruit starts with 0 XP (R16, R18a).")
        )
    if state.data["level_ups"]:
        problems.append(
            Problem(
                f"{at}/level_ups",
                "recruit-fresh",
                "A recruit starts with no level-ups (R17, R18a).",
            )
        )
    return problems


def _history_problems(was: MemberState, now: MemberState, at: str) -> list[Problem]:
    """Creation choices (`documents.MEMBER_KEYS`' history columns) and bought
    advancements stay as they were; new ones are marked between battles (R17a)."""
    name = now.data["name"]
    old, new = documents.member_columns(was.data), documents.member_columns(now.data)
    problems = [
        Problem(
            f"{at}/{_key_of(column)}",
            "history-fixed",
            f"{name} has fought in the campaign: their creation choices are fixed; buy "
            "advancements between battles instead.",
        )
        for column in documents.HISTORY_COLUMNS
        if column != "xp" and old[column] != new[column]
    ]
    bought, buying = was.data["purchases"], now.data["purchases"]
    if buying[: len(bought)] != bought:
        problems.append(
            Problem(
                f"{at}/purchases",
                "purchase-history",
                f"{name}'s advancements already bought stay as they are; add new ones after them.",
            )
        )
    else:
        for k, purchase in enumerate(buying[len(bought) :], start=len(bought)):
            if not purchase.get("between_battles"):
                problems.append(
                    Problem(
                        f"{at}/purchases/{k}",
                        "not-between-battles",
                        f"{name} has fought: an advancement bought now is a between-battles "
                        'purchase (mark it "between_battles": true).',
                    )
                )
    return _unique(problems)


def _new_purchase_problems(
    proposal: Proposal, was: MemberState, now: MemberState, at: str
) -> list[Problem]:
    """A purchase bought between battles stays bought (R17a), so one the rules refuse
    (R3's bounds, a skill owned already...) is refused now rather than leave the force
    illegal for good."""
    new = [
        f"{at}/purchases/{k}"
        for k in range(len(was.data["purchases"]), len(now.data["purchases"]))
    ]
    return [
        Problem(p.pointer, p.code, p.message)
        for p in proposal.after.errors
        if any(p.pointer == n or p.pointer.startswith(n + "/") for n in new)
    ]


def _key_of(column: str) -> str:
    return next(k.name for k in documents.MEMBER_KEYS if column in k.columns)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[str, str]] = set()
    out = []
    for p in problems:
        if (p.pointer, p.code) not in seen:
            seen.add((p.pointer, p.code))
            out.append(p)
    return out


def _level_up_problems(
    command: Command, was: MemberState, now: MemberState, at: str
) -> list[Problem]:
    """Level-ups change only through a level-up (one added at the end, or its roll or
    pick), or are trimmed from the end by a void (R15a)."""
    old, new = was.data["level_ups"], now.data["level_ups"]
    if old == new:
        return []
    if command.member_id == now.id:
        if command.kind == "take-level-up" and new[:-1] == old and len(new) == len(old) + 1:
            return []
        if command.kind in LEVEL_UP_COMMANDS and (command.slot or "").startswith("level_ups/"):
            i = int((command.slot or "").split("/")[1])
            if len(old) == len(new) and old[:i] + old[i + 1 :] == new[:i] + new[i + 1 :]:
                return []
    if command.kind == "award-xp" and new == old[: len(new)]:
        return []
    return [
        Problem(
            f"{at}/level_ups",
            "level-ups-by-level",
            f"{now.data['name']}'s level-ups are taken one per level gained, through a "
            "level-up (R17).",
        )
    ]


def _fought_member_debits(
    proposal: Proposal, was: MemberState, now: MemberState, index: int
) -> list[Debit]:
    """R17a: each new between-battles purchase at its price, each new piece of
    equipment at its price when bought (paid once)."""
    result = proposal.after.members[index]
    name = now.data["name"]
    debits = []
    for k in range(len(was.data["purchases"]), len(now.data["purchases"])):
        price = result.purchase_costs[k] if k < len(result.purchase_costs) else 0
        if price > 0:
            words = _purchase_words(now.data["purchases"][k], now.data["club"]["society"])
            debits.append(Debit(price, f"{name}: {words}"))
    new_items = Counter(now.data["equipment"]) - Counter(was.data["equipment"])
    for k, slug in enumerate(now.data["equipment"]):
        if new_items[slug] > 0:
            new_items[slug] -= 1
            price = result.equipment_costs[k] if k < len(result.equipment_costs) else 0
            if price > 0:
                debits.append(Debit(price, f"{name}: bought {_equipment_name(slug)}"))
    return debits


def _purchase_words(purchase: dict[str, Any], society_slug: str) -> str:
    """A purchase as the ledger says it: "bought Catfall", "bought +2 HP"."""
    from rules.loader import get_catalogue

    catalogue = get_catalogue()
    skill = purchase.get("skill")
    if skill:
        found = catalogue.skills.get(skill)
        return f"bought {found.name if found else skill}"
    society = catalogue.societies.get(society_slug)
    number: Any = purchase.get("line")  # as stored, whatever it is
    line = society.lines.get(number) if society else None
    option = line.option_for(purchase.get("choice")) if line and line.kind == "statistic" else None
    if option is not None:
        return f"bought {option.amount:+d} {option.statistic}"
    return f"bought {line.label if line else 'an advancement'}"


def _equipment_name(slug: str) -> str:
    from rules.loader import get_catalogue

    item = get_catalogue().equipment.get(slug)
    return item.name if item else slug


def _level_ups_removed(proposal: Proposal) -> bool:
    before = {s.id: s for s in proposal.before_members}
    return any(
        len(s.data["level_ups"]) < len(before[s.id].data["level_ups"])
        for s in proposal.after_members
        if s.id in before
    )


def _new_errors(proposal: Proposal) -> list[Problem]:
    old = {(p["pointer"], p["code"]) for p in proposal.before.get("errors", [])}
    return [
        p
        for p in proposal.after.errors
        if (p.pointer, p.code) not in old and p.code != "too-many-level-ups"
    ]


def policy_for_force(force: Force) -> CampaignPolicy | None:
    """The roster's resolver: campaign copies get the campaign's policy."""
    from campaign.models import CampaignForce

    cached = Force.campaign_entry.is_cached(force) if hasattr(Force, "campaign_entry") else False
    if cached:
        entry = getattr(force, "campaign_entry", None)
    else:
        entry = CampaignForce.objects.select_related("campaign").filter(force_id=force.pk).first()
    return CampaignPolicy(entry) if entry is not None else None
