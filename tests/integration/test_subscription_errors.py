"""Errors raised inside subscriptions carry their code like any other error."""

from __future__ import annotations

import dataclasses

import pytest

from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.services import Services

pytestmark = pytest.mark.integration


async def test_a_subscription_error_has_its_code(services: Services) -> None:
    settings = dataclasses.replace(services.settings, auth="on", auth_secret="s" * 40)
    schema = build_schema(settings)
    context = Context(services=dataclasses.replace(services, settings=settings), authorization=None)
    stream = await schema.subscribe(
        'subscription { queueStatus(workspace: "w") { pending } }', context_value=context
    )
    first = await anext(stream)  # type: ignore[arg-type]
    assert first.errors is not None
    assert first.errors[0].extensions == {"code": "UNAUTHENTICATED"}
