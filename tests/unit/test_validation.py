"""`aware`: the times every input passes through before Neo4j sees them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from graph.errors import InvalidInput
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
