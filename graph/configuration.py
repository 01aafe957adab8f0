"""The configuration keys Honcho clients read back, held to the types those clients expect,
and what the service reads from them: the switches, a session's value over its workspace's
(`queue_switches`, `dreams_enabled`, `card_used`, `card_created`), and the app's instructions
to each LLM task (`instructions`).

Configuration is free-form JSON: beliefgraph reads `extraction_context` and those keys, and
keeps the rest for the app. But Honcho clients parse the keys they know, with their types,
whenever they read a workspace, session or peer back: one wrong-typed value stored
(`reasoning.enabled: "sometimes"`) made every client call naming that workspace fail, and no
client could set it right again (its own write parses the stored value first). So these keys
are checked when stored; any other top-level key is the app's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from graph.errors import InvalidInput

ConfigKind = Literal["workspace", "session", "peer", "message"]

FLAG, TEXT = "true, false or null", "a string or null"
MAX_COUNT = 1_000_000  # a cadence past any session's length; larger ones lose precision in JSON
COUNT = f"a whole number from 1 to {MAX_COUNT:,} or null"
INSTRUCTIONS = {"custom_instructions": TEXT}
# A known section is an object of exactly these keys (Honcho clients refuse any other).
SECTIONS: dict[str, dict[str, str]] = {
    "reasoning": {"enabled": FLAG, **INSTRUCTIONS},
    "peer_card": {"use": FLAG, "create": FLAG, **INSTRUCTIONS},
    "summary": {
        "enabled": FLAG,
        "messages_per_short_summary": COUNT,
        "messages_per_long_summary": COUNT,
        **INSTRUCTIONS,
    },
    "dream": {"enabled": FLAG, **INSTRUCTIONS},
    "dialectic": INSTRUCTIONS,
}
# Top-level keys with a type, by kind; a section's name maps to None.
TOP: dict[ConfigKind, dict[str, str | None]] = {
    "workspace": {
        **INSTRUCTIONS,
        "extraction_context": TEXT,
        **dict.fromkeys(SECTIONS),
    },
    "session": {**INSTRUCTIONS, **dict.fromkeys(SECTIONS)},
    "peer": {"observe_me": FLAG},
    "message": {"reasoning": None},
}


def _fits(value: Any, kind: str) -> bool:
    if value is None:
        return True
    if kind == FLAG:
        return isinstance(value, bool)
    if kind == COUNT:
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_COUNT
    return isinstance(value, str)


def check_configuration(kind: ConfigKind, configuration: Mapping[str, Any]) -> None:
    """InvalidInput naming the first key whose value a Honcho client could not read."""
    for key, wanted in TOP[kind].items():
        if key not in configuration:
            continue
        value = configuration[key]
        where = f"configuration.{key}"
        if wanted is not None:
            if not _fits(value, wanted):
                raise InvalidInput(f"{where} must be {wanted}, not {value!r}")
            continue
        if value is None:
            continue
        if not isinstance(value, dict):
            raise InvalidInput(f"{where} must be an object or null")
        fields = SECTIONS[key]
        for name, item in value.items():
            if name not in fields:
                known = ", ".join(fields)
                raise InvalidInput(f"{where} has no key {name!r} (it takes {known})")
            if not _fits(item, fields[name]):
                raise InvalidInput(f"{where}.{name} must be {fields[name]}, not {item!r}")


def readable(kind: ConfigKind, configuration: Mapping[str, Any]) -> dict[str, Any]:
    """`configuration` without what a Honcho client could not read (a value stored before
    these checks): known keys of the wrong type, and unknown keys inside known sections."""
    kept: dict[str, Any] = {}
    for key, value in configuration.items():
        wanted = TOP[kind].get(key, "")
        if wanted == "":  # the app's own key
            kept[key] = value
        elif wanted is not None:
            if _fits(value, wanted):
                kept[key] = value
        elif value is None:
            kept[key] = None
        elif isinstance(value, dict):
            fields = SECTIONS[key]
            kept[key] = {n: v for n, v in value.items() if n in fields and _fits(v, fields[n])}
    return kept


# The most frequent summaries a client's configuration can ask for: each is an LLM call on the
# operator's key (a cadence of 1 made a summary job of every message). The operator's own
# BELIEFGRAPH_SUMMARY_*_EVERY is not held to these.
MIN_SHORT_EVERY = 10
MIN_LONG_EVERY = 20


Configuration = Mapping[str, Any]


def _pick(section: str, key: str, *levels: Configuration) -> Any:
    """The first level's value of `section.key` that is set, most specific level first. A value
    a client could not have stored (see `readable`) counts as unset."""
    for configuration in levels:
        value = readable("session", configuration).get(section)
        if isinstance(value, dict) and value.get(key) is not None:
            return value[key]
    return None


@dataclass(frozen=True)
class QueueSwitches:
    """What a session's new messages queue, by the Honcho switches of the session and its
    workspace: `reasoning.enabled` (derivation), `summary.enabled` and the summaries' cadence
    (`messages_per_short_summary`, `messages_per_long_summary`). None: the service's settings."""

    derive: bool = True
    summarize: bool = True
    short_every: int | None = None
    long_every: int | None = None


