"""Serializer pieces every API input shares: unknown keys refused, lists and objects
bounded."""

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


def _too_many(limit: int) -> serializers.ValidationError:
    return serializers.ValidationError(
        f"At most {limit} {'entry' if limit == 1 else 'entries'} here.", code="too-many-items"
    )


class BoundedListField(serializers.ListField):
    """A list of at most `max_length` entries (required): a longer one is refused as a
    whole, at the list's own pointer (400 `too-many-items`), before any entry is read. The
    schema says so (`maxItems`)."""

    def __init__(self, *, max_length: int, **kwargs: Any) -> None:
        super().__init__(max_length=max_length, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, list) and len(data) > self.max_length:
            raise _too_many(self.max_length)
        return super().to_internal_value(data)


class BoundedDictField(serializers.DictField):
    """An object of at most `max_items` keys, refused as a whole beyond (400
    `too-many-items` at its pointer); the schema says `maxProperties`."""

    def __init__(self, *, max_items: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_items = max_items

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping) and len(data) > self.max_items:
            raise _too_many(self.max_items)
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
