"""The rules reference pages, the rules notes and the site's base template."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import escape

from rules.models import Equipment, Skill, Society, Spell
from rules.rulings import RULINGS, SECTIONS, WORKED_EXAMPLES
from tests.pages import html

pytestmark = pytest.mark.django_db

RULINGS_MD = Path(settings.BASE_DIR).parent / "shared" / "rules" / "RULINGS.md"
INDEX_URL = "/rules/"
HTMX = {"HTTP_HX_REQUEST": "true"}


def ruling_ids_in_rulings_md() -> set[str]:
    """Every ruling id RULINGS.md defines in bold: R1..R18, amendments such as R17a, P1..P6."""
    return set(re.findall(r"\*\*(R\d+[a-z]?|P\d+)\b", RULINGS_MD.read_text(encoding="utf-8")))


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.casefold())


# --- The index --------------------------------------------------------------------------


def test_urls_are_named():
    assert reverse("rules:index") == INDEX_URL
    assert reverse("rules:notes") == "/rules/notes/"


def test_index_shows_every_skill_equipment_and_spell(client):
    page = html(client.get(INDEX_URL))
    names = [
        *Skill.objects.values_list("name", flat=True),
        *Equipment.objects.values_list("name", flat=True),
        *Spell.objects.values_list("name", flat=True),
        *Society.objects.values_list("name", flat=True),
    ]
    assert len(names) > 100
    missing = [name for name in names if escape(name) not in page]
    assert missing == []


def test_index_has_anchored_sections_and_a_table_of_contents(client):
    page = html(client.get(INDEX_URL))
    for anchor in [
        "societies",
        "society-academic",
        "skills",
        "skills-melee",
        "skill-melee-dual-wield",
        "skill-ranged-dual-wield",
        "equipment",
        "equipment-melee",
        "equipment-ranged",
        "equipment-armour",
        "equipment-items",
        "equipment-light-machine-gun",
        "spells",
        "spells-restoration",
        "spell-healing-spring",
        "forbidden-spell",
        "spell-dragon-slayer",
    ]:
        assert f'id="{anchor}"' in page, anchor
    assert 'href="#skills-spellcasting"' in page
    assert 'href="#forbidden-spell"' in page


def test_index_shows_roll_numbers_costs_and_both_machine_gun_modes(client):
    page = html(client.get(INDEX_URL))
    row = page[page.index('id="equipment-light-machine-gun"') :]
    row = row[: row.index("</tr>")]
    assert "2/3" in row
    assert "+0/-1" in row
    assert "2xRA" in row
    additional_slot = page[page.index('id="skill-spellcasting-additional-spell-slot"') :]
    assert "7-10" in additional_slot[: additional_slot.index("</tr>")]
    # Society modifiers spelt out, with the player's choice.
    assert "-1 ME or RA, +1 CA" in page


def test_dragon_slayer_is_listed_as_the_forbidden_spell(client):
    page = html(client.get(INDEX_URL))
    forbidden = page[page.index('id="forbidden-spell"') :]
    assert "Dragon Slayer" in forbidden
    assert 'href="#skill-spellcasting-dragon-slayer"' in forbidden


def count_queries(client, **params) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(INDEX_URL, params).status_code == 200
    return len(ctx.captured_queries)


def test_index_query_count_does_not_grow_with_content(client):
    before = count_queries(client)
    melee = Skill.objects.filter(category_id="melee").first()
    for n in range(3):
        Skill.objects.create(
            key=f"melee/extra-{n}",
            category_id="melee",
            slug=f"extra-{n}",
            name=f"Extra {n}",
            roll_min=20 + n,
            roll_max=20 + n,
            summary="A test skill.",
        ).excludes.add(melee)
        spell = Spell.objects.create(
            slug=f"extra-spell-{n}",
            name=f"Extra spell {n}",
            order=100 + n,
            school_id="restoration",
            difficulty=5,
            difficulty_label="5",
            range_kind=Spell.RangeKind.SELF,
        )
        spell.outcomes.create(successes_label="1+", min_successes=1, effect="Nothing much.")
    assert count_queries(client) == before


def test_search_never_costs_more_queries_than_the_full_index(client):
    full = count_queries(client)
    for query in ["heal", "SHIELD", "dual", "no such rule at all"]:
        assert count_queries(client, q=query) <= full


def test_index_query_count_is_small(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        client.get(INDEX_URL)


def test_index_only_answers_safe_methods(client):
    assert client.post(INDEX_URL).status_code == 405


# --- Search -----------------------------------------------------------------------------


def test_search_form_works_without_javascript(client):
    page = html(client.get(INDEX_URL))
    form = page[page.index("<form") : page.index("</form>")]
    assert 'method="get"' in form
    assert 'name="q"' in form
    assert '<label for="rules-q"' in form
    assert 'type="submit"' in form
    assert 'hx-get="/rules/"' in form
    assert 'hx-trigger="input changed delay:250ms, search"' in form
    assert 'hx-target="#rules-results"' in form
    assert 'hx-push-url="true"' in form
    assert 'aria-live="polite"' in page


def test_search_without_htmx_returns_the_full_page_filtered(client):
    response = client.get(INDEX_URL, {"q": "healing"})
    page = html(response)
    assert "<html" in page
    assert 'value="healing"' in page
    assert "Healing Spring" in page
    assert "Angelic Healing" in page  # matched by its summary or name
    assert "Sniper Rifle" not in page
    assert "Catfall" not in page
    assert "result" in page[page.index('id="rules-status"') :]


def test_search_with_htmx_returns_only_the_results_partial(client):
    response = client.get(INDEX_URL, {"q": "healing"}, **HTMX)
    page = html(response)
    assert response.status_code == 200
    assert "<html" not in page
    assert "<form" not in page
    assert "Healing Spring" in page
    assert "Sniper Rifle" not in page
    # The live result count is refreshed out of band.
    assert 'hx-swap-oob="innerHTML:#rules-status"' in page
    assert "HX-Request" in response["Vary"]


def test_htmx_history_restore_gets_the_full_page(client):
    response = client.get(
        INDEX_URL, {"q": "healing"}, HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HTMX
    )
    assert "<html" in html(response)


def test_search_is_case_insensitive_and_covers_every_kind(client):
    page = html(client.get(INDEX_URL, {"q": "SNIPER"}, **HTMX))
    assert "Sniper Rifle" in page
    page = html(client.get(INDEX_URL, {"q": "dual wield"}, **HTMX))
    assert 'id="skill-melee-dual-wield"' in page
    assert 'id="skill-ranged-dual-wield"' in page
    page = html(client.get(INDEX_URL, {"q": "clock"}, **HTMX))
    assert 'id="spell-clock-up"' in page
    assert 'id="spell-clock-down"' in page


def test_search_matches_society_advancement_lines(client):
    page = html(client.get(INDEX_URL, {"q": "Spellcasting Skill"}, **HTMX))
    assert 'id="society-academic"' in page
    assert 'id="society-sporting"' not in page


def test_search_matches_spell_outcome_effects(client):
    spell = Spell.objects.get(slug="reviving-breath")
    effect = spell.outcomes.order_by("min_successes").first().effect
    word = max(re.findall(r"[A-Za-z]{5,}", effect), key=len)
    page = html(client.get(INDEX_URL, {"q": word}, **HTMX))
    assert 'id="spell-reviving-breath"' in page


def test_empty_search_shows_a_friendly_message_and_a_way_back(client):
    for headers in ({}, HTMX):
        page = html(client.get(INDEX_URL, {"q": "xyzzy"}, **headers))
        assert "No rules match “xyzzy”" in page
        assert 'href="/rules/"' in page
        assert 'id="skills"' not in page


def test_search_text_is_escaped(client):
    page = html(client.get(INDEX_URL, {"q": "<script>"}))
    assert "<script>alert" not in page
    assert "“&lt;script&gt;”" in page


# --- Rules notes ------------------------------------------------------------------------


def test_rulings_module_covers_every_ruling_in_rulings_md():
    ids = ruling_ids_in_rulings_md()
    assert {f"R{n}" for n in range(1, 19)} <= ids
    assert {ruling.id for ruling in RULINGS} == ids
    assert len(RULINGS) == len(ids)  # no duplicates
    assert [r for s in SECTIONS for r in s.rulings] == list(RULINGS)
    for ruling in RULINGS:
        assert ruling.title.strip()
        assert len(ruling.plain_explanation) > 60, ruling.id


AMENDMENTS = {"R5a", "R14a", "R14b", "R14c", "R15a", "R17a", "R18a"}
TABLE_RULINGS = {f"P{n}" for n in range(1, 10)}


def test_rulings_md_defines_the_amendments_and_the_table_rulings():
    assert ruling_ids_in_rulings_md() >= AMENDMENTS | TABLE_RULINGS


def test_each_amendment_follows_the_ruling_it_refines():
    ids = [ruling.id for ruling in RULINGS]
    for amendment in AMENDMENTS:
        amended = amendment.rstrip("abc")
        after = ids[ids.index(amended) + 1 : ids.index(amendment)]
        assert all(i.startswith(amended) and i != amended for i in after), amendment


def test_the_table_rulings_have_a_section_of_their_own():
    table = [s for s in SECTIONS if {r.id for r in s.rulings} == TABLE_RULINGS]
    assert [[r.id for r in s.rulings] for s in table] == [[f"P{n}" for n in range(1, 10)]]


def test_explanations_are_in_the_sites_own_words():
    """No run of eight words of an explanation is copied from RULINGS.md."""
    source = words(RULINGS_MD.read_text(encoding="utf-8"))
    copied = {tuple(source[i : i + 8]) for i in range(len(source) - 7)}
    for ruling in RULINGS:
        own = words(ruling.plain_explanation)
        runs = [" ".join(own[i : i + 8]) for i in range(len(own) - 7)]
        assert [run for run in runs if tuple(run.split()) in copied] == [], ruling.id


def test_notes_page_explains_every_ruling_with_an_anchor(client):
    page = html(client.get(reverse("rules:notes")))
    for ruling_id in sorted(ruling_ids_in_rulings_md()):
        assert f'id="{ruling_id.lower()}"' in page, ruling_id
        assert f'href="#{ruling_id.lower()}"' in page, ruling_id
    for ruling in RULINGS:
        assert escape(ruling.plain_explanation) in page


def test_notes_page_explains_the_worked_examples(client):
    page = html(client.get(reverse("rules:notes")))
    assert [example.name.split(",")[0] for example in WORKED_EXAMPLES] == ["Emma", "Julius"]
    assert "Emma" in page
    assert "Julius" in page
    assert 'id="worked-examples"' in page


# --- The base template -------------------------------------------------------------------


@pytest.mark.parametrize("url", ["/", "/rules/", "/rules/notes/"])
def test_base_template_essentials(client, url):
    response = client.get(url)
    assert response.status_code == 200
    page = html(response)
    assert '<html lang="en-GB">' in page
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in page
    assert '<a class="skip-link" href="#main">' in page
    assert '<main id="main"' in page
    assert "<footer" in page
    token = response.context["csrf_token"]
    assert f'hx-headers=\'{{"X-CSRFToken": "{token}"}}\'' in page
    assert "css/site.css" in page
    assert "django_htmx/htmx-2.min.js" in page
    assert "includeIndicatorStyles" in page  # htmx adds no <style> of its own
    assert "{#" not in page
    assert "{%" not in page
    assert "onclick" not in page.lower()
    assert 'style="' not in page
    # Scripts are files only: no inline script bodies.
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", page) == []
    for href in ["/", "/rules/", "/rules/notes/", "/api/docs/"]:
        assert f'href="{href}"' in page


def test_nav_marks_the_current_page(client):
    page = html(client.get(reverse("rules:notes")))
    assert 'href="/rules/notes/" aria-current="page"' in page
    assert 'href="/rules/" aria-current="page"' not in page


def test_home_page_links_to_the_rules_and_the_api_docs(client):
    page = html(client.get("/"))
    assert "DBD Force Builder" in page
    assert page.count('href="/rules/"') >= 2
    assert page.count('href="/api/docs/"') >= 2
