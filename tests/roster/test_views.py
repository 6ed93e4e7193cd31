"""The force builder pages: my forces, a force, import/export, sharing, permissions."""

import io
import json

import pytest
from django.urls import reverse

from roster import selectors, services
from roster.models import Force, SkillRoll
from tests.pages import html
from tests.roster.builders import emma, force, legal_force, student

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def stranger(django_user_model):
    return django_user_model.objects.create_user("stranger", password="pw-stranger-1234")


@pytest.fixture
def saved(owner):
    """A legal force of four, with one server roll on Ann's movement line."""
    document = legal_force()
    document["members"][1]["free_advancements"] = [{"line": 4}, {"line": 3}]
    saved = services.import_force(owner=owner, document=document)
    ann = saved.members.get(name="Ann")
    from tests.roster.test_rolls import ScriptedDice

    services.roll_skill(
        force=ann.force,
        member_id=ann.pk,
        slot="free_advancements/0",
        actor=owner,
        rng=ScriptedDice(1),
    )
    return Force.objects.get(pk=saved.pk)


@pytest.fixture
def as_owner(client, owner):
    client.force_login(owner)
    return client


def snapshot(force_id: int) -> tuple:
    """Everything a write could change, to prove that nothing did."""
    saved = Force.objects.filter(pk=force_id).first()
    if saved is None:
        return (Force.objects.count(), None)
    document = selectors.force_document(force=saved)
    return (
        Force.objects.count(),
        json.dumps(document, sort_keys=True),
        saved.share_token,
        SkillRoll.objects.count(),
        saved.evaluation,
    )


# --- permissions: every page and every POST --------------------------------------------


def force_pages(saved) -> list[str]:
    member = saved.members.order_by("position").first()
    f, m = saved.pk, member.pk
    return [
        reverse("roster:detail", args=[f]),
        reverse("roster:edit", args=[f]),
        reverse("roster:rename", args=[f]),
        reverse("roster:delete", args=[f]),
        reverse("roster:print", args=[f]),
        reverse("roster:export", args=[f]),
        reverse("roster:member_add", args=[f]),
        reverse("roster:member", args=[f, m]),
        reverse("roster:member_remove", args=[f, m]),
    ]


def force_posts(saved) -> list[tuple[str, dict]]:
    ann = saved.members.get(name="Ann")
    f, m = saved.pk, ann.pk
    new_member = {
        "name": "Dee",
        "role": "student",
        "ME": 3,
        "RA": 2,
        "CA": 2,
        "DF": 1,
        "club_name": "Go Club",
        "society": "technical:RA",
    }
    steps = [
        ("basics", {"name": "Anne", "role": "student", "ME": 3, "RA": 2, "CA": 2, "DF": 1}),
        ("club", {"club_name": "Chess Club", "society": "academic:ME"}),
        ("free", {"slot": "1", "option": "2:FR"}),
        ("free-clear", {"slot": "1"}),
        ("purchase-add", {"add": "line:1:ME"}),
        ("purchase-remove", {"index": "0"}),
        ("equipment-add", {"add": "tool-kit"}),
        ("equipment-remove", {"index": "0"}),
        ("schools", {"core_school": "restoration"}),
        ("spell-add", {"add": "healing-spring"}),
        ("spell-remove", {"index": "0"}),
        ("spell-focus", {"spell_focus": "on"}),
        ("mastery", {"mastery": "healing-spring"}),
    ]
    return [
        (reverse("roster:edit", args=[f]), {"name": "Taken", "resources": 9}),
        (reverse("roster:rename", args=[f]), {"name": "Taken"}),
        (reverse("roster:delete", args=[f]), {}),
        (reverse("roster:duplicate", args=[f]), {}),
        (reverse("roster:share", args=[f]), {"enabled": "on"}),
        (reverse("roster:member_add", args=[f]), new_member),
        (reverse("roster:member_remove", args=[f, m]), {}),
        (reverse("roster:roll", args=[f, m]), {"slot": "free_advancements/0"}),
        (
            reverse("roster:pick", args=[f, m]),
            {"slot": "free_advancements/0", "skill": "movement/wall-run"},
        ),
        (
            reverse("roster:free_pick", args=[f, m]),
            {"slot": "free_advancements/0", "skill": "movement/wall-run"},
        ),
        *[(reverse("roster:member_edit", args=[f, m, step]), data) for step, data in steps],
    ]


