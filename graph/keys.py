"""Single-token keys for the scopes searches are restricted to.

A key is one alphanumeric token (a letter saying what it names, then hex), so it can stand in
a Lucene query (`+scope_key:<key>`) and in a vector index filter without escaping, and it never
mixes two scopes: the parts are joined with a separator that names cannot contain, and scopes
of different kinds have different letters.

- scope_key: a representation, (workspace, observer, observed), on every Observation;
- workspace_key, session_key, peer_key: on every Message, for scoped fulltext search.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


def _key(letter: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8"))
    return letter + digest.hexdigest()[:32]


def scope_key(workspace: str, observer: str, observed: str) -> str:
    """The representation (observer's view of observed) in a workspace."""
    return _key("s", workspace, observer, observed)


def workspace_key(workspace: str) -> str:
    return _key("w", workspace)


def session_key(workspace: str, session: str) -> str:
    return _key("c", workspace, session)


def peer_key(workspace: str, peer: str) -> str:
    return _key("p", workspace, peer)


@dataclass(frozen=True)
class Representation:
    workspace: str
    observer: str
    observed: str

    @property
    def key(self) -> str:
        return scope_key(self.workspace, self.observer, self.observed)

    def params(self) -> dict[str, str]:
        return {"workspace": self.workspace, "observer": self.observer, "observed": self.observed}
