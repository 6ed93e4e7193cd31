"""The one rule for who a request comes from, for the API throttles and django-axes alike.

Behind `TRUSTED_PROXY_COUNT` proxies (settings), the client is the address the outermost
trusted proxy saw: that many entries from the right of `X-Forwarded-For`, each proxy
having appended the address it was called from. With 0 (the default, no proxy) the
header is ignored and the client is the socket's peer, `REMOTE_ADDR`: a header the client
wrote itself never picks its own throttle or lock-out bucket.

DRF applies the rule for its throttles (`NUM_PROXIES`, set from the same count); axes
asks `client_address` (`AXES_CLIENT_IP_CALLABLE`), which applies DRF's code, so the two
can never disagree.
"""

from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle

_THROTTLE = BaseThrottle()


def client_address(request: HttpRequest) -> str:
    """The address the API throttles key on and axes counts failed log-ins against."""
    return _THROTTLE.get_ident(request) or ""