def test_every_force_page_is_the_owners(as_owner, saved):
    for url in force_pages(saved):
        assert as_owner.get(url).status_code == 200, url
        assert as_owner.get(url, **HTMX).status_code == 200, url


def test_another_user_gets_404_on_every_page(client, stranger, saved):
    client.force_login(stranger)
    for url in force_pages(saved):
        assert client.get(url).status_code == 404, url
        assert client.get(url, **HTMX).status_code == 404, url


def test_another_user_gets_404_on_every_post_and_nothing_changes(client, stranger, saved):
    client.force_login(stranger)
    before = snapshot(saved.pk)
    for url, data in force_posts(saved):
        assert client.post(url, data).status_code == 404, url
        assert client.post(url, data, **HTMX).status_code == 404, url
    assert snapshot(saved.pk) == before


def test_a_member_of_another_force_is_404(as_owner, owner, saved):
    other = services.import_force(owner=owner, document=legal_force())
    member = other.members.first()
    url = reverse("roster:member", args=[saved.pk, member.pk])
    assert as_owner.get(url).status_code == 404
    before = snapshot(other.pk)
    edit = reverse("roster:member_edit", args=[saved.pk, member.pk, "equipment-add"])
    assert as_owner.post(edit, {"add": "tool-kit"}).status_code == 404
    assert snapshot(other.pk) == before


def test_anonymous_visitors_are_sent_to_log_in(client, saved):
    login = reverse("accounts:login")
    pages = [reverse("roster:list"), reverse("roster:create"), reverse("roster:import")]
    for url in [*pages, *force_pages(saved)]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(login), url


def test_anonymous_posts_change_nothing(client, saved):
    login = reverse("accounts:login")
    before = snapshot(saved.pk)
    posts = [
        (reverse("roster:create"), {"name": "Sneaky", "resources": 50}),
        (reverse("roster:import"), {"text": json.dumps(legal_force())}),
        *force_posts(saved),
    ]
    for url, data in posts:
        response = client.post(url, data)
        assert response.status_code == 302, url
        assert response["Location"].startswith(login), url
    assert snapshot(saved.pk) == before


def test_posts_need_a_csrf_token(owner, saved):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(owner)
    before = snapshot(saved.pk)
    for url, data in force_posts(saved):
        assert strict.post(url, data).status_code == 403, url
    assert snapshot(saved.pk) == before


def test_gets_do_not_write(as_owner, saved):
    before = snapshot(saved.pk)
    for url, _ in force_posts(saved):
        as_owner.get(url)
    assert snapshot(saved.pk) == before


# --- my forces ---------------------------------------------------------------------------


def test_a_new_user_sees_a_friendly_empty_state(as_owner):
    response = as_owner.get(reverse("roster:list"))
    page = html(response)
    assert "No forces yet" in page
    assert f'action="{reverse("roster:create")}"' in page
    assert f'href="{reverse("roster:import")}"' in page
    assert 'value="50"' in page  # Resources default to 50 (R11)


def test_my_forces_lists_only_mine_with_badge_cost_and_members(as_owner, saved, stranger):
    services.create_force(owner=stranger, name="Not Yours")
    services.create_force(owner=saved.owner, name="Empty One")
    page = html(as_owner.get(reverse("roster:list")))
    assert "Not Yours" not in page
    assert "Test Force" in page
    assert "Empty One" in page
    assert "badge--ok" in page
    assert "badge--bad" in page
    assert "5 / 50 Resources" in page
    assert f'href="{reverse("roster:detail", args=[saved.pk])}"' in page
    assert f'href="{reverse("roster:delete", args=[saved.pk])}"' in page
    assert f'action="{reverse("roster:duplicate", args=[saved.pk])}"' in page


def test_list_htmx_is_a_partial(as_owner, saved):
    page = html(as_owner.get(reverse("roster:list"), **HTMX))
    assert "<html" not in page
    assert "Test Force" in page


