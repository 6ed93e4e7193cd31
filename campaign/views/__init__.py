"""The campaign pages: thin views over `campaign.selectors` (reads) and
`campaign.services` (writes; they keep the house rules R14-R18).

Who sees what: every campaign page needs a login (anonymous visitors are sent to log
in) and answers 404 to anyone outside the campaign, so outsiders cannot tell a
campaign exists. Inside the campaign, a page or action reserved for someone else (the
organiser's settings, void and export; a force owner's level-ups) answers 403 with a
short explanation and changes nothing.

htmx requests get partials; every form also works as a plain POST that redirects
(POST-redirect-GET). Domain errors from the services are shown as form errors, with
status 400.

One module per area, as the pages are: `campaigns` (my campaigns, the dashboard, house
rules), `forces`, `level_ups`, `battles`, `history` (charts, log, export); what they
share in `common`, how they show things in `campaign.presenters`.
"""

from campaign.views.battles import battle_confirm, battle_detail, battle_void, record_battle
from campaign.views.campaigns import (
    campaign_create,
    campaign_list,
    dashboard,
    house_rules,
    invite_reset,
    join,
)
from campaign.views.forces import enter_force, force_detail, force_retire
from campaign.views.history import charts_page, export, log
from campaign.views.level_ups import level_up, level_up_roll

__all__ = [
    "battle_confirm",
    "battle_detail",
    "battle_void",
    "campaign_create",
    "campaign_list",
    "charts_page",
    "dashboard",
    "enter_force",
    "export",
    "force_detail",
    "force_retire",
    "house_rules",
    "invite_reset",
    "join",
    "level_up",
    "level_up_roll",
    "log",
    "record_battle",
]
