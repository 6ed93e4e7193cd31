"""What the campaign pages share: the campaign as the viewer may see it, and the answer
to someone asking for what is reserved for another."""

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers

from campaign import selectors
from campaign.models import Campaign
from dbd_site.inputs import is_whole_number

LOG_PAGE_SIZE = 25
RECENT_BATTLES = 10


# --- helpers -------------------------------------------------------------------------------


def _campaign(request: HttpRequest, campaign_id: int) -> Campaign:
    """A campaign the user organises or plays in, or 404."""
    return selectors.get_campaign(user=request.user, campaign_id=campaign_id)


def _is_organiser(request: HttpRequest, campaign: Campaign) -> bool:
    return campaign.organiser_id == request.user.pk


def _forbidden(request: HttpRequest, campaign: Campaign, message: str) -> HttpResponse:
    """Someone in the campaign asked for something reserved for someone else."""
    response = render(
        request,
        "campaign/forbidden.html",
        _base(request, campaign, message=message),
        status=403,
    )
    patch_vary_headers(response, ("HX-Request",))
    return response


def _base(request: HttpRequest, campaign: Campaign, **extra: Any) -> dict[str, Any]:
    return {"campaign": campaign, "is_organiser": _is_organiser(request, campaign), **extra}


def _ids(values: list[str]) -> list[int]:
    return [int(v) for v in values if is_whole_number(v)]