def test_create_a_force(as_owner, owner):
    response = as_owner.post(reverse("roster:create"), {"name": "  Night Owls ", "resources": 60})
    created = Force.objects.get(owner=owner)
    assert response.status_code == 302
    assert response["Location"] == reverse("roster:detail", args=[created.pk])
    assert (created.name, created.resources) == ("Night Owls", 60)
    assert created.evaluation is not None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "", "resources": 50}, "Give the force a name."),
        ({"name": "   ", "resources": 50}, "Give the force a name."),
        ({"name": "X", "resources": 0}, "Resources must be at least 1."),
        ({"name": "X", "resources": "1.5"}, "Resources are a whole number"),
        ({"name": "X", "resources": "lots"}, "Resources are a whole number"),
    ],
)
def test_create_explains_bad_input_and_creates_nothing(as_owner, data, message):
    response = as_owner.post(reverse("roster:create"), data)
    assert response.status_code == 400
    assert message in html(response)
    assert 'aria-invalid="true"' in html(response)
    assert not Force.objects.exists()


def test_create_page_get_and_htmx(as_owner):
    assert "<html" in html(as_owner.get(reverse("roster:create")))
    page = html(as_owner.get(reverse("roster:create"), **HTMX))
    assert "<html" not in page
    assert "Create force" in page


def test_duplicate_redirects_to_the_copy(as_owner, saved, owner):
    response = as_owner.post(reverse("roster:duplicate", args=[saved.pk]))
    copy = Force.objects.exclude(pk=saved.pk).get(owner=owner)
    assert response.status_code == 302
    assert response["Location"] == reverse("roster:detail", args=[copy.pk])
    assert copy.name == "Test Force (copy)"
    assert copy.members.count() == 4
    assert SkillRoll.objects.filter(member__force=copy).count() == 1


def test_my_forces_renames_a_copy_on_the_spot(as_owner, saved, owner):
    as_owner.post(reverse("roster:duplicate", args=[saved.pk]))
    copy = Force.objects.get(owner=owner, name="Test Force (copy)")
    page = html(as_owner.get(reverse("roster:list")))
    url = reverse("roster:rename", args=[copy.pk])
    # A plain form in a <details> on the copy's card: no JavaScript needed.
    card = page[page.index(f'id="force-{copy.pk}"') :]
    card = card[: card.index("</li>")]
    assert f'<form method="post" action="{url}"' in card
    field = f'<input type="text" id="rename-{copy.pk}" name="name" value="Test Force (copy)"'
    assert field in card
    response = as_owner.post(url, {"name": "  Second Team  "})
    assert response.status_code == 302
    assert response["Location"] == reverse("roster:list") + f"#force-{copy.pk}"
    copy.refresh_from_db()
    assert copy.name == "Second Team"
    assert copy.resources == saved.resources
    listed = html(as_owner.get(response["Location"]))
    assert "Renamed to Second Team." in listed


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("", "Give the force a name."),
        ("   ", "Give the force a name."),
        ("x" * 101, "Ensure this value has at most 100 characters (it has 101)."),
    ],
)
def test_a_refused_name_is_shown_again_with_its_reason(as_owner, saved, name, error):
    url = reverse("roster:rename", args=[saved.pk])
    response = as_owner.post(url, {"name": name})
    assert response.status_code == 400
    page = html(response)
    assert error in page
    if name.strip():  # nothing typed is lost (a blank field renders without a value)
        assert f'value="{name}"' in page
    assert "<h1>Rename Test Force</h1>" in page
    saved.refresh_from_db()
    assert saved.name == "Test Force"


def test_a_name_of_100_characters_is_taken(as_owner, saved):
    response = as_owner.post(reverse("roster:rename", args=[saved.pk]), {"name": "x" * 100})
    assert response.status_code == 302
    saved.refresh_from_db()
    assert saved.name == "x" * 100


def test_importing_one_s_own_export_says_it_made_a_copy(as_owner, saved, owner):
    exported = as_owner.get(reverse("roster:export", args=[saved.pk])).content
    response = as_owner.post(reverse("roster:import"), {"text": exported.decode()})
    copy = Force.objects.exclude(pk=saved.pk).get(owner=owner)
    assert copy.name == "Test Force (copy)"
    page = html(as_owner.get(response["Location"]))
    assert "Imported as Test Force (copy): you already have a force called Test Force." in page
    listed = html(as_owner.get(reverse("roster:list")))
    assert listed.count('class="force-card__name"><a') == 2
    assert ">Test Force</a>" in listed
    assert ">Test Force (copy)</a>" in listed


