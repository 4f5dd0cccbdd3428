"""The webhook signature: HMAC-SHA256 over the timestamp and the body, as Stripe signs its events.

    Tenderflow-Signature: t=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd

`v1` is the hex HMAC-SHA256, keyed by the endpoint's secret (the whole `whsec_…` string, as UTF-8),
of `<t>.<body>`: the timestamp in seconds, a full stop, and the raw request body. A receiver
recomputes it over the bytes it received, compares in constant time, and refuses a timestamp
too far from its clock (5 minutes), so a captured request cannot be replayed later. While an
endpoint's secret is being rotated, the header carries one `v1=` per secret still valid: a
receiver accepts the request when any of them matches its secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Sequence
from typing import Final

SIGNATURE_HEADER: Final = "Tenderflow-Signature"
SECRET_PREFIX: Final = "whsec_"  # noqa: S105 (the prefix of every secret, not one)
TOLERANCE_SECONDS: Final = 300


def new_secret() -> str:
    """A fresh endpoint secret: `whsec_` and 256 random bits, URL-safe base64 (43 characters)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of `<timestamp>.<body>` keyed by `secret`."""
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(signing_secrets: Sequence[str], timestamp: int, body: bytes) -> str:
    """`t=<timestamp>,v1=<hex>[,v1=<hex>…]`, one `v1` per secret."""
    return ",".join([f"t={timestamp}", *(f"v1={signature(secret, timestamp, body)}" for secret in signing_secrets)])


def verify(header: str, body: bytes, secret: str, *, tolerance_seconds: float = TOLERANCE_SECONDS,
           now: float | None = None) -> bool:
    """Whether `header` signs `body` with `secret` at a time within `tolerance_seconds` of `now`:
    what a receiver does (docs/webhooks.md's snippet is this, written out)."""
    fields = [part.split("=", 1) for part in header.split(",") if "=" in part]
    timestamps = [value for key, value in fields if key.strip() == "t"]
    if len(timestamps) != 1 or not timestamps[0].strip().isdigit():
        return False
    timestamp = int(timestamps[0])
    if abs((time.time() if now is None else now) - timestamp) > tolerance_seconds:
        return False
    expected = signature(secret, timestamp, body)
    return any(hmac.compare_digest(expected, value.strip()) for key, value in fields if key.strip() == "v1")
