"""The roster REST API: validation of a dbd-roster/1 document (nothing stored)."""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.decorators import (
    api_view,
    authentication_classes,
    parser_classes,
    permission_classes,
)
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from roster import engine, serializers
from roster.schema import DOCUMENT_REF
from rules.loader import get_catalogue

_EMMA = {
    "format": "dbd-roster/1",
    "name": "Literature Club Irregulars",
    "resources": 50,
    "members": [
        {
            "name": "Emma",
            "club": {"name": "Literature Club", "society": "academic", "choice": "RA"},
            "base": {"ME": 1, "RA": 2, "CA": 3, "DF": 2},
            "free_advancements": [
                {"line": 4, "skill": "spellcasting/spell-focus", "method": "picked"},
                {"line": 2},
            ],
            "equipment": ["simple-weapon", "medical-kit"],
            "core_schools": ["restoration"],
            "spells": ["healing-spring"],
        }
    ],
}


@extend_schema(
    operation_id="rosters_validate",
    summary="Check a dbd-roster/1 document against the rules",
    description=(
        "Evaluates the document with the rules engine and stores nothing. A body that is "
        "not a dbd-roster/1 document answers 400; a well-formed one answers 200 with "
        "`valid`, every member's statistics and costs, and every rule error and warning "
        "with a JSON Pointer into the document."
    ),
    request={"application/json": DOCUMENT_REF},
    responses={200: serializers.EvaluationSerializer, 400: serializers.ShapeErrorsSerializer},
    examples=[OpenApiExample("Emma alone", value=_EMMA, request_only=True)],
    tags=["rosters"],
)
@api_view(["POST"])
@authentication_classes([])  # open to any tool, so no session and no CSRF
@permission_classes([AllowAny])
@parser_classes([JSONParser])
def validate_roster(request: Request) -> Response:
    evaluation = engine.evaluate(request.data, get_catalogue())
    if evaluation.malformed:
        return Response({"errors": [p.as_dict() for p in evaluation.malformed]}, status=400)
    return Response(evaluation.as_dict())