def test_delete_asks_first_then_deletes(as_owner, saved):
    url = reverse("roster:delete", args=[saved.pk])
    page = html(as_owner.get(url))
    assert "Delete Test Force?" in page
    assert "This cannot be undone" in page
    assert Force.objects.filter(pk=saved.pk).exists()  # a GET only asks
    assert "<html" not in html(as_owner.get(url, **HTMX))
    response = as_owner.post(url)
    assert response.status_code == 302
    assert response["Location"] == reverse("roster:list")
    assert not Force.objects.filter(pk=saved.pk).exists()
    assert not SkillRoll.objects.exists()


def test_remove_a_member_asks_first(as_owner, saved):
    ben = saved.members.get(name="Ben")
    url = reverse("roster:member_remove", args=[saved.pk, ben.pk])
    page = html(as_owner.get(url))
    assert "Remove Ben from Test Force?" in page
    assert saved.members.filter(pk=ben.pk).exists()
    response = as_owner.post(url)
    assert response["Location"] == reverse("roster:detail", args=[saved.pk])
    saved.refresh_from_db()
    assert not saved.members.filter(pk=ben.pk).exists()
    assert saved.evaluation["valid"] is False  # three students now (R10)


# --- the force page ----------------------------------------------------------------------


def test_force_page_shows_status_members_and_costs(as_owner, saved):
    page = html(as_owner.get(reverse("roster:detail", args=[saved.pk])))
    assert "<html" in page
    assert "Legal" in page
    assert "badge--ok" in page
    assert "5 of 50 Resources spent, 45 left." in page
    assert '<meter id="resources-meter" min="0" max="50" value="5"' in page
    for name in ("Emma", "Ann", "Ben", "Cat"):
        assert name in page
    # Emma's card: stats from the engine, equipment with costs, spells with profile.
    assert "<td>1</td><td>1</td><td>4</td>" in page
    assert "<td>8</td><td>12</td><td>3</td>" in page
    assert "Medical Kit" in page
    assert "4 R" in page
    assert "Healing Spring" in page
    assert "Difficulty 7" in page
    assert "Range 5&quot;" in page
    assert "Spell slots: 1 of 4 used." in page
    assert "Spell Focus" in page
    assert "Roll history (1)" in page
    assert "Catfall" in page
    assert "by you" in page


def test_force_page_htmx_is_a_partial(as_owner, saved):
    page = html(as_owner.get(reverse("roster:detail", args=[saved.pk]), **HTMX))
    assert "<html" not in page
    assert 'id="force-details"' in page


def test_problems_show_where_they_are(as_owner, owner):
    document = force(
        {**emma(), "equipment": ["heavy-weapon-2h", "light-armour", "medical-kit"]},
        student("Ann"),
        resources=3,
    )
    bad = services.import_force(owner=owner, document=document)
    page = html(as_owner.get(reverse("roster:detail", args=[bad.pk])))
    assert "Not legal" in page
    assert "over budget" in page
    assert "A force has 4 to 6 students; this has 2." in page
    emma_card = page.split('<article class="card member-card"')[1]
    kit = emma_card[emma_card.index("Medical Kit") :]
    assert "beyond what is in hand a student carries one more piece" in kit[:600]


def test_a_warning_is_shown_as_a_note(as_owner, owner):
    tank = student(
        "Tank",
        club={"name": "Robotics", "society": "technical", "choice": "RA"},
        base={"ME": 2, "RA": 1, "CA": 2, "DF": 3},
        free_advancements=[{"line": 3}, {"line": 1, "choice": "DF"}],
        equipment=["heavy-armour", "heavy-shield", "heavy-shield"],
    )
    saved = services.import_force(owner=owner, document=force(tank, resources=200))
    page = html(as_owner.get(reverse("roster:detail", args=[saved.pk])))
    assert saved.evaluation["warnings"], saved.evaluation
    assert "problem--warning" in page
    assert "it counts as 16" in page


