"""Errors become coded GraphQL errors; only unexpected ones reach the server log."""

from __future__ import annotations

import logging

import pytest
from graphql import GraphQLError

from graph.errors import InvalidInput
from graph.settings import Settings
from resolvers.graphql.errors import coded
from resolvers.graphql.schema import build_schema

pytestmark = pytest.mark.unit


async def test_client_errors_are_answered_and_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    schema = build_schema(Settings.from_env({}))
    caplog.set_level(logging.DEBUG)
    for document in ("{ nope }", "{ health { ok }", "{ " + "a: health { ok } " * 20 + "}"):
        result = await schema.execute(document)
        assert result.errors, document
        codes = {(e.extensions or {}).get("code") for e in result.errors}
        assert codes <= {"INVALID_INPUT", "LIMIT_EXCEEDED"}, (document, codes)
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_an_unexpected_error_is_masked_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    ours = coded(GraphQLError("x", original_error=InvalidInput("name: too long")))
    assert (ours.message, ours.extensions) == ("name: too long", {"code": "INVALID_INPUT"})
    assert caplog.records == []
    masked = coded(GraphQLError("x", original_error=RuntimeError("password=hunter2")))
    assert masked.extensions == {"code": "INTERNAL"} and "hunter2" not in masked.message
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.name == "beliefgraph.api"
    assert record.exc_info and "hunter2" in str(record.exc_info[1])
