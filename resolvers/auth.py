"""Signed API keys scoped to admin, workspace, peer or session.

A key is `bgk_<claims>.<signature>`: base64url JSON claims, signed with HMAC-SHA256 under
BELIEFGRAPH_AUTH_SECRET. Nothing is stored server-side; rotating the secret revokes every key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum

from graph.errors import Forbidden, InvalidInput, Unauthenticated
from graph.validation import check_name

PREFIX = "bgk_"


class KeyScope(StrEnum):
    ADMIN = "admin"
    WORKSPACE = "workspace"
    PEER = "peer"
    SESSION = "session"


def article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


@dataclass(frozen=True)
class Principal:
    scope: KeyScope
    workspace: str | None = None
    peer: str | None = None
    session: str | None = None
    # When the key it came from expires (Unix seconds), or None: not part of who it is.
    expires: float | None = field(default=None, compare=False)

    def _deny(self, what: str) -> Forbidden:
        return Forbidden(f"this {self.scope.value}-scoped key cannot access {what}")

    def require_admin(self, what: str) -> None:
        if self.scope is not KeyScope.ADMIN:
            raise Forbidden(f"{what} takes an admin key; this key is {self.scope.value}-scoped")

    def covers_workspace(self, workspace: str) -> bool:
        """Whether this key has whole-workspace access: admin, or a key for this workspace."""
        return self.scope is KeyScope.ADMIN or (
            self.scope is KeyScope.WORKSPACE and self.workspace == workspace
        )

    def require_workspace(self, workspace: str) -> None:
        """Whole-workspace access: admin, or a key for this workspace."""
        if self.covers_workspace(workspace):
            return
        self.in_workspace(workspace)  # another workspace's key is told just that
        raise Forbidden(
            f"this {self.scope.value}-scoped key cannot do this in workspace {workspace!r}: it "
            "takes a key for the whole workspace"
        )

    def in_workspace(self, workspace: str) -> None:
        """Any access inside the workspace (narrower checks follow)."""
        if self.scope is not KeyScope.ADMIN and self.workspace != workspace:
            raise self._deny(f"workspace {workspace!r}")

    def require_peer(self, workspace: str, peer: str) -> None:
        if self.scope is KeyScope.PEER and self.workspace == workspace and self.peer == peer:
            return
        if self.scope is KeyScope.PEER and self.workspace == workspace:
            raise Forbidden(
                f"this key is peer {self.peer!r}'s: it reads and acts as that peer only, "
                f"not as {peer!r}"
            )
        self.require_workspace(workspace)

    def require_session(self, workspace: str, session: str) -> None:
        if (
            self.scope is KeyScope.SESSION
            and self.workspace == workspace
            and self.session == session
        ):
            return
        self.require_workspace(workspace)

    def require_peer_or_session(
        self, workspace: str, peer: str | None, session: str | None
    ) -> None:
        """A read scoped by a peer and/or a session: either key kind that matches suffices."""
        if self.scope is KeyScope.PEER and peer is not None and self.peer == peer:
            return self.in_workspace(workspace)
        if self.scope is KeyScope.SESSION and session is not None and self.session == session:
            return self.in_workspace(workspace)
        self.require_workspace(workspace)

    def names_it_may_check(self) -> tuple[str, ...]:
        """Which of a read's session and peer names this key may learn exist or not (after
        require_peer_or_session): a peer key its own peer, a session key its own session."""
        if self.scope is KeyScope.PEER:
            return ("peer",)
        if self.scope is KeyScope.SESSION:
            return ("session",)
        return ("session", "peer")

    def may_ask_as(self, workspace: str, asker: str, session_members: Collection[str]) -> None:
        """Searching on behalf of `asker`. A workspace-wide key may name any peer (an unknown
        one is NOT_FOUND later); a peer key only its own peer; a session key a peer of its
        session (`session_members`, past ones included). The same error for a peer that does
        not exist and one out of reach, so a narrow key learns nothing about other peers."""
        self.in_workspace(workspace)
        if self.scope in (KeyScope.ADMIN, KeyScope.WORKSPACE):
            return
        if self.scope is KeyScope.PEER and asker == self.peer:
            return
        if self.scope is KeyScope.SESSION and asker in session_members:
            return
        raise Forbidden(
            f"this {self.scope.value}-scoped key cannot search as {asker!r}: a peer key searches "
            "as its own peer, a session key as a peer of its session",
            field="asker",
        )


ADMIN = Principal(KeyScope.ADMIN)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _sign(secret: str, payload: str) -> str:
    return _b64(hmac.new(secret.encode(), payload.encode(), hashlib.sha256).digest())


def bounded_ttl(
    issuer: Principal, ttl_seconds: int | None, *, now: float | None = None
) -> int | None:
    """The time to live of a key `issuer` issues: never past the issuer's own expiry (a key
    issued for a minute could issue admin keys that never expired, and keys cannot be revoked
    one by one)."""
    if issuer.expires is None:
        return ttl_seconds
    left = max(1, int(issuer.expires - (now if now is not None else time.time())))
    return left if ttl_seconds is None else min(ttl_seconds, left)


# The names each scope's key holds.
_NEEDS: dict[KeyScope, tuple[str, ...]] = {
    KeyScope.ADMIN: (),
    KeyScope.WORKSPACE: ("workspace",),
    KeyScope.PEER: ("workspace", "peer"),
    KeyScope.SESSION: ("workspace", "session"),
}


def check_key_shape(principal: Principal) -> None:
    """INVALID_INPUT unless `principal` names exactly what its scope's key holds."""
    needs = _NEEDS[principal.scope]
    for name in ("workspace", "peer", "session"):
        # A name the scope does not use would be dropped: `--workspace w` alone issued an
        # admin key (the default scope) with nothing to say so.
        if name not in needs and getattr(principal, name) is not None:
            raise InvalidInput(
                f"{article(principal.scope.value)} {principal.scope.value} key takes no {name}: "
                "choose the scope that names it"
            )
    for name in needs:
        if not getattr(principal, name):
            raise InvalidInput(f"a {principal.scope.value} key needs {name}")
        check_name(getattr(principal, name), name)  # a key for a name that cannot exist


