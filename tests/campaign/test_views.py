"""The campaign pages: who may see and do what, and each page's forms (good and bad)."""

import datetime
import json
import re
from types import SimpleNamespace

import pytest
from django.urls import reverse

from campaign import selectors, services
from campaign.models import (
    Battle,
    Campaign,
    CampaignEvent,
    CampaignForce,
    CampaignPlayer,
    LedgerEntry,
)
from roster import engine
from roster.models import Force, Member, SkillRoll
from rules.loader import get_catalogue
from tests.campaign.conftest import (
    TODAY,
    ann_takes_an_enemy_out,
    freeform_force,
    make_user,
    record,
)
from tests.campaign.test_selectors import bulk_battles
from tests.pages import html
from tests.roster.builders import emma, force, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def state() -> tuple:
    """Everything a campaign write could change, to prove a refused one changed nothing."""
    return (
        list(
            Campaign.objects.order_by("pk").values_list(
                "pk", "name", "invite_token", "starting_resources", "level_thresholds"
            )
        ),
        list(CampaignPlayer.objects.order_by("pk").values_list("campaign", "user")),
        list(CampaignForce.objects.order_by("pk").values_list("pk", "retired_at")),
        list(Battle.objects.order_by("pk").values_list("pk", "status", "void_reason")),
        list(LedgerEntry.objects.order_by("pk").values_list("pk", "amount")),
        CampaignEvent.objects.count(),
        list(Member.objects.order_by("pk").values_list("pk", "xp", "level_ups")),
        SkillRoll.objects.count(),
        Force.objects.count(),
    )


@pytest.fixture
def outsider():
    return make_user("eve")


@pytest.fixture
def world(campaign, organiser, alice, bob, outsider, red, blue):
    """A confirmed battle (Ann reached level 2) and a pending one recorded by alice."""
    confirmed = ann_takes_an_enemy_out(
        campaign,
        red,
        blue,
        by=alice,
        confirmed_by=bob,
        scenario="First Blood",
        played_on=TODAY - datetime.timedelta(days=7),
    )
    pending = record(campaign, alice, red, blue, scenario="Second Wind", winner="blue")
    return SimpleNamespace(
        campaign=campaign,
        red=red,
        blue=blue,
        confirmed=confirmed,
        pending=pending,
        ann=Member.objects.get(force_id=red.force_id, name="Ann"),
        users={
            "organiser": organiser,
            "owner": alice,
            "player": bob,
            "outsider": outsider,
            "anonymous": None,
        },
    )


@pytest.fixture
def levelled(campaign, alice, bob, red, blue):
    """Ann of alice's Red has a level-up waiting and no battle is pending."""
    ann_takes_an_enemy_out(campaign, red, blue, by=alice, confirmed_by=bob)
    return Member.objects.get(force_id=red.force_id, name="Ann")


def login(client, user):
    if user is not None:
        client.force_login(user)
    return client


# --- the permission matrix: every page --------------------------------------------------------

ROLES = ("organiser", "owner", "player", "outsider", "anonymous")


def page_urls(w) -> dict[str, str]:
    c, r = w.campaign.pk, w.red.pk
    return {
        "list": reverse("campaign:list"),
        "create": reverse("campaign:create"),
        "join": reverse("campaign:join", args=[w.campaign.invite_token]),
        "dashboard": reverse("campaign:dashboard", args=[c]),
        "house_rules": reverse("campaign:house_rules", args=[c]),
        "invite_reset": reverse("campaign:invite_reset", args=[c]),
        "enter_force": reverse("campaign:enter_force", args=[c]),
        "record_battle": reverse("campaign:record_battle", args=[c]),
        "battle": reverse("campaign:battle", args=[c, w.confirmed.pk]),
        "void_pending": reverse("campaign:battle_void", args=[c, w.pending.pk]),
        "void_confirmed": reverse("campaign:battle_void", args=[c, w.confirmed.pk]),
        "force": reverse("campaign:force", args=[c, r]),
        "force_retire": reverse("campaign:force_retire", args=[c, r]),
        "level_up": reverse("campaign:level_up", args=[c, r, w.ann.pk]),
        "charts": reverse("campaign:charts", args=[c]),
        "log": reverse("campaign:log", args=[c]),
        "export": reverse("campaign:export", args=[c]),
    }


# organiser, owner of Red (alice, who recorded the pending battle), player (bob, her
# opponent), outsider; anonymous visitors are always sent to log in.
GET_MATRIX = {
    "list": (200, 200, 200, 200),
    "create": (302, 302, 302, 302),
    "join": (302, 302, 302, 200),
    "dashboard": (200, 200, 200, 404),
    "house_rules": (200, 200, 200, 404),
    "invite_reset": (200, 403, 403, 404),
    "enter_force": (200, 200, 200, 404),
    "record_battle": (200, 200, 200, 404),
    "battle": (200, 200, 200, 404),
    "void_pending": (200, 200, 200, 404),
    "void_confirmed": (200, 403, 403, 404),
    "force": (200, 200, 200, 404),
    "force_retire": (200, 200, 403, 404),
    "level_up": (403, 200, 403, 404),
    "charts": (200, 200, 200, 404),
    "log": (200, 200, 200, 404),
    "export": (200, 403, 403, 404),
}


@pytest.mark.parametrize("page", sorted(GET_MATRIX))
@pytest.mark.parametrize("role", ROLES)
def test_every_page_for_every_role(client, world, page, role):
    url = page_urls(world)[page]
    before = state()
    response = login(client, world.users[role]).get(url)
    if role == "anonymous" and page == "join":
        assert response.status_code == 200  # the invitation's own page: log in to join
    elif role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("accounts:login"))
        assert "next=" in response["Location"]
    else:
        assert response.status_code == GET_MATRIX[page][ROLES.index(role)]
    if response.status_code == 404:
        assert world.campaign.name not in html(response)
    assert state() == before  # looking changes nothing


HTMX_PAGES = sorted(
    name for name, codes in GET_MATRIX.items() if codes[1] == 200 and name not in ("export",)
)


@pytest.mark.parametrize("page", HTMX_PAGES)
def test_every_page_answers_htmx_with_a_fragment(client, world, page):
    url = page_urls(world)[page]
    full = login(client, world.users["owner"]).get(url)
    fragment = client.get(url, **HTMX)
    assert full.status_code == fragment.status_code == 200
    assert "<html" in html(full)
    assert "<html" not in html(fragment)
    # The log's pager swaps its entries; record-a-battle reloads its member rows.
    marker = {"log": "camp-log", "record_battle": "Tick the forces that played"}
    assert marker.get(page, 'id="campaign-page"') in html(fragment)
    assert "HX-Request" in fragment["Vary"]
    # A history restore wants the whole page back.
    restored = client.get(url, HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HTMX)
    assert "<html" in html(restored)


