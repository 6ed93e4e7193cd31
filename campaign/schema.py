"""The dbd-campaign/1 document's JSON Schema (`campaign.exports` writes and reads the
document), published in the API's schema as `CampaignDocument` beside the roster's
`RosterDocument`, and checked by the API's import before anything is stored.

Plain data: the same dict is the standalone JSON Schema (each force's document inline,
the dbd-roster/1 schema) and, in the OpenAPI document, names `RosterDocument` instead.
"""

from typing import Any

from campaign.exports import FORMAT
from campaign.models import Battle, BattleForce, CampaignEvent, LedgerEntry
from campaign.progression import HouseRules
from roster import documents
from roster.models import SkillRoll

_TEXT = {"type": "string"}
_NAME = {"type": ["string", "null"], "description": "A username; null when it is gone."}
_WHEN = {"type": "string", "format": "date-time"}
_MAYBE_WHEN = {"type": ["string", "null"], "format": "date-time"}
_WHOLE = {"type": "integer", "minimum": 0}
_POSITION = {"type": "integer", "minimum": 0, "description": "A position in its list."}
_MAYBE_POSITION = {"type": ["integer", "null"], "minimum": 0}


def _object(title: str, properties: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "title": title,
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
        **more,
    }


def _house_rules() -> dict[str, Any]:
    numbers = dict.fromkeys(HouseRules.number_names(), _WHOLE)
    flags = {name: {"type": "boolean"} for name in HouseRules.flag_names()}
    thresholds = {"type": "array", "items": _WHOLE, "minItems": 1}
    return _object(
        "CampaignDocumentHouseRules", {**numbers, "level_thresholds": thresholds, **flags}
    )


def campaign_document_schema(roster_document: dict[str, Any]) -> dict[str, Any]:
    """The schema, each force's document being `roster_document` (the dbd-roster/1 schema
    itself, or a `$ref` to it). Long because it is one document, read top to bottom as
    the campaign document's shape."""
    roll = _object(
        "CampaignDocumentRoll",
        {
            "member": _POSITION,
            "slot": _TEXT,
            "table": _TEXT,
            "dice": {"type": "array", "items": {"type": "integer"}},
            "outcome": {"type": "string", "enum": SkillRoll.Outcome.values},
            "skill": _TEXT,
            "choices": {"type": "array", "items": _TEXT},
            "rolled_by": _NAME,
            "created_at": _WHEN,
        },
    )
    force = _object(
        "CampaignDocumentForce",
        {
            "player": _TEXT,
            "entered_at": _WHEN,
            "retired_at": _MAYBE_WHEN,
            "rules_version": _TEXT,
            "created_at": _WHEN,
            "updated_at": _WHEN,
            "document": roster_document,
            "rolls": {"type": "array", "items": roll},
        },
    )
    result = _object(
        "CampaignDocumentMemberResult",
        {
            "member": _MAYBE_POSITION,
            "member_name": _TEXT,
            "unconscious": {"type": "boolean"},
            "out_of_action": {"type": "boolean"},
            "enemies_out_of_action": _WHOLE,
            "objectives": _WHOLE,
            "xp_awarded": _WHOLE,
        },
    )
    side = _object(
        "CampaignDocumentBattleForce",
        {
            "force": _POSITION,
            "outcome": {"type": "string", "enum": BattleForce.Outcome.values},
            "results": {"type": "array", "items": result},
        },
    )
    battle = _object(
        "CampaignDocumentBattle",
        {
            "played_on": {"type": "string", "format": "date"},
            "scenario": _TEXT,
            "status": {"type": "string", "enum": Battle.Status.values},
            "winner": _MAYBE_POSITION,
            "recorded_by": _NAME,
            "confirmed_by": _NAME,
            "confirmed_at": _MAYBE_WHEN,
            "voided_by": _NAME,
            "voided_at": _MAYBE_WHEN,
            "void_reason": _TEXT,
            "created_at": _WHEN,
            "forces": {"type": "array", "items": side},
        },
    )
    entry = _object(
        "CampaignDocumentLedgerEntry",
        {
            "force": _POSITION,
            "amount": {"type": "integer"},
            "kind": {"type": "string", "enum": LedgerEntry.Kind.values},
            "reason": _TEXT,
            "battle": _MAYBE_POSITION,
            "reverses": _MAYBE_POSITION,
            "created_by": _NAME,
            "created_at": _WHEN,
        },
    )
    event = _object(
        "CampaignDocumentLogEntry",
        {
            "actor": _NAME,
            "kind": {"type": "string", "enum": CampaignEvent.Kind.values},
            "message": _TEXT,
            "data": {"type": "object", "description": "What the entry is about, by position."},
            "created_at": _WHEN,
        },
    )
    campaign = _object(
        "CampaignDocumentCampaign",
        {
            "name": {"type": "string", "minLength": 1, "maxLength": 100},
            "organiser": _TEXT,
            "created_at": _WHEN,
            "house_rules": _house_rules(),
        },
    )
    player = _object("CampaignDocumentPlayer", {"username": _TEXT, "joined_at": _WHEN})
    return _object(
        "CampaignDocument",
        {
            "format": {"type": "string", "enum": [FORMAT]},
            "campaign": campaign,
            "players": {"type": "array", "items": player},
            "forces": {"type": "array", "items": force},
            "battles": {"type": "array", "items": battle},
            "ledger": {"type": "array", "items": entry},
            "log": {"type": "array", "items": event},
        },
        description=f"A whole campaign as one {FORMAT} document (docs/api.md): rows refer "
        "to each other by position in their lists, never by id.",
    )


CAMPAIGN_DOCUMENT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **campaign_document_schema(
        {k: v for k, v in documents.DOCUMENT_SCHEMA.items() if k != "$schema"}
    ),
}
CAMPAIGN_DOCUMENT_REF = {"$ref": "#/components/schemas/CampaignDocument"}


def add_campaign_document(result: dict[str, Any], **_kwargs: Any) -> dict[str, Any]:
    """drf-spectacular post-processing hook: publish the document's JSON Schema."""
    schema = campaign_document_schema({"$ref": "#/components/schemas/RosterDocument"})
    result.setdefault("components", {}).setdefault("schemas", {})["CampaignDocument"] = schema
    return result
