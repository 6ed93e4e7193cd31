"""Every list a client sends to play mode (and a campaign's battle record) is bounded by
what the rules can need (`play.bounds`, `campaign.progression`): at the bound it reaches the
rules; one past it is refused whole at the list's pointer (400 `too-many-items`), and
nothing changes. A maximal request leaves later answers small.
"""

import pytest

from campaign import progression
from play import bounds, table
from play.models import Battle, BattleAction
from tests.play.conftest import ids
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alice):
    return signed_in(alice)


def act(api, battle, body):
    return api.post(f"/api/v1/battles/{battle.pk}/actions/", body, format="json")


def errors(response) -> list[tuple[str, str]]:
    return [(e["pointer"], e["code"]) for e in response.json()["errors"]]


def unchanged(battle, version: int = 1, lines: int = 1) -> None:
    battle.refresh_from_db()
    assert battle.version == version
    assert BattleAction.objects.filter(battle=battle).count() == lines


def tie_rounds(count: int) -> list[list[int]]:
    """`count` rounds of initiative for two sides: ties, then one that settles it."""
    return [[5, 5]] * (count - 1) + [[9, 2]]


def test_the_bounds_follow_the_rules():
    assert bounds.MAX_FIGURES_PER_SIDE == 7  # R10: six students and a mentor
    assert bounds.MAX_SIDES == progression.MAX_BATTLE_FORCES == 6
    assert bounds.MAX_FIGURES == 42
    assert bounds.MAX_TRANSFER_FRIENDS == 6
    assert bounds.MAX_DICE_PER_ROLL == 12
    assert bounds.MAX_INITIATIVE_ROUNDS == 12
    assert bounds.MAX_DICE_PER_INITIATIVE_ROUND == 6
    assert len(table.state.MARKERS) == 15  # the spells' 13, Disarming Shot, Aim for the Legs


# --- initiative ---------------------------------------------------------------------------


def test_initiative_takes_as_many_rounds_as_the_bound(campaign_battle, api):
    at_limit = act(api, campaign_battle, {"type": "initiative", "dice": tie_rounds(12)})
    assert at_limit.status_code == 201, at_limit.json()
    assert at_limit.json()["initiative"]["rolls"] == tie_rounds(12)


def test_one_round_more_is_refused_whole(campaign_battle, api):
    over = act(api, campaign_battle, {"type": "initiative", "dice": tie_rounds(13)})
    assert over.status_code == 400
    assert errors(over) == [("/dice", "too-many-items")]
    unchanged(campaign_battle)


def test_a_round_of_more_dice_than_sides_can_have_is_refused_at_the_round(campaign_battle, api):
    at_limit = act(api, campaign_battle, {"type": "initiative", "dice": [[3] * 6]})
    assert errors(at_limit) == [("/dice/0", "wrong-dice-count")]  # the rules: two sides
    over = act(api, campaign_battle, {"type": "initiative", "dice": [[3] * 7]})
    assert over.status_code == 400
    assert errors(over) == [("/dice/0", "too-many-items")]
    nested = act(api, campaign_battle, {"type": "initiative", "dice": [[3, [4] * 500]]})
    assert errors(nested) == [("/dice/0/1", "invalid-roll")]
    unchanged(campaign_battle)


# --- dice per roll ------------------------------------------------------------------------


def test_a_roll_takes_as_many_dice_as_the_bound(campaign_battle, api):
    at_limit = act(api, campaign_battle, {"type": "roll", "count": 12, "dice": [4] * 12})
    assert at_limit.status_code == 201, at_limit.json()
    assert at_limit.json()["log"][0]["dice"] == [4] * 12
    over = act(api, campaign_battle, {"type": "roll", "count": 12, "dice": [4] * 13})
    assert over.status_code == 400
    assert errors(over) == [("/dice", "too-many-items")]
    too_many_asked = act(api, campaign_battle, {"type": "roll", "count": 13})
    assert errors(too_many_asked) == [("/count", "max-value")]
    unchanged(campaign_battle, version=2, lines=2)


