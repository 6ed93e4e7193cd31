"""The battle screen's forms as the API's action body: one set of checks for both
(`PlayActionSerializer`, then `play.actions.perform`)."""

from typing import Any

from django.http import QueryDict

from dbd_site.inputs import whole_number

BOOLEAN_FIELDS = {
    "anathema_aura",
    "empowered",
    "discard_climbing_gear",
}
SITUATION_BOOLEANS = {
    "air_assassination",
    "flurry_of_blows",
    "rear_arc",
    "target_in_melee",
    "target_cannot_see_attacker",
    "double_range",
    "quickdraw",
    "charged",
    "non_charge_move",
    "mighty_attack",
    "dual_wield",
    "best_of_two",
}
INTEGER_FIELDS = {
    "figure",
    "target",
    "mode",
    "chosen",
    "distance",
    "count",
    "hp",
    "decision",
    "leader",
}


def as_int(value: str) -> int | str:
    value = value.strip()
    number = whole_number(value.removeprefix("-"))
    if number is None:
        return value  # for the services to refuse at its pointer
    return -number if value.startswith("-") else number


def _dice_from(text: str) -> list[Any] | None:
    """ "1 2 7 8" or "1, 2, 7, 8" -> [1, 2, 7, 8]; initiative rounds "7 6; 2 9"."""
    text = text.strip()
    if not text:
        return None
    if ";" in text:
        return [[as_int(d) for d in part.replace(",", " ").split()] for part in text.split(";")]
    return [as_int(d) for d in text.replace(",", " ").split()]


def _initiative_rounds(post: QueryDict) -> list[list[Any]]:
    """The initiative form's small boxes, `initiative_<round>_<side>`, as rounds of dice:
    a round with no box filled is left out (a tie's re-roll only when there was one)."""
    rounds: dict[int, dict[int, Any]] = {}
    for key, value in post.items():
        parts = key.split("_")
        if len(parts) != 3 or parts[0] != "initiative" or not value.strip():
            continue
        r, side = whole_number(parts[1]), whole_number(parts[2])
        if r is None or side is None:
            continue
        rounds.setdefault(r, {})[side] = as_int(value)
    return [[dice[side] for side in sorted(dice)] for _, dice in sorted(rounds.items())]


def body_from_post(post: QueryDict) -> dict[str, Any]:
    """A form's fields as the API's action body (the same checks apply to both)."""
    body: dict[str, Any] = {"type": post.get("type", "")}
    situation: dict[str, Any] = {}
    for key, value in post.items():
        if key in ("csrfmiddlewaretoken", "type", "was", "sheet_do") or value == "":
            continue
        if key.startswith("initiative_"):
            continue
        if key == "dice":
            body["dice"] = _dice_from(value)
        elif key == "caster_spell":
            figure, _, spell = value.partition(":")
            body["figure"], body["spell"] = as_int(figure), spell
        elif key in SITUATION_BOOLEANS:
            situation[key] = value in ("on", "true", "1")
        elif key in ("obscured", "situation_movement"):
            situation[key.removeprefix("situation_")] = value
        elif key in ("opponents_in_melee", "statistic_penalty", "to_hit_bonus"):
            situation[key] = as_int(value)
        elif key in BOOLEAN_FIELDS:
            body[key] = value in ("on", "true", "1")
        elif key == "weapon":
            body["weapon"] = None if value == "none" else value
        elif key.startswith("marker_"):
            count = as_int(value)
            if count not in (0, "0"):
                body.setdefault("markers", {})[key.removeprefix("marker_")] = count
        elif key in ("recipient", "amount"):
            continue
        elif key in INTEGER_FIELDS:
            body[key] = as_int(value)
        else:
            body[key] = value
    if body["type"] == "initiative" and (rounds := _initiative_rounds(post)):
        body["dice"] = rounds
    if (
        body["type"] == "initiative"
        and body.get("dice")
        and not any(isinstance(d, list) for d in body["dice"])
    ):
        body["dice"] = [body["dice"]]  # one round: "8 3"
    if body["type"] in ("attack", "spell-attack"):
        body["situation"] = situation
    if body["type"] == "transfer":
        recipients = post.getlist("recipient")
        amounts = post.getlist("amount")
        body["transfers"] = [
            {"figure": as_int(r), "amount": as_int(a)}
            for r, a in zip(recipients, amounts, strict=False)
            if r and a and a != "0"
        ]
    return body
