"""Per-request GraphQL context: the services and, resolved on first use, the caller."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from strawberry.dataloader import DataLoader
from strawberry.types import Info as StrawberryInfo

from graph.records import SummaryRecord
from resolvers.auth import Principal, principal_from_header
from resolvers.graphql.loaders import SummaryKey, summaries_loader
from resolvers.services import Services


@dataclass
class Context:
    services: Services
    authorization: str | None
    # Set by strawberry for WebSocket operations from the connection_init payload.
    connection_params: dict[str, Any] | None = None
    # Whom a WebSocket is counted against (its key's holder), once acknowledged.
    socket_holder: Principal | None = None
    # Why its connection_init was refused: the close frame's reason.
    refusal: str | None = None

    @cached_property
    def summaries(self) -> DataLoader[SummaryKey, list[SummaryRecord]]:
        return summaries_loader(self.services.db)

    @property
    def key_header(self) -> str | None:
        """The Authorization value: the request's header, else the connection_init payload's."""
        header = self.authorization
        if header is None and self.connection_params:
            value = self.connection_params.get("Authorization") or self.connection_params.get(
                "authorization"
            )
            header = str(value) if value else None
        return header

    @property
    def principal(self) -> Principal:
        """The caller, from its key, checked again on every use: one WebSocket context serves
        every operation of the socket, so a key that expires while the socket is open must
        stop working then (checking a key is one HMAC, no I/O)."""
        settings = self.services.settings
        return principal_from_header(
            self.key_header, enabled=settings.auth_enabled, secret=settings.auth_secret
        )


Info = StrawberryInfo[Context, None]
