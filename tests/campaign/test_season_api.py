"""A season through the REST API only, as a third-party tool plays it: two players enter
forces, record and confirm battles, level up with the server's dice, buy between
battles by PUT and PATCH of the campaign copy's document, void a battle after a
level-up (R15a), read the standings; and after every step each force's ledger adds up
to its balance and `resources == total cost + balance` (R11, R15)."""

import pytest

from tests.campaign.conftest import make_user
from tests.roster.builders import emma, force, signed_in, student
from tests.roster.test_rolls import ScriptedDice

pytestmark = pytest.mark.django_db

BASE = "/api/v1/campaigns/"


@pytest.fixture
def dice(monkeypatch):
    scripted = ScriptedDice()
    monkeypatch.setattr("rules.dice.server_dice", lambda: scripted)
    return scripted


def ok(response, status=200):
    assert response.status_code == status, response.content
    return response.json()


class Player:
    def __init__(self, name: str):
        self.user = make_user(name)
        self.client = signed_in(self.user)
        self.entry: dict = {}

    def post(self, url, body=None, status=201):
        return ok(self.client.post(url, body or {}, format="json"), status)


def check_books(player: Player, campaign_url: str) -> int:
    """The ledger adds up to the balance; the roster's Resources are cost + balance."""
    client, entry_id = player.client, player.entry["id"]
    entry = ok(client.get(f"{campaign_url}forces/{entry_id}/"))
    rows, url = [], f"{campaign_url}forces/{entry_id}/ledger/"
    while url:
        page = ok(client.get(url))
        rows += page["results"]
        url = page["next"]
    assert sum(r["amount"] for r in rows) == entry["balance"] >= 0
    assert [r["running_balance"] for r in rows][-1] == entry["balance"]
    roster = ok(client.get(f"/api/v1/rosters/{entry['force']}/"))
    assert roster["document"]["resources"] == roster["evaluation"]["total_cost"] + entry["balance"]
    assert roster["evaluation"]["valid"] is True
    return entry["balance"]


def test_a_season(dice):
    olga, alice, bob = Player("olga"), Player("alice"), Player("bob")
    campaign = olga.post(BASE, {"name": "Spring League"})
    url = f"{BASE}{campaign['id']}/"
    token = ok(olga.client.get(url))["invite_token"]
    for player in (alice, bob):
        player.post(f"{BASE}join/", {"token": token}, status=200)

    # Two players enter forces built in the builder's API.
    for player, club in ((alice, "Red Club"), (bob, "Blue Club")):
        document = force(emma(), student("Ann"), student("Ben"), student("Cat"), name=club)
        roster = player.post("/api/v1/rosters/", document)
        player.entry = player.post(f"{url}forces/", {"force": roster["id"]})
        assert check_books(player, url) == 45  # 50 - the roster's 5 (R11)
    red, blue = alice.entry, bob.entry

    def members(player):
        detail = ok(player.client.get(f"{url}forces/{player.entry['id']}/"))
        return {m["name"]: m for m in detail["members"]}

    def battle(recorder, winner, red_results, blue_results):
        body = {
            "played_on": "2025-03-01",
            "scenario": "Capture the Flag",
            "winner": winner,
            "results": [
                {"force": red["id"], "members": red_results},
                {"force": blue["id"], "members": blue_results},
            ],
        }
        return recorder.post(f"{url}battles/", body)

    reds, blues = members(alice), members(bob)
    everyone_red = [{"member": m["id"]} for m in reds.values()]
    everyone_blue = [{"member": m["id"]} for m in blues.values()]

    # Battle 1: Red wins, Ann takes Blue's Ben Out of Action; Bob confirms (R14a).
    first = battle(
        alice,
        red["id"],
        [{"member": reds["Ann"]["id"], "enemies_out_of_action": 1}, *everyone_red[2:]],
        [{"member": blues["Ben"]["id"], "out_of_action": True}],
    )
    refused = alice.client.post(f"{url}battles/{first['id']}/confirm/")
    assert refused.status_code == 403
    bob.post(f"{url}battles/{first['id']}/confirm/", status=200)
    assert (check_books(alice, url), check_books(bob, url)) == (55, 50)

    # Ann reached level 2 (3 XP): a Movement skill rolled with the server's dice.
    dice.faces.append(2)
    level_up = alice.post(
        f"{url}forces/{red['id']}/members/{reds['Ann']['id']}/level-ups/", {"line": 4}
    )
    assert (level_up["slot"], level_up["roll"]["dice"]) == ("level_ups/0", [2])
    assert check_books(alice, url) == 55  # a level-up is free (R17)

    # Between battles, by PUT: Ann buys +1 ME (2), Ben a Tool Kit (10).
    roster_url = f"/api/v1/rosters/{red['force']}/"
    etag = alice.client.get(roster_url)["ETag"]
    document = ok(alice.client.get(roster_url + "export/"))
    document["members"][1]["purchases"].append(
        {"line": 1, "choice": "ME", "between_battles": True}
    )
    document["members"][2]["equipment"].append("tool-kit")
    ok(alice.client.put(roster_url, document, format="json", HTTP_IF_MATCH=etag))
    stale = alice.client.put(roster_url, document, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert check_books(alice, url) == 43

    # ... and by PATCH: a recruit with a Tool Kit (10), Ben's kit discarded (no refund).
    document = ok(alice.client.get(roster_url + "export/"))
    new_members = document["members"]
    new_members[2]["equipment"] = []
    new_members.append(student("Dee", equipment=["tool-kit"]))
    ok(alice.client.patch(roster_url, {"members": new_members}, format="json"))
    assert check_books(alice, url) == 33

    # Battle 2: a draw, recorded by Bob, confirmed by the organiser (not in it).
    reds = members(alice)
    second = battle(bob, None, [{"member": m["id"]} for m in reds.values()], everyone_blue)
    olga.post(f"{url}battles/{second['id']}/confirm/", status=200)
    assert (check_books(alice, url), check_books(bob, url)) == (40, 57)

    # Battle 1 is voided: its XP, Resources and Ann's level-up go (R15a).
    voided = olga.post(f"{url}battles/{first['id']}/void/", {"reason": "Wrong table"}, status=200)
    assert voided["status"] == "void"
    ann = ok(alice.client.get(roster_url + "export/"))["members"][1]
    assert (ann["name"], ann["xp"], ann["level_ups"]) == ("Ann", 1, [])
    assert (check_books(alice, url), check_books(bob, url)) == (30, 52)
    log = ok(olga.client.get(f"{url}log/"))["results"]
    assert "Level-ups taken back: Ann's level-up 1." in log[0]["message"]

    standings = ok(olga.client.get(f"{url}standings/"))
    assert sorted((row["name"], row["played"], row["drawn"]) for row in standings) == [
        ("Blue Club", 1, 1),
        ("Red Club", 1, 1),
    ]
    assert {row["name"]: row["resources"] for row in standings} == {
        "Red Club": 30,
        "Blue Club": 52,
    }
