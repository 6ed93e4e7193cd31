"""What a member could take next, what it would cost, and why not: asked of the engine.

The builder pages show, for every option of a step (a free advancement line, a
purchase, a piece of equipment, a spell), its cost and, when it cannot be taken, the
reason. None of that is worked out here: each option is tried on a copy of the member
in a throw-away one-member force with more Resources than anyone needs (a "what-if"),
and the engine's answer is read back: the new entry's cost, and any error the option
brought with it. So the pages say exactly what the engine would say after saving.

Pure: no Django. A what-if evaluates one member (tens of microseconds), so a page can
afford the few dozen it needs.
"""

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dbd_site.errors import Problem
from dbd_site.inputs import is_whole_number
from roster import documents, engine
from rules.catalogue import Catalogue, Equipment, Society

WHAT_IF_RESOURCES = 1_000_000  # the document's maximum: a what-if is never over budget
MEMBER = "/members/0"  # where the member sits in a what-if document

MemberJSON = Mapping[str, Any]

# Equipment groups as the rulebook prints them (kinds in the catalogue's order).
EQUIPMENT_GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("melee", "Melee weapons", ("melee",)),
    ("ranged", "Ranged weapons", ("ranged",)),
    ("armour", "Armour and shields", ("armour", "shield")),
    ("items", "Items", ("item",)),
)


@dataclass(frozen=True, slots=True)
class Option:
    """One thing a member could take: what the form posts, and the engine's verdict.

    `cost` is in Resources for purchases and equipment, in spell slots for spells, and
    None where nothing is paid (free advancements). `reason` is the engine's message
    when the option would break a rule; `warning` a warning it would bring (legal).
    `change` is how much the member's total cost moves, when that differs from `cost`
    (a statistic bought before skills re-prices them, R6).
    """

    key: str
    name: str
    cost: int | None = None
    reason: str | None = None
    warning: str | None = None
    change: int | None = None
    summary: str = ""  # what it does, from the catalogue
    # Equipment: the hands it takes ("1H"), and its profile where that says more than
    # `summary` (a weapon's fire profile, a shield's DF).
    hands: str = ""
    profile: str = ""

    @property
    def available(self) -> bool:
        return self.reason is None


@dataclass(frozen=True, slots=True)
class OptionGroup:
    slug: str
    title: str
    options: tuple[Option, ...]


# --- asking the engine ------------------------------------------------------------------


class _Trial:
    """A member and the engine's answer for it; variants of it are judged against that.

    The engine resumes each variant from the first building step its change touches
    (`engine.MemberWhatIf`), so a step's few dozen options cost little more than one
    evaluation of the member.
    """

    def __init__(self, member: MemberJSON, catalogue: Catalogue) -> None:
        self.parsed = documents.parse_member(member)
        self.explorer = engine.MemberWhatIf(self.parsed, catalogue, resources=WHAT_IF_RESOURCES)
        self.before = self.explorer.evaluate()

    def what_if(self, **changes: Any) -> engine.Evaluation:
        """The engine's answer for the member with `changes` (whole properties of its JSON)."""
        return self.explorer.evaluate(documents.with_fields(self.parsed, changes))

    def judge(
        self,
        entry: str,
        *,
        ignore: Callable[[Problem], bool] = lambda _p: False,
        shifted: str | None = None,
        **changes: Any,
    ) -> "_Verdict":
        """Evaluate the change and pick the reason it fails, preferring errors at `entry`.

        `shifted` names a list whose later entries moved up by one (an insertion): new
        problems there are only the old ones at their new index, so they are skipped.
        """
        after = self.what_if(**changes)
        errors = [p for p in _new(self.before.errors, after.errors) if not ignore(p)]
        if shifted is not None:
            errors = [
                p for p in errors if _inside(p.pointer, entry) or not _inside(p.pointer, shifted)
            ]
        errors.sort(key=lambda p: not _inside(p.pointer, entry))  # stable: entry's own first
        warnings = _new(self.before.warnings, after.warnings)
        return _Verdict(
            after=after,
            problems=tuple(errors),
            problem=errors[0] if errors else None,
            reason=errors[0].message if errors else None,
            warning=warnings[0].message if warnings else None,
        )


def _inside(pointer: str, prefix: str) -> bool:
    return pointer == prefix or pointer.startswith(prefix + "/")


def _new(before: Iterable[Problem], after: Iterable[Problem]) -> list[Problem]:
    """Problems of the member that the change brought (same place and code = not new)."""
    known = {(p.pointer, p.code) for p in before}
    return [p for p in after if _inside(p.pointer, MEMBER) and (p.pointer, p.code) not in known]