def test_edit_name_and_resources_inline_with_htmx(as_owner, saved):
    url = reverse("roster:edit", args=[saved.pk])
    form = html(as_owner.get(url, **HTMX))
    assert "<html" not in form
    assert 'name="resources"' in form
    response = as_owner.post(url, {"name": "Renamed", "resources": 4}, **HTMX)
    page = html(response)
    assert response.status_code == 200
    assert "<html" not in page
    assert "Renamed" in page
    # Out-of-band: the badge and Resources bar, and the force-wide problems.
    assert 'id="force-status" class="force-status" hx-swap-oob="true"' in page
    assert "Not legal" in page
    assert "1 over budget" in page
    assert 'id="force-problems"' in page
    assert "The force costs 5 but has 4 Resources." in page
    saved.refresh_from_db()
    assert (saved.name, saved.resources) == ("Renamed", 4)


def test_edit_without_javascript_redirects(as_owner, saved):
    url = reverse("roster:edit", args=[saved.pk])
    assert "<html" in html(as_owner.get(url))
    response = as_owner.post(url, {"name": "Plain", "resources": 70})
    assert response["Location"] == reverse("roster:detail", args=[saved.pk])
    saved.refresh_from_db()
    assert saved.resources == 70


def test_edit_with_bad_input_shows_the_error(as_owner, saved):
    url = reverse("roster:edit", args=[saved.pk])
    response = as_owner.post(url, {"name": "", "resources": -3}, **HTMX)
    assert response.status_code == 400
    assert "Give the force a name." in html(response)
    assert "<html" not in html(response)
    saved.refresh_from_db()
    assert saved.name == "Test Force"


# --- share -----------------------------------------------------------------------------


def test_share_link_on_and_off(as_owner, client, saved):
    share = reverse("roster:share", args=[saved.pk])
    response = as_owner.post(share, {"enabled": "on"})
    assert response.status_code == 302
    saved.refresh_from_db()
    token = saved.share_token
    assert token
    shared_url = reverse("roster:shared", args=[token])
    page = html(as_owner.get(reverse("roster:detail", args=[saved.pk])))
    assert f"http://testserver{shared_url}" in page
    assert "Turn the link off" in page

    as_owner.logout()
    shared = client.get(shared_url)
    assert shared.status_code == 200
    text = html(shared)
    assert "Test Force" in text
    assert "Emma" in text
    assert "owner" not in text  # no owner details
    assert reverse("roster:member_add", args=[saved.pk]) not in text  # no edit controls
    assert "by you" not in text
    assert "csrfmiddlewaretoken" not in text.split("<main")[1]
    assert "<html" not in html(client.get(shared_url, **HTMX))

    client.force_login(saved.owner)
    response = client.post(share, {"enabled": "off"}, **HTMX)
    assert "Make a link" in html(response)
    assert "<html" not in html(response)
    client.logout()
    assert client.get(shared_url).status_code == 404


def test_shared_page_is_404_for_a_wrong_token(client, saved):
    services.set_share_link(force=saved, actor=None, enabled=True)
    assert client.get(reverse("roster:shared", args=["not-the-token"])).status_code == 404
    assert client.get(reverse("roster:shared", args=[saved.share_token])).status_code == 200


def test_shared_page_is_404_when_sharing_is_off(client, saved):
    assert saved.share_token is None
    assert client.get(reverse("roster:shared", args=["anything"])).status_code == 404


# --- export and import ---------------------------------------------------------------------


