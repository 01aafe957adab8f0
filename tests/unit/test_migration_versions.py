"""A graph written by a newer release is refused, not written in an older layout."""

from __future__ import annotations

from typing import Any

import pytest

from graph.errors import Unavailable
from graph.migrations import SCHEMA_VERSION, migrate

pytestmark = pytest.mark.unit


async def test_a_newer_layout_is_refused_before_anything_is_read() -> None:
    """An older release started on it with no warning and wrote times in the old form, which
    the newer one, already at its layout, never moved to UTC."""
    db: Any = None  # nothing may be read or written
    with pytest.raises(Unavailable, match=f"layout {SCHEMA_VERSION + 1}.*newer beliefgraph"):
        await migrate(db, SCHEMA_VERSION + 1)
    await migrate(db, SCHEMA_VERSION)  # the current layout: nothing to do
