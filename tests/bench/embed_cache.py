"""A directory of embedding vectors kept between runs (``--embed-cache DIR``).

Format, shared with other tools that write the same directory:

- ``<DIR>/<name>.json``: a JSON list of texts;
- ``<DIR>/<name>.npy``: a float32 matrix whose row i is the vector of text i;
- ``<DIR>/MODEL``: one line naming the model every vector came from. Vectors of different
  models must never mix, so a directory whose MODEL names another model is refused; a
  directory without MODEL gets one.

Every pair is read at start. New vectors go to pairs of this run's own
(``bench-<timestamp>-<part>``), written whenever enough have gathered and at the end, each
part holding only what the earlier parts do not, so a crash loses at most one part. Each file
is written under a temporary name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

MODEL_FILE = "MODEL"

Vector = npt.NDArray[np.float32]


class CacheMismatch(RuntimeError):
    """The directory holds vectors of another model or dimension."""


class DiskVectors:
    """Vectors by text, read from a cache directory; new ones appended as new pairs."""

    def __init__(
        self, directory: Path, model: str, dimension: int, *, flush_every: int = 2000
    ) -> None:
        self.directory = directory
        self.model = model.strip()
        self.dimension = dimension
        self.flush_every = flush_every
        self._lock = threading.Lock()
        self._check_model()
        self._rows: dict[str, tuple[int, int]] = {}  # text -> (matrix index, row)
        self._matrices: list[Vector] = []
        self.files = 0
        self._load()
        self.loaded = len(self._rows)
        self._served: set[str] = set()
        self._added: set[str] = set()  # computed in this run (pending or written)
        self._pending_texts: list[str] = []
        self._pending_vectors: list[Vector] = []
        self._stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        self._part = 0
        self.written = 0

    def _check_model(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / MODEL_FILE
        if path.exists():
            recorded = path.read_text(encoding="utf-8").strip()
            if recorded != self.model:
                raise CacheMismatch(
                    f"{self.directory} holds vectors of model {recorded!r}, not {self.model!r}: "
                    "use another --embed-cache directory"
                )
        else:
            _write_atomic(path, (self.model + "\n").encode("utf-8"))

    def _load(self) -> None:
        for text_path in sorted(self.directory.glob("*.json")):
            matrix_path = text_path.with_suffix(".npy")
            if not matrix_path.exists():
                continue
            try:
                texts = json.loads(text_path.read_text(encoding="utf-8"))
                matrix = np.load(matrix_path).astype(np.float32, copy=False)
            except (OSError, ValueError) as exc:  # e.g. a pair another tool is still writing
                print(f"embed cache: {text_path.name} unreadable ({exc}); skipped", file=sys.stderr)
                continue
            if not isinstance(texts, list) or matrix.ndim != 2 or len(texts) != len(matrix):
                print(
                    f"embed cache: {text_path.name} and {matrix_path.name} do not pair up "
                    f"({len(texts)} texts, matrix {matrix.shape}); skipped",
                    file=sys.stderr,
                )
                continue
            if len(texts) and matrix.shape[1] != self.dimension:
                raise CacheMismatch(
                    f"{matrix_path} has {matrix.shape[1]} dimensions, the model {self.dimension}"
                )
            index = len(self._matrices)
            self._matrices.append(matrix)
            self.files += 1
            for row, text in enumerate(texts):
                self._rows.setdefault(str(text), (index, row))

    def get(self, text: str) -> Vector | None:
        with self._lock:
            where = self._rows.get(text)
            if where is None:
                return None
            self._served.add(text)
            index, row = where
            vector: Vector = self._matrices[index][row]
            return vector

    @property
    def served(self) -> int:
        """Distinct texts whose vector came from the directory."""
        return len(self._served)

    def add(self, texts: Sequence[str], vectors: Sequence[Vector]) -> None:
        """Remember new vectors; written as a new pair once ``flush_every`` have gathered."""
        with self._lock:
            for text, vector in zip(texts, vectors, strict=True):
                if text in self._rows or text in self._added:
                    continue
                self._added.add(text)
                self._pending_texts.append(text)
                self._pending_vectors.append(np.asarray(vector, dtype=np.float32))
            due = len(self._pending_texts) >= self.flush_every
        if due:
            self.flush()

    def flush(self) -> Path | None:
        """Write the vectors gathered since the last flush as a new pair; its .json path."""
        with self._lock:
            texts, self._pending_texts = self._pending_texts, []
            vectors, self._pending_vectors = self._pending_vectors, []
            if not texts:
                return None
            self._part += 1
            name = f"bench-{self._stamp}-{self._part:03d}"
        matrix = np.stack(vectors).astype(np.float32)
        npy = self.directory / f"{name}.npy"
        tmp = self.directory / f".{name}.npy.tmp"
        with tmp.open("wb") as handle:
            np.save(handle, matrix)
        os.replace(tmp, npy)
        text_path = self.directory / f"{name}.json"
        _write_atomic(text_path, json.dumps(texts).encode("utf-8"))
        with self._lock:
            self.written += len(texts)
        return text_path


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
