"""`aware`: the times every input passes through before Neo4j sees them; `to_datetime`: every
time read back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from neo4j.time import DateTime

from graph.errors import InvalidInput
from graph.records import to_datetime
from graph.validation import aware, check_name


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ("2024-01-01T00:00:00+02:00", timedelta(0)),  # one instant, compared as such
        ("2024-01-01T00:00:00-18:00", timedelta(0)),
        ("2024-01-01T00:00:00+23:59", timedelta(0)),  # beyond what Neo4j stores
        ("2024-01-01T00:00:00+05:30:15", timedelta(0)),  # seconds
        ("2024-01-01T00:00:00", timedelta(0)),  # naive
    ],
)
def test_times_keep_their_instant_in_utc(text: str, offset: timedelta) -> None:
    given = datetime.fromisoformat(text)
    taken = aware(given)
    assert taken is not None and taken.utcoffset() == offset
    assert taken == (given if given.tzinfo else given.replace(tzinfo=UTC))


def test_a_time_utc_cannot_hold_is_refused() -> None:
    with pytest.raises(InvalidInput):
        aware(datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-23))))


@pytest.mark.parametrize("name", [".", ".."])
def test_a_name_that_is_a_url_path_step_is_refused(name: str) -> None:
    """A peer named "." was created, then unreachable: clients' URLs drop the segment."""
    with pytest.raises(InvalidInput, match="cannot be in a URL path"):
        check_name(name, "peer")
    assert check_name("...", "peer") == "..." and check_name(".alice", "peer") == ".alice"


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris"])
def test_a_time_read_back_is_at_offset_z_whatever_its_stored_zone(zone: str) -> None:
    """Written back, a time read under a zone name kept that name, and Cypher does not count it
    equal to the same instant at Z."""
    stored = DateTime(2024, 1, 5, 12, 0, 0, tzinfo=ZoneInfo(zone))
    read = to_datetime(stored)
    assert read is not None and read.tzinfo is UTC
    assert read == stored.to_native()
