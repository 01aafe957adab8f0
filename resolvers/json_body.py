"""Request JSON, read strictly, for both HTTP surfaces (GraphQL and the Honcho-compatible REST).

Python's parser accepts more than JSON: the constants NaN, Infinity and -Infinity, and numbers
too large for a float, which it reads as infinity. None of them can be answered again (a JSON
response refuses them), so one stored in metadata would break every later read that returns
it. They are refused here with the other malformed bodies: nesting deeper than the parser can
take, and strings that are not valid Unicode.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graph.errors import InvalidInput, LimitExceeded
from graph.validation import is_text, strict_json

# Deeper JSON than any request needs (metadata maps included), and far below the recursion
# depth at which the JSON parser itself would fail.
MAX_JSON_DEPTH = 64
# Longer lists than any request needs (a batch holds 100 messages): GraphQL turns each item of a
# variable into its type on the event loop, and 700,000 of them held it for three seconds.
MAX_LIST_ITEMS = 10_000
# Bodies longer than this are parsed in a thread of their own: a few megabytes of small arrays
# take about a second of CPU, which on the event loop would hold every other request meanwhile.
# One body at a time: the C parser holds the interpreter for its whole run (0.4 s for 4 MB),
# so eight at once in eight threads kept the loop out for seconds; queued, the loop runs
# between them. (The depth check stays a Python loop: it lets go of the interpreter every few
# milliseconds, where regular expressions over the text held it for as long as the parser.)
THREAD_PARSE_BYTES = 64 * 1024
_PARSER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="json-body")
# A lone surrogate can reach a parsed string only through a \u escape: UTF-8 bodies are decoded
# strictly. Bodies without one are not walked string by string.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON `text`, in one pass (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def longest_list(value: Any) -> int:
    """The most items any array in `value` holds."""
    longest, stack = 0, [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            longest = max(longest, len(item))
            stack.extend(item)
    return longest


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse_json(raw: bytes | str, what: str) -> Any:
    """JSON with finite numbers and every string valid Unicode; InvalidInput (LimitExceeded for
    nesting) saying what is wrong."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInput(f"{what} is not UTF-8") from exc
    else:
        text = raw
    if json_depth(text) > MAX_JSON_DEPTH:
        raise LimitExceeded(
            f"{what} nests arrays and objects deeper than {MAX_JSON_DEPTH} levels", limit="depth"
        )
    try:
        value = strict_json(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidInput(f"{what} is not valid JSON: {exc}") from exc
    if (isinstance(raw, str) or _SURROGATE_ESCAPE.search(text)) and not all(
        is_text(s) for s in _strings(value)
    ):
        raise InvalidInput(f"{what} holds a string that is not valid Unicode (a lone surrogate)")
    # Each item takes at least two characters ("1,"): shorter texts cannot hold too many.
    if len(text) > 2 * MAX_LIST_ITEMS and longest_list(value) > MAX_LIST_ITEMS:
        raise LimitExceeded(
            f"{what} holds a list of more than {MAX_LIST_ITEMS} items", limit="list_items"
        )
    return value


async def parse_json_body(raw: bytes | str, what: str) -> Any:
    """`parse_json` of a request body (or query-string value), off the event loop when long."""
    if len(raw) > THREAD_PARSE_BYTES:
        return await asyncio.get_running_loop().run_in_executor(_PARSER, parse_json, raw, what)
    return parse_json(raw, what)
