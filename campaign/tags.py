"""The versions of the campaign objects that can race, as entity tags (issue #32;
docs/api.md, "Preconditions").

A campaign's tag names its house rules (and name): the organiser's change of them is
made only on the rules the organiser saw (`If-Match`). A battle's tag names its status
and the house rules it would be scored with now (R14c): a confirmation is made only on
the battle, and the rules, the confirmer reviewed. A campaign force's tag names what its
answer shows (its force's version, its ledger balance and tallies, its retirement):
entering and retiring answer with it, so a tool needs no read to know the version it now
holds (a level-up answers its roster's tag, for `If-Match` there). A ledger entry never
changes (R15): its tag names it. Tags are worked out from what they name, so a read
needs no column of its own and a change back to what was seen matches again (what the
caller saw is then what there is).
"""

import hashlib
import json

from campaign.models import Battle, Campaign, CampaignForce, LedgerEntry


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def campaign_tag(campaign: Campaign) -> str:
    """The opaque value of the campaign's tag: its name and house rules."""
    rules = json.dumps(campaign.house_rules.as_dict(), sort_keys=True)
    return f"c{campaign.pk}-{_digest(campaign.name + rules)}"


def battle_tag(battle: Battle) -> str:
    """The opaque value of the battle's tag: its status and the house rules it would be
    scored with now."""
    return f"b{battle.pk}-{_digest(battle.status + campaign_tag(battle.campaign))}"


def campaign_force_tag(cf: CampaignForce) -> str:
    """The opaque value of the campaign force's tag: its force's version (members, levels,
    name, rating) and the campaign's own records of it (balance, tallies, retirement)."""
    retired = cf.retired_at.isoformat() if cf.retired_at else ""
    seen = f"{cf.force.version}:{cf.balance}:{cf.won}/{cf.drawn}/{cf.lost}:{retired}"
    return f"f{cf.pk}-{_digest(seen)}"


def ledger_entry_tag(entry: LedgerEntry) -> str:
    """The opaque value of a ledger entry's tag: entries never change (R15), so it names
    the entry, and its amount and time in case an id is ever used again."""
    return f"e{entry.pk}-{_digest(f'{entry.amount}:{entry.created_at.isoformat()}')}"
