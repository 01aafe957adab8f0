"""The memory bench's disk memo of vectors (``--embed-cache``): files other tools wrote are
read as they are, new vectors come back in a later run, and another model's directory is
refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.bench.embed_cache import MODEL_FILE, CacheMismatch, DiskVectors
from tests.bench.retrieval import MemoEmbedder
from tests.fakes.embedder import CountingEmbedder

pytestmark = pytest.mark.unit


def _pair(directory: Path, name: str, texts: list[str], rows: list[list[float]]) -> None:
    (directory / f"{name}.json").write_text(json.dumps(texts), encoding="utf-8")
    np.save(directory / f"{name}.npy", np.asarray(rows, dtype=np.float32))


def test_vectors_written_by_one_run_serve_the_next(tmp_path: Path) -> None:
    _pair(tmp_path, "plain", ["old"], [[9.0, 9.0]])  # written by another tool, no MODEL file
    disk = DiskVectors(tmp_path, "mini", 2, flush_every=2)
    assert (tmp_path / MODEL_FILE).read_text(encoding="utf-8").strip() == "mini"
    first = CountingEmbedder()
    memo = MemoEmbedder(first, disk=disk)
    assert memo.matrix(["old", "ab", "abc"]).tolist() == [[9.0, 9.0], [2.0, 1.0], [3.0, 1.0]]
    assert first.calls == [["ab", "abc"]]  # "old" came from the directory
    assert disk.written == 2  # flush_every reached: already on disk
    memo.embed(["abcd"])
    disk.flush()
    assert disk.served == 1 and disk.written == 3

    again = DiskVectors(tmp_path, "mini", 2)
    assert again.loaded == 4 and again.files == 3
    second = CountingEmbedder()
    memo = MemoEmbedder(second, disk=again)
    assert memo.embed(["abcd", "ab", "old"]) == [[4.0, 1.0], [2.0, 1.0], [9.0, 9.0]]
    assert second.calls == [] and memo.computed == 0
    assert again.served == 3
    assert again.flush() is None  # nothing new: no empty pair


def test_a_directory_of_another_model_is_refused(tmp_path: Path) -> None:
    DiskVectors(tmp_path, "mini", 2)
    with pytest.raises(CacheMismatch, match="'mini', not 'other'"):
        DiskVectors(tmp_path, "other", 2)


def test_a_matrix_of_another_dimension_is_refused(tmp_path: Path) -> None:
    _pair(tmp_path, "wide", ["a"], [[1.0, 2.0, 3.0]])
    with pytest.raises(CacheMismatch, match="3 dimensions"):
        DiskVectors(tmp_path, "mini", 2)


def test_pairs_that_do_not_match_are_skipped(tmp_path: Path) -> None:
    _pair(tmp_path, "cut", ["a", "b"], [[1.0, 1.0]])  # a crash between the two files
    (tmp_path / "lonely.json").write_text('["c"]', encoding="utf-8")
    _pair(tmp_path, "torn", ["d"], [[1.0, 1.0]])
    (tmp_path / "torn.json").write_text('["d", "e', encoding="utf-8")  # being written
    disk = DiskVectors(tmp_path, "mini", 2)
    assert disk.loaded == 0 and disk.files == 0
    assert disk.get("a") is None
