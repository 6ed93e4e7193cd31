"""Walk every URL pattern as an anonymous visitor, a stranger and the owner.

Nothing private may leak (the owner's names never appear for the other two, who get
a login redirect, 401, 403, 404 or 405), and a POST from either of them changes
nothing. A new URL whose parameters this walk cannot fill fails the test, so the
walk keeps up with the site.
"""

import pytest
from django.test import Client

from tests.site_walk import (
    BY_TOKEN,
    LOGIN,
    PUBLIC,
    SECRETS,
    World,
    fill,
    make_world,
    routes,
    snapshot,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> World:
    return make_world()


def assert_refused(path: str, response, who: str, *, own_space: bool) -> None:
    body = response.content.decode(errors="replace")
    leaked = [word for word in SECRETS if word in body]
    if BY_TOKEN.match(path):
        return  # the token is the permission: covered by the pages' own tests
    assert not leaked, f"{who} sees {leaked} at {path}"
    # A signed-in stranger has pages of their own (their forces, account, campaigns):
    # they may open those, as long as none of the owner's data shows.
    if PUBLIC.match(path) or (who == "stranger" and own_space):
        assert response.status_code < 500, (who, path, response.status_code)
        return
    if response.status_code == 302:
        assert response["Location"].startswith(LOGIN), (who, path, response["Location"])
    else:
        assert response.status_code in (401, 403, 404, 405), (who, path, response.status_code)


def test_every_url_keeps_the_owners_data_private(world):
    walk = [(r, fill(r, world)) for r in routes()]
    paths = {path: "<" not in route and "(?P" not in route for route, path in walk if path}
    assert len(paths) > 80  # the walk really walks the site
    anonymous = Client()
    stranger = Client()
    stranger.force_login(world.stranger)
    for who, client in (("anonymous", anonymous), ("stranger", stranger)):
        for path, own_space in paths.items():
            if who == "stranger":
                client.force_login(world.stranger)  # a POST to log out must not end the walk
            assert_refused(path, client.get(path), who, own_space=own_space)
            if BY_TOKEN.match(path):
                continue  # holding the token is the permission (joining is the point)
            before = snapshot()
            response = client.post(path, {})
            assert snapshot() == before, f"a POST by {who} to {path} changed something"
            assert_refused(path, response, who, own_space=own_space)


def test_the_owner_can_open_every_page(world):
    owner = Client()
    owner.force_login(world.owner)
    for path in (p for p in (fill(r, world) for r in routes()) if p):
        response = owner.get(path)
        if path == "/favicon.ico":  # a permanent redirect to the static file
            assert (response.status_code, response["Location"]) == (301, "/static/favicon.ico")
            continue
        if path.endswith("/rules-update/"):
            # Nothing to review: the world's forces are on the current edition (issue #13).
            assert response.status_code == 409, path
            continue
        assert response.status_code in (200, 302, 403, 405), (path, response.status_code)
        if response.status_code == 403:
            # Only actions the campaign's rules refuse right now, never the owner's data.
            assert "campaigns/" in path, path