def queue_switches(workspace: Configuration, session: Configuration) -> QueueSwitches:
    """The session's own value of each switch, else the workspace's, else the default (pure)."""
    short = _pick("summary", "messages_per_short_summary", session, workspace)
    long = _pick("summary", "messages_per_long_summary", session, workspace)
    return QueueSwitches(
        derive=_pick("reasoning", "enabled", session, workspace) is not False,
        summarize=_pick("summary", "enabled", session, workspace) is not False,
        short_every=None if short is None else max(short, MIN_SHORT_EVERY),
        long_every=None if long is None else max(long, MIN_LONG_EVERY),
    )


def observes_itself(peer: Configuration) -> bool:
    """A peer's own `observe_me`: false, and no view of the peer by itself is derived in any
    session (a session member's `observe_me` can turn it off in one session, not back on)."""
    return readable("peer", peer).get("observe_me") is not False


def message_instructions(configuration: Configuration) -> str | None:
    """A message's own `reasoning.custom_instructions` (what its configuration may hold; a
    top-level key there is the app's, unchecked, and not read)."""
    return joined(_pick("reasoning", "custom_instructions", configuration))


def message_derives(configuration: Configuration | None) -> bool | None:
    """A message's own `reasoning.enabled` (None: unset, its session's decides)."""
    return None if configuration is None else _pick("reasoning", "enabled", configuration)


def dreams_enabled(*levels: Configuration) -> bool:
    """`dream.enabled`, most specific level first: false keeps the new beliefs of the levels'
    messages from triggering a dream (by count or when idle). A dream the app asks for still
    runs, and any dream reads every undreamed belief of its view, wherever it came from."""
    return _pick("dream", "enabled", *levels) is not False


def card_used(*levels: Configuration) -> bool:
    """`peer_card.use`: false leaves the card out of what `context` and the dialectic read."""
    return _pick("peer_card", "use", *levels) is not False


def card_created(workspace: Configuration) -> bool:
    """`peer_card.create` of the workspace (cards are written by dreams, which span sessions):
    false, and no dream writes a card there."""
    return _pick("peer_card", "create", workspace) is not False


# The LLM tasks whose prompt takes the app's instructions, by their section's name.
Task = Literal["reasoning", "summary", "dialectic", "dream", "peer_card"]


def joined(*texts: object) -> str | None:
    """The texts that are non-blank strings, stripped, as paragraphs; None if there are none."""
    found = [t.strip() for t in texts if isinstance(t, str) and t.strip()]
    return "\n\n".join(found) or None


def instructions(configuration: Configuration, *tasks: Task) -> str | None:
    """The instructions one level (a workspace's or a session's configuration) gives the LLM
    tasks named: its top-level `custom_instructions`, then each task's section's, joined; None
    if none is set."""
    kept = readable("session", configuration)
    sections = [kept.get(task) for task in tasks]
    return joined(
        kept.get("custom_instructions"),
        *(s.get("custom_instructions") for s in sections if isinstance(s, dict)),
    )