def test_a_die_that_is_a_list_is_refused_at_the_die(campaign_battle, api):
    response = act(api, campaign_battle, {"type": "roll", "dice": [[1] * 1000]})
    assert response.status_code == 400
    assert errors(response) == [("/dice/0", "invalid-roll")]
    assert len(response.content) < 300
    unchanged(campaign_battle)


# --- friends in a transfer, markers in a change ---------------------------------------------


def test_a_transfer_names_at_most_every_other_figure_of_a_side(campaign_battle, api):
    f = ids(campaign_battle)
    friends = [{"figure": f["0:Ann"], "amount": 1}]
    at_limit = act(api, campaign_battle, {"type": "transfer", "transfers": friends * 6})
    assert errors(at_limit) == [("/transfers", "nothing-to-transfer")]  # the rules answer
    over = act(api, campaign_battle, {"type": "transfer", "transfers": friends * 7})
    assert over.status_code == 400
    assert errors(over) == [("/transfers", "too-many-items")]
    unchanged(campaign_battle)


def test_a_change_names_each_kind_of_marker_at_most_once(campaign_battle, api):
    f = ids(campaign_battle)
    every_kind = dict.fromkeys(table.state.MARKERS, 1)
    at_limit = act(
        api, campaign_battle, {"type": "change", "figure": f["0:Ann"], "markers": every_kind}
    )
    assert at_limit.status_code == 201, at_limit.json()
    over = act(
        api,
        campaign_battle,
        {"type": "change", "figure": f["0:Ann"], "markers": {**every_kind, "moon": 1}},
    )
    assert over.status_code == 400
    assert errors(over) == [("/markers", "too-many-items")]
    unchanged(campaign_battle, version=2, lines=2)


# --- the log's free text ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "limit", "body"),
    [
        ("note", bounds.MAX_NOTE_CHARACTERS, {"type": "change"}),
        ("reason", bounds.MAX_REASON_CHARACTERS, {"type": "roll"}),
    ],
)
def test_the_logs_free_text_is_bounded(campaign_battle, api, key, limit, body):
    if body["type"] == "change":
        body = {**body, "figure": ids(campaign_battle)["0:Ann"], "hp": 3}
    at_limit = act(api, campaign_battle, {**body, key: "n" * limit})
    assert at_limit.status_code == 201, at_limit.json()
    assert "n" * limit in at_limit.json()["log"][0]["words"]
    over = act(api, campaign_battle, {**body, key: "n" * (limit + 1)})
    assert over.status_code == 400
    assert errors(over) == [(f"/{key}", "max-length")]
    unchanged(campaign_battle, version=2, lines=2)


# --- starting and ending ------------------------------------------------------------------


def test_a_battle_names_at_most_six_forces(api):
    at_limit = api.post(
        "/api/v1/battles/", {"scenario": "X", "forces": [99001] * 6}, format="json"
    )
    assert errors(at_limit) == [("/forces/0", "not-found")]  # the rules answer
    over = api.post("/api/v1/battles/", {"scenario": "X", "forces": [99001] * 7}, format="json")
    assert over.status_code == 400
    assert errors(over) == [("/forces", "too-many-items")]
    assert not Battle.objects.exists()


def test_objectives_name_at_most_every_figure_of_a_battle(campaign_battle, api):
    def end(count: int):
        objectives = {str(900_000 + i): 1 for i in range(count)}
        return api.post(
            f"/api/v1/battles/{campaign_battle.pk}/end/",
            {"winner": None, "objectives": objectives},
            format="json",
        )

    at_limit = end(42)
    assert errors(at_limit) == [(f"/objectives/{900_000 + i}", "not-found") for i in range(42)]
    over = end(43)
    assert over.status_code == 400
    assert errors(over) == [("/objectives", "too-many-items")]
    campaign_battle.refresh_from_db()
    assert campaign_battle.status == Battle.Status.PLAYING
    unchanged(campaign_battle)


# --- the campaign's battle record -----------------------------------------------------------


def record(api, campaign, results):
    return api.post(
        f"/api/v1/campaigns/{campaign.pk}/battles/",
        {"played_on": "2026-01-01", "scenario": "X", "winner": None, "results": results},
        format="json",
    )


