"""The member builder's changes: each step's form data turned into the member's new
dbd-roster/1 JSON, or refused with words to show next to the step. Nothing is saved
here (views save through `roster.services`, which the engine checks)."""

from collections.abc import Callable
from typing import Any

from django.core.exceptions import NON_FIELD_ERRORS
from django.http import QueryDict

from dbd_site.errors import Invalid, Problem, declare_codes
from dbd_site.inputs import is_whole_number
from roster import options
from roster.forms import ClubForm, MemberBasicsForm
from roster.presenters import advancement_entry
from rules.catalogue import Catalogue

declare_codes(
    {
        "stale-entry": "The entry the change names is no longer there (the member changed "
        "since the page was shown); nothing was changed.",
    }
)


class Rejected(Invalid):
    """A change the builder cannot make (400): shown next to its step (`section`), nothing
    saved. A form's refusal carries the bound form, which shows its own errors beside its
    fields; its problems point at them (`/name`)."""

    def __init__(
        self,
        section: str,
        message: str = "",
        *,
        code: str = "invalid",
        form: Any = None,
        form_name: str = "",
    ) -> None:
        if message:
            problems = [Problem("", code, message)]
        else:
            problems = [
                Problem("" if name == NON_FIELD_ERRORS else f"/{name}", code, str(text))
                for name, texts in form.errors.items()
                for text in texts
            ]
        self._init(problems)
        self.section = section
        self.form = form
        self.form_name = form_name


Change = Callable[[dict[str, Any], QueryDict, Catalogue], tuple[dict[str, Any], str]]


def _index(post: QueryDict, items: list[Any], section: str) -> int:
    raw = post.get("index", "")
    if not is_whole_number(raw) or int(raw) >= len(items):
        raise Rejected(
            section,
            "That entry is no longer there; the page has been refreshed.",
            code="stale-entry",
        )
    return int(raw)


def _change_basics(data: dict[str, Any], post: QueryDict, _c: Catalogue) -> tuple[dict, str]:
    form = MemberBasicsForm(post, initial=MemberBasicsForm.initial_for(data))
    if not form.is_valid():
        raise Rejected("basics", form=form, form_name="basics")
    return form.apply(data), "Saved the name and statistics."


def _change_club(data: dict[str, Any], post: QueryDict, catalogue: Catalogue) -> tuple[dict, str]:
    form = ClubForm(post, catalogue=catalogue, initial=ClubForm.initial_for(data))
    if not form.is_valid():
        raise Rejected("club", form=form, form_name="club")
    return form.apply(data), "Saved the club."


def _change_free(data: dict[str, Any], post: QueryDict, catalogue: Catalogue) -> tuple[dict, str]:
    """Take a line for free advancement `slot` (R4); a skill line is rolled or picked next."""
    advancements = list(data["free_advancements"])
    raw_slot = post.get("slot", "")
    if not is_whole_number(raw_slot) or int(raw_slot) > min(len(advancements), 1):
        raise Rejected("free", "Choose the first free advancement before the second.")
    slot = int(raw_slot)
    number, _, choice = post.get("option", "").partition(":")
    society = catalogue.societies.get(data["club"]["society"])
    line = society.lines.get(int(number)) if society and is_whole_number(number) else None
    if line is None:
        raise Rejected("free", "Choose one of the lines of the society's table.")
    advancement: dict[str, Any] = {"line": line.number}
    if choice:
        advancement["choice"] = choice
    current = advancements[slot] if slot < len(advancements) else None
    if current is not None and {k: current.get(k) for k in ("line", "choice")} == {
        "line": advancement["line"],
        "choice": advancement.get("choice"),
    }:
        return data, "No change."
    if slot < len(advancements):
        advancements[slot] = advancement
    else:
        advancements.append(advancement)
    follow_up = " Now roll for the skill, or pick one." if line.kind == "skill" else ""
    option = line.option_for(choice or None) if line.kind == "statistic" else None
    taken = f"{option.amount:+d} {option.statistic}" if option else line.label
    return {**data, "free_advancements": advancements}, f"Took {taken}.{follow_up}"


def _change_free_clear(data: dict[str, Any], post: QueryDict, _c: Catalogue) -> tuple[dict, str]:
    advancements = list(data["free_advancements"])
    if post.get("slot") != str(len(advancements) - 1):
        raise Rejected("free", "Only the last free advancement can be cleared; change the other.")
    advancements.pop()
    return {**data, "free_advancements": advancements}, "Cleared the free advancement."