@dataclass(frozen=True, slots=True)
class _Verdict:
    after: engine.Evaluation
    problems: tuple[Problem, ...]  # every new error, the entry's own first
    problem: Problem | None
    reason: str | None
    warning: str | None

    @property
    def member(self) -> engine.MemberResult:
        return self.after.members[0]


def _list(member: MemberJSON, key: str) -> list[Any]:
    """A new list of `member[key]`; the entries are shared, so replace them, never edit."""
    return list(member.get(key) or [])


def _without_name(message: str, name: str) -> str:
    """The engine's sentence about `name` as a phrase on that option's own row:
    "Light Pistol needs RA 1 or more." becomes "Needs RA 1 or more."
    """
    if message.startswith(name + " "):
        rest = message[len(name) + 1 :]
        return rest[:1].upper() + rest[1:]
    return message


def _fr_phrase(problem: Problem) -> str | None:
    """A what-if that would take FR below 0 (R3, R5a): in a player's words."""
    if problem.code == "statistic-out-of-bounds" and "takes FR to" in problem.message:
        return "Not enough FR left (it cannot go below 0)."
    return None


# --- base statistics (R1) ----------------------------------------------------------------


def base_statistics_refusal(base: Mapping[str, int], catalogue: Catalogue) -> str | None:
    """What the engine says of these base statistics (R1: 3, 2, 2 and 1 in some order), or
    None when it takes them. The add form asks before anything is saved: the statistics
    are judged alone, so nothing else of the member (its club) need be valid yet."""
    member = documents.Member(
        name="", club_name="", society="", society_choice="", base=dict(base)
    )
    evaluation = engine.MemberWhatIf(member, catalogue, resources=WHAT_IF_RESOURCES).evaluate()
    return next(
        (p.message for p in evaluation.errors if p.code == "invalid-base-statistics"), None
    )


# --- free advancements (R4, R5) ---------------------------------------------------------


def statistic_label(amount: int, statistic: str) -> str:
    return f"{amount:+d} {statistic}"


def _line_choices(society: Society) -> list[tuple[str, dict[str, Any], str]]:
    """Each line of a society's table as an advancement to take, in the builder's words
    ("+1 RA", "Movement Skill"), an "or" line once per choice.

    Key: "3" for a line without a choice, "1:RA" with one."""
    choices: list[tuple[str, dict[str, Any], str]] = []
    for line in society.lines.values():
        if line.kind == "statistic" and line.needs_choice:
            choices += [
                (
                    f"{line.number}:{o.statistic}",
                    {"line": line.number, "choice": o.statistic},
                    statistic_label(o.amount, o.statistic),
                )
                for o in line.options
            ]
        else:
            choices.append((str(line.number), {"line": line.number}, line.label))
    return choices


def free_advancement_options(
    member: MemberJSON, catalogue: Catalogue, slot: int
) -> tuple[Option, ...]:
    """Each line (and each choice of an "or" line) of the society's table, for free slot
    `slot` (0 or 1; replacing what is there, or adding the slot).

    A skill line still needs its roll or pick afterwards, so the engine's "skill
    required" is not held against it.
    """
    society = catalogue.societies.get(member["club"]["society"])
    if society is None:
        return ()
    trial = _Trial(member, catalogue)
    entry = f"{MEMBER}/free_advancements/{slot}"
    options = []
    for key, advancement, name in _line_choices(society):
        advancements = _list(member, "free_advancements")
        if slot < len(advancements):
            advancements[slot] = advancement
        else:
            advancements.append(advancement)
        verdict = trial.judge(
            entry,
            ignore=lambda p: p.code in ("skill-required", "free-advancement-count"),
            free_advancements=advancements,
        )
        options.append(Option(key=key, name=name, reason=verdict.reason))
    return tuple(options)


# --- level-ups (R17) ----------------------------------------------------------------------

# What the engine says of a level-up that is not the option's fault: the count the
# campaign's levels allow (its own thresholds, checked by the campaign), and a skill line's
# skill, which its roll or pick brings.
_LEVEL_UP_IGNORED = frozenset({"skill-required", "too-many-level-ups"})


