"""A peer's name in the words of a belief (pure).

Beliefs about a peer name it where the deriver puts it: as the subject, "Alice lives in Paris",
"Alice's sister ...", or at the start of a later clause, "Alice just moved, alice lives in
Berlin now". When a rename or merge moves them to another peer, that name follows, so that the
same fact stated again under the new name repeats them. The name is not written anew anywhere
else: "Alicia Smith" as her full name, an address or a word the name happens to spell stay.
"""

from __future__ import annotations

import re

# Where a subject starts: the text's start, or a clause's after a comma or semicolon.
_CLAUSE_START = r"(?:^|(?<=[,;] ))"
# What follows a subject's name: a space, or the possessive.
_AFTER_SUBJECT = r"(?='s |\u2019s | )"


def renamed(content: str, old: str, new: str) -> str:
    """`content` with `old` as a subject (as written, or with a capital first letter) written
    `new`, capitalised where it was."""
    if not old or old == new:
        return content
    spellings = sorted({old, _capitalised(old)}, key=len, reverse=True)
    found = re.compile(
        _CLAUSE_START + "(?:" + "|".join(re.escape(s) for s in spellings) + ")" + _AFTER_SUBJECT
    )

    def write(match: re.Match[str]) -> str:
        said = match.group(0)
        return _capitalised(new) if said != old else new

    return found.sub(write, content)


def _capitalised(name: str) -> str:
    return name[:1].upper() + name[1:]
