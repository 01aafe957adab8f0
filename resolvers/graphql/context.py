"""Per-request GraphQL context: the services and, resolved on first use, the caller."""

from __future__ import annotations

from dataclasses import dataclass, field
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
    _principal: Principal | None = field(default=None, repr=False)

    @cached_property
    def summaries(self) -> DataLoader[SummaryKey, list[SummaryRecord]]:
        return summaries_loader(self.services.db)

    @property
    def principal(self) -> Principal:
        if self._principal is None:
            header = self.authorization
            if header is None and self.connection_params:
                value = self.connection_params.get("Authorization") or self.connection_params.get(
                    "authorization"
                )
                header = str(value) if value else None
            settings = self.services.settings
            self._principal = principal_from_header(
                header, enabled=settings.auth_enabled, secret=settings.auth_secret
            )
        return self._principal


Info = StrawberryInfo[Context, None]