def level_up_options(member: MemberJSON, catalogue: Catalogue) -> tuple[Option, ...]:
    """Each line of the society's table as the member's next level-up (R17), in the
    builder's words, with what it does and, when the rules refuse it (R3's bounds), why."""
    society = catalogue.societies.get(member["club"]["society"])
    if society is None:
        return ()
    trial = _Trial(member, catalogue)
    level_ups = _list(member, "level_ups")
    entry = f"{MEMBER}/level_ups/{len(level_ups)}"
    options = []
    for key, advancement, name in _line_choices(society):
        line = society.lines[advancement["line"]]
        verdict = trial.judge(
            entry,
            ignore=lambda p: p.code in _LEVEL_UP_IGNORED,
            level_ups=[*level_ups, advancement],
        )
        table = catalogue.skill_categories.get(line.skill_category or "")
        summary = (
            f"A {table.name} skill: rolled for free, or picked for {engine.PICK_FR_COST} FR (R5)."
            if line.kind == "skill" and table is not None
            else ""
        )
        options.append(Option(key=key, name=name, reason=verdict.reason, summary=summary))
    return tuple(options)


def level_up_pick_options(
    member: MemberJSON, catalogue: Catalogue, line_number: int
) -> tuple[Option, ...]:
    """The skills of skill line `line_number`'s own table to pick outright as the next
    level-up (-2 FR, R5, R17): each with its effect, and why not when it cannot be taken
    (owned already, excluded, FR)."""
    society = catalogue.societies.get(member["club"]["society"])
    line = society.lines.get(line_number) if society else None
    table = catalogue.skill_categories.get(line.skill_category or "") if line else None
    if table is None:
        return ()
    trial = _Trial(member, catalogue)
    level_ups = _list(member, "level_ups")
    entry = f"{MEMBER}/level_ups/{len(level_ups)}"
    options = []
    for skill in table.skills:
        picked = {"line": line_number, "method": "picked", "skill": skill.key}
        verdict = trial.judge(
            entry,
            ignore=lambda p: p.code in _LEVEL_UP_IGNORED,
            level_ups=[*level_ups, picked],
        )
        options.append(
            Option(
                key=skill.key,
                name=skill.name,
                reason=_skill_phrase(verdict, skill.name),
                summary=skill.summary,
            )
        )
    return tuple(options)


def pick_options(
    member: MemberJSON, catalogue: Catalogue, kind: str, slot: int, category: str
) -> tuple[Option, ...]:
    """Skills of `category` to pick outright for advancement `kind`/`slot` (-2 FR, R5).

    The FR the pick costs, and any skill already owned or excluded, show as reasons.
    """
    table = catalogue.skill_categories.get(category)
    advancements = _list(member, kind)
    if table is None or slot >= len(advancements):
        return ()
    trial = _Trial(member, catalogue)
    entry = f"{MEMBER}/{kind}/{slot}"
    options = []
    for skill in table.skills:
        changed = _list(member, kind)
        advancement = dict(changed[slot])
        advancement.update(skill=skill.key, method="picked")
        advancement.pop("natural_12", None)
        changed[slot] = advancement
        changes: dict[str, Any] = {kind: changed}
        verdict = trial.judge(entry, **changes)
        options.append(
            Option(
                key=skill.key,
                name=skill.name,
                reason=_skill_phrase(verdict, skill.name),
                summary=skill.summary,
            )
        )
    return tuple(options)


def _skill_phrase(verdict: "_Verdict", name: str) -> str | None:
    """Why a skill cannot be taken; that it is owned or excluded says more than what it
    would cost, so those come first."""
    problem = next(
        (p for p in verdict.problems if p.code in ("duplicate-skill", "excluded-skill")),
        verdict.problem,
    )
    if problem is None:
        return None
    if problem.code == "duplicate-skill":
        return "Already has it."
    if problem.code == "excluded-skill":
        return _without_name(problem.message, name).replace(
            "Cannot be taken alongside", "Not with"
        )
    return _fr_phrase(problem) or _without_name(problem.message, name)


# --- purchased advancements (R6) --------------------------------------------------------


def purchase_position(purchases: list[Mapping[str, Any]], purchase: Mapping[str, Any]) -> int:
    """Where a new purchase goes: statistics before the first skill, skills at the end (R6)."""
    if "skill" in purchase:
        return len(purchases)
    return next((i for i, p in enumerate(purchases) if "skill" in p), len(purchases))


def with_purchase(member: MemberJSON, purchase: Mapping[str, Any]) -> dict[str, Any]:
    """The member with `purchase` added in its place (the builder saves exactly this)."""
    purchases = _list(member, "purchases")
    purchases.insert(purchase_position(purchases, purchase), dict(purchase))
    return {**member, "purchases": purchases}


def purchase_key(purchase: Mapping[str, Any]) -> str:
    if "skill" in purchase:
        return f"skill:{purchase['skill']}"
    if purchase.get("choice"):
        return f"line:{purchase['line']}:{purchase['choice']}"
    return f"line:{purchase['line']}"


