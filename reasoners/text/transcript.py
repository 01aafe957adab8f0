"""Conversation turns rendered for a prompt (pure), the same way for every reasoner:

    [3] alice *TARGET* at 2024-05-03 14:03 UTC (Friday):
        I moved to Berlin last year.

a label (index, speaker, role), an absolute timestamp the model resolves relative dates
against, and the text indented by four spaces. The indentation keeps a message that itself
contains "[7] bob ..." from passing for a new message; the grounding check collapses whitespace,
so a span copied across an indented line break still matches.
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol

INDENT = "    "


class SpokenMessage(Protocol):
    """What a prompt needs of a message."""

    @property
    def peer(self) -> str: ...

    @property
    def content(self) -> str: ...

    @property
    def created_at(self) -> dt.datetime: ...


def minute(moment: dt.datetime) -> str:
    """'2024-05-03 14:02 UTC'; a naive datetime is taken to be UTC already. Not strftime: its
    %Y writes the year 1 as "1"."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return f"{moment.isoformat(sep=' ', timespec='minutes')[:16]} UTC"


def render_timestamp(moment: dt.datetime) -> str:
    """'2024-05-03 14:02 UTC (Friday)'; a naive datetime is taken to be UTC already."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return f"{minute(moment)} ({moment:%A})"


def indented(text: str) -> str:
    lines = text.strip("\n").splitlines() or [""]
    return "\n".join(INDENT + line if line.strip() else "" for line in lines)


def render_turn(message: SpokenMessage, label: str) -> str:
    return f"{label} at {render_timestamp(message.created_at)}:\n{indented(message.content)}"
