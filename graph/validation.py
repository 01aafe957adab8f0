"""Input checks shared by the repositories (pure)."""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Sequence
from datetime import UTC, datetime

from graph.errors import InvalidInput, LimitExceeded

_NAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,100}$")


def check_name(value: str, what: str) -> str:
    if not _NAME.fullmatch(value):
        raise InvalidInput(
            f"{what} {value!r} is not a valid name: use 1-100 letters, digits or _ . : @ -"
        )
    if value in (".", ".."):  # a URL path segment of its own: clients' URLs drop it
        raise InvalidInput(f"{what} {value!r} is not a valid name: it cannot be in a URL path")
    return value


MAX_PATH_CHARS = 512
# Controls (C0 and C1), invisible format characters (zero-width, bidirectional overrides, a
# byte order mark), and line and paragraph separators: a path shown to a person must read as
# what it is.
_UNSEEN = frozenset({"Cc", "Cf", "Zl", "Zp"})


def check_stored_path(path: str) -> str:
    """A path that names a file to read, change or delete: text of a path's length. Files
    stored before a rule of `check_path` existed stay reachable."""
    check_text(path, "path")
    if not path or len(path) > MAX_PATH_CHARS:
        raise InvalidInput(f"path: 1 to {MAX_PATH_CHARS} characters, not {len(path)}")
    return path


def check_path(path: str) -> str:
    """A file path: relative, `/`-separated, no empty, `.` or `..` segments, printable."""
    check_text(path, "path")
    if not path:
        raise InvalidInput("path: empty; give a relative path such as notes/todo.md")
    if len(path) > MAX_PATH_CHARS:
        raise InvalidInput(f"path: {len(path)} characters; the limit is {MAX_PATH_CHARS}")
    if path.startswith("/"):
        raise InvalidInput(f"path {path!r} must be relative: drop the leading '/'")
    if "\\" in path or any(unicodedata.category(c) in _UNSEEN for c in path):
        raise InvalidInput(
            f"path {path!r} has a backslash, or a control or invisible formatting character "
            "(a line break, a zero-width space, a right-to-left override); use '/'"
        )
    # Look-alikes: "résumé" composed and decomposed, or "my notes" with a no-break or
    # ideographic space, read the same and would be different files.
    if any(unicodedata.category(c) == "Zs" and c != " " for c in path):
        raise InvalidInput(f"path {path!r} has a space other than ' ' (a no-break space, say)")
    if not unicodedata.is_normalized("NFC", path):
        raise InvalidInput(
            f"path {path!r} is not in Unicode NFC form: send accents composed "
            "(unicodedata.normalize('NFC', path))"
        )
    for segment in path.split("/"):
        if segment in {"", ".", ".."}:
            raise InvalidInput(
                f"path {path!r} has an empty, '.' or '..' segment; use names between single '/'"
            )
        if segment != segment.strip():
            raise InvalidInput(f"path {path!r}: a segment starts or ends with whitespace")
    return path


# Longest search text or question: far beyond any real question, short enough that embedding
# and Lucene parsing stay cheap.
MAX_QUERY_CHARS = 2000
# Longest question to the dialectic (Honcho's limit): its searches read the first
# MAX_QUERY_CHARS of it.
MAX_QUESTION_CHARS = 10_000
# Peers one membership change may name (create, add, set, remove): a session with more is
# built in several calls, and no call can hold a worker for minutes creating peers.
MAX_PEERS_PER_CHANGE = 100


def check_query(text: str, what: str = "query", limit: int = MAX_QUERY_CHARS) -> str:
    """A search text or question, stripped; refused when empty or over `limit` characters."""
    stripped = text.strip()
    if not stripped:
        raise InvalidInput(f"{what}: empty")
    if len(text) > limit:
        raise InvalidInput(f"{what}: {len(text)} characters; the limit is {limit}")
    return stripped


def is_text(value: str) -> bool:
    """False for strings that are not valid Unicode text: a lone surrogate (what a JSON or
    GraphQL escape such as \\ud800 decodes to) cannot be stored or sent on."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_text(value: str, what: str) -> str:
    if not is_text(value):
        raise InvalidInput(f"{what} is not valid Unicode text (it holds a lone surrogate)")
    return value


def without_nul(text: str) -> str:
    """A message's text without NUL characters: they carry nothing a reader sees, and every
    entry point (GraphQL, REST, an upload) stores the same text for the same input."""
    return text.replace("\x00", "")


def check_limit(limit: int | None, maximum: int, default: int = 20) -> int:
    if limit is None:
        return min(default, maximum)
    if limit < 1 or limit > maximum:
        raise InvalidInput(f"first/limit must be between 1 and {maximum}, not {limit}")
    return limit


def aware(value: datetime | None) -> datetime | None:
    """The same instant in UTC (a naive time is taken as UTC). Neo4j orders two datetimes of
    one instant by their offsets (12:00+02:00 sorts after 10:00Z), so a bound and a stored
    time written in different offsets compared wrongly at that instant; every time in UTC
    compares by its instant alone. A time UTC cannot hold (0001-01-01T00:00:00+14:00 is in
    year 0) is InvalidInput."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise InvalidInput(f"{value.isoformat()} is outside the years 1 to 9999 in UTC") from exc


def now() -> datetime:
    return datetime.now(UTC)


MAX_IDS_PER_CALL = 1000  # message or job ids one call names (a deletion, a purge, a retry)


def check_id_count(ids: Sequence[str], what: str) -> None:
    """At most MAX_IDS_PER_CALL ids (LimitExceeded otherwise): each is read or written in the
    call's one transaction, so the list bounds its size."""
    if len(ids) > MAX_IDS_PER_CALL:
        raise LimitExceeded(
            f"{what}: {len(ids)} ids in one call; the limit is {MAX_IDS_PER_CALL}", limit="ids"
        )


def check_peer_count(names: Sequence[str]) -> None:
    """At most MAX_PEERS_PER_CHANGE peers (LimitExceeded otherwise)."""
    if len(names) > MAX_PEERS_PER_CHANGE:
        raise LimitExceeded(
            f"peers: {len(names)} in one change; the limit is {MAX_PEERS_PER_CHANGE}",
            limit="peers",
        )


# Python's own limit on the digits of a whole number read from text.
MAX_INT_DIGITS = 4300


def _no_constant(name: str) -> object:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def _whole(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(
            f"a whole number of {digits} digits is too long (at most {MAX_INT_DIGITS})"
        )
    return int(text)


def strict_json(text: str) -> object:
    """JSON as clients can read it back: NaN, Infinity and numbers too large for a float (which
    Python reads as infinity and writes as `Infinity`) raise ValueError, and so do whole numbers
    past Python's conversion limit (whose own message gave advice on Python's settings)."""
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite, parse_int=_whole)
