"""Where a webhook may be sent: the URL's form, and the addresses it may reach (no SSRF).

    parse_webhook_url(url)            -> WebhookUrl, or WebhookUrlError saying why not
    AddressPolicy.from_setting(text)  the operator's exceptions (TENDERFLOW_WEBHOOK_ALLOW_NETWORKS)
    policy.refusal(address)           None, or why this address may not be reached
    check_registration(url, policy)   at `webhooks add`: every address the name resolves to now

A tenant's URL is a request the service makes on its behalf from inside the operator's network, so
an address that is not on the public internet (loopback, private, link-local such as the cloud
metadata service at 169.254.169.254, carrier-grade NAT, unspecified, multicast, reserved) is refused
unless the operator allows its network. Names are checked twice: when the URL is registered (to
refuse it with a reason at once), and at every delivery on the address actually connected to
(tenderflow.webhooks.transport), since the name may resolve elsewhere by then (DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from tenderflow.errors import WebhookUrlError

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Sequence[str]]
"""(host, port) -> the addresses it resolves to, as strings; raises OSError when it does not."""

MAX_URL_CHARS: Final = 2000
_FORBIDDEN_CHARACTERS = re.compile(r"[\x00-\x20\x7f-\x9f\\]")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT: not global, not "private" either


@dataclass(frozen=True)
class WebhookUrl:
    """A URL that has the form of a webhook endpoint's: http(s), a host, no credentials."""

    url: str
    scheme: str
    host: str
    port: int

    @property
    def literal_address(self) -> IpAddress | None:
        try:
            return ipaddress.ip_address(self.host)
        except ValueError:
            return None


def parse_webhook_url(url: str) -> WebhookUrl:
    """The URL if it can be a webhook endpoint's; else WebhookUrlError with the reason."""
    url = url.strip()
    if not url:
        raise WebhookUrlError("the webhook URL is empty")
    if len(url) > MAX_URL_CHARS:
        raise WebhookUrlError(f"the webhook URL is {len(url):,} characters long; at most {MAX_URL_CHARS:,}")
    if _FORBIDDEN_CHARACTERS.search(url):
        raise WebhookUrlError("the webhook URL holds spaces, control characters or backslashes: percent-encode them")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        shown = f"{scheme}:" if scheme else "a URL without a scheme"
        raise WebhookUrlError(
            f"{shown} is refused: a webhook URL must start with https:// (or http://); webhooks are HTTP POST requests")
    if parts.username is not None or parts.password is not None:
        raise WebhookUrlError("a webhook URL may not hold a user name or password: verify the Tenderflow-Signature "
                              "header instead (see docs/webhooks.md)")
    if parts.fragment:
        raise WebhookUrlError("a webhook URL may not have a #fragment: it is never sent to the receiver")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise WebhookUrlError(f"the webhook URL {url!r} names no host")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError as exc:
        raise WebhookUrlError(f"the webhook URL's port is not a port: {exc}") from exc
    return WebhookUrl(url=url, scheme=scheme, host=host, port=port)


def _embedded_ipv4(address: IpAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (::ffff:a.b.c.d, 64:ff9b::a.b.c.d, 6to4), if any: it is
    where the packets go, so it is what the policy judges."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


def _kind(address: IpAddress) -> str | None:
    """What makes `address` unreachable for a webhook, in words; None for a public address."""
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address (cloud metadata services live there)"
    if address.is_unspecified:
        return "the unspecified address"
    if address.is_multicast:
        return "a multicast address"
    if isinstance(address, ipaddress.IPv4Address) and address in _SHARED:
        return "a carrier-grade NAT address"
    if address.is_private:
        return "a private address"
    if address.is_reserved or not address.is_global:
        return "an address that is not on the public internet"
    return None


@dataclass(frozen=True)
class AddressPolicy:
    """Which addresses webhooks may reach: public ones, and those in `allowed` (the operator's)."""

    allowed: tuple[IpNetwork, ...] = ()

    @classmethod
    def from_setting(cls, text: str) -> AddressPolicy:
        """From TENDERFLOW_WEBHOOK_ALLOW_NETWORKS ("10.0.0.0/8, 127.0.0.1"); raises ValueError naming a bad one."""
        networks: list[IpNetwork] = []
        for item in (part.strip() for part in text.split(",")):
            if not item:
                continue
            try:
                networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError as exc:
                raise ValueError(f"TENDERFLOW_WEBHOOK_ALLOW_NETWORKS: {item!r} is not a network ({exc})") from exc
        return cls(tuple(networks))

    def _allowed(self, address: IpAddress) -> bool:
        return any(address.version == network.version and address in network for network in self.allowed)

    def refusal(self, address: IpAddress | str) -> str | None:
        """Why a webhook may not connect to `address`; None when it may."""
        try:
            parsed = ipaddress.ip_address(address) if isinstance(address, str) else address
        except ValueError:
            return f"{address!r} is not an IP address"
        if isinstance(parsed, ipaddress.IPv6Address) and parsed.scope_id:
            parsed = ipaddress.IPv6Address(str(parsed).split("%", 1)[0])
        if self._allowed(parsed):
            return None
        embedded = _embedded_ipv4(parsed)
        if embedded is not None:
            if self._allowed(embedded):
                return None
            kind = _kind(embedded)
            return None if kind is None else f"{parsed} carries {embedded}, {kind}"
        kind = _kind(parsed)
        return None if kind is None else f"{parsed} is {kind}"


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (IPv4 and IPv6, TCP), as getaddrinfo gives them."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    seen: list[str] = []
    for info in infos:
        address = str(info[4][0])
        if address not in seen:
            seen.append(address)
    return seen


REFUSAL_ADVICE: Final = ("webhooks may not reach private, loopback or link-local addresses (the operator can allow a "
                         "network with TENDERFLOW_WEBHOOK_ALLOW_NETWORKS)")


def check_registration(url: str, policy: AddressPolicy, *, resolver: Resolver = system_resolver) -> WebhookUrl:
    """The URL, parsed, if it may be registered: its host is a public address (or allowed), or a
    name all of whose current addresses are. Raises WebhookUrlError with the reason otherwise (a
    name that does not resolve, too). Deliveries check the address they connect to again."""
    parsed = parse_webhook_url(url)
    literal = parsed.literal_address
    if literal is not None:
        refusal = policy.refusal(literal)
        if refusal is not None:
            raise WebhookUrlError(f"{parsed.url} is refused: {refusal}; {REFUSAL_ADVICE}")
        return parsed
    try:
        addresses = list(resolver(parsed.host, parsed.port))
    except (OSError, UnicodeError) as exc:
        raise WebhookUrlError(f"{parsed.host} does not resolve ({exc}); register a name that does") from exc
    if not addresses:
        raise WebhookUrlError(f"{parsed.host} resolves to no address; register a name that does")
    refusals = [refusal for address in addresses if (refusal := policy.refusal(address)) is not None]
    if refusals:
        raise WebhookUrlError(f"{parsed.url} is refused: {parsed.host} resolves to {'; '.join(refusals)}; "
                              f"{REFUSAL_ADVICE}")
    return parsed