def post_data(w) -> dict[str, tuple[str, dict]]:
    c, r = w.campaign.pk, w.red.pk
    rules = {
        **w.campaign.house_rules.as_dict(),
        "starting_resources": 60,
        "level_thresholds": "0, 3, 7",
    }
    return {
        "create": (reverse("campaign:create"), {"name": "Sneaky"}),
        "join": (reverse("campaign:join", args=[w.campaign.invite_token]), {}),
        "invite_reset": (reverse("campaign:invite_reset", args=[c]), {}),
        "house_rules": (reverse("campaign:house_rules", args=[c]), rules),
        "enter_force": (reverse("campaign:enter_force", args=[c]), {"force": w.red.force_id}),
        "record_battle": (
            reverse("campaign:record_battle", args=[c]),
            {"played_on": "2025-03-01", "scenario": "X", "forces": [w.red.pk, w.blue.pk]},
        ),
        "confirm": (reverse("campaign:battle_confirm", args=[c, w.pending.pk]), {}),
        "void_pending": (
            reverse("campaign:battle_void", args=[c, w.pending.pk]),
            {"reason": "no"},
        ),
        "void_confirmed": (
            reverse("campaign:battle_void", args=[c, w.confirmed.pk]),
            {"reason": "no"},
        ),
        "force_retire": (reverse("campaign:force_retire", args=[c, r]), {}),
        "level_up": (
            reverse("campaign:level_up", args=[c, r, w.ann.pk]),
            {"advancement": "1:ME", "method": "rolled"},
        ),
        "level_up_roll": (
            reverse("campaign:level_up_roll", args=[c, r, w.ann.pk]),
            {"roll-action": "roll", "roll-slot": "level_ups/0"},
        ),
    }


# The refused POSTs: (endpoint, role, status). Anonymous visitors are sent to log in.
REFUSED_POSTS = [
    ("create", "anonymous", 302),
    ("join", "anonymous", 302),
    ("invite_reset", "owner", 403),
    ("invite_reset", "player", 403),
    ("invite_reset", "outsider", 404),
    ("invite_reset", "anonymous", 302),
    ("house_rules", "owner", 403),
    ("house_rules", "player", 403),
    ("house_rules", "outsider", 404),
    ("house_rules", "anonymous", 302),
    ("enter_force", "outsider", 404),
    ("enter_force", "anonymous", 302),
    ("record_battle", "outsider", 404),
    ("record_battle", "anonymous", 302),
    ("confirm", "owner", 403),  # alice recorded it: an opponent or the organiser confirms
    ("confirm", "outsider", 404),
    ("confirm", "anonymous", 302),
    ("void_pending", "outsider", 404),
    ("void_pending", "anonymous", 302),
    ("void_confirmed", "owner", 403),
    ("void_confirmed", "player", 403),
    ("void_confirmed", "outsider", 404),
    ("void_confirmed", "anonymous", 302),
    ("force_retire", "player", 403),
    ("force_retire", "outsider", 404),
    ("force_retire", "anonymous", 302),
    ("level_up", "organiser", 403),
    ("level_up", "player", 403),
    ("level_up", "outsider", 404),
    ("level_up", "anonymous", 302),
    ("level_up_roll", "organiser", 403),
    ("level_up_roll", "player", 403),
    ("level_up_roll", "outsider", 404),
    ("level_up_roll", "anonymous", 302),
]


@pytest.mark.parametrize(("endpoint", "role", "status"), REFUSED_POSTS)
def test_refused_posts_change_nothing(client, world, endpoint, role, status):
    url, data = post_data(world)[endpoint]
    before = state()
    response = login(client, world.users[role]).post(url, data)
    assert response.status_code == status
    if role == "anonymous":
        assert response["Location"].startswith(reverse("accounts:login"))
    assert state() == before


@pytest.mark.parametrize("endpoint", ["invite_reset", "house_rules", "void_confirmed"])
def test_refused_htmx_posts_change_nothing_either(client, world, endpoint):
    url, data = post_data(world)[endpoint]
    before = state()
    response = login(client, world.users["player"]).post(url, data, **HTMX)
    assert response.status_code == 403
    assert state() == before


def test_a_player_who_left_no_force_may_not_record_a_battle(client, world):
    carol = make_user("carol")
    services.join_campaign(user=carol, token=world.campaign.invite_token)
    services.void_battle(battle=world.pending, by=world.users["organiser"])
    before = state()
    response = login(client, carol).post(
        reverse("campaign:record_battle", args=[world.campaign.pk]),
        battle_post(world.red, world.blue, winner=world.red.pk),
    )
    assert response.status_code == 400
    assert "Only a player whose force took part" in html(response)
    assert state() == before


def test_get_only_pages_refuse_posts(client, world):
    client.force_login(world.users["organiser"])
    for name in ("dashboard", "charts", "log", "export", "battle", "force", "list"):
        response = client.post(page_urls(world)[name])
        assert response.status_code == 405, name


# --- my campaigns --------------------------------------------------------------------------


def test_the_list_shows_my_campaigns_with_my_role_and_what_waits(client, world, bob, outsider):
    services.create_campaign(organiser=outsider, name="Eve's Cup")
    response = login(client, bob).get(reverse("campaign:list"))
    page = html(response)
    assert "Spring League" in page
    assert "Eve&#x27;s Cup" not in page
    assert "Eve's Cup" not in page
    assert "Player" in page
    assert "organised by olga" in page
    assert "1 to confirm" in page  # the pending battle alice recorded
    response = login(client, world.users["organiser"]).get(reverse("campaign:list"))
    assert "Organiser" in html(response)


def test_an_empty_list_says_how_to_start(client, outsider):
    page = html(login(client, outsider).get(reverse("campaign:list")))
    assert "No campaigns yet" in page
    assert 'action="/campaigns/new/"' in page


def test_create_a_campaign(client, outsider):
    response = login(client, outsider).post(
        reverse("campaign:create"), {"name": "  Winter Open  "}
    )
    campaign = Campaign.objects.get(name="Winter Open")
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign:dashboard", args=[campaign.pk])
    assert campaign.organiser == outsider
    assert selectors.is_player(campaign=campaign, user=outsider)
    assert campaign.house_rules == campaign.house_rules.__class__()  # defaults (R14-R18)


@pytest.mark.parametrize("name", ["", "   ", "x" * 101])
def test_a_campaign_needs_a_sensible_name(client, outsider, name):
    response = login(client, outsider).post(reverse("campaign:create"), {"name": name})
    assert response.status_code == 400
    assert "errorlist" in html(response)
    assert not Campaign.objects.exists()


# --- joining -------------------------------------------------------------------------------


def test_join_by_invitation_link(client, campaign, outsider):
    url = reverse("campaign:join", args=[campaign.invite_token])
    page = html(login(client, outsider).get(url))
    assert "Spring League" in page
    assert "olga" in page
    assert "Join the campaign" in page
    response = client.post(url)
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign:dashboard", args=[campaign.pk])
    assert selectors.is_player(campaign=campaign, user=outsider)
    assert campaign.events.filter(kind=CampaignEvent.Kind.PLAYER_JOINED, actor=outsider).exists()
    # Already in: straight to the dashboard, nothing new.
    events = campaign.events.count()
    assert client.get(url).status_code == 302
    assert client.post(url).status_code == 302
    assert campaign.events.count() == events


def test_a_bad_or_replaced_link_is_404(client, campaign, organiser, outsider):
    old = campaign.invite_token
    login(client, outsider)
    assert client.get(reverse("campaign:join", args=["not-a-token"])).status_code == 404
    services.reset_invite_token(campaign=campaign, by=organiser)
    assert client.get(reverse("campaign:join", args=[old])).status_code == 404
    assert client.post(reverse("campaign:join", args=[old])).status_code == 404
    assert not selectors.is_player(campaign=campaign, user=outsider)


