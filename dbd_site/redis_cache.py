"""The site's Redis cache: Django's own `RedisCache`, keeping one redis-py client per
connection pool.

Django's client makes a new `redis.Redis` for every cache call. Each one copies
redis-py's table of some 170 reply handlers, which doubles the cost of a small `get`.
A redis-py client holds no connection of its own: it borrows one from the pool for each
command, so one client per pool can serve every call and every thread.
"""

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class KeptClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients[index] = self._client(connection_pool=pool)
        return client


class KeptClientRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = KeptClientRedisCacheClient
