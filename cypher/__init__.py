"""Every Cypher statement of beliefgraph, one per `.cypher` file, behind one cached loader.

Statements take values only through `$parameters`; labels and relationship types are never
interpolated (the per-scope labels of graph/repo/scope_index.py go through Cypher's own dynamic
label parameter, `SET o:$($label)`). `statement(name)` returns the text typed as
`LiteralString` so the driver's typing accepts it, and `parameters(name)` lists the `$params`
it expects, which the runner checks against what each caller passes.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import LiteralString

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


class UnknownStatement(KeyError):
    pass


@cache
def names() -> frozenset[str]:
    """Names of all statements (file stems)."""
    root = resources.files(__name__)
    return frozenset(
        entry.name.removesuffix(".cypher")
        for entry in root.iterdir()
        if entry.name.endswith(".cypher")
    )


@cache
def statement(name: str) -> LiteralString:
    if name not in names():
        raise UnknownStatement(f"no cypher/{name}.cypher")
    text = resources.files(__name__).joinpath(f"{name}.cypher").read_text(encoding="utf-8")
    # The files ship with the package and are never user input, so they count as literal
    # text for the driver's LiteralString typing (mypy treats the two as the same type).
    literal: LiteralString = text.strip()
    return literal


@cache
def parameters(name: str) -> frozenset[str]:
    """The `$params` a statement uses (comments and string literals ignored)."""
    text = _STRING.sub("''", _COMMENT.sub("", statement(name)))
    return frozenset(_PARAM.findall(text))