def test_anonymous_visitors_log_in_first_and_come_back(client, campaign, outsider):
    """Issue #31: the link's own page names the campaign and who invited, nothing more
    (no players, forces or battles), and its log-in and sign-up come back to it."""
    url = reverse("campaign:join", args=[campaign.invite_token])
    response = client.get(url)
    assert response.status_code == 200
    page = html(response)
    assert "<h1>Join Spring League</h1>" in page
    assert "<strong>olga</strong> invited you to their campaign" in page
    assert f'<input type="hidden" name="next" value="{url}">' in page
    assert f'action="{reverse("accounts:login")}"' in page
    signup = f"{reverse('accounts:signup')}?next={url}"
    assert f'href="{signup}"' in page
    for secret in ("alice", "bob", "Red Club", "Blue Club"):
        assert secret not in page
    # Joining takes an account first.
    response = client.post(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('accounts:login')}?next={url}"
    # Logging in from the page comes back to the invitation.
    response = client.post(
        reverse("accounts:login"),
        {"username": "eve", "password": "pw-eve-1234", "next": url},
    )
    assert response.status_code == 302
    assert response["Location"] == url
    assert "Join the campaign" in html(client.get(url))


def test_signing_up_from_an_invitation_comes_back_to_it(client, campaign):
    url = reverse("campaign:join", args=[campaign.invite_token])
    response = client.post(
        f"{reverse('accounts:signup')}?next={url}",
        {
            "username": "newcomer",
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == url


# --- the dashboard ---------------------------------------------------------------------------


def dashboard_buttons(client, campaign) -> list[tuple[str, bool]]:
    """The dashboard's buttons in order, each with whether it is the main (solid) one."""
    page = html(client.get(reverse("campaign:dashboard", args=[campaign.pk])))
    actions = page[page.index('<div class="camp-actions">') :]
    actions = actions[: actions.index("</div>")]
    return [
        (label, "button--secondary" not in classes)
        for classes, label in re.findall(r'<a class="([^"]*)" href="[^"]*">([^<]*)</a>', actions)
    ]


def test_the_dashboard_s_main_button_is_the_next_step(client, campaign, alice, bob):
    """Issue #31: "Enter a force" before the player has one in, "Record a battle" once
    theirs and another are in."""
    login(client, alice)
    assert dashboard_buttons(client, campaign) == [
        ("Enter a force", True),
        ("Record a battle", False),
        ("Play a battle live", False),
    ]
    services.enter_force(campaign=campaign, player=alice, force=freeform_force(alice, "Red"))
    assert dashboard_buttons(client, campaign) == [
        ("Your force: Red", True),
        ("Record a battle", False),
        ("Play a battle live", False),
    ]
    services.enter_force(campaign=campaign, player=bob, force=freeform_force(bob, "Blue"))
    assert dashboard_buttons(client, campaign) == [
        ("Record a battle", True),
        ("Play a battle live", False),
        ("Your force: Red", False),
    ]


def test_the_dashboard(client, world, bob):
    page = html(login(client, bob).get(reverse("campaign:dashboard", args=[world.campaign.pk])))
    assert "Standings" in page
    assert "Red Club" in page
    assert "Blue Club" in page
    assert "First Blood" in page  # recent, confirmed
    assert "Second Wind" in page  # waiting for confirmation
    assert "1 for you" in page
    confirm = reverse("campaign:battle_confirm", args=[world.campaign.pk, world.pending.pk])
    assert f'action="{confirm}"' in page
    assert "Dispute" in page  # bob is the opponent of a pending battle
    assert "level up!" in page  # Ann
    assert world.campaign.invite_token in page  # players can copy the link
    assert reverse("campaign:invite_reset", args=[world.campaign.pk]) not in page
    assert reverse("campaign:export", args=[world.campaign.pk]) not in page


def test_the_dashboard_links_each_force_where_it_names_it(client, world, bob):
    """The standings, a level-up and the viewer's own force link the force's page."""
    page = html(login(client, bob).get(reverse("campaign:dashboard", args=[world.campaign.pk])))
    red = reverse("campaign:force", args=[world.campaign.pk, world.red.pk])
    blue = reverse("campaign:force", args=[world.campaign.pk, world.blue.pk])
    assert f'<a href="{red}">Red Club</a>' in page
    assert f'<a href="{blue}">Blue Club</a>' in page
    assert f'<a href="{red}#member-{world.ann.pk}">Red Club</a>' in page
    assert f'href="{blue}">Your force: Blue Club</a>' in page


def test_the_dashboard_for_the_recorder_and_the_organiser(client, world, alice, organiser):
    url = reverse("campaign:dashboard", args=[world.campaign.pk])
    confirm = reverse("campaign:battle_confirm", args=[world.campaign.pk, world.pending.pk])
    page = html(login(client, alice).get(url))
    assert f'action="{confirm}"' not in page  # the recorder waits for an opponent
    assert "Withdraw" in page
    # Ann's level-up waits: her force is in a pending battle.
    assert "after the pending battle" in page
    page = html(login(client, organiser).get(url))
    assert f'action="{confirm}"' in page
    assert reverse("campaign:invite_reset", args=[world.campaign.pk]) in page
    assert reverse("campaign:export", args=[world.campaign.pk]) in page


def test_the_dashboard_of_a_new_campaign_has_empty_states(client, outsider):
    campaign = services.create_campaign(organiser=outsider, name="Fresh")
    page = html(login(client, outsider).get(reverse("campaign:dashboard", args=[campaign.pk])))
    assert "No forces yet" in page
    assert "Nothing is waiting" in page
    assert "No confirmed battles yet" in page
    assert "No one is waiting to level up" in page


def test_the_dashboard_as_an_htmx_partial(client, world, bob):
    url = reverse("campaign:dashboard", args=[world.campaign.pk])
    response = login(client, bob).get(url, **HTMX)
    assert response.status_code == 200
    assert "<html" not in html(response)
    assert 'id="campaign-page"' in html(response)
    assert "HX-Request" in response["Vary"]


@pytest.mark.parametrize("battles", [1, 200])
def test_the_dashboard_queries_do_not_grow_with_battles(
    client, campaign, alice, bob, red, blue, battles, django_assert_num_queries
):
    bulk_battles(campaign, red, blue, alice, battles)
    login(client, alice)
    url = reverse("campaign:dashboard", args=[campaign.pk])
    client.get(url)  # warm up: session, catalogue
    with django_assert_num_queries(DASHBOARD_QUERIES):
        response = client.get(url)
    assert response.status_code == 200


# The session, the user, the campaign, the page's own reads (`selectors.dashboard`: six)
# and one for the battles being played now (play mode's panel; none here): the same at 1
# and at 200 battles.
DASHBOARD_QUERIES = 10


# --- invitation link -------------------------------------------------------------------------


def test_the_organiser_replaces_the_invitation_link(client, campaign, organiser):
    old = campaign.invite_token
    url = reverse("campaign:invite_reset", args=[campaign.pk])
    page = html(login(client, organiser).get(url))
    assert "stop working" in page
    assert Campaign.objects.get(pk=campaign.pk).invite_token == old  # GET only asks
    response = client.post(url)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.invite_token != old
    assert campaign.events.filter(kind=CampaignEvent.Kind.INVITE_RESET).exists()


# --- house rules -----------------------------------------------------------------------------


def rules_post(campaign, **changes) -> dict:
    data = campaign.house_rules.as_dict()
    data["level_thresholds"] = ", ".join(str(t) for t in data["level_thresholds"])
    data.update(changes)
    return data


def test_players_read_the_house_rules_in_plain_words(client, campaign, alice):
    page = html(login(client, alice).get(reverse("campaign:house_rules", args=[campaign.pk])))
    assert "Every force starts with <strong>50 Resources</strong>" in page
    assert "Starting Resources (R11)" in page
    assert "level 2 at 3" in page
    assert "<form" not in page.split("House rules</h1>")[1]  # no edit form for players


def test_the_organiser_changes_the_house_rules(client, campaign, organiser):
    url = reverse("campaign:house_rules", args=[campaign.pk])
    page = html(login(client, organiser).get(url))
    assert 'name="level_thresholds"' in page
    assert 'value="0, 3, 7, 12' in page
    response = client.post(
        url, rules_post(campaign, resources_for_win=12, level_thresholds="0, 4, 9")
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.resources_for_win == 12
    assert campaign.level_thresholds == [0, 4, 9]
    event = campaign.events.get(kind=CampaignEvent.Kind.HOUSE_RULES_CHANGED)
    assert "Resources for a win (R15) 10 -> 12" in event.message


def test_the_organiser_forbids_and_allows_entered_rolls(client, campaign, organiser, alice):
    """P5's house rule on the form: an unticked box is "no", a ticked one "yes"."""
    url = reverse("campaign:house_rules", args=[campaign.pk])
    page = html(login(client, organiser).get(url))
    box = '<input type="checkbox" name="entered_rolls_allowed" id="id_entered_rolls_allowed"'
    assert f"{box} checked>" in page
    data = rules_post(campaign)
    del data["entered_rolls_allowed"]  # the box unticked posts nothing
    assert client.post(url, data).status_code == 302
    campaign.refresh_from_db()
    assert campaign.entered_rolls_allowed is False
    event = campaign.events.get(kind=CampaignEvent.Kind.HOUSE_RULES_CHANGED)
    assert event.data == {"changes": {"entered_rolls_allowed": [True, False]}}
    page = html(client.get(url))
    assert f"{box}>" in page
    words = html(login(client, alice).get(url))
    assert "<strong>only the server's dice</strong> are used" in words
    assert "<td>no</td>" in words
    login(client, organiser)
    assert client.post(url, {**data, "entered_rolls_allowed": "on"}).status_code == 302
    campaign.refresh_from_db()
    assert campaign.entered_rolls_allowed is True
    assert "dice rolled at the table <strong>may be entered</strong>" in html(client.get(url))


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"level_thresholds": "0, 5, 3"}, "level_thresholds", "strictly increasing"),
        ({"level_thresholds": "1, 5"}, "level_thresholds", "start at 0"),
        ({"level_thresholds": "0, three"}, "level_thresholds", "not a whole number"),
        ({"level_thresholds": ""}, "level_thresholds", "starting with 0"),
        ({"starting_resources": "0"}, "starting_resources", "Use 1 or more"),
        ({"resources_for_win": "-1"}, "resources_for_win", "Use 0 or more"),
        ({"xp_per_objective": "lots"}, "xp_per_objective", "whole number"),
    ],
)
def test_bad_house_rules_are_explained_next_to_the_field(
    client, campaign, organiser, changes, field, message
):
    before = state()
    response = login(client, organiser).post(
        reverse("campaign:house_rules", args=[campaign.pk]), rules_post(campaign, **changes)
    )
    assert response.status_code == 400
    page = html(response)
    assert message in page
    # The error sits in the field's own group, before its input.
    group = page.split(f'for="id_{field}"')[1].split("<input")[0]
    assert "errorlist" in group
    assert message in group
    assert state() == before


