"""What a campaign force's tallies are: one source of truth for the standings' numbers.

`CampaignForce.won`, `drawn`, `lost` and `balance` are kept by `campaign.services` as
battles are confirmed and voided and ledger entries written; `recount_standings` says
what they must be, from the battles and the ledger: a confirmed battle counts once
for each of its forces, by that force's outcome (a draw for every force when nobody
won, R14; a voided or pending battle not at all, R15a), and the balance is the sum of
the force's ledger (R15). `Campaign.battles_played` is kept the same way: its
confirmed battles. The data migrations, the bulk seeds (`seed_scale`), the campaign
import and the tests use it.

It takes the models from the queryset it is given, so a migration can pass its
historical models.
"""

from collections.abc import Iterator
from typing import Any

from django.db.models import Count, QuerySet, Sum

# A battle force's outcome, and the tally it adds to.
TALLY_FOR_OUTCOME = {"win": "won", "draw": "drawn", "loss": "lost"}
TALLIES = ("won", "drawn", "lost", "balance")
CONFIRMED = "confirmed"  # Battle.Status.CONFIRMED, spelt out for historical models


def _chunks(ids: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def recounted(campaign_forces: QuerySet[Any]) -> dict[int, dict[str, int]]:
    """{campaign force pk: {tally: value}} from the battles and the ledger, for each
    force of `campaign_forces` (zeros for a force with neither). Two grouped queries per
    thousand forces, each filtered by the forces' ids (their own rows only)."""
    model = campaign_forces.model
    apps = model._meta.apps
    battle_force = apps.get_model("campaign", "BattleForce")
    ledger_entry = apps.get_model("campaign", "LedgerEntry")
    ids = list(campaign_forces.order_by("pk").values_list("pk", flat=True))
    found: dict[int, dict[str, int]] = {}
    for chunk in _chunks(ids, 1000):
        found.update({pk: dict.fromkeys(TALLIES, 0) for pk in chunk})
        outcomes = (
            battle_force.objects.filter(campaign_force_id__in=chunk, battle__status=CONFIRMED)
            .order_by()
            .values_list("campaign_force_id", "outcome")
            .annotate(n=Count("*"))
        )
        for pk, outcome, n in outcomes:
            found[pk][TALLY_FOR_OUTCOME[outcome]] = n
        balances = (
            ledger_entry.objects.filter(campaign_force_id__in=chunk)
            .order_by()
            .values_list("campaign_force_id")
            .annotate(total=Sum("amount"))
        )
        for pk, total in balances:
            found[pk]["balance"] = total or 0
    return found


def battles_played(campaigns: QuerySet[Any]) -> dict[int, int]:
    """{campaign pk: its confirmed battles} for each of `campaigns`; one grouped query
    per thousand campaigns, each filtered by the campaigns' ids."""
    battle = campaigns.model._meta.apps.get_model("campaign", "Battle")
    ids = list(campaigns.order_by("pk").values_list("pk", flat=True))
    found: dict[int, int] = {}
    for chunk in _chunks(ids, 1000):
        found.update(dict.fromkeys(chunk, 0))
        counts = (
            battle.objects.filter(campaign_id__in=chunk, status=CONFIRMED)
            .order_by()
            .values_list("campaign_id")
            .annotate(n=Count("*"))
        )
        found.update(dict(counts))
    return found


def recount_standings(campaign_forces: QuerySet[Any]) -> int:
    """Set every tally of `campaign_forces` to what the battles and the ledger say (one
    UPDATE per thousand forces); returns how many forces were written."""
    model = campaign_forces.model
    rows = [model(pk=pk, **tallies) for pk, tallies in recounted(campaign_forces).items()]
    model.objects.bulk_update(rows, TALLIES, batch_size=1000)
    return len(rows)


def recount_battles_played(campaigns: QuerySet[Any]) -> int:
    """Set `battles_played` of `campaigns` to their confirmed battles (one UPDATE per
    thousand campaigns); returns how many campaigns were written."""
    model = campaigns.model
    rows = [model(pk=pk, battles_played=n) for pk, n in battles_played(campaigns).items()]
    model.objects.bulk_update(rows, ["battles_played"], batch_size=1000)
    return len(rows)
