"""The catalog's files: typed names kept current, unique stems, folders by feature."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import get_args

import pytest

import cypher
from cypher.statements import Statement

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> object:
    spec = importlib.util.spec_from_file_location("cypher_names", ROOT / "scripts/cypher_names.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_statement_type_names_every_statement() -> None:
    assert set(get_args(Statement)) == cypher.names()
    rendered = _generator().render()  # type: ignore[attr-defined]
    current = (ROOT / "cypher" / "statements.py").read_text(encoding="utf-8")
    assert rendered == current, "run scripts/cypher_names.py"


def test_statements_live_in_feature_folders() -> None:
    catalog = cypher.catalog()
    folders = {catalog.folder(name) for name in catalog.names()}
    assert "" not in folders, "a statement sits at the top of cypher/: put it in a folder"
    assert {"schema", "messages", "observations", "queue", "search"} <= folders


def test_two_files_with_one_stem_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "same.cypher").write_text("RETURN 1")
    (tmp_path / "b" / "same.cypher").write_text("RETURN 2")
    with pytest.raises(cypher.DuplicateStatement):
        cypher.Catalog(tmp_path).names()


def test_parameters_ignore_comments_and_strings(tmp_path: Path) -> None:
    (tmp_path / "s.cypher").write_text(
        "// $not_this\nMATCH (n {x: '$nor_this'}) WHERE n.y = $y RETURN n"
    )
    catalog = cypher.Catalog(tmp_path)
    assert catalog.parameters("s") == {"y"}
    with pytest.raises(cypher.UnknownStatement):
        catalog.statement("missing")
