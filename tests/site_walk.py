"""The site walk the whole-site tests share: a world with an owner's data in it, every URL
pattern of the site, a concrete path for each, and a snapshot of everything a refused
request must leave as it was."""

import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import ApiToken
from accounts.tokens import create_api_token
from campaign import services as campaign_services
from campaign.models import Battle, Campaign, CampaignEvent, CampaignForce, LedgerEntry
from events import services as events_services
from events.models import Delivery, Webhook
from play import services as play_services
from play.models import Battle as PlayBattle
from roster import services as roster_services
from roster.models import Force, Member, SkillRoll
from tests.campaign.conftest import record
from tests.roster.builders import emma, force, student

# Words that exist only in the owner's data: any of them in a response is a leak.
SECRETS = ("Zebracorn Force", "Quxwellina", "Heronmere League", "Owlbear Token")

# Pages anyone may see: they show no private data.
PUBLIC = re.compile(
    r"^/($|favicon\.ico$|rules/|accounts/(signup|login|logout)/|api/v1/$|api/v1/rules/|api/schema/|api/docs/"
    r"|api/v1/rosters/validate/)"
)
# Pages opened by an unguessable token: whoever holds the token may look, by design.
BY_TOKEN = re.compile(r"^/(forces/shared/|campaigns/join/|play/watch/|api/v1/battles/watch/)")
LOGIN = "/accounts/login/"
RULES_SLUGS = {
    "societies": "academic",
    "skill-categories": "melee",
    "equipment": "hand-weapon",
    "spell-schools": "restoration",
    "spells": "healing-spring",
}


@dataclass
class World:
    owner: object
    stranger: object
    values: dict[str, str]
    campaign_values: dict[str, str]
    play_values: dict[str, str]


def make_world() -> World:
    users = get_user_model()
    owner = users.objects.create_user("owner", password="pw-owner-12345")
    opponent = users.objects.create_user("opponent", password="pw-opponent-12345")
    stranger = users.objects.create_user("stranger", password="pw-stranger-12345")
    secret_member = student("Quxwellina")
    document = force(emma(), secret_member, student("Ben"), student("Cat"), name="Zebracorn Force")
    mine = roster_services.import_force(owner=owner, document=document)
    roster_services.set_share_link(force=mine, actor=None, enabled=True)
    token, _ = create_api_token(user=owner, name="Owlbear Token")
    campaign = campaign_services.create_campaign(organiser=owner, name="Heronmere League")
    campaign_services.join_campaign(user=opponent, token=campaign.invite_token)
    theirs = roster_services.import_force(owner=opponent, document=force(*document["members"]))
    red = campaign_services.enter_force(campaign=campaign, player=owner, force=mine)
    blue = campaign_services.enter_force(campaign=campaign, player=opponent, force=theirs)
    live = play_services.start_battle(
        by=owner, forces=[red.force, blue.force], scenario="Duel", campaign=campaign
    )
    battle = record(campaign, opponent, red, blue, winner=None)
    hook = events_services.create_webhook(
        user=owner, url="https://hooks.example/Quxwellina", kinds=["battle-recorded"]
    )
    mine.refresh_from_db()
    return World(
        owner=owner,
        stranger=stranger,
        values={
            "force_id": str(mine.pk),
            "member_id": str(mine.members.get(name="Quxwellina").pk),
            "member_index": "1",
            "token": mine.share_token,
            "token_id": str(token.pk),
            "step": "equipment-add",
            "slug": "academic",
            "key": "melee/dual-wield",
            "webhook_id": str(hook.pk),
        },
        campaign_values={
            "campaign_id": str(campaign.pk),
            "campaign_force_id": str(red.pk),
            "member_id": str(red.force.members.get(name="Quxwellina").pk),
            "battle_id": str(battle.pk),
            "level_up_index": "0",
            "token": campaign.invite_token,
        },
        play_values={"battle_id": str(live.pk), "token": live.spectator_token},
    )


def routes(patterns=None, prefix: str = "") -> Iterator[str]:
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route


def fill(route: str, world: World) -> str | None:
    """A concrete path for a route, or None for those the walk leaves to their own tests."""
    if route.startswith("admin/") or "format" in route:
        return None  # Django's admin checks staff itself; format suffixes repeat routes
    values = world.campaign_values if "campaigns/" in route else world.values
    if route.startswith(("play/", "api/v1/battles/")):
        values = world.play_values
    for collection, slug in RULES_SLUGS.items():
        if f"^{collection}/" in route:
            values = {**values, "slug": slug}
    if "/steps/" in route:
        values = {**values, "step": "equipment"}  # a builder step, not a change to make
    path = route.replace("^", "").replace("$", "")

    def value(name: str) -> str:
        if name not in values:
            pytest.fail(f"The walk does not know how to fill <{name}> in {route}; add it.")
        return values[name]

    path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: value(m.group(1)), path)  # regex routes
    path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: value(m.group(1)), path)
    return "/" + path


def snapshot() -> tuple:
    """Everything a refused request must leave as it was."""
    return (
        list(
            Force.objects.order_by("pk").values_list(
                "pk", "name", "resources", "share_token", "updated_at"
            )
        ),
        list(Member.objects.order_by("pk").values()),
        SkillRoll.objects.count(),
        ApiToken.objects.count(),
        list(Campaign.objects.values_list("pk", "name", "invite_token")),
        list(CampaignForce.objects.values_list("pk", "retired_at")),
        list(Battle.objects.values_list("pk", "status")),
        LedgerEntry.objects.count(),
        CampaignEvent.objects.count(),
        list(PlayBattle.objects.values_list("pk", "version", "status")),
        list(Webhook.objects.values_list("pk", "url", "kinds", "active")),
        Delivery.objects.count(),
    )
