"""Signed API keys: issue/verify round trips, tampering, expiry, and the scope checks."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Callable

import pytest

from graph.errors import Forbidden, InvalidInput, Unauthenticated
from resolvers.auth import ADMIN, KeyScope, Principal, issue_key, principal_from_header, verify_key

pytestmark = pytest.mark.unit

SECRET = "unit-test-secret-" + "s" * 20
NOW = 1_700_000_000.0


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def claims_of(key: str) -> dict[str, object]:
    payload = key.removeprefix("bgk_").split(".")[0]
    claims: dict[str, object] = json.loads(
        base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    )
    return claims


def with_claims(key: str, claims: dict[str, object]) -> str:
    """`key` with its claims replaced and its signature kept."""
    signature = key.split(".")[1]
    return f"bgk_{b64(json.dumps(claims).encode())}.{signature}"


@pytest.mark.parametrize(
    "principal",
    [
        Principal(KeyScope.ADMIN),
        Principal(KeyScope.WORKSPACE, "w1"),
        Principal(KeyScope.PEER, "w1", peer="alice"),
        Principal(KeyScope.SESSION, "w1", session="s1"),
    ],
    ids=lambda p: p.scope.value,
)
def test_a_key_verifies_to_the_principal_it_was_issued_for(principal: Principal) -> None:
    key = issue_key(SECRET, principal)
    assert key.startswith("bgk_")
    assert verify_key(SECRET, key) == principal


@pytest.mark.parametrize(
    ("principal", "ttl", "says"),
    [
        (Principal(KeyScope.PEER, "w1", peer="no such peer!"), None, "not a valid name"),
        (Principal(KeyScope.WORKSPACE, "w 1"), None, "not a valid name"),
        (Principal(KeyScope.SESSION, "w1", session="s/1"), None, "not a valid name"),
        (Principal(KeyScope.WORKSPACE, "w1"), 0, "at least 1"),
        (Principal(KeyScope.WORKSPACE, "w1"), -100, "at least 1"),
    ],
)
def test_a_key_that_could_never_work_is_not_issued(
    principal: Principal, ttl: int | None, says: str
) -> None:
    with pytest.raises(InvalidInput, match=says):
        issue_key(SECRET, principal, ttl_seconds=ttl)


@pytest.mark.parametrize(
    "principal",
    [
        # `key --workspace acme` (scope admin by default) issued an admin key without a word.
        Principal(KeyScope.ADMIN, "acme"),
        Principal(KeyScope.WORKSPACE, "w1", peer="alice"),
        Principal(KeyScope.PEER, "w1", peer="alice", session="s1"),
        Principal(KeyScope.SESSION, "w1", peer="alice", session="s1"),
    ],
)
def test_a_name_the_scope_does_not_use_is_refused_not_dropped(principal: Principal) -> None:
    with pytest.raises(InvalidInput, match="key takes no"):
        issue_key(SECRET, principal)


@pytest.mark.parametrize(
    ("principal", "missing"),
    [
        (Principal(KeyScope.WORKSPACE), "workspace"),
        (Principal(KeyScope.PEER, "w1"), "peer"),
        (Principal(KeyScope.PEER, peer="alice"), "workspace"),
        (Principal(KeyScope.SESSION, "w1"), "session"),
    ],
)
def test_a_key_without_its_scope_fields_is_refused(principal: Principal, missing: str) -> None:
    with pytest.raises(InvalidInput, match=missing):
        issue_key(SECRET, principal)


@pytest.mark.parametrize(
    "change",
    [{"w": "w2"}, {"sc": "admin"}, {"p": "bob"}, {"exp": NOW + 10**9}],
    ids=["workspace", "scope", "peer", "expiry"],
)
def test_edited_claims_break_the_signature(change: dict[str, object]) -> None:
    key = issue_key(SECRET, Principal(KeyScope.PEER, "w1", peer="alice"), ttl_seconds=60, now=NOW)
    forged = with_claims(key, {**claims_of(key), **change})
    with pytest.raises(Unauthenticated, match="signature"):
        verify_key(SECRET, forged, now=NOW)


def test_a_key_signed_with_another_secret_is_refused() -> None:
    key = issue_key("another-secret-" + "o" * 20, Principal(KeyScope.ADMIN))
    with pytest.raises(Unauthenticated, match="signature"):
        verify_key(SECRET, key)


def test_an_edited_signature_is_refused() -> None:
    key = issue_key(SECRET, Principal(KeyScope.ADMIN))
    last = key[-1]
    with pytest.raises(Unauthenticated):
        verify_key(SECRET, key[:-1] + ("A" if last != "A" else "B"))


@pytest.mark.parametrize("key", ["", "bgk_", "bgk_abc", "nope.sig", "bgk_a.b.c", "Bearer x"])
def test_malformed_keys_are_refused(key: str) -> None:
    with pytest.raises(Unauthenticated):
        verify_key(SECRET, key)


@pytest.mark.parametrize("claims", [b'{"sc": "root"}', b"[1, 2]", b"not json", b"{}"])
def test_signed_but_meaningless_claims_are_refused(claims: bytes) -> None:
    payload = b64(claims)
    signature = b64(hmac.new(SECRET.encode(), payload.encode(), hashlib.sha256).digest())
    with pytest.raises(Unauthenticated, match="claims"):
        verify_key(SECRET, f"bgk_{payload}.{signature}")


def test_a_key_expires_after_its_ttl() -> None:
    key = issue_key(SECRET, Principal(KeyScope.WORKSPACE, "w1"), ttl_seconds=60, now=NOW)
    assert verify_key(SECRET, key, now=NOW + 59).workspace == "w1"
    with pytest.raises(Unauthenticated, match="expired"):
        verify_key(SECRET, key, now=NOW + 60)
    forever = issue_key(SECRET, Principal(KeyScope.WORKSPACE, "w1"), now=NOW)
    assert verify_key(SECRET, forever, now=NOW + 10**9).workspace == "w1"


def test_the_header_needs_a_bearer_key_only_when_auth_is_on() -> None:
    assert principal_from_header(None, enabled=False, secret="") == ADMIN
    key = issue_key(SECRET, Principal(KeyScope.SESSION, "w1", session="s1"))
    assert principal_from_header(f"Bearer {key}", enabled=True, secret=SECRET).session == "s1"
    assert principal_from_header(f"bearer  {key} ", enabled=True, secret=SECRET).session == "s1"
    for header in (None, "", f"Basic {key}", "Bearer", key):
        with pytest.raises(Unauthenticated):
            principal_from_header(header, enabled=True, secret=SECRET)


WORKSPACE = Principal(KeyScope.WORKSPACE, "w1")
ALICE = Principal(KeyScope.PEER, "w1", peer="alice")
S1 = Principal(KeyScope.SESSION, "w1", session="s1")


def allowed(check: Callable[[], object]) -> bool:
    try:
        check()
    except Forbidden:
        return False
    return True


def test_admin_may_do_anything_anywhere() -> None:
    assert allowed(lambda: ADMIN.require_admin("x"))
    assert allowed(lambda: ADMIN.require_workspace("any"))
    assert allowed(lambda: ADMIN.require_peer("any", "bob"))
    assert allowed(lambda: ADMIN.require_session("any", "s9"))
    assert allowed(lambda: ADMIN.require_peer_or_session("any", None, None))


def test_a_workspace_key_covers_its_workspace_only() -> None:
    assert not allowed(lambda: WORKSPACE.require_admin("x"))
    assert allowed(lambda: WORKSPACE.require_workspace("w1"))
    assert allowed(lambda: WORKSPACE.require_peer("w1", "bob"))
    assert allowed(lambda: WORKSPACE.require_session("w1", "s9"))
    assert allowed(lambda: WORKSPACE.require_peer_or_session("w1", None, None))
    for check in (
        lambda: WORKSPACE.in_workspace("w2"),
        lambda: WORKSPACE.require_workspace("w2"),
        lambda: WORKSPACE.require_peer("w2", "bob"),
        lambda: WORKSPACE.require_session("w2", "s1"),
        lambda: WORKSPACE.require_peer_or_session("w2", "alice", "s1"),
    ):
        assert not allowed(check)


def test_another_workspaces_key_is_told_it_cannot_access_the_workspace() -> None:
    """It was told the operation "takes a key for the whole workspace", which it is."""
    with pytest.raises(Forbidden) as refused:
        WORKSPACE.require_workspace("w2")
    assert refused.value.message == "this workspace-scoped key cannot access workspace 'w2'"
    with pytest.raises(Forbidden, match="takes a key for the whole workspace"):
        ALICE.require_workspace("w1")


def test_a_peer_key_covers_its_peer_in_its_workspace_only() -> None:
    assert allowed(lambda: ALICE.require_peer("w1", "alice"))
    assert allowed(lambda: ALICE.require_peer_or_session("w1", "alice", "s9"))
    assert allowed(lambda: ALICE.in_workspace("w1"))
    for check in (
        lambda: ALICE.require_peer("w1", "bob"),
        lambda: ALICE.require_peer("w2", "alice"),
        lambda: ALICE.require_peer_or_session("w2", "alice", None),
        lambda: ALICE.require_peer_or_session("w1", None, "s1"),
        lambda: ALICE.require_peer_or_session("w1", "bob", None),
        lambda: ALICE.require_workspace("w1"),
        lambda: ALICE.require_session("w1", "s1"),
        lambda: ALICE.in_workspace("w2"),
    ):
        assert not allowed(check)


def test_a_session_key_covers_its_session_in_its_workspace_only() -> None:
    assert allowed(lambda: S1.require_session("w1", "s1"))
    assert allowed(lambda: S1.require_peer_or_session("w1", "bob", "s1"))
    for check in (
        lambda: S1.require_session("w1", "s2"),
        lambda: S1.require_session("w2", "s1"),
        lambda: S1.require_peer_or_session("w2", None, "s1"),
        lambda: S1.require_peer_or_session("w1", "alice", None),
        lambda: S1.require_peer("w1", "alice"),
        lambda: S1.require_workspace("w1"),
    ):
        assert not allowed(check)


def test_who_a_key_may_search_as() -> None:
    Principal(KeyScope.ADMIN).may_ask_as("w", "anyone", [])
    Principal(KeyScope.WORKSPACE, workspace="w").may_ask_as("w", "anyone", [])
    Principal(KeyScope.PEER, workspace="w", peer="alice").may_ask_as("w", "alice", [])
    Principal(KeyScope.SESSION, workspace="w", session="s").may_ask_as("w", "bob", ["bob"])
    refused = [
        (Principal(KeyScope.WORKSPACE, workspace="w"), "x", "alice", []),
        (Principal(KeyScope.PEER, workspace="w", peer="alice"), "w", "bob", ["bob"]),
        (Principal(KeyScope.SESSION, workspace="w", session="s"), "w", "carol", ["bob"]),
    ]
    for principal, workspace, asker, members in refused:
        with pytest.raises(Forbidden):
            principal.may_ask_as(workspace, asker, members)
