"""Fuzz every HTML form of the site, signed in as the owner of the data it shows.

The walk opens every page of the site (`tests.site_walk`), collects each form it
finds, and sends hypothesis-made hostile values in place of what the page offers:
Unicode "digits", NUL, deep or surrogate-laden JSON, numbers past any limit, huge
text, several values for one field, missing fields. Nothing may answer 5xx, and a
refused post (4xx) must change nothing. Each example is rolled back, so the next one
meets the same data. Every page is also opened with hostile values in the query
parameters the pages and lists read.
"""

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign.models import CampaignForce
from roster.models import Member
from tests.site_walk import fill, make_world, routes, snapshot

pytestmark = pytest.mark.django_db

MISSING = object()
DEEP = "[" * 5000 + "]" * 5000
HOSTILE_TEXT = (
    "²",
    "①",
    "١٢",
    "-1",
    "0",
    "1.5",
    "1e309",
    "9" * 5000,
    "99999999999999999999",
    "\x00",
    "a\x00b",
    "draw",
    "free_advancements/²",
    "level_ups/99999999999999999999",
    "line:²",
    "skill:",
    ":",
    " ",
    "x" * 100_000,
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "../../etc/passwd",
    "true",
    "null",
    DEEP,
    '{"a": "\\ud800"}',
    '"\\u0000"',
    "1" + "0" * 4400,
)
HOSTILE_JSON = (
    DEEP,
    '{"format": "dbd-roster/1", "name": "\\ud800", "resources": 50, "members": []}',
    '{"format": "dbd-roster/1", "name": "a\\u0000b", "resources": 50, "members": []}',
    '{"format": "dbd-roster/1", "name": "A", "resources": 1' + "0" * 5000 + ', "members": []}',
    '{"format": "dbd-roster/1", "name": "A", "resources": 1e999, "members": []}',
    '{"format": "dbd-roster/1", "name": "A", "resources": NaN, "members": []}',
    "[]",
    "null",
    '{"format": "dbd-roster/1"}',
)


