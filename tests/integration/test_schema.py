"""Schema: installed idempotently, every index online, wrong embedding size refused."""

from __future__ import annotations

import pytest

from graph.errors import Conflict
from graph.schema import check_vector_dimensions, install_schema, schema_statements
from resolvers.services import Services
from tests import statements

pytestmark = pytest.mark.integration

EXPECTED_INDEXES = {
    "workspace_name": "RANGE",
    "peer_key": "RANGE",
    "session_key": "RANGE",
    "message_id": "RANGE",
    "message_client_id": "RANGE",
    "observation_id": "RANGE",
    "observation_scope": "RANGE",
    "observation_key_content": "RANGE",
    "observation_key_recent": "RANGE",
    "observation_key_derived": "RANGE",
    "message_vectors": "VECTOR",
    "observation_vectors": "VECTOR",
    "file_chunk_vectors": "VECTOR",
    "message_text": "FULLTEXT",
    "observation_text": "FULLTEXT",
    "job_queue": "RANGE",
}


async def test_install_is_idempotent_and_indexes_are_online(services: Services) -> None:
    await install_schema(services.db, services.settings.embedding_dim)  # a second run is a no-op
    rows = await statements.read(services.db, "list_indexes")
    by_name = {r["name"]: r for r in rows}
    for name, kind in EXPECTED_INDEXES.items():
        assert name in by_name, f"missing index {name}"
        assert by_name[name]["type"] == kind
        assert by_name[name]["state"] == "ONLINE"
    assert len(schema_statements()) >= len(EXPECTED_INDEXES)
    for legacy in ("observation_content", "message_content", "message_embedding"):
        assert legacy not in by_name  # replaced by indexes with scope keys and filters


async def test_vector_indexes_have_the_model_dimension(services: Services) -> None:
    rows = await services.db.read("list_vector_indexes")
    assert {r["name"]: r["dimensions"] for r in rows} == {
        "message_vectors": 384,
        "observation_vectors": 384,
        "file_chunk_vectors": 384,
    }
    await check_vector_dimensions(services.db, 384)
    with pytest.raises(Conflict, match="has 384 dimensions but the embedding model gives 768"):
        await check_vector_dimensions(services.db, 768)