def test_thresholds_that_strand_taken_level_ups_are_refused(client, campaign, organiser, levelled):
    red = CampaignForce.objects.get(force_id=levelled.force_id)
    services.take_level_up(campaign_force=red, by=red.player, member=levelled, line=1, choice="ME")
    before = state()
    response = login(client, organiser).post(
        reverse("campaign:house_rules", args=[campaign.pk]),
        rules_post(campaign, level_thresholds="0, 10, 20"),
    )
    assert response.status_code == 400
    assert "more level-ups than levels: Ann" in html(response)
    assert state() == before


def test_house_rules_with_htmx(client, campaign, organiser):
    url = reverse("campaign:house_rules", args=[campaign.pk])
    login(client, organiser)
    bad = client.post(url, rules_post(campaign, level_thresholds="0, 0"), **HTMX)
    assert bad.status_code == 400
    assert "<html" not in html(bad)
    assert "strictly increasing" in html(bad)
    good = client.post(url, rules_post(campaign, points_for_draw=2), **HTMX)
    assert good.status_code == 200
    assert "<html" not in html(good)
    assert "House rules saved" in html(good)
    campaign.refresh_from_db()
    assert campaign.points_for_draw == 2


# --- entering a force ------------------------------------------------------------------------


def test_enter_a_force(client, campaign, outsider):
    services.join_campaign(user=outsider, token=campaign.invite_token)
    ready = freeform_force(outsider, "Eve's Eagles")
    small = roster_force(outsider, "Too Few", emma(), student("Ann"))
    url = reverse("campaign:enter_force", args=[campaign.pk])
    page = html(login(client, outsider).get(url))
    assert "Eve&#x27;s Eagles" in page
    assert "Ready" in page
    assert "Too Few" in page
    assert "4 to 6 students" in page
    assert f'value="{small.pk}"' not in page
    response = client.post(url, {"force": ready.pk})
    entry = CampaignForce.objects.get(campaign=campaign, player=outsider)
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign:force", args=[campaign.pk, entry.pk])
    assert entry.force_id != ready.pk
    assert entry.entered_from_id == ready.pk
    assert selectors.balance(campaign_force=entry) == 45  # 50 less a cost of 5 (R11)
    assert not CampaignForce.objects.filter(force_id=ready.pk).exists()  # original untouched
    # One force at a time.
    page = html(client.get(url))
    assert "You already play" in page


def roster_force(owner, name, *members):
    from roster import services as roster_services

    return roster_services.import_force(owner=owner, document=force(*members, name=name))


def test_a_force_that_cannot_enter_is_refused_with_a_reason(client, campaign, outsider):
    services.join_campaign(user=outsider, token=campaign.invite_token)
    small = roster_force(outsider, "Too Few", emma(), student("Ann"))
    before = state()
    response = login(client, outsider).post(
        reverse("campaign:enter_force", args=[campaign.pk]), {"force": small.pk}
    )
    assert response.status_code == 400
    assert "Choose one of your forces that can enter" in html(response)
    response = client.post(reverse("campaign:enter_force", args=[campaign.pk]), {})
    assert response.status_code == 400
    assert "Choose the force to enter" in html(response)
    assert state() == before


def test_someone_elses_force_is_not_on_offer(client, campaign, alice, bob):
    theirs = freeform_force(bob, "Bob's spare")
    before = state()
    response = login(client, alice).post(
        reverse("campaign:enter_force", args=[campaign.pk]), {"force": theirs.pk}
    )
    assert response.status_code == 400
    assert state() == before


def test_no_forces_yet_points_to_the_builder(client, campaign, outsider):
    services.join_campaign(user=outsider, token=campaign.invite_token)
    page = html(login(client, outsider).get(reverse("campaign:enter_force", args=[campaign.pk])))
    assert "no forces of your own yet" in page
    assert reverse("roster:list") in page


# --- recording a battle ----------------------------------------------------------------------


def battle_post(red, blue, *, winner, played_on="2025-03-01", scenario="Bridge", **rows):
    """A complete record-a-battle POST: every member took part unless `rows` says."""
    data: dict = {
        "played_on": played_on,
        "scenario": scenario,
        "forces": [red.pk, blue.pk],
        "winner": str(winner),
        f"shown-{red.pk}": "1",
        f"shown-{blue.pk}": "1",
    }
    for cf in (red, blue):
        for m in cf.force.members.all():
            data[f"m{m.pk}-took_part"] = "on"
            data[f"m{m.pk}-enemies_out_of_action"] = "0"
            data[f"m{m.pk}-objectives"] = "0"
    for key, value in rows.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def member(cf, name) -> Member:
    return Member.objects.get(force_id=cf.force_id, name=name)