def purchase_from_key(key: str) -> dict[str, Any] | None:
    """The purchase a form's key stands for ("line:1:CA", "line:2", "skill:melee/x")."""
    kind, _, rest = key.partition(":")
    if kind == "skill" and rest:
        return {"skill": rest}
    if kind == "line":
        number, _, choice = rest.partition(":")
        if is_whole_number(number):
            return {"line": int(number), **({"choice": choice} if choice else {})}
    return None


def purchase_options(
    member: MemberJSON, catalogue: Catalogue, *, between_battles: bool = False
) -> tuple[OptionGroup, ...]:
    """Statistic lines, then the skills of each category on the society's table.

    `between_battles`: the member has fought in a campaign, so a purchase goes after
    everything bought, marked so, at today's price (R17a)."""
    society = catalogue.societies.get(member["club"]["society"])
    if society is None:
        return ()
    trial = _Trial(member, catalogue)
    before_total = trial.before.members[0].cost["total"]
    current = list(member.get("purchases") or [])

    def judge(purchase: dict[str, Any], name: str) -> Option:
        if between_battles:
            position = len(current)
            purchases = [*current, {**purchase, "between_battles": True}]
        else:
            position = purchase_position(current, purchase)
            purchases = with_purchase(member, purchase)["purchases"]
        entry = f"{MEMBER}/purchases/{position}"
        verdict = trial.judge(
            entry,
            shifted=f"{MEMBER}/purchases" if position < len(current) else None,
            purchases=purchases,
        )
        cost = verdict.member.purchase_costs[position]
        change = verdict.member.cost["total"] - before_total
        skill = catalogue.skills.get(purchase.get("skill", ""))
        return Option(
            key=purchase_key(purchase),
            name=name,
            # The engine prices a purchase it refuses at 0; say nothing rather than "0".
            cost=None if verdict.reason else cost,
            reason=_purchase_phrase(verdict, name),
            warning=verdict.warning,
            change=change if change != cost else None,
            summary=skill.summary if skill else "",
        )

    statistics = []
    for line in society.lines.values():
        if line.kind != "statistic":
            continue
        for option in line.options:
            purchase: dict[str, Any] = {"line": line.number}
            if line.needs_choice:
                purchase["choice"] = option.statistic
            statistics.append(judge(purchase, statistic_label(option.amount, option.statistic)))
    groups = [OptionGroup("statistics", "Statistics", tuple(statistics))]
    for line in society.lines.values():
        if line.kind != "skill" or line.skill_category is None:
            continue
        category = catalogue.skill_categories[line.skill_category]
        skills = tuple(judge({"skill": s.key}, s.name) for s in category.skills)
        groups.append(OptionGroup(category.slug, f"{category.name} skills", skills))
    return tuple(groups)


def _purchase_phrase(verdict: "_Verdict", name: str) -> str | None:
    problem = verdict.problem
    if problem is None:
        return None
    if problem.code == "duplicate-line":
        return "Already taken: at creation each statistic line is taken once (R6)."
    if problem.code in ("duplicate-skill", "excluded-skill"):
        return _skill_phrase(verdict, name)
    return _without_name(problem.message, name)


# --- equipment (R7, R8) -----------------------------------------------------------------


def equipment_options(member: MemberJSON, catalogue: Catalogue) -> tuple[OptionGroup, ...]:
    """Every piece of equipment, with its cost for this member and why it will not fit."""
    trial = _Trial(member, catalogue)
    current = _list(member, "equipment")
    entry = f"{MEMBER}/equipment/{len(current)}"

    def judge(item: Equipment) -> Option:
        verdict = trial.judge(entry, equipment=[*current, item.slug])
        return Option(
            key=item.slug,
            name=item.name,
            cost=verdict.member.equipment_costs[-1],
            reason=_equipment_phrase(verdict, item, entry, current, catalogue),
            warning=verdict.warning,
            summary=item.summary,
            hands=item.hands_label,
            profile=item.profile if item.profile != item.summary else "",
        )

    groups = []
    for slug, title, kinds in EQUIPMENT_GROUPS:
        items = tuple(judge(e) for e in catalogue.equipment.values() if e.kind in kinds)
        if items:
            groups.append(OptionGroup(slug, title, items))
    return tuple(groups)


