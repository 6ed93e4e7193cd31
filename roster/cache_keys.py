"""The keys forces' pages and API answers are cached under (built on
`dbd_site.cache_keys.key`, which adds the release).

Besides the release, each key names:

- the rules this process evaluates and renders with (`rules_version`: the catalogue's
  edition, its content version, and the engine's version, which moves with any change to
  the engine's answers);
- the origin asked for (scheme and host): pages and API answers carry absolute links (a
  force's share link, the API's URLs), and one site may answer to several hosts;
- the object's version (`force_version`), moved by every write;
- whoever and whatever else the value shows (the viewer, the share token, the CSRF
  secret the page's forms are masked from).
"""

import json
from typing import TYPE_CHECKING, Any

from django.http import HttpRequest

from dbd_site.cache_keys import key, origin
from roster import engine
from rules.loader import get_catalogue

if TYPE_CHECKING:
    from django.db.models import Model

    from roster.models import Force, Member
    from roster.policy import Note


def force_version(force: "Force") -> str:
    """What every write to a force or its members moves (`roster.services`): its
    `version`. The one place that says how a force's version is read."""
    return str(force.version)


def rules_version() -> str:
    """The rules this process evaluates and renders with: the catalogue's edition, the
    digest of its content (`rules.catalogue.content_digest`) and the engine's version."""
    catalogue = get_catalogue()
    return f"{catalogue.rules_version}:{catalogue.content_version}:e{engine.ENGINE_VERSION}"


def _key(kind: str, parts: tuple[object, ...]) -> str:
    return key(kind, (rules_version(), *parts))


def force_page(
    request: HttpRequest, force: "Force", *, csrf_secret: str, note: "Note | None"
) -> str:
    """The body of the owner's force page (`roster/detail.html`): its forms carry CSRF
    tokens masked from the viewer's secret, its share link names the host, and the note
    of whoever else holds the force (a campaign copy's names its campaign, which can be
    renamed without a write to the force) is shown as its policy words it now."""
    return _key(
        "force-page",
        (
            origin(request),
            force.pk,
            force_version(force),
            force.share_token,
            request.user.pk,
            csrf_secret,
            note,
        ),
    )


def member_card(
    request: HttpRequest,
    member: "Member",
    shown: dict[str, Any],
    *,
    viewer_id: int | None,
    read_only: bool,
    fold: bool,
) -> str:
    """One member's card on the force page or the read-only page (`roster/_member_card.html`).

    A card shows its member's row and rolls, what the force's stored evaluation says of
    that member (`shown`: `roster.presenters.member_evaluation`), links under its force,
    who rolled each roll as the viewer sees it ("you", "another player"; None on the
    read-only page, which doesn't say), and whether it is read-only (no Edit and Remove)
    and folded. Every column of the row and of each roll is in the key, so no change to a
    member can leave its card behind; a change elsewhere in the force reaches a card only
    through `shown`, so an edit of one member renders that member's card alone.
    """
    rolls = [_columns(roll) for roll in member.rolls.all()]
    evaluation = json.dumps(shown, sort_keys=True, default=str)
    return _key(
        "member-card",
        (origin(request), _columns(member), rolls, evaluation, viewer_id, read_only, fold),
    )


def _columns(row: "Model") -> list[object]:
    return [getattr(row, field.attname) for field in row._meta.concrete_fields]


def roster_api_detail(request: HttpRequest, detail_version: str) -> str:
    """The API detail of one version of a force (its ETag's version, which names the
    force) as JSON bytes; its links name the host asked."""
    return _key("roster-api-detail-json", (origin(request), detail_version))
