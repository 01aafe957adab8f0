"""Numbered pages (`page`, `size`, `reverse`) over the repositories' cursor lists.

The repositories page by cursor; these routes page by number and report a total. Messages,
the list that grows long, are read a numbered page at a time with a count; the other lists are
read in full (a large page at a time, at most MAX_LISTED items) and then cut.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from graph.errors import LimitExceeded
from graph.paging import MAX_LISTED
from graph.records import Page

T = TypeVar("T")

FETCH = 1000  # items per read: few round trips, each bounded
# The last page number asked for: with 100 a page, a billion messages. A larger one would
# skip more rows than the database's 64-bit integers hold.
MAX_PAGE = 10_000_000


class PageQuery(BaseModel):
    page: int = Field(default=1, ge=1, le=MAX_PAGE)
    size: int = Field(default=50, ge=1, le=100)
    reverse: bool = False


async def read_all(fetch: Callable[[str | None, int], Awaitable[Page[T]]]) -> list[T]:
    """Every item of a cursor list, in its order."""
    items: list[T] = []
    after: str | None = None
    while True:
        page = await fetch(after, FETCH)
        items.extend(page.items)
        if len(items) > MAX_LISTED:
            raise LimitExceeded(
                f"this list holds more than {MAX_LISTED} items; narrow it with filters",
                limit="listed",
            )
        if not page.has_next_page or page.end_cursor is None:
            return items
        after = page.end_cursor


def numbered(
    items: Sequence[T], query: PageQuery, shape: Callable[[T], dict[str, Any]]
) -> dict[str, Any]:
    """The `{items, total, page, size, pages}` answer for one page of the whole list `items`."""
    chosen, total = page_slice(items, query)
    return page_of(chosen, query, total, shape)


def page_slice(items: Sequence[T], query: PageQuery) -> tuple[list[T], int]:
    """The items of the page `query` asks for (reversed first if it says so), and how many
    there are in all."""
    ordered = list(reversed(items)) if query.reverse else list(items)
    start = (query.page - 1) * query.size
    return ordered[start : start + query.size], len(ordered)


def page_of(
    chosen: Sequence[T], query: PageQuery, total: int, shape: Callable[[T], dict[str, Any]]
) -> dict[str, Any]:
    """The answer for a page already cut (`chosen`) from a list of `total` items."""
    return {
        "items": [shape(item) for item in chosen],
        "total": total,
        "page": query.page,
        "size": query.size,
        "pages": math.ceil(total / query.size),
    }