def _equipment_phrase(
    verdict: "_Verdict", item: Equipment, entry: str, current: list[str], catalogue: Catalogue
) -> str | None:
    """Why a piece will not fit, said of that piece: when the engine's error lands on a
    piece already carried (taking the extra slot leaves the Polearm without hands), the
    row says which piece it would displace instead of blaming that piece."""
    problem = verdict.problem
    if problem is None:
        return None
    if not _inside(problem.pointer, entry) and problem.code in (
        "too-many-hands",
        "too-many-pieces",
    ):
        index = problem.pointer.rsplit("/", 1)[-1]
        other = catalogue.equipment.get(current[int(index)]) if index.isdigit() else None
        if other is not None and problem.code == "too-many-hands":
            return f"No room: as the extra piece it would leave {other.name} without a hand."
        if other is not None:
            return f"No room: {other.name} already uses the extra piece."
    if problem.code == "too-many-pieces":
        return "The one extra piece (backup weapon, armour or item) is taken."
    return _without_name(problem.message, item.name)


# --- spells (R9) ------------------------------------------------------------------------


def _slots_used(evaluation: engine.Evaluation) -> int:
    return evaluation.members[0].spell_slots["used"]


def spell_options(member: MemberJSON, catalogue: Catalogue) -> tuple[OptionGroup, ...]:
    """Every spell by school (the forbidden one last), with the slots it would take."""
    trial = _Trial(member, catalogue)
    current = _list(member, "spells")
    entry = f"{MEMBER}/spells/{len(current)}"

    slots_free = max(0, trial.before.members[0].spell_slots["total"] - _slots_used(trial.before))

    def judge(slug: str, name: str) -> Option:
        verdict = trial.judge(entry, spells=[*current, slug])
        slots = _slots_used(verdict.after) - _slots_used(trial.before)
        return Option(
            key=slug,
            name=name,
            cost=None if verdict.reason else slots,
            reason=_spell_phrase(verdict, name, slots, slots_free),
            warning=verdict.warning,
            summary=catalogue.spells[slug].summary,
        )

    groups = []
    for school, title in catalogue.spell_schools.items():
        spells = tuple(
            judge(s.slug, s.name) for s in catalogue.spells.values() if s.school == school
        )
        groups.append(OptionGroup(school, title, spells))
    forbidden = tuple(judge(s.slug, s.name) for s in catalogue.spells.values() if s.school is None)
    if forbidden:
        groups.append(OptionGroup("forbidden", "Forbidden spell", forbidden))
    return tuple(groups)


def _spell_phrase(verdict: "_Verdict", name: str, slots: int, free: int) -> str | None:
    """Why a spell cannot be learnt, about that spell: the slots it needs and those free
    (the engine reports the overflow wherever the slots run out, e.g. at the Mastery)."""
    problem = verdict.problem
    if problem is None:
        return None
    if problem.code == "too-many-spells":
        return f"Needs {slots} slot{'s' if slots != 1 else ''}; {free} free."
    if problem.code == "duplicate-spell":
        return "Already known."
    if problem.code == "core-school-required":
        return "Choose a core school first."
    if problem.code == "needs-ca":
        return "Needs CA 1 or more."
    return _without_name(problem.message, name)


def known_spell_slots(member: MemberJSON, catalogue: Catalogue) -> tuple[int, ...]:
    """The slots each known spell takes: how many the engine frees when it is dropped."""
    trial = _Trial(member, catalogue)
    current = _list(member, "spells")
    slots = []
    for i in range(len(current)):
        without = trial.what_if(spells=current[:i] + current[i + 1 :])
        slots.append(_slots_used(trial.before) - _slots_used(without))
    return tuple(slots)


def spell_focus_option(member: MemberJSON, catalogue: Catalogue) -> Option:
    """Turning Spell Focus on: a slot, and the skill (R9)."""
    trial = _Trial(member, catalogue)
    verdict = trial.judge(f"{MEMBER}/spell_focus", spell_focus=True)
    return Option(
        key="spell_focus",
        name="Spell Focus",
        cost=_slots_used(verdict.after) - _slots_used(trial.before),
        reason=verdict.reason,
    )


def mastery_options(member: MemberJSON, catalogue: Catalogue) -> tuple[Option, ...]:
    """Each known spell as the Supreme Spell Mastery (R9)."""
    trial = _Trial({**member, "mastery": None}, catalogue)
    options = []
    for slug in dict.fromkeys(member.get("spells") or []):
        spell = catalogue.spells.get(slug)
        if spell is None:
            continue
        verdict = trial.judge(f"{MEMBER}/mastery", mastery=slug)
        full = verdict.problem is not None and verdict.problem.code == "too-many-spells"
        options.append(
            Option(
                key=slug,
                name=spell.name,
                cost=_slots_used(verdict.after) - _slots_used(trial.before),
                reason="no slot free" if full else verdict.reason,
                summary=spell.summary,
            )
        )
    return tuple(options)
