"""The registry of actions (`play.actions`): one entry per action naming its input, its rule
in the pure package, its service step and its presenter; the API, the schema and the docs
read it; every action is reachable through it."""

import dataclasses
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from play import actions, presenters, services
from play.models import BattleFigure
from tests.play.conftest import ids
from tests.roster.builders import signed_in

pytestmark = pytest.mark.django_db


def test_every_action_has_every_part():
    assert actions.problems_of(actions.REGISTRY) == []
    assert list(actions.REGISTRY) == [a.name for a in actions.ACTIONS]
    assert len(set(actions.REGISTRY)) == len(actions.ACTIONS)


def test_an_entry_lacking_a_part_is_caught():
    attack = actions.REGISTRY["attack"]
    lacking = {
        "no-rule": {"rule": lambda t, d: None},
        "no-presenter": {"present": services.act},
        "no-step": {"step": presenters.shows()},
        "unknown-key": {"reads": (*attack.reads, "moon")},
        "loose-need": {"needs": ("spell",)},
        "no-words": {"label": ""},
    }
    broken = {
        "misnamed": dataclasses.replace(attack, name="strike"),
        **{name: dataclasses.replace(attack, name=name, **gap) for name, gap in lacking.items()},
    }
    assert actions.problems_of(broken) == [
        "misnamed: its entry is named 'strike'",
        "no-rule: no play.table part",
        "no-presenter: no play.presenters part",
        "no-step: its step is not a service",
        "unknown-key: reads keys the body has not: ['moon']",
        "loose-need: needs keys it does not read: ['spell']",
        "no-words: no label or summary",
    ]


def test_the_schema_and_its_docs_read_the_registry():
    schema = Client().get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    kind = components["PlayActionRequest"]["properties"]["type"]["$ref"].rsplit("/", 1)[-1]
    assert components[kind]["enum"] == list(actions.REGISTRY)
    operation = schema["paths"]["/api/v1/battles/{battle_id}/actions/"]["post"]
    for action in actions.ACTIONS:
        assert f"- `{action.name}`: {action.summary}" in operation["description"]
    assert "spell-odds" in str(schema["paths"])


def test_the_docs_list_every_action():
    text = (Path(settings.BASE_DIR) / "docs" / "play.md").read_text()
    missing = [a.name for a in actions.ACTIONS if f"| `{a.name}` |" not in text]
    assert missing == []


def test_every_action_is_reachable_through_the_api(campaign_battle, alice, bob):
    """Each action's body, posted as a client would, is done by its rule and answered with
    the battle and the action as its entry shows it."""
    battle = campaign_battle
    f = ids(battle)
    emma = BattleFigure.objects.get(pk=f["0:Emma"])
    emma.numbers = {
        **emma.numbers,
        "spells": [*emma.numbers["spells"], "seraphic-bolt"],
        "skills": [*emma.numbers["skills"], "technical/deadly-gamble"],
    }
    emma.save()
    red, blue = signed_in(alice), signed_in(bob)
    url = f"/api/v1/battles/{battle.pk}/actions/"
    steps = [
        (red, {"type": "deadly-gamble", "figure": f["0:Emma"], "target": f["1:Cat"]}),
        (blue, {"type": "initiative", "dice": [[3, 9]]}),
        (blue, {"type": "roll", "count": 2, "dice": [4, 5]}),
        (red, {"type": "attack", "figure": f["0:Ann"], "target": f["1:Ben"], "kind": "ranged",
               "weapon": "light-pistol", "dice": [12]}),
        (blue, {"type": "transfer", "transfers": [{"figure": f["1:Cat"], "amount": 2}]}),
        (blue, {"type": "dodge"}),
        (red, {"type": "spell", "figure": f["0:Emma"], "spell": "seraphic-bolt",
               "dice": [6, 1, 1, 1]}),
        (red, {"type": "spell-attack", "target": f["1:Ann"], "dice": [12]}),
        (blue, {"type": "pass"}),
        (red, {"type": "heal", "figure": f["0:Emma"], "target": f["0:Ann"], "dice": [1]}),
        (red, {"type": "change", "figure": f["0:Ben"], "status": "unconscious"}),
        (red, {"type": "revive", "figure": f["0:Emma"], "target": f["0:Ben"], "dice": [1]}),
        (red, {"type": "jump", "figure": f["0:Cat"], "distance": 2, "dice": [9]}),
        (red, {"type": "activate", "figure": f["0:Cat"]}),
        (blue, {"type": "next-turn"}),
    ]  # fmt: skip
    for client, body in steps:
        response = client.post(url, body, format="json")
        assert response.status_code == 201, (body, response.json())
        result = response.json()["result"]
        entry = actions.REGISTRY[body["type"]]
        assert result["kind"] == entry.logged_as
        assert result["words"] == response.json()["log"][0]["words"]
    kinds = [line["kind"] for line in red.get(f"/api/v1/battles/{battle.pk}/").json()["log"]]
    assert {a.logged_as for a in actions.ACTIONS} <= set(kinds)
