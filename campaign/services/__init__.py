"""Writes to campaigns. Every function checks who may do it, keeps the house rules
(R14-R18), runs in one transaction and writes a `CampaignEvent` for the campaign log.

Campaign copies of forces are written only through the roster's write path
(`roster.services`), judged by the campaign's policy (`campaign.policy`): the
between-battles rules and their ledger entries live there. The functions here keep the
campaign's own records (players, battles, the ledger) and ask the roster's write path
for the force changes a battle brings (XP, R16) or takes back (R15a).

Resources (R11, R15): a campaign copy's `Force.resources` is its engine cost plus its
ledger balance, so the engine's over-budget check means "the balance is below 0".

Locks: a battle row is locked before campaign force rows, campaign force rows in id
order, and a campaign force row before its force row (the write path takes them in that
order too), so concurrent calls queue instead of deadlocking. Balances are read only
under the campaign force's row lock: no lost update, no overdraft.

Tallies: each campaign force's won / drawn / lost and balance (what the standings read)
move here and nowhere else, in the same transaction as what they count: `_entry` adds
every ledger entry's amount to the balance, `confirm_battle` adds one battle of each
force's outcome and `void_battle` takes a confirmed one away. Each is one UPDATE of
`F() + n`, atomic in the database whatever the locks. `campaign.tallies` recounts them
from the battles and the ledger (the tests hold the two equal).

Refusals raise `dbd_site.errors` kinds with stable codes.

One module per area, as the campaign's pages are: `campaigns` (campaigns, house rules,
players), `forces` (entering and retiring), `resources` (R15), `level_ups` (R16, R17),
`battles` (R14-R16), with what they share in `common`. Callers import from here.
"""

from campaign.services.battles import (
    LevelUpLost,
    confirm_battle,
    may_confirm,
    may_void,
    record_battle,
    void_battle,
    void_plan,
)
from campaign.services.campaigns import (
    create_campaign,
    join_campaign,
    reset_invite_token,
    update_house_rules,
)
from campaign.services.common import (
    CODES,
    MAX_ENEMIES,
    MAX_OBJECTIVES,
    MemberOutcome,
    balance_of,
    has_pending_battle,
    lock_campaign_force,
    record_change,
)
from campaign.services.forces import enter_force, retire_campaign_force
from campaign.services.level_ups import continue_level_up_roll, take_level_up
from campaign.services.resources import adjust_resources, spend

__all__ = [
    "CODES",
    "MAX_ENEMIES",
    "MAX_OBJECTIVES",
    "LevelUpLost",
    "MemberOutcome",
    "adjust_resources",
    "balance_of",
    "confirm_battle",
    "continue_level_up_roll",
    "create_campaign",
    "enter_force",
    "has_pending_battle",
    "join_campaign",
    "lock_campaign_force",
    "may_confirm",
    "may_void",
    "record_battle",
    "record_change",
    "reset_invite_token",
    "retire_campaign_force",
    "spend",
    "take_level_up",
    "update_house_rules",
    "void_battle",
    "void_plan",
]