def test_record_a_battle(client, campaign, alice, red, blue):
    ann, ben = member(red, "Ann"), member(blue, "Ben")
    data = battle_post(
        red,
        blue,
        winner=red.pk,
        **{
            f"m{ann.pk}-enemies_out_of_action": "2",
            f"m{ann.pk}-objectives": "1",
            f"m{ben.pk}-out_of_action": "on",
            f"m{member(blue, 'Cat').pk}-out_of_action": "on",  # R14b: Ann's second enemy
            f"m{member(red, 'Cat').pk}-took_part": None,  # sat this one out
        },
    )
    response = login(client, alice).post(
        reverse("campaign:record_battle", args=[campaign.pk]), data
    )
    battle = Battle.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign:battle", args=[campaign.pk, battle.pk])
    assert battle.status == Battle.Status.PENDING
    assert battle.winner == red
    assert battle.scenario == "Bridge"
    rows = {
        (bf.campaign_force_id, r.member_name): r
        for bf in battle.battle_forces.all()
        for r in bf.member_results.all()
    }
    assert (red.pk, "Cat") not in rows
    assert len(rows) == 7
    assert (rows[(red.pk, "Ann")].enemies_out_of_action, rows[(red.pk, "Ann")].objectives) == (
        2,
        1,
    )
    assert rows[(blue.pk, "Ben")].out_of_action
    assert member(red, "Ann").xp == 0  # nothing counts before confirmation


def test_a_draw(client, campaign, alice, red, blue):
    login(client, alice).post(
        reverse("campaign:record_battle", args=[campaign.pk]),
        battle_post(red, blue, winner="draw"),
    )
    assert Battle.objects.get().winner is None


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"scenario": "  "}, "Name the scenario you played"),
        ({"played_on": "yesterday"}, "Enter a date"),
        ({"played_on": "2999-01-01"}, "the date is in the future"),
        ({"winner": ""}, "Choose the winner, or a draw"),
        ({"winner": "999"}, "The winner must be one of the forces"),
        ({"forces": "only-red"}, "Tick two or more forces"),
        ({"enemies": "-1"}, "A whole number, 0 or more"),
        ({"objectives": "lots"}, "A whole number, 0 or more"),
        ({"stray": True}, "Tick “Took part” for a member with results"),
        ({"nobody": True}, "Name at least one member of Blue Club who took part"),
        ({"unshown": True}, "Check who took part for Blue Club"),
    ],
)
def test_bad_battles_are_explained_and_nothing_is_recorded(
    client, campaign, alice, red, blue, changes, message
):
    ann = member(red, "Ann")
    data = battle_post(red, blue, winner=red.pk)
    for key, value in changes.items():
        if key == "forces":
            data["forces"] = [red.pk]
        elif key == "enemies":
            data[f"m{ann.pk}-enemies_out_of_action"] = value
        elif key == "objectives":
            data[f"m{ann.pk}-objectives"] = value
        elif key == "stray":
            data.pop(f"m{ann.pk}-took_part")
            data[f"m{ann.pk}-objectives"] = "1"
        elif key == "nobody":
            for m in blue.force.members.all():
                data.pop(f"m{m.pk}-took_part")
        elif key == "unshown":
            data.pop(f"shown-{blue.pk}")
        else:
            data[key] = value
    before = state()
    response = login(client, alice).post(
        reverse("campaign:record_battle", args=[campaign.pk]), data
    )
    assert response.status_code == 400
    assert message.lower() in html(response).lower()
    assert state() == before


def test_a_force_in_a_pending_battle_waits(client, world, alice):
    before = state()
    response = login(client, alice).post(
        reverse("campaign:record_battle", args=[world.campaign.pk]),
        battle_post(world.red, world.blue, winner="draw"),
    )
    assert response.status_code == 400
    assert "Already in a battle waiting for confirmation" in html(response)
    assert state() == before


def test_record_battle_without_javascript_is_two_steps(client, campaign, alice, red, blue):
    url = reverse("campaign:record_battle", args=[campaign.pk])
    # A campaign of two forces starts with both ticked and their members shown.
    page = html(login(client, alice).get(url))
    assert 'name="show"' in page
    assert f'name="shown-{red.pk}"' in page
    assert f'name="shown-{blue.pk}"' in page
    # Asked for none (the form's own "forces=" after unticking), none are shown.
    page = html(client.get(url + "?forces="))
    assert "Tick the forces that played" in page
    assert f'name="shown-{red.pk}"' not in page
    # Step 1: choose the forces, "Show their members" keeps what was typed.
    response = client.post(
        url,
        {
            "played_on": "2025-03-01",
            "scenario": "Bridge",
            "forces": [red.pk, blue.pk],
            "show": "1",
        },
    )
    assert response.status_code == 200
    page = html(response)
    assert f'name="shown-{red.pk}"' in page
    assert f'name="shown-{blue.pk}"' in page
    assert 'value="Bridge"' in page
    assert f'name="m{member(red, "Ann").pk}-took_part" id=' in page
    assert "errorlist" not in page
    assert not Battle.objects.exists()
    # Step 2: the whole form.
    response = client.post(url, battle_post(red, blue, winner=blue.pk))
    assert response.status_code == 302
    assert Battle.objects.get().winner == blue


def test_record_battle_rows_load_with_htmx(client, campaign, alice, red, blue):
    url = reverse("campaign:record_battle", args=[campaign.pk])
    ann = member(red, "Ann")
    response = login(client, alice).get(
        url,
        {
            "forces": [red.pk, blue.pk],
            f"shown-{red.pk}": "1",
            f"m{ann.pk}-objectives": "3",  # kept when the rows reload
            "winner": str(red.pk),
        },
        **HTMX,
    )
    assert response.status_code == 200
    page = html(response)
    assert "<html" not in page
    assert "<form" not in page
    assert "Red Club" in page
    assert "Blue Club" in page
    assert f'name="m{ann.pk}-objectives" value="3"' in page
    assert f'value="{red.pk}" checked' in page
    assert "HX-Request" in response["Vary"]
    page = html(client.get(url, **HTMX))
    assert "Tick the forces that played" in page


def test_record_battle_offers_only_active_forces(client, campaign, alice, bob, red, blue):
    services.retire_campaign_force(campaign_force=blue, by=bob)
    page = html(login(client, alice).get(reverse("campaign:record_battle", args=[campaign.pk])))
    assert "A battle needs two forces" in page


# --- a battle: confirm, void -----------------------------------------------------------------


def test_the_battle_page(client, world, bob):
    url = reverse("campaign:battle", args=[world.campaign.pk, world.confirmed.pk])
    page = html(login(client, bob).get(url))
    assert "First Blood" in page
    assert "Confirmed" in page
    assert "Recorded by alice" in page
    assert "Confirmed by bob" in page
    assert "+3" in page  # Ann's XP: took part, an enemy, the win (R16)
    page = html(client.get(reverse("campaign:battle", args=[world.campaign.pk, world.pending.pk])))
    assert "Pending confirmation" in page
    assert "Confirm the result" in page
    assert "Dispute this battle" in page


def test_confirm_a_battle(client, world, bob):
    url = reverse("campaign:battle_confirm", args=[world.campaign.pk, world.pending.pk])
    response = login(client, bob).post(url, {"next": "battle"})
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "campaign:battle", args=[world.campaign.pk, world.pending.pk]
    )
    world.pending.refresh_from_db()
    assert world.pending.status == Battle.Status.CONFIRMED
    assert world.pending.confirmed_by == bob
    # Confirming twice is a clear error, not a crash.
    response = client.post(url, {"next": "battle"}, follow=True)
    assert "already confirmed" in html(response)