def test_export_is_the_canonical_document(as_owner, saved):
    response = as_owner.get(reverse("roster:export", args=[saved.pk]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"] == 'attachment; filename="test-force.dbd-roster.json"'
    assert response.content.decode().startswith('{\n  "format": "dbd-roster/1"')
    saved = selectors.get_force(user=saved.owner, force_id=saved.pk)
    assert json.loads(response.content) == selectors.force_document(force=saved)


def test_export_then_import_gives_the_same_document(as_owner, saved, owner):
    exported = as_owner.get(reverse("roster:export", args=[saved.pk])).content
    upload = io.BytesIO(exported)
    upload.name = "test-force.dbd-roster.json"
    response = as_owner.post(reverse("roster:import"), {"file": upload})
    assert response.status_code == 302
    copy = Force.objects.exclude(pk=saved.pk).get(owner=owner)
    assert response["Location"] == reverse("roster:detail", args=[copy.pk])
    again = as_owner.get(reverse("roster:export", args=[copy.pk])).content
    # The same document, but named as a copy: the owner has the force it came from.
    assert json.loads(again) == {**json.loads(exported), "name": "Test Force (copy)"}
    assert copy.name == "Test Force (copy)"


def test_import_by_pasting(as_owner, owner):
    response = as_owner.post(reverse("roster:import"), {"text": json.dumps(legal_force())})
    assert response.status_code == 302
    assert Force.objects.get(owner=owner).evaluation["valid"] is True


def test_import_page_says_the_limit(as_owner):
    page = html(as_owner.get(reverse("roster:import")))
    assert "256 KB" in page
    assert 'enctype="multipart/form-data"' in page
    assert "<html" not in html(as_owner.get(reverse("roster:import"), **HTMX))


def test_import_bad_json_says_where(as_owner):
    text = '{"format": "dbd-roster/1",\n  "name": "Oops"\n  "resources": 50}'
    response = as_owner.post(reverse("roster:import"), {"text": text})
    assert response.status_code == 400
    assert (
        "This is not valid JSON: Expecting &#x27;,&#x27; delimiter at line 3, column 3."
        in html(response)
    )
    assert not Force.objects.exists()


def test_import_a_malformed_document_lists_each_problem(as_owner):
    document = legal_force()
    document["members"][1]["base"] = "strong"
    del document["members"][2]["club"]
    document["resources"] = 0
    upload = io.BytesIO(json.dumps(document).encode())
    upload.name = "bad.json"
    response = as_owner.post(reverse("roster:import"), {"file": upload})
    page = html(response)
    assert response.status_code == 400
    assert "Nothing was imported" in page
    assert "Member 2 (Ann), base:" in page
    assert "Member 3 (Ben), club:" in page
    assert "is required here" in page
    assert "Resources:" in page
    assert "Must be between 1 and 1000000." in page
    assert not Force.objects.exists()


def test_import_too_big_creates_nothing(as_owner):
    document = legal_force()
    document["name"] = "x" * 100
    padded = json.dumps(document) + " " * (257 * 1024)
    upload = io.BytesIO(padded.encode())
    upload.name = "big.json"
    response = as_owner.post(reverse("roster:import"), {"file": upload})
    assert response.status_code == 400
    assert "the limit is 256 KB" in html(response)
    response = as_owner.post(reverse("roster:import"), {"text": padded})
    assert response.status_code == 400
    assert "over 256 KB" in html(response)
    assert not Force.objects.exists()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "Choose a file to upload, or paste the JSON."),
        ({"text": "[1, NaN]"}, "NaN is not a JSON number"),
        ({"text": "[]"}, "Expected object, got array."),
    ],
)
def test_import_other_mistakes(as_owner, data, message):
    response = as_owner.post(reverse("roster:import"), data)
    assert response.status_code == 400
    assert message in html(response)
    assert not Force.objects.exists()


def test_print_page(as_owner, saved):
    page = html(as_owner.get(reverse("roster:print", args=[saved.pk])))
    assert "css/print.css" in page
    assert "5 / 50 Resources" in page
    assert "Legal" in page
    assert page.count('class="print-card"') == 4
    for member in saved.members.all():  # each card names its member and shows the stats
        assert f'<h2 id="print-{member.pk}">{member.name}</h2>' in page
    assert page.count('class="print-stats"') == 4
    assert 'id="print-button"' in page
    assert "onclick" not in page
    assert "<html" not in html(as_owner.get(reverse("roster:print", args=[saved.pk]), **HTMX))


def test_no_inline_scripts_styles_or_handlers(as_owner, saved):
    ann = saved.members.get(name="Ann")
    urls = [
        reverse("roster:list"),
        reverse("roster:detail", args=[saved.pk]),
        reverse("roster:member", args=[saved.pk, ann.pk]),
        reverse("roster:print", args=[saved.pk]),
        reverse("roster:import"),
    ]
    for url in urls:
        page = html(as_owner.get(url))
        main = page[page.index("<main") :]
        assert "<script" not in main, url
        assert " style=" not in page, url
        assert " onclick=" not in page, url
        assert " onsubmit=" not in page, url
