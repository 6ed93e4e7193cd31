"""Where a webhook may send: http(s) URLs to public addresses only (no SSRF).

A production site refuses loopback, private, link-local and other non-public addresses,
both when a hook is registered (an address written in the URL, or `localhost`) and at
each delivery, where the name is resolved and the connection made to the very address
that was checked (`resolve`): a name that resolves to a private address, or changes to
one after registration, is refused then. `WEBHOOK_ALLOW_PRIVATE_ADDRESSES` lets them
through (on with DEBUG, and in the tests, whose receivers listen on loopback);
`WEBHOOK_HTTPS_ONLY` (on unless DEBUG) refuses plain http.
"""

import ipaddress
import socket
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class Refused(Exception):
    """An address a webhook may not be sent to."""


def _public(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _allowed(ip: IPAddress) -> bool:
    return bool(settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES) or _public(ip)


def refusal(url: str) -> str:
    """Why `url` may not be a webhook's ("" when it may)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        return "This URL cannot be read."
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "A webhook's URL starts with https:// (or http://) and names a host."
    if settings.WEBHOOK_HTTPS_ONLY and parts.scheme != "https":
        return "A webhook's URL starts with https://."
    if parts.username is not None or parts.password is not None:
        return "A webhook's URL carries no user name or password."
    host = parts.hostname
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        if not settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES and (
            host == "localhost" or host.endswith((".localhost", ".local", ".internal"))
        ):
            return "A webhook is sent to a public address, not to this machine or its network."
        return ""
    if not _allowed(ip):
        return "A webhook is sent to a public address, not to this machine or its network."
    return ""


def resolve(parts: SplitResult) -> str:
    """The address to connect to for this URL: its name resolved, every address it has
    checked (one private address refuses them all)."""
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    ips = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    if not ips:
        raise Refused(f"{host} has no address.")
    refused = [str(ip) for ip in ips if not _allowed(ip)]
    if refused:
        raise Refused(f"{host} resolves to an address webhooks are not sent to ({refused[0]}).")
    return str(ips[0])