def test_confirm_from_the_dashboard_with_htmx(client, world, organiser):
    url = reverse("campaign:battle_confirm", args=[world.campaign.pk, world.pending.pk])
    response = login(client, organiser).post(url, {"next": "dashboard"}, **HTMX)
    assert response.status_code == 200
    page = html(response)
    assert "<html" not in page
    assert 'id="campaign-page"' in page
    assert "Confirmed Second Wind" in page
    assert "Nothing is waiting" in page
    world.pending.refresh_from_db()
    assert world.pending.status == Battle.Status.CONFIRMED
    again = client.post(url, {"next": "dashboard"}, **HTMX)
    assert again.status_code == 409  # a state conflict
    assert "already confirmed" in html(again)


def test_confirm_without_javascript_goes_back_to_the_dashboard(client, world, bob):
    url = reverse("campaign:battle_confirm", args=[world.campaign.pk, world.pending.pk])
    response = login(client, bob).post(url, {"next": "dashboard"})
    assert response["Location"] == reverse("campaign:dashboard", args=[world.campaign.pk]) + (
        "#pending"
    )


def test_void_a_confirmed_battle_with_a_reason(client, world, organiser, red, blue):
    url = reverse("campaign:battle_void", args=[world.campaign.pk, world.confirmed.pk])
    login(client, organiser)
    services.void_battle(battle=world.pending, by=organiser)  # clear the queue first
    page = html(client.get(url))
    assert "Yes, void it" in page
    assert 'name="reason"' in page
    before = state()
    response = client.post(url, {"reason": "  "})
    assert response.status_code == 400
    assert "Say why the battle is voided" in html(response)
    assert state() == before
    balance = selectors.balance(campaign_force=red)
    response = client.post(url, {"reason": "Wrong table size"})
    assert response.status_code == 302
    world.confirmed.refresh_from_db()
    assert world.confirmed.status == Battle.Status.VOID
    assert world.confirmed.void_reason == "Wrong table size"
    assert selectors.balance(campaign_force=red) == balance - 10  # reversed by a new entry
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.REVERSAL).count() == 2
    assert member(red, "Ann").xp == 0
    page = html(
        client.get(reverse("campaign:battle", args=[world.campaign.pk, world.confirmed.pk]))
    )
    assert "Wrong table size" in page
    assert "Voided by olga" in page


def test_the_recorder_withdraws_a_pending_battle(client, world, alice):
    url = reverse("campaign:battle_void", args=[world.campaign.pk, world.pending.pk])
    page = html(login(client, alice).get(url))
    assert "Withdraw Second Wind?" in page
    response = client.post(url, {"reason": ""})
    assert response.status_code == 302
    world.pending.refresh_from_db()
    assert world.pending.status == Battle.Status.VOID


def test_an_opponent_disputes_a_pending_battle(client, world, bob):
    url = reverse("campaign:battle_void", args=[world.campaign.pk, world.pending.pk])
    page = html(login(client, bob).get(url))
    assert "Dispute Second Wind?" in page
    client.post(url, {"reason": "We drew!"})
    world.pending.refresh_from_db()
    assert (world.pending.status, world.pending.void_reason) == ("void", "We drew!")


def test_a_void_battle_cannot_be_voided_again(client, world, organiser):
    services.void_battle(battle=world.pending, by=organiser)
    url = reverse("campaign:battle_void", args=[world.campaign.pk, world.pending.pk])
    response = login(client, organiser).get(url)
    assert response.status_code == 403
    assert "already void" in html(response)


def test_voiding_refused_when_resources_are_spent(client, world, organiser, alice, red):
    services.void_battle(battle=world.pending, by=organiser)
    services.spend(campaign_force=red, amount=55, reason="Everything", by=alice)
    before = state()
    response = login(client, organiser).post(
        reverse("campaign:battle_void", args=[world.campaign.pk, world.confirmed.pk]),
        {"reason": "Oops"},
    )
    assert response.status_code == 400
    assert "below 0 (R15)" in html(response)
    assert state() == before


# --- a campaign force ----------------------------------------------------------------------


def test_the_force_page(client, world, bob, alice):
    url = reverse("campaign:force", args=[world.campaign.pk, world.red.pk])
    page = html(login(client, bob).get(url))
    assert "Red Club" in page
    assert "Played by alice" in page
    assert "Starting Resources (R11)" in page
    assert "Initial roster" in page
    # The ledger with its running balance: +50, -5, +10 (R15).
    ledger = page.split('id="ledger"')[1]
    assert ledger.index(">+50<") < ledger.index(">-5<") < ledger.index(">+10<")
    assert ">45<" in ledger
    assert ">55<" in ledger
    # Folded (closed, no JavaScript needed), its balance in the summary as at the top.
    assert ledger.index('<details class="ledger-fold" data-keep-open="ledger">') < 200
    summary = '<summary>Balance <span data-testid="ledger-balance">55</span> · 3 entries</summary>'
    assert summary in ledger
    assert "<div><dt>Resources to spend</dt><dd>55</dd></div>" in page
    assert "First Blood" in page  # each member's history
    assert reverse("roster:detail", args=[world.red.force_id]) not in page  # not bob's
    page = html(login(client, alice).get(url))
    # The owner would edit it, but a battle is pending.
    assert "waiting for confirmation" in page
    assert reverse("roster:detail", args=[world.red.force_id]) not in page
    services.void_battle(battle=world.pending, by=alice)
    page = html(client.get(url))
    assert reverse("roster:detail", args=[world.red.force_id]) in page
    assert "Take the level-up" in page
    assert reverse("campaign:force_retire", args=[world.campaign.pk, world.red.pk]) in page


def test_the_force_page_htmx_partial(client, world, bob):
    url = reverse("campaign:force", args=[world.campaign.pk, world.red.pk])
    response = login(client, bob).get(url, **HTMX)
    assert response.status_code == 200
    assert "<html" not in html(response)


def test_a_force_of_another_campaign_is_404(client, world, outsider, organiser):
    other = services.create_campaign(organiser=outsider, name="Other")
    login(client, organiser)
    url = reverse("campaign:force", args=[other.pk, world.red.pk])
    assert client.get(url).status_code == 404
    url = reverse("campaign:force", args=[world.campaign.pk, 999999])
    assert client.get(url).status_code == 404
    url = reverse("campaign:battle", args=[world.campaign.pk, 999999])
    assert client.get(url).status_code == 404


def test_retire_a_force(client, world, alice, organiser):
    url = reverse("campaign:force_retire", args=[world.campaign.pk, world.red.pk])
    login(client, alice)
    page = html(client.get(url))
    assert "Retire Red Club?" in page
    before = state()
    response = client.post(url)  # a battle is pending: refused, explained
    assert response.status_code == 400
    assert "waiting for confirmation" in html(response)
    assert state() == before
    services.void_battle(battle=world.pending, by=organiser)
    response = client.post(url)
    assert response.status_code == 302
    world.red.refresh_from_db()
    assert world.red.retired_at is not None
    page = html(client.get(reverse("campaign:force", args=[world.campaign.pk, world.red.pk])))
    assert "Retired" in page
    assert reverse("campaign:force_retire", args=[world.campaign.pk, world.red.pk]) not in page


# --- level-ups (R17) -------------------------------------------------------------------------


def level_up_url(campaign, cf, m, roll=False) -> str:
    name = "campaign:level_up_roll" if roll else "campaign:level_up"
    return reverse(name, args=[campaign.pk, cf.pk, m.pk])


