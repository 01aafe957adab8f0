"""Helpers shared by the bench commands: machine facts, percentiles, tables, report sections."""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPORT_HEADER = (
    "# Benchmarks\n\nEach section is written by its bench command and compares against a "
    "baseline measured in the same run.\n\n"
)


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"cores": os.cpu_count(), "python": platform.python_version()}
    try:
        meminfo = Path("/proc/meminfo").read_text(encoding="utf-8")
        match = re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.MULTILINE)
        if match:
            info["ram_gib"] = round(int(match.group(1)) / 1024 / 1024, 1)
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
        if model:
            info["cpu"] = model.group(1).strip()
    except OSError:
        pass
    return info


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def markers(name: str) -> tuple[str, str]:
    return f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"


def write_section(path: Path, name: str, body: str) -> None:
    """Replace this bench's section of the report (between its markers), keeping the others."""
    start_mark, end_mark = markers(name)
    section = f"{start_mark}\n{body.strip()}\n{end_mark}"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        start, end = text.find(start_mark), text.find(end_mark)
        if start != -1 and end > start:
            text = text[:start] + section + text[end + len(end_mark) :]
        else:
            text = text.rstrip("\n") + "\n\n" + section + "\n"
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = REPORT_HEADER + section + "\n"
    path.write_text(text, encoding="utf-8")
