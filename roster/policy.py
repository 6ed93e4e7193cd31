"""Force policies: who may change a force, when, and what a change costs beyond the rules.

The write path (`roster.services`) asks the force's policy at two points of every
command: `permit` before anything is read for the change (who, when), and `judge`
once the change is applied and the force evaluated (what: a change the policy
refuses raises, and nothing is stored). After storing, `settle` lets the policy
write its own records (a campaign's ledger and log) in the same transaction.

A freeform force has the `FreeformPolicy`: its owner changes it freely. Other apps
register a resolver (`register`) that returns their own policy for the forces they
hold: the campaign app does so for its campaign copies, so `roster/` never imports
`campaign/`.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.contrib.auth.models import User

from dbd_site.errors import Codes, Kind, NotAllowed, declare_codes
from roster import engine
from roster.models import Force

CODES = declare_codes(
    {
        "not-owner": "Only the force's owner can change it.",
    },
    Kind.NOT_ALLOWED,
)


@dataclass(frozen=True, slots=True)
class Command:
    """What is being done, as the policy sees it.

    `kind` is one of `KINDS`; `actor` is the user asking, or None when an app does its
    own bookkeeping (a campaign awarding XP after a confirmed battle). `member_id` is
    the member it is about, when one.
    """

    kind: str
    actor: User | None
    # Words for the log and the ledger; a callable is asked once the change has run
    # (the builder only knows what it did then).
    description: str | Callable[[], str] = ""
    member_id: int | None = None
    slot: str | None = None


# Every command of the write path (`roster.services`).
KINDS = frozenset(
    {
        "create",
        "import",
        "duplicate",
        "rename",
        "set-resources",
        "share",
        "delete",
        "replace-document",
        "change-member",
        "recruit",
        "retire",
        "roll",
        "pick",
        "free-pick",
        "take-level-up",
        "award-xp",
        "refresh",
        "rules-refresh",
        "move-to-rules",
    }
)


@dataclass(slots=True)
class MemberState:
    """A member as stored (`id`; None for a new one) and its dbd-roster/1 JSON."""

    id: int | None
    data: dict[str, Any]


@dataclass(slots=True)
class Proposal:
    """A change applied in memory and evaluated once, for the policy to judge."""

    command: Command
    force: Force  # the locked row, as it was before the change
    before_members: Sequence[MemberState]
    after_members: Sequence[MemberState]
    before: dict[str, Any]  # the stored evaluation (fresh: every write stores it)
    after: engine.Evaluation
    resources: int  # what the change says the force's Resources are


@dataclass(slots=True)
class Verdict:
    """What the policy decided: the Resources to store, and what `settle` needs."""

    resources: int | None = None  # None: keep what the document says
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Note:
    """What the pages say about who holds a force (a campaign copy), and where to go."""

    text: str
    link: str
    link_label: str


class ForcePolicy(Protocol):
    def lock(self) -> None:
        """Take the policy's own row locks; called before the force row is locked."""

    def permit(self, command: Command, force: Force) -> None:
        """Raise a `DomainError` if `command.actor` may not do this now."""

    def level_thresholds(self) -> tuple[int, ...]:
        """R16's level thresholds the force is evaluated with."""

    def judge(self, proposal: Proposal) -> Verdict:
        """Raise a `DomainError` if the change breaks the policy's rules; else a verdict."""

    def settle(self, proposal: Proposal, verdict: Verdict) -> None:
        """After storing, in the same transaction: the policy's own records."""

    def fixed_members(self) -> frozenset[int]:
        """Members whose creation choices are history (for pages and the API)."""

    def balance(self) -> int | None:
        """Resources the owner has left to spend outside the force, if the policy keeps them."""

    def offers(self, kind: str) -> bool:
        """Whether pages should offer a control for this kind of command at all."""

    def note(self) -> Note | None:
        """A line for the force's pages saying who holds it (None: its owner alone)."""


class FreeformPolicy:
    """A force of one's own: the owner changes anything, at any time (R1-R13)."""

    def __init__(self, force: Force) -> None:
        self.force = force

    def lock(self) -> None:
        return None

    def permit(self, command: Command, force: Force) -> None:
        if command.actor is not None and command.actor.pk != force.owner_id:
            raise NotAllowed("not-owner", "Only the force's owner can change it.")

    def level_thresholds(self) -> tuple[int, ...]:
        return engine.LEVEL_THRESHOLDS

    def judge(self, proposal: Proposal) -> Verdict:
        return Verdict()

    def settle(self, proposal: Proposal, verdict: Verdict) -> None:
        return None

    def fixed_members(self) -> frozenset[int]:
        return frozenset()

    def balance(self) -> int | None:
        return None

    def offers(self, kind: str) -> bool:
        return True

    def note(self) -> Note | None:
        return None


Resolver = Callable[[Force], ForcePolicy | None]
_resolvers: list[Resolver] = []
_codes: list[Codes] = []


def register(resolver: Resolver, codes: Sequence[Codes] = ()) -> None:
    """An app's way of taking charge of some forces (call from `AppConfig.ready`), with
    the codes its policies may refuse a command with (the roster API's writes list them)."""
    if resolver not in _resolvers:
        _resolvers.append(resolver)
        _codes.extend(codes)


def policy_codes() -> list[Codes]:
    """Every code a force's policy may refuse a write with: the freeform policy's and the
    registered ones' (read when the schema is built, after every app is ready)."""
    return [CODES, *_codes]


def policy_for(force: Force) -> ForcePolicy:
    """The policy of `force`: the first registered resolver's, else freeform."""
    for resolver in _resolvers:
        policy = resolver(force)
        if policy is not None:
            return policy
    return FreeformPolicy(force)
