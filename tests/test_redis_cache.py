"""The site's Redis cache (`dbd_site.redis_cache`): Django's own backend, with one redis-py
client kept per connection pool; everything the site asks of a cache still works, from
any thread. Against the Redis of `REDIS_URL`'s default address (CI starts it)."""

import threading

import pytest
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError

from dbd_site.redis_cache import KeptClientRedisCache

LOCATION = "redis://127.0.0.1:6379/13"


@pytest.fixture
def cache():
    kept = KeptClientRedisCache(LOCATION, {"KEY_PREFIX": "redis-cache-test"})
    try:
        kept.clear()
    except RedisConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379 (CI starts one)")
    yield kept
    kept.clear()


def test_one_client_serves_every_call(cache):
    reader = cache._cache.get_client("a")
    writer = cache._cache.get_client("a", write=True)
    assert cache._cache.get_client("b") is reader
    assert cache._cache.get_client("b", write=True) is writer
    # Django's own backend makes a new client each time: the difference this module is for.
    django_own = RedisCache(LOCATION, {})
    assert django_own._cache.get_client("a") is not django_own._cache.get_client("a")


def test_what_the_site_asks_of_its_cache(cache):
    assert cache.get("page") is None
    cache.set("page", "<p>body</p>", 60)
    assert cache.get("page") == "<p>body</p>"
    cache.set_many({"card:1": "one", "card:2": {"two": 2}}, 60)
    assert cache.get_many(["card:1", "card:2", "card:3"]) == {
        "card:1": "one",
        "card:2": {"two": 2},
    }
    assert cache.add("page", "other") is False
    assert cache.get_or_set("count", 5) == 5
    assert cache.incr("count") == 6
    cache.delete("page")
    assert cache.get("page") is None
    assert cache.touch("card:1", 30) is True


def test_threads_share_the_client_and_keep_their_own_answers(cache):
    wrong = []

    def work(number: int) -> None:
        for round_ in range(50):
            key = f"thread:{number}:{round_}"
            cache.set(key, (number, round_), 60)
            if cache.get(key) != (number, round_):
                wrong.append(key)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
    assert len(cache.get_many([f"thread:{n}:49" for n in range(8)])) == 8
