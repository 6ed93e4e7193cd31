"""`{% idempotency_key_field %}`: a plain form's key, fresh each time the form is shown.

A form posted without JavaScript carries it as a hidden field: the browser sends the
same key when it posts the form again (a lost answer, a second tap), so the write is
done once (`idempotency.decorators`)."""

import secrets

from django import template
from django.utils.html import format_html

from idempotency.decorators import FORM_FIELD

register = template.Library()


@register.simple_tag
def idempotency_key_field() -> str:
    return format_html(
        '<input type="hidden" name="{}" value="{}">', FORM_FIELD, secrets.token_urlsafe(24)
    )
