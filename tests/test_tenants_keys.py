"""Tenant API keys: shown once, stored hashed, recognisable, revocable, checked in constant time."""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

import psycopg
import pytest

from tenderflow.tenants.keys import (
    KEY_PATTERN,
    ApiKeyNotFoundError,
    create_api_key,
    list_api_keys,
    revoke_api_key,
    verify_api_key,
)
from tenderflow.tenants.tenants import TenantNotFoundError, create_tenant

Conn = psycopg.Connection[Any]


def test_key_verifies_as_its_tenant_and_only_its_hash_is_stored(conn: Conn) -> None:
    create_tenant(conn, "acme")
    created = create_api_key(conn, "acme", name="billing app")
    assert re.fullmatch(KEY_PATTERN, created.key)
    assert created.key.startswith(f"tfk_{created.id}_")
    assert verify_api_key(conn, created.key) == "acme"

    [stored] = conn.execute("SELECT id, tenant, name, secret_sha256 FROM api_keys").fetchall()
    assert stored[:3] == (created.id, "acme", "billing app")
    assert bytes(stored[3]) == hashlib.sha256(created.key.encode()).digest()
    secret = created.key.rsplit("_", 1)[1]
    dump = conn.execute("SELECT row_to_json(k)::text FROM api_keys k").fetchone()
    assert dump is not None and secret not in dump[0]


def test_two_keys_never_share_an_id_or_a_secret(conn: Conn) -> None:
    create_tenant(conn, "acme")
    made = [create_api_key(conn, "acme").key for _ in range(50)]
    assert len({key.split("_")[1] for key in made}) == 50
    assert len({key.split("_")[2] for key in made}) == 50


@pytest.mark.parametrize("mangle", [
    lambda key: key[:-1] + ("A" if key[-1] != "A" else "B"),  # wrong secret, right id
    lambda key: key.replace("tfk_", "tfw_"),                   # another product's prefix
    lambda key: key + "x",                                     # too long
    lambda key: key[:-1],                                      # too short
    lambda key: " " + key,                                     # not trimmed for the caller
    lambda key: "tfk_000000000000_" + key.split("_")[2],       # unknown id
    lambda key: "",
    lambda key: "Bearer " + key,
])
def test_anything_but_the_exact_key_is_refused(conn: Conn, mangle: Any) -> None:
    create_tenant(conn, "acme")
    created = create_api_key(conn, "acme")
    assert verify_api_key(conn, mangle(created.key)) is None
    assert verify_api_key(conn, created.key) == "acme"


def test_secret_is_compared_in_constant_time(conn: Conn, monkeypatch: pytest.MonkeyPatch) -> None:
    create_tenant(conn, "acme")
    created = create_api_key(conn, "acme")
    compared: list[tuple[bytes, bytes]] = []
    real_compare = hmac.compare_digest

    def recording_compare(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real_compare(a, b)

    monkeypatch.setattr(hmac, "compare_digest", recording_compare)
    wrong = created.key[:-1] + ("A" if created.key[-1] != "A" else "B")
    assert verify_api_key(conn, wrong) is None
    assert verify_api_key(conn, created.key) == "acme"
    assert len(compared) == 2 and all(len(a) == len(b) == 32 for a, b in compared)


def test_revoked_key_is_refused_and_listed_without_secrets(conn: Conn) -> None:
    create_tenant(conn, "acme")
    create_tenant(conn, "globex")
    kept = create_api_key(conn, "acme", name="kept")
    revoked = create_api_key(conn, "acme", name="leaked")
    other = create_api_key(conn, "globex")
    assert verify_api_key(conn, revoked.key) == "acme"

    row = revoke_api_key(conn, revoked.id)
    assert row["tenant"] == "acme" and row["revoked_at"] is not None
    assert revoke_api_key(conn, revoked.id)["revoked_at"] == row["revoked_at"]  # revoking again keeps the time
    assert verify_api_key(conn, revoked.key) is None
    assert verify_api_key(conn, kept.key) == "acme"
    with pytest.raises(ApiKeyNotFoundError):
        revoke_api_key(conn, "ffffffffffff")

    listed = list_api_keys(conn, tenant="acme")
    assert [(k["id"], k["status"]) for k in listed] == [(kept.id, "active"), (revoked.id, "revoked")]
    everything = repr(list_api_keys(conn))
    for created in (kept, revoked, other):
        assert created.key not in everything and created.key.rsplit("_", 1)[1] not in everything
    assert {k["tenant"] for k in list_api_keys(conn)} == {"acme", "globex"}


def test_use_is_recorded_at_most_once_a_minute(conn: Conn) -> None:
    create_tenant(conn, "acme")
    created = create_api_key(conn, "acme")
    assert conn.execute("SELECT last_used_at FROM api_keys").fetchone() == (None,)
    verify_api_key(conn, created.key)
    first = conn.execute("SELECT last_used_at FROM api_keys").fetchone()
    assert first is not None and first[0] is not None
    verify_api_key(conn, created.key)
    assert conn.execute("SELECT last_used_at FROM api_keys").fetchone() == first
    conn.execute("UPDATE api_keys SET last_used_at = last_used_at - interval '2 minutes'")
    verify_api_key(conn, created.key)
    later = conn.execute("SELECT last_used_at FROM api_keys").fetchone()
    assert later is not None and later[0] > first[0]
    wrong = created.key[:-1] + ("A" if created.key[-1] != "A" else "B")
    conn.execute("UPDATE api_keys SET last_used_at = NULL")
    verify_api_key(conn, wrong)
    assert conn.execute("SELECT last_used_at FROM api_keys").fetchone() == (None,)  # a failed try is no use


def test_keys_are_only_made_for_tenants_that_exist(conn: Conn) -> None:
    with pytest.raises(TenantNotFoundError):
        create_api_key(conn, "nobody")
    assert conn.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)
