"""A peer's name in the words of a belief (pure).

Beliefs about a peer name it: the extractive deriver writes "Alice lives in Paris", and a model
is given the peer's name to write with. When a rename or merge moves them to another peer, the
words follow, so that the same fact stated again under the new name repeats them.
"""

from __future__ import annotations

import re


def renamed(content: str, old: str, new: str) -> str:
    """`content` with each whole-word `old` (any case) written `new`; a name that began the
    text with a capital keeps it ("alice ..." for a peer named "alice" is "Alice ...")."""
    if not old or old == new:
        return content
    # Word boundaries that also hold for names with dots, dashes or at signs in them.
    found = re.compile(r"(?<![\w.@:-])" + re.escape(old) + r"(?![\w@:-]|\.\w)", re.IGNORECASE)

    def write(match: re.Match[str]) -> str:
        said = match.group(0)
        if match.start() == 0 and said[:1].isupper():
            return new[:1].upper() + new[1:]
        return new

    return found.sub(write, content)