def issue_key(
    secret: str,
    principal: Principal,
    *,
    ttl_seconds: int | None = None,
    now: float | None = None,
) -> str:
    check_key_shape(principal)
    if ttl_seconds is not None and ttl_seconds < 1:
        raise InvalidInput(f"ttlSeconds must be at least 1, not {ttl_seconds}", field="ttlSeconds")
    issued = int(now if now is not None else time.time())
    claims: dict[str, object] = {"sc": principal.scope.value, "iat": issued}
    for name in _NEEDS[principal.scope]:
        claims[name[0]] = getattr(principal, name)
    if ttl_seconds is not None:
        claims["exp"] = issued + ttl_seconds
    payload = _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode())
    return f"{PREFIX}{payload}.{_sign(secret, payload)}"


def verify_key(secret: str, key: str, *, now: float | None = None) -> Principal:
    if not key.startswith(PREFIX) or key.count(".") != 1:
        raise Unauthenticated("malformed API key: expected bgk_<claims>.<signature>")
    payload, signature = key[len(PREFIX) :].split(".")
    if not (payload.isascii() and signature.isascii()):
        raise Unauthenticated("malformed API key: it has characters no key has")
    if not hmac.compare_digest(_sign(secret, payload).encode(), signature.encode()):
        raise Unauthenticated("invalid API key signature")
    try:
        claims = json.loads(_unb64(payload))
        scope = KeyScope(claims["sc"])
    except (binascii.Error, ValueError, KeyError, TypeError) as exc:
        raise Unauthenticated("malformed API key claims") from exc
    expires = claims.get("exp")
    if expires is not None and (now if now is not None else time.time()) >= expires:
        raise Unauthenticated("API key expired")
    return Principal(
        scope,
        claims.get("w"),
        claims.get("p"),
        claims.get("s"),
        None if expires is None else float(expires),
    )


def principal_from_header(header: str | None, *, enabled: bool, secret: str) -> Principal:
    if not enabled:
        return ADMIN
    if not header:
        raise Unauthenticated("missing API key: send 'Authorization: Bearer <key>'")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise Unauthenticated("expected 'Authorization: Bearer <key>'")
    return verify_key(secret, token.strip())
