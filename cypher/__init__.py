"""Every Cypher statement of beliefgraph, one per `.cypher` file, behind one cached loader.

Statements live in folders by feature (`messages/`, `queue/`, ...); a statement is named by
its file stem, which is unique across folders, and `cypher/statements.py` lists every name as
the `Statement` literal type, so mypy refuses a call that names a statement that does not
exist (`scripts/cypher_names` regenerates it; a test checks that it is current).

Every statement runs as Cypher 25 (`CYPHER 25` is put in front of its text), whatever the
database's default language: a store upgraded from Neo4j 5 keeps Cypher 5 as its default, and
vector search with filters (`SEARCH ... WHERE`) exists only in Cypher 25.

Statements take values only through `$parameters`; labels and relationship types are never
interpolated. `statement(name)` returns the text typed as `LiteralString` so the driver's
typing accepts it, and `parameters(name)` lists the `$params` it expects, which the runner
checks against what each caller passes.

`Catalog` reads any folder of statements the same way; tests keep their own statements (bench
loaders, counters) under `tests/cypher/`, outside the shipped package.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import LiteralString

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_COMMENT = re.compile(r"//[^\n]*")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
SUFFIX = ".cypher"
LANGUAGE = "CYPHER 25"


class UnknownStatement(KeyError):
    pass


class DuplicateStatement(ValueError):
    """Two files of one catalog share a stem, so a name would be ambiguous."""


def _files(root: Traversable) -> dict[str, Traversable]:
    found: dict[str, Traversable] = {}
    folders = [root]
    while folders:
        folder = folders.pop()
        for entry in folder.iterdir():
            if entry.is_dir():
                folders.append(entry)
            elif entry.name.endswith(SUFFIX):
                name = entry.name.removesuffix(SUFFIX)
                if name in found:
                    raise DuplicateStatement(f"two statements are called {name!r}")
                found[name] = entry
    return found


class Catalog:
    """The statements under one folder, read on first use and cached."""

    def __init__(self, root: Traversable) -> None:
        self._root = root
        self._files: dict[str, Traversable] | None = None
        self._texts: dict[str, LiteralString] = {}

    def _index(self) -> dict[str, Traversable]:
        if self._files is None:
            self._files = _files(self._root)
        return self._files

    def names(self) -> frozenset[str]:
        return frozenset(self._index())

    def folder(self, name: str) -> str:
        """The feature folder a statement lives in ("" at the top)."""
        parts = str(self._file(name)).replace("\\", "/").split("/")
        return parts[-2] if len(parts) > 1 else ""

    def _file(self, name: str) -> Traversable:
        try:
            return self._index()[name]
        except KeyError:
            raise UnknownStatement(f"no statement {name!r}") from None

    def source(self, name: str) -> LiteralString:
        """The statement as its file has it."""
        if name not in self._texts:
            text = self._file(name).read_text(encoding="utf-8")
            # The files ship with the package and are never user input, so they count as
            # literal text for the driver's LiteralString typing.
            literal: LiteralString = text.strip()
            self._texts[name] = literal
        return self._texts[name]

    def statement(self, name: str) -> LiteralString:
        """The statement to run: its source, as Cypher 25."""
        return LANGUAGE + "\n" + self.source(name)

    def parameters(self, name: str) -> frozenset[str]:
        """The `$params` a statement uses (comments and string literals ignored)."""
        text = _STRING.sub("''", _COMMENT.sub("", self.source(name)))
        return frozenset(_PARAM.findall(text))


@cache
def catalog() -> Catalog:
    """The shipped statements (this package's folders)."""
    return Catalog(resources.files(__name__))


def names() -> frozenset[str]:
    return catalog().names()


def statement(name: str) -> LiteralString:
    return catalog().statement(name)


def parameters(name: str) -> frozenset[str]:
    return catalog().parameters(name)
