"""Webhook signatures: a webhook configured with a ``secret`` gets every body
signed, so its receiver can check the message comes from this Spark Fleet and
was not replayed or altered. Each request carries

    X-Spark-Fleet-Timestamp: 1733065200            (Unix seconds, when it was sent)
    X-Spark-Fleet-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>" keyed by the secret>
    X-Spark-Fleet-Delivery: 42                     (the same on every retry of one message)

A receiver recomputes the HMAC over the timestamp, a dot and the raw body
bytes, compares in constant time, and refuses timestamps older than a few
minutes (``verify`` does all three). Plain functions; no Django.
"""

from __future__ import annotations

import hashlib
import hmac
import time

TIMESTAMP = "X-Spark-Fleet-Timestamp"
SIGNATURE = "X-Spark-Fleet-Signature"
DELIVERY = "X-Spark-Fleet-Delivery"
VERSION = "v1"


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"{VERSION}={digest}"


def headers(secret: str, body: bytes, *, delivery: int, now: float | None = None) -> dict[str, str]:
    """The headers of one signed request (none but the delivery id without a secret)."""
    out = {DELIVERY: str(delivery)}
    if secret:
        timestamp = int(now if now is not None else time.time())
        out[TIMESTAMP] = str(timestamp)
        out[SIGNATURE] = signature(secret, timestamp, body)
    return out


def verify(secret: str, body: bytes, sent: dict[str, str], *, max_age_s: float = 300, now: float | None = None) -> bool:
    """What a receiver does: the signature matches and the timestamp is recent."""
    try:
        timestamp = int(sent[TIMESTAMP])
    except (KeyError, ValueError):
        return False
    if abs((now if now is not None else time.time()) - timestamp) > max_age_s:
        return False
    return hmac.compare_digest(sent.get(SIGNATURE, ""), signature(secret, timestamp, body))
