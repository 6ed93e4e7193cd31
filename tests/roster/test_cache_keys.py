"""Cached pages and API answers are keyed on everything they show (roster.cache_keys):
two hosts, two catalogues, two engines, two releases never share one."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory, override_settings

from roster import cache_keys, engine, services
from roster.models import Force, SkillRoll
from roster.policy import Note
from roster.presenters import member_evaluation
from rules.loader import clear_catalogue_cache, get_catalogue
from rules.models import RulesVersion, Society
from tests.roster.builders import legal_force

pytestmark = pytest.mark.django_db
HOSTS = ["a.example", "b.example", "testserver"]


@pytest.fixture
def shared(owner) -> Force:
    force = services.import_force(owner=owner, document=legal_force())
    return services.set_share_link(force=force, actor=None, enabled=True)


@pytest.fixture
def catalogue_restored():
    """The process's catalogue is read again after a test that changes the rules tables
    (the database changes are rolled back with the test)."""
    clear_catalogue_cache()
    yield
    clear_catalogue_cache()


@override_settings(ALLOWED_HOSTS=HOSTS)
def test_two_hosts_never_share_a_cached_force_page(owner_api, shared):
    share_path = f"/forces/shared/{shared.share_token}/"
    page_a = owner_api.get(f"/forces/{shared.pk}/", HTTP_HOST="a.example")
    page_b = owner_api.get(f"/forces/{shared.pk}/", HTTP_HOST="b.example")
    assert page_a.status_code == page_b.status_code == 200
    assert f'value="http://a.example{share_path}"' in page_a.content.decode()
    assert f'value="http://b.example{share_path}"' in page_b.content.decode()
    assert "a.example" not in page_b.content.decode()
    # Asked again, each host gets its own (cached) page back.
    again_a = owner_api.get(f"/forces/{shared.pk}/", HTTP_HOST="a.example")
    assert f'value="http://a.example{share_path}"' in again_a.content.decode()


@override_settings(ALLOWED_HOSTS=HOSTS)
def test_two_hosts_never_share_a_cached_api_detail(owner_api, shared):
    url = f"/api/v1/rosters/{shared.pk}/"
    detail_a = owner_api.get(url, HTTP_HOST="a.example").json()
    detail_b = owner_api.get(url, HTTP_HOST="b.example").json()
    assert detail_a["url"] == f"http://a.example{url}"
    assert detail_b["url"] == f"http://b.example{url}"
    assert detail_b["share_url"].startswith("http://b.example/")


def test_a_new_catalogue_renders_the_force_page_afresh(owner_api, shared, catalogue_restored):
    society = Society.objects.get(slug="academic")  # Emma's (legal_force)
    before = owner_api.get(f"/forces/{shared.pk}/").content.decode()
    assert f"{society.name} (choice RA)" in before

    # A new catalogue: its version moves with its content, and this process reads it.
    old_version = get_catalogue().rules_version
    RulesVersion.objects.filter(code=old_version).update(code=f"{old_version}-next")
    Society.objects.filter(slug="academic").update(name="Scholars")
    clear_catalogue_cache()

    after = owner_api.get(f"/forces/{shared.pk}/").content.decode()
    assert "Scholars (choice RA)" in after
    assert f"{society.name} (choice RA)" not in after


def test_every_part_of_the_force_page_key_moves_it(owner, shared, catalogue_restored, monkeypatch):
    def request(host: str = "a.example", user=owner, secure: bool = False):
        made = RequestFactory().get("/", HTTP_HOST=host, secure=secure)
        made.user = user
        return made

    def key(force: Force = shared, **changes) -> str:
        return cache_keys.force_page(
            changes.get("request") or request(),
            force,
            csrf_secret=changes.get("csrf", "s1"),
            note=changes.get("note"),
        )

    with override_settings(ALLOWED_HOSTS=HOSTS):
        base = key()
        assert key() == base  # the same inputs, the same key
        moved = Force(pk=shared.pk, updated_at=shared.updated_at + timedelta(microseconds=1))
        moved.share_token = shared.share_token
        unshared = Force(pk=shared.pk, updated_at=shared.updated_at, share_token=None)
        others = {
            "host": key(request=request("b.example")),
            "https": key(request=request(secure=True)),
            "viewer": key(request=request(user=AnonymousUser())),
            "csrf secret": key(csrf="s2"),
            "force version": key(moved),
            "share link": key(unshared),
            "policy's note": key(note=Note(text="A copy in X.", link="/c/1/", link_label="X")),
            "its campaign renamed": key(
                note=Note(text="A copy in Y.", link="/c/1/", link_label="Y")
            ),
        }
        with override_settings(RELEASE="another-release"):
            others["release"] = key()
        with monkeypatch.context() as patch:
            patch.setattr(engine, "ENGINE_VERSION", engine.ENGINE_VERSION + 1)
            others["engine"] = key()
        RulesVersion.objects.update(code="another-catalogue")
        clear_catalogue_cache()
        others["catalogue"] = key()
    assert all(other != base for other in others.values()), others
    assert len(set(others.values())) == len(others)


def test_the_csrf_secret_is_never_stored_in_the_key(owner, shared):
    made = RequestFactory().get("/")
    made.user = owner
    secret = "a-csrf-secret-that-must-not-leak"
    key = cache_keys.force_page(made, shared, csrf_secret=secret, note=None)
    assert secret not in key
    assert key.startswith("force-page:")


def test_every_part_of_a_member_card_key_moves_it(owner, shared, catalogue_restored, monkeypatch):
    evaluation = shared.evaluation
    ann = shared.members.prefetch_related("rolls").get(name="Ann")  # its rolls as read
    index = ann.position

    def request(host: str = "a.example"):
        made = RequestFactory().get("/", HTTP_HOST=host)
        made.user = owner
        return made

    def key(member=ann, shown=None, req=None, viewer=owner.pk, read_only=False, fold=True):
        shown = shown if shown is not None else member_evaluation(evaluation, index)
        return cache_keys.member_card(
            req or request(), member, shown, viewer_id=viewer, read_only=read_only, fold=fold
        )

    problem = {"pointer": f"/members/{index}/equipment/0", "code": "x", "message": "m"}
    elsewhere = {"pointer": f"/members/{index + 1}/name", "code": "x", "message": "m"}
    with override_settings(ALLOWED_HOSTS=HOSTS):
        base = key()
        assert key() == base
        # A problem of another member, or of the whole force, leaves this card alone.
        calmer = {**evaluation, "errors": [*evaluation["errors"], elsewhere]}
        assert key(shown=member_evaluation(calmer, index)) == base
        renamed = shared.members.get(pk=ann.pk)
        renamed.name = "Annie"
        moved = shared.members.get(pk=ann.pk)
        moved.position = 9
        richer = shared.members.get(pk=ann.pk)
        richer.xp = 12
        result = member_evaluation(evaluation, index)
        result["result"] = {**result["result"], "level": 99}
        others = {
            "host": key(req=request("b.example")),
            "name": key(renamed),
            "position": key(moved),
            "xp": key(richer),
            "its result": key(shown=result),
            "a problem in it": key(
                shown=member_evaluation({**evaluation, "errors": [problem]}, index)
            ),
            "viewer": key(viewer=None),
            "read-only": key(read_only=True),
            "unfolded": key(fold=False),
        }
        with override_settings(RELEASE="another-release"):
            others["release"] = key()
        SkillRoll.objects.create(
            member=ann, slot="free_advancements/0", table="academic", dice=[5], outcome="skill"
        )
        others["a roll"] = key(shared.members.prefetch_related("rolls").get(pk=ann.pk))
        with monkeypatch.context() as patch:
            patch.setattr(engine, "ENGINE_VERSION", engine.ENGINE_VERSION + 1)
            others["engine"] = key()
        RulesVersion.objects.update(code="another-catalogue")
        clear_catalogue_cache()
        others["catalogue"] = key()
    assert all(other != base for other in others.values()), others
    assert len(set(others.values())) == len(others)
