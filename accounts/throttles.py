"""The account forms' own limits: posts per client address (`ACCOUNT_FORM_RATES`).

Sign-up, log-in and the password-change form each count every post from an address,
successes included, in the store every worker shares (`dbd_site.rate_limits`). Over the
limit the form is refused with that alone, before any field is checked (so no password is
hashed and no username looked up), and the page answers 429 with `Retry-After`; what was
typed in the other fields stays in them. This is beside axes' lock-out, which counts
failures per username and per address (`accounts.lockout`).
"""

from django.conf import settings
from django.forms.utils import ErrorDict
from django.http import HttpRequest, HttpResponse

from dbd_site.client_address import client_address
from dbd_site.rate_limits import Count, Rate, hit


def count_post(request: HttpRequest, scope: str) -> Count:
    rate = Rate.parse(settings.ACCOUNT_FORM_RATES[scope])
    return hit(f"form:{scope}:{client_address(request)}", rate)


class LimitedPerAddress:
    """A form mixin: validating a post first counts it against its address's limit for
    `limit_scope`; over the limit the form's only error says so. Needs `self.request`."""

    limit_scope: str
    request: HttpRequest
    refused_count: Count | None = None

    def full_clean(self) -> None:
        if not self.is_bound:  # type: ignore[attr-defined]
            return super().full_clean()  # type: ignore[misc]
        count = count_post(self.request, self.limit_scope)
        if count.allowed:
            return super().full_clean()  # type: ignore[misc]
        self.refused_count = count
        self._errors = ErrorDict()
        self.cleaned_data: dict = {}
        minutes = max(1, round(count.reset_seconds / 60))
        self.add_error(  # type: ignore[attr-defined]
            None,
            f"Too many tries from your network: please wait about {minutes} minute"
            f"{'' if minutes == 1 else 's'} and try again.",
        )
        return None


def mark_refusal(response: HttpResponse, form: object) -> HttpResponse:
    """A form refused by its limit answers 429 with `Retry-After`; any other, as it is."""
    count = getattr(form, "refused_count", None)
    if count is not None:
        response.status_code = 429
        response["Retry-After"] = str(count.reset_seconds)
    return response