def test_a_recorded_battle_names_at_most_six_forces_of_at_most_seven(campaign, red, blue, api):
    from campaign.models import Battle as CampaignBattle

    def force(pk: int, members: int):
        return {"force": pk, "members": [{"member": 90_000 + i} for i in range(members)]}

    six = record(api, campaign, [force(red.pk, 1)] + [force(blue.pk, 1)] * 5)
    assert {code for _, code in errors(six)} == {"listed-twice"}  # the rules answer
    seven = record(api, campaign, [force(red.pk, 1)] + [force(blue.pk, 1)] * 6)
    assert seven.status_code == 400
    assert errors(seven) == [("/results", "too-many-items")]
    seven_members = record(api, campaign, [force(red.pk, 7), force(blue.pk, 1)])
    assert "too-many-items" not in {code for _, code in errors(seven_members)}
    eight_members = record(api, campaign, [force(red.pk, 8), force(blue.pk, 1)])
    assert eight_members.status_code == 400
    assert errors(eight_members) == [("/results/0/members", "too-many-items")]
    assert not CampaignBattle.objects.exists()


# --- the schema says so ------------------------------------------------------------------------


def test_the_schema_publishes_every_bound(client):
    schema = client.get("/api/schema/?format=json").json()["components"]["schemas"]
    action = schema["PlayActionRequest"]["properties"]
    assert action["transfers"]["maxItems"] == 6
    assert action["markers"]["maxProperties"] == 15
    assert action["note"]["maxLength"] == 200
    assert action["reason"]["maxLength"] == 100
    assert action["count"]["maximum"] == 12
    dice = action["dice"]
    assert (dice["type"], dice["maxItems"]) == (["array", "null"], 12)
    die, round_ = dice["items"]["oneOf"]  # one or the other, never both (issue #32)
    assert (die["type"], round_["type"], round_["maxItems"]) == ("integer", "array", 6)
    assert schema["PlayNewBattleRequest"]["properties"]["forces"]["maxItems"] == 6
    assert schema["PlayEndRequest"]["properties"]["objectives"]["maxProperties"] == 42
    new_battle = schema["NewBattleRequest"]["properties"]["results"]
    assert new_battle["maxItems"] == 6
    assert schema["NewBattleForceRequest"]["properties"]["members"]["maxItems"] == 7


# --- the battle screen's forms ----------------------------------------------------------------


def test_the_screens_dice_are_bounded_as_the_apis(campaign_battle, alice, client):
    client.force_login(alice)
    dice = " ".join(["4"] * 13)
    response = client.post(
        f"/play/{campaign_battle.pk}/act/",
        {"type": "roll", "count": "12", "dice": dice},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    assert "At most 12 entries here." in response.content.decode()
    unchanged(campaign_battle)


# --- a maximal request leaves later answers small -------------------------------------------


def test_later_answers_stay_small_after_a_maximal_initiative(campaign, alice, red, blue, api):
    from play import services

    def later_answer(rounds: int) -> int:
        battle = services.start_battle(
            by=alice, forces=[red.force, blue.force], scenario="Duel", campaign=campaign
        )
        assert (
            act(api, battle, {"type": "initiative", "dice": tie_rounds(rounds)}).status_code == 201
        )
        answer = act(api, battle, {"type": "roll", "dice": [7]})
        assert answer.status_code == 201
        battle.delete()
        return len(answer.content)

    smallest, largest = later_answer(1), later_answer(bounds.MAX_INITIATIVE_ROUNDS)
    # Eleven more rounds of two dice: their numbers in the state and the log, no more.
    assert largest - smallest < 600
    assert largest < 20_000


def test_the_campaign_refuses_a_seventh_force_on_every_path(campaign, organiser):
    """The record battle page reaches the rule through the service, as the API does."""
    import datetime

    from campaign import services as campaign_services
    from campaign.models import CampaignForce
    from dbd_site.errors import Invalid

    seven = {CampaignForce(pk=90_000 + i): [] for i in range(7)}
    with pytest.raises(Invalid) as refused:
        campaign_services.record_battle(
            campaign=campaign,
            by=organiser,
            played_on=datetime.date(2026, 1, 1),
            scenario="X",
            winner=None,
            results=seven,
        )
    assert [(p.pointer, p.code) for p in refused.value.problems] == [
        ("/results", "too-many-items")
    ]
