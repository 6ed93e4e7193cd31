"""What a campaign has been: its charts, its log, its export."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_safe

from campaign import charts, exports, selectors
from campaign.presenters import ForceXP, table_rows
from campaign.views.common import LOG_PAGE_SIZE, _base, _campaign, _forbidden, _is_organiser
from dbd_site.rendering import is_htmx, json_download, render_page

# --- charts, log, export -------------------------------------------------------------------


@login_required
@require_safe
def charts_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    resources = selectors.resources_history(campaign=campaign)
    xp = selectors.xp_history(campaign=campaign)
    has_battles = len(resources["labels"]) > 1
    context = _base(request, campaign, has_battles=has_battles)
    if has_battles:
        names = {cf.pk: cf.force.name for cf in selectors.campaign_forces(campaign=campaign)}
        xp_forces = []
        for pk, name in names.items():
            series = [
                charts.Series(name=s["name"], values=s["values"])
                for s in xp["series"]
                if s["campaign_force"] == pk
            ]
            if not series:
                continue
            chart_id = f"xp-chart-{pk}"
            svg = charts.xp_chart(xp["labels"], series, force_name=name, chart_id=chart_id)
            # mark_safe: every piece of text in the SVG went through html.escape (charts.py).
            xp_forces.append(
                ForceXP(
                    name=name,
                    chart=mark_safe(svg),
                    series=series,
                    chart_id=chart_id,
                    rows=table_rows(xp["labels"], series),
                )
            )
        resource_series = [
            charts.Series(name=s["name"], values=s["values"]) for s in resources["series"]
        ]
        context.update(
            resources=resources,
            resource_series=resource_series,
            resource_rows=table_rows(resources["labels"], resource_series),
            resources_chart=mark_safe(charts.resources_chart(resources)),
            xp_forces=xp_forces,
        )
    return render_page(request, "campaign/charts.html", context)


@login_required
@require_safe
def log(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign(request, campaign_id)
    paginator = Paginator(selectors.campaign_log(campaign=campaign), LOG_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    context = _base(request, campaign, page=page)
    partial = "entries" if is_htmx(request) else "content"
    return render_page(request, "campaign/log.html", context, partial=partial)


@login_required
@require_safe
def export(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The whole campaign as one dbd-campaign/1 JSON file; the organiser's (403 for the
    players: it names everyone and holds the whole history, so the organiser shares it)."""
    campaign = _campaign(request, campaign_id)
    if not _is_organiser(request, campaign):
        return _forbidden(request, campaign, "Only the organiser can export the campaign.")
    document = exports.export_campaign(campaign=campaign)
    return json_download(document, f"{slugify(campaign.name) or 'campaign'}.dbd-campaign.json")
