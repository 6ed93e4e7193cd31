"""The `Idempotency-Key` header as the OpenAPI schema names it, for every write that
honours it (`@idempotent`)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from idempotency.decorators import HEADER, MAX_KEY_LENGTH

IDEMPOTENCY_KEY = OpenApiParameter(
    HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description=(
        f"A key of your own (1 to {MAX_KEY_LENGTH} visible ASCII characters, e.g. a UUID) "
        "naming this request: sent again with the same body within 24 hours, the first "
        "answer comes back (marked `Idempotent-Replayed: true`) and nothing is done twice. "
        "The same key with another body is refused with `idempotency-key-reused`. See "
        "docs/idempotency.md."
    ),
)