def test_take_a_statistic_level_up(client, campaign, alice, red, levelled):
    url = level_up_url(campaign, red, levelled)
    page = html(login(client, alice).get(url))
    # The builder's words for the lines, never a number it does not show.
    assert '<label for="line-next-1">+1 ME</label>' in page
    assert '<label for="line-next-8">Movement Skill</label>' in page
    assert "Line 1" not in page
    response = client.post(url, {"advancement": "1:ME", "method": "rolled"})
    assert response.status_code == 302
    assert response["Location"].endswith(f"#member-{levelled.pk}")
    assert member(red, "Ann").level_ups == [{"line": 1, "choice": "ME"}]
    page = html(client.get(url))
    assert "No level-up waiting" in page


def test_a_skill_level_up_is_rolled_with_the_servers_dice(
    client, campaign, alice, red, levelled, monkeypatch
):
    monkeypatch.setattr("rules.dice.server_dice", lambda: ScriptedDice(2))
    response = login(client, alice).post(
        level_up_url(campaign, red, levelled), {"advancement": "4", "method": "rolled"}
    )
    assert response.status_code == 302
    ann = member(red, "Ann")
    roll = SkillRoll.objects.get(member=ann)
    assert (roll.slot, roll.dice, roll.outcome, roll.rolled_by) == (
        "level_ups/0",
        [2],
        "skill",
        alice,
    )
    assert ann.level_ups[0]["skill"] == roll.skill
    page = html(client.get(reverse("campaign:force", args=[campaign.pk, red.pk])))
    assert "Level-up rolls (1)" in page


def test_a_natural_12_asks_for_a_table_then_rolls_again(
    client, campaign, alice, red, levelled, monkeypatch
):
    monkeypatch.setattr("rules.dice.server_dice", lambda: ScriptedDice(12))
    url = level_up_url(campaign, red, levelled)
    response = login(client, alice).post(url, {"advancement": "4", "method": "rolled"})
    assert response.status_code == 302
    assert response["Location"] == url
    page = html(client.get(url))
    assert "A natural 12!" in page
    assert 'name="roll-table"' in page
    # No table chosen: explained, nothing rolled.
    monkeypatch.setattr("rules.dice.server_dice", lambda: ScriptedDice(1))
    rolls = SkillRoll.objects.count()
    response = client.post(
        level_up_url(campaign, red, levelled, roll=True),
        {"roll-action": "roll", "roll-slot": "level_ups/0", "roll-table": ""},
    )
    assert response.status_code == 400
    assert "choose the table" in html(response).lower()
    assert SkillRoll.objects.count() == rolls
    response = client.post(
        level_up_url(campaign, red, levelled, roll=True),
        {"roll-action": "roll", "roll-slot": "level_ups/0", "roll-table": "melee"},
    )
    assert response.status_code == 302
    ann = member(red, "Ann")
    assert ann.level_ups[0]["skill"].startswith("melee/")
    assert ann.level_ups[0]["natural_12"] is True


def test_a_skill_level_up_may_be_picked(client, campaign, alice, red, levelled):
    url = level_up_url(campaign, red, levelled)
    login(client, alice)
    response = client.post(url, {"advancement": "4", "method": "picked", "skill": ""})
    assert response.status_code == 400
    assert "Choose the skill to pick" in html(response)
    response = client.post(
        url, {"advancement": "4", "method": "picked", "skill": "movement/catfall"}
    )
    assert response.status_code == 302
    assert member(red, "Ann").level_ups == [
        {"line": 4, "skill": "movement/catfall", "method": "picked"}
    ]


def test_a_skill_line_s_own_pick_button_picks_from_its_table(
    client, campaign, alice, red, levelled
):
    """The page's "Pick this skill" of a skill line sends the line itself (R5, R17)."""
    url = level_up_url(campaign, red, levelled)
    login(client, alice)
    # A skill of another line's table is refused, the list it was picked from open again.
    refused = client.post(url, {"pick": "4", "skill": "support/first-aid"})
    assert refused.status_code == 400
    assert member(red, "Ann").level_ups == []
    picked = client.post(url, {"pick": "4", "skill": "movement/catfall", "advancement": "3"})
    assert picked.status_code == 302
    assert member(red, "Ann").level_ups == [
        {"line": 4, "skill": "movement/catfall", "method": "picked"}
    ]


def test_a_rolled_level_up_of_an_owned_skill_offers_a_free_pick(
    client, campaign, alice, red, levelled, monkeypatch
):
    """The roll lands on Catfall, which Ann bought between battles: she picks any of the
    roll's choices, free, from the builder's own list (R5)."""
    login(client, alice)
    buy = reverse("roster:member_edit", args=[red.force_id, levelled.pk, "purchase-add"])
    key = "skill:movement/catfall"
    assert client.post(buy, {"add": key, "confirmed": key}).status_code == 302
    monkeypatch.setattr("rules.dice.server_dice", lambda: ScriptedDice(1))
    url = level_up_url(campaign, red, levelled)
    assert client.post(url, {"advancement": "4"}).status_code == 302
    page = html(client.get(url))
    assert "pick any of these, free (R5)" in page
    assert 'name="roll-skill" value="movement/wall-run" id="free-roll-' in page
    assert 'value="movement/catfall" id="free-roll-' not in page
    response = client.post(
        level_up_url(campaign, red, levelled, roll=True),
        {
            "roll-action": "free-pick",
            "roll-slot": "level_ups/0",
            "roll-skill": "movement/wall-run",
        },
    )
    assert response.status_code == 302
    assert member(red, "Ann").level_ups[0]["skill"] == "movement/wall-run"


def test_bad_level_ups_are_explained(client, campaign, alice, red, levelled):
    url = level_up_url(campaign, red, levelled)
    before = state()
    response = login(client, alice).post(url, {"advancement": "9"})
    assert response.status_code == 400
    assert "Choose one of the lines listed" in html(response)
    response = client.post(url, {})
    assert response.status_code == 400
    assert "Choose a line of the society" in html(response)
    assert state() == before
    # Line 2 is "+1 HP or +1 FR" for a technical student; taking it uses the level-up.
    assert client.post(url, {"advancement": "2:HP", "method": "rolled"}).status_code == 302
    before = state()
    response = client.post(url, {"advancement": "1:ME"})
    assert response.status_code == 400
    assert "no level-up waiting" in html(response)
    assert state() == before


# --- charts, log, export ---------------------------------------------------------------------


def test_charts_have_an_empty_state(client, campaign, alice, red, blue):
    page = html(login(client, alice).get(reverse("campaign:charts", args=[campaign.pk])))
    assert "Nothing to draw yet" in page
    assert "<svg" not in page


def test_charts_draw_svg_with_tables(client, world, bob):
    Force.objects.filter(pk=world.red.force_id).update(name="<script>alert(1)</script>")
    page = html(login(client, bob).get(reverse("campaign:charts", args=[world.campaign.pk])))
    assert page.count("<svg") == 3  # Resources, and XP for each force
    assert 'role="img"' in page
    assert "aria-labelledby=" in page
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Resources as a table" in page
    assert "style=" not in page.split("<main")[1]  # CSP: no inline styles


def test_the_log_is_paginated_newest_first(client, campaign, organiser, alice):
    for i in range(30):
        services.update_house_rules(campaign=campaign, by=organiser, points_for_draw=i % 5 + 2)
    url = reverse("campaign:log", args=[campaign.pk])
    page = html(login(client, alice).get(url))
    assert "Page 1 of 2" in page
    assert "changed the house rules" in page
    assert "created the campaign" not in page  # the oldest entry is on page 2
    page = html(client.get(url, {"page": 2}))
    assert "created the campaign" in page
    response = client.get(url, {"page": 2}, **HTMX)
    assert "<html" not in html(response)
    assert "created the campaign" in html(response)
    assert "Campaign log</h1>" not in html(response)
    assert client.get(url, {"page": "nope"}).status_code == 200