@dataclass
class Form:
    page: str
    method: str
    action: str
    multipart: bool
    fields: dict[str, list[str]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple:
        return (self.method, self.action, tuple(sorted(self.fields)), tuple(self.files))


class _FormFinder(HTMLParser):
    """Every <form> of a page with the values its fields offer."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = Form(
                page=self.page,
                method=(a.get("method") or "get").lower(),
                action=a.get("action") or a.get("hx-post") or self.page,
                multipart=a.get("enctype") == "multipart/form-data",
            )
            self.forms.append(self._form)
        elif self._form is None or (not a.get("name") and tag != "option"):
            return
        elif tag == "input" and a.get("type") == "file":
            self._form.files.append(a["name"])
        elif tag == "input" and a["name"] == "csrfmiddlewaretoken":
            return  # the test client skips CSRF checks; a random value would reseed the fuzz
        elif tag == "input":
            self._form.fields.setdefault(a["name"], []).append(a.get("value", "on"))
        elif tag == "select":
            self._select = a["name"]
            self._form.fields.setdefault(a["name"], [])
        elif tag == "option" and self._select:
            self._form.fields[self._select].append(a.get("value", ""))
        elif tag == "textarea":
            self._textarea = a["name"]
            self._form.fields.setdefault(a["name"], [""])
        elif tag == "button":
            self._form.fields.setdefault(a["name"], []).append(a.get("value", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def pages_with_forms(world) -> list[str]:
    """Every page of the walk, plus those that show more forms with the data in place:
    each member's builder page, and the battle form with both forces chosen."""
    paths = {p for p in (fill(r, world) for r in routes()) if p}
    force_id = world.values["force_id"]
    for member_id in Member.objects.filter(force_id=force_id).values_list("pk", flat=True):
        paths.add(f"/forces/{force_id}/members/{member_id}/")
    campaign_id = world.campaign_values["campaign_id"]
    forces = "&".join(f"forces={pk}" for pk in CampaignForce.objects.values_list("pk", flat=True))
    paths.add(f"/campaigns/{campaign_id}/battles/new/?{forces}")
    return sorted(paths)


def forms_of_the_site(client: Client, world) -> list[Form]:
    found: dict[tuple, Form] = {}
    for path in pages_with_forms(world):
        if path.startswith("/api/"):
            continue  # the API has its own fuzz (tests/test_api_fuzz.py)
        response = client.get(path)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        finder = _FormFinder(path)
        finder.feed(response.content.decode())
        for form in finder.forms:
            if form.action.endswith("/logout/"):
                continue  # logging out ends the walk's session; it takes no input
            found.setdefault(form.key, form)
    return list(found.values())


def _value_strategy(offered: list[str]) -> st.SearchStrategy:
    options = [v for v in offered if v] or [""]
    single = st.one_of(
        st.sampled_from(options),
        st.sampled_from(HOSTILE_TEXT),
        st.text(max_size=20),
        st.integers(min_value=-(10**20), max_value=10**20).map(str),
    )
    return st.one_of(
        st.just(MISSING),
        single,
        single,
        st.lists(single, min_size=2, max_size=3),
    )


def post_strategy(form: Form) -> st.SearchStrategy:
    values = st.fixed_dictionaries({name: _value_strategy(v) for name, v in form.fields.items()})
    files = st.fixed_dictionaries(
        {name: st.one_of(st.just(MISSING), st.sampled_from(HOSTILE_JSON)) for name in form.files}
    )
    return st.tuples(values, files, st.booleans())


def send(client: Client, form: Form, values: dict, files: dict, htmx: bool):
    data: dict = {k: v for k, v in values.items() if v is not MISSING}
    for name, content in files.items():
        if content is not MISSING:
            data[name] = SimpleUploadedFile("doc.json", content.encode(), "application/json")
    headers = {"HX-Request": "true"} if htmx else {}
    if form.method == "get":
        return client.get(form.action, data, headers=headers)
    return client.post(form.action, data, headers=headers)


class _Rollback(Exception):
    pass


# One value of each class the site once answered 500 to.
EACH_CLASS = ("²", "①", "a\x00b", "9" * 5000, "99999999999999999999", DEEP, "x" * 100_000)
# The ones a single field can trip on while the others are sound.
PER_FIELD = ("²", "a\x00b", "9" * 5000)


def examples(form: Form):
    """Every field at once holding a value of each class (or missing, or repeated); then
    each field in turn holding the sharpest ones while the others are as offered. Then
    hypothesis mixes them (`fuzz`)."""
    offered = {name: next((v for v in values if v), "") for name, values in form.fields.items()}
    for value in (*EACH_CLASS, MISSING, [EACH_CLASS[0], EACH_CLASS[2]]):
        yield dict.fromkeys(form.fields, value), {}, False
    for name in form.fields:
        for value in PER_FIELD:
            yield {**offered, name: value}, {}, False
    for name in form.files:
        for document in HOSTILE_JSON:
            yield offered, {name: document}, False


def fuzz(form: Form, client: Client, *, sign_in, failures: list[str]) -> None:
    """Send hypothesis-made values to `form`; note each 5xx, and each refusal that changed
    something, in `failures`. Every example is rolled back."""

    @settings(
        max_examples=12,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(post_strategy(form))
    def post_hostile_values(example):
        post(example)

    def post(example):
        values, files, htmx = example
        cache.clear()
        if sign_in is not None:
            client.force_login(sign_in)  # a fuzzed password change ends the session
        try:
            with transaction.atomic():
                before = snapshot()
                response = send(client, form, values, files, htmx)
                status = response.status_code
                if status >= 500:
                    failures.append(f"{status} {form.method.upper()} {form.action}")
                elif 400 <= status < 500 and snapshot() != before:
                    failures.append(f"refused ({status}) but changed {form.action}")
                raise _Rollback
        except _Rollback:
            pass

    for example in examples(form):
        post(example)
    post_hostile_values()


def test_no_form_answers_5xx_to_hostile_values():
    world = make_world()
    owner = Client(raise_request_exception=False)
    owner.force_login(world.owner)
    anonymous = Client(raise_request_exception=False)
    forms = [(owner, f) for f in forms_of_the_site(owner, world)]
    forms += [(anonymous, f) for f in forms_of_the_site(anonymous, world)]
    assert len(forms) > 30, [f.action for _, f in forms]  # the walk really finds the forms
    failures: list[str] = []  # one line per bad answer: "500 POST /forces/1/edit/"

    for client, form in forms:
        fuzz(form, client, sign_in=world.owner if client is owner else None, failures=failures)
    count = sum(f.startswith("5") for f in failures)
    assert failures == [], f"{count} answers 5xx:\n" + "\n".join(sorted(set(failures)))


def test_the_fuzz_values_are_what_they_claim():
    """The hostile JSON documents are valid JSON or deliberately not, as the fuzz needs."""
    assert json.loads(HOSTILE_JSON[1])["name"] == "\ud800"
    assert "\x00" in json.loads(HOSTILE_JSON[2])["name"]
    with pytest.raises(RecursionError):
        json.loads(DEEP)


# The query parameters the site's pages and lists read (and any other name is ignored).
QUERY_NAMES = ("page", "limit", "offset", "q", "category", "school", "status", "forces", "next")
QUERY_VALUES = ("²", "①", "\x00", "9" * 5000, "-1", "x" * 10_000, "")


def test_no_page_answers_5xx_to_hostile_query_parameters():
    world = make_world()
    owner = Client(raise_request_exception=False)
    owner.force_login(world.owner)
    failures = []
    for path in pages_with_forms(world):
        base, _, query = path.partition("?")
        for value in QUERY_VALUES:
            params = dict.fromkeys(QUERY_NAMES, value)
            if query:
                params["forces"] = [query.split("&")[0].partition("=")[2], value]
            response = owner.get(base, params)
            if response.status_code >= 500:
                failures.append(f"{response.status_code} GET {base} ({value[:10]!r})")
    assert failures == []
