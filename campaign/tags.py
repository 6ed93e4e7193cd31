"""The versions of the campaign objects that can race, as entity tags (issue #32;
docs/api.md, "Preconditions").

A campaign's tag names its house rules (and name): the organiser's change of them is made
only on the rules the organiser saw (`If-Match`). A battle's tag names its status and the
house rules it would be scored with now (R14c): a confirmation is made only on the battle,
and the rules, the confirmer reviewed. Tags are worked out from what they name, so a
read needs no column of its own and a change back to what was seen matches again (what
the caller saw is then what there is).
"""

import hashlib
import json

from campaign.models import Battle, Campaign


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