def test_export_downloads_the_whole_campaign(client, world, organiser):
    response = login(client, organiser).get(reverse("campaign:export", args=[world.campaign.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert (
        response["Content-Disposition"] == 'attachment; filename="spring-league.dbd-campaign.json"'
    )
    document = json.loads(response.content)
    assert document["format"] == "dbd-campaign/1"
    assert [b["scenario"] for b in document["battles"]] == ["First Blood", "Second Wind"]


def test_a_rolled_level_up_shows_its_roll_in_place_with_the_real_fr_costs(
    client, campaign, alice, red, levelled, monkeypatch
):
    url = level_up_url(campaign, red, levelled)
    login(client, alice)
    # The picker lists each skill line's own table only (R17), not all 56 skills.
    page = html(client.get(url))
    catalogue = get_catalogue()
    society = catalogue.societies[member(red, "Ann").society]
    tables = [
        catalogue.skill_categories[line.skill_category]
        for line in society.lines.values()
        if line.kind == "skill"
    ]
    assert re.findall(r"<legend>(\w+) skills</legend>", page) == [t.name for t in tables]
    assert page.count('name="skill"') == sum(len(t.skills) for t in tables)
    dice = ScriptedDice(2, 5)
    monkeypatch.setattr("rules.dice.server_dice", lambda: dice)
    response = client.post(url, {"advancement": "4", "method": "rolled"})
    assert response["Location"] == url + "#roll-title"  # stays here, to show the roll
    page = html(client.get(url))
    assert '<span class="die">2</span>' in page
    assert "Roll again (costs 1 FR)" in page
    assert "Picking costs 2 FR." in page
    assert "already paid" not in page  # no re-roll yet
    # One re-roll (1 FR), then the page says what a pick costs in all (R5a).
    response = client.post(
        level_up_url(campaign, red, levelled, roll=True),
        {"roll-action": "roll", "roll-slot": "level_ups/0"},
    )
    assert response.status_code == 302
    page = html(client.get(url))
    assert '<span class="die">5</span>' in page
    assert (
        "The 1 FR already paid for re-rolls stay paid, so this level-up costs 3 FR in all (R5a)."
        in page
    )


# --- R5a: no level-up re-roll the member's FR cannot pay -----------------------------------

ROLL_AGAIN = f"Roll again (costs {engine.REROLL_FR_COST} FR)"
FORM_ERRORS = re.compile(r'<div class="form-errors" role="alert"[^>]*>(.*?)</div>', re.S)


def fr_of(cf: CampaignForce, name: str) -> int:
    members = Force.objects.get(pk=cf.force_id).evaluation["members"]
    return next(m for m in members if m["name"] == name)["stats"]["FR"]


@pytest.fixture
def rerolling(client, campaign, alice, red, levelled, monkeypatch):
    """Ann's level-up on the Movement line, rolled on the page; `down_to(fr)` re-rolls
    (engine.REROLL_FR_COST FR each, R5) until her FR is `fr`."""
    dice = ScriptedDice()
    monkeypatch.setattr("rules.dice.server_dice", lambda: dice)
    login(client, alice)
    dice.faces.append(2)
    client.post(level_up_url(campaign, red, levelled), {"advancement": "4", "method": "rolled"})
    again = {"roll-action": "roll", "roll-slot": "level_ups/0"}

    def down_to(fr: int) -> None:
        while fr_of(red, "Ann") > fr:
            dice.faces.append(2)
            assert (
                client.post(level_up_url(campaign, red, levelled, roll=True), again).status_code
                == 302
            )
        assert fr_of(red, "Ann") == fr

    return SimpleNamespace(down_to=down_to, dice=dice, again=again)


def test_r5a_a_level_up_reroll_is_offered_at_fr_equal_to_its_cost(
    client, campaign, red, levelled, rerolling
):
    rerolling.down_to(engine.REROLL_FR_COST)
    page = html(client.get(level_up_url(campaign, red, levelled)))
    assert page.count(ROLL_AGAIN) == 1
    assert "No re-roll" not in page
    rerolling.dice.faces.append(5)
    response = client.post(level_up_url(campaign, red, levelled, roll=True), rerolling.again)
    assert response.status_code == 302
    assert fr_of(red, "Ann") == 0  # R3: down to 0, no further


def test_r5a_no_level_up_reroll_one_fr_short_and_a_forged_one_is_refused(
    client, campaign, red, levelled, rerolling
):
    rerolling.down_to(engine.REROLL_FR_COST - 1)
    page = html(client.get(level_up_url(campaign, red, levelled)))
    no_reroll = "No re-roll: Ann has 0 FR, and FR cannot go below 0 (R5a)."
    assert ROLL_AGAIN not in page
    assert page.count(no_reroll) == 1
    before = state()
    rerolling.dice.faces.append(5)
    response = client.post(level_up_url(campaign, red, levelled, roll=True), rerolling.again)
    assert response.status_code == 400
    answer = html(response)
    assert [re.sub(r"<[^>]+>", "", e).strip() for e in FORM_ERRORS.findall(answer)] == [
        "Ann has no FR left to pay for this (R5a: FR may not go below 0)."
    ]
    assert ROLL_AGAIN not in answer
    assert answer.count(no_reroll) == 1
    assert state() == before


# --- the battle form's default ticks (fewer actions, issue #11) -----------------------------

TICKED = re.compile(r'<input type="checkbox" name="forces" value="(\d+)" checked>')
SHOWN = re.compile(r'name="shown-(\d+)"')


def ticks(client, campaign, user) -> tuple[set[int], set[int]]:
    """The forces the new battle form starts ticked, and those whose members it lists."""
    page = html(login(client, user).get(reverse("campaign:record_battle", args=[campaign.pk])))
    return {int(pk) for pk in TICKED.findall(page)}, {int(pk) for pk in SHOWN.findall(page)}


@pytest.fixture
def green(campaign):
    """A third force in the campaign, carol's."""
    carol = make_user("carol")
    services.join_campaign(user=carol, token=campaign.invite_token)
    return services.enter_force(
        campaign=campaign, player=carol, force=freeform_force(carol, "Green Club")
    )


@pytest.mark.parametrize("who", ["alice", "bob", "organiser"])
def test_two_forces_start_ticked_for_anyone_recording(client, campaign, red, blue, who, request):
    both = {red.pk, blue.pk}
    assert ticks(client, campaign, request.getfixturevalue(who)) == (both, both)


def test_of_three_forces_the_recorder_s_own_starts_ticked(
    client, campaign, alice, bob, organiser, red, blue, green
):
    assert ticks(client, campaign, alice) == ({red.pk}, {red.pk})
    assert ticks(client, campaign, bob) == ({blue.pk}, {blue.pk})
    # The organiser has no force here: nothing is guessed, the form asks.
    assert ticks(client, campaign, organiser) == (set(), set())
    page = html(client.get(reverse("campaign:record_battle", args=[campaign.pk])))
    assert "Tick the forces that played" in page


def test_a_retired_third_force_leaves_two_to_tick(client, campaign, alice, red, blue, green):
    services.retire_campaign_force(campaign_force=green, by=green.player)
    both = {red.pk, blue.pk}
    assert ticks(client, campaign, alice) == (both, both)