def _change_purchase_add(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    purchase = options.purchase_from_key(post.get("add", ""))
    if purchase is None or ("skill" in purchase and purchase["skill"] not in catalogue.skills):
        raise Rejected("purchases", "Choose one of the listed advancements.")
    if "skill" in purchase:
        name = catalogue.skills[purchase["skill"]].name
    else:
        society = catalogue.societies.get(data["club"]["society"])
        name = advancement_entry(purchase, society, catalogue).label
    # R6: statistics are bought before any skill, so a statistic goes in before them.
    return options.with_purchase(data, purchase), f"Bought {name}."


def _change_purchase_buy(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    """Between battles (R17a): a purchase goes after everything already bought, marked
    as bought between battles (a statistic line may repeat; its price is the one now)."""
    _, notice = _change_purchase_add(data, post, catalogue)  # checks it, says it
    purchase = options.purchase_from_key(post.get("add", ""))
    bought = {**purchase, "between_battles": True} if purchase else None
    return {**data, "purchases": [*data["purchases"], bought]}, notice


def _change_purchase_remove(
    data: dict[str, Any], post: QueryDict, _c: Catalogue
) -> tuple[dict, str]:
    purchases = list(data["purchases"])
    purchases.pop(_index(post, purchases, "purchases"))
    return {**data, "purchases": purchases}, "Removed the advancement."


def _change_equipment_add(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    item = catalogue.equipment.get(post.get("add", ""))
    if item is None:
        raise Rejected("equipment", "Choose a piece of equipment from the list.")
    return {**data, "equipment": [*data["equipment"], item.slug]}, f"Added {item.name}."


def _change_equipment_remove(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    equipment = list(data["equipment"])
    slug = equipment.pop(_index(post, equipment, "equipment"))
    item = catalogue.equipment.get(slug)
    return {**data, "equipment": equipment}, f"Removed {item.name if item else slug}."


def _change_schools(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    chosen = [post.get("core_school", ""), post.get("second_school", "")]
    unknown = [s for s in chosen if s and s not in catalogue.spell_schools]
    if unknown:
        raise Rejected("spells", "Choose a school from the list.")
    schools = [s for s in chosen if s]
    return {**data, "core_schools": schools}, "Saved the core school."


def _change_spell_add(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    spell = catalogue.spells.get(post.get("add", ""))
    if spell is None:
        raise Rejected("spells", "Choose a spell from the list.")
    return {**data, "spells": [*data["spells"], spell.slug]}, f"Learnt {spell.name}."


def _change_spell_remove(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    spells = list(data["spells"])
    slug = spells.pop(_index(post, spells, "spells"))
    spell = catalogue.spells.get(slug)
    changed = {**data, "spells": spells}
    notice = f"Forgot {spell.name if spell else slug}."
    if data.get("mastery") == slug and slug not in spells:
        changed["mastery"] = None  # R9: the Mastery must be a known spell
        notice += " It was the Mastery, so that is cleared too."
    return changed, notice


def _change_spell_focus(data: dict[str, Any], post: QueryDict, _c: Catalogue) -> tuple[dict, str]:
    on = post.get("spell_focus") == "on"
    return {**data, "spell_focus": on}, "Spell Focus is on." if on else "Spell Focus is off."


def _change_mastery(
    data: dict[str, Any], post: QueryDict, catalogue: Catalogue
) -> tuple[dict, str]:
    slug = post.get("mastery") or None
    if slug is not None and slug not in catalogue.spells:
        raise Rejected("spells", "Choose one of the student's spells.")
    return {**data, "mastery": slug}, "Saved the Mastery." if slug else "Cleared the Mastery."


CHANGES: dict[str, tuple[str, Change]] = {
    "basics": ("basics", _change_basics),
    "club": ("club", _change_club),
    "free": ("free", _change_free),
    "free-clear": ("free", _change_free_clear),
    "purchase-add": ("purchases", _change_purchase_add),
    "purchase-remove": ("purchases", _change_purchase_remove),
    "equipment-add": ("equipment", _change_equipment_add),
    "equipment-remove": ("equipment", _change_equipment_remove),
    "schools": ("spells", _change_schools),
    "spell-add": ("spells", _change_spell_add),
    "spell-remove": ("spells", _change_spell_remove),
    "spell-focus": ("spells", _change_spell_focus),
    "mastery": ("spells", _change_mastery),
}

# The changes a member who has fought in a campaign makes differently (R17a).
BETWEEN_BATTLES: dict[str, tuple[str, Change]] = {
    "purchase-add": ("purchases", _change_purchase_buy),
}
# The changes that, for a member who has fought, spend the campaign's Resources for good
# (R17a, R18: nothing is refunded): the builder asks once before making them (issue #31).
ASKED_BETWEEN_BATTLES = frozenset({"purchase-add", "equipment-add"})
