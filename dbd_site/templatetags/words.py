"""The `counted` filter: {{ n|counted:"enemy,enemies" }} is "1 enemy" or "2 enemies";
{{ n|counted:"problem" }} adds an "s" (`dbd_site.words.counted`). A built-in of every
template (settings.TEMPLATES)."""

from typing import Any

from django import template

from dbd_site import words

register = template.Library()


@register.filter
def counted(number: Any, nouns: str) -> str:
    one, _, many = nouns.partition(",")
    return words.counted(int(number or 0), one, many or None)
