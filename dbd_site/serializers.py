"""Serializer pieces every API input shares."""

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses keys it does not know (400 `unknown-key` at the key), at every level of
    nesting, instead of dropping them: a misspelt key must not silently lose data. The
    schema says so too (`additionalProperties: false`, `dbd_site.schema.AutoSchema`)."""

    refuses_unknown_keys = True

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(str(key) for key in set(data) - set(self.fields))
            if unknown:
                allowed = ", ".join(self.fields)
                raise serializers.ValidationError(
                    {
                        key: [
                            serializers.ErrorDetail(
                                f"'{key}' is not a key of this object; allowed keys: {allowed}.",
                                code="unknown-key",
                            )
                        ]
                        for key in unknown
                    }
                )
        return super().to_internal_value(data)


# --- strict JSON types: a number is not a name, "5" is not a number, 1 is not true ------


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data
