"""What a managed Neo4j's log files say when a start goes wrong: pure readers of its folder."""

from __future__ import annotations

from pathlib import Path

from graph.server.layout import InstancePaths
from graph.server.probe import tail


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def rotate_console_log(paths: InstancePaths) -> None:
    # Keep the previous run's console output: it explains the last crash.
    if paths.console_log.exists():
        paths.console_log.replace(paths.logs / "console.log.1")


def log_tails(paths: InstancePaths) -> str:
    parts = []
    for path in (paths.console_log, paths.logs / "neo4j.log"):
        text = tail(path)
        if text:
            parts.append(f"--- {path} ---\n{text}")
    return "\n".join(parts) or f"(no output in {paths.logs})"


def start_failure(debug_log: Path, start_offset: int) -> str | None:
    """The lines of debug.log, from `start_offset` (its size when this start began), where the
    database says it failed to start (a corrupt store): Neo4j itself runs on, and a wait for it
    would last its whole timeout."""
    try:
        with debug_log.open("rb") as handle:
            handle.seek(start_offset if file_size(debug_log) >= start_offset else 0)
            text = handle.read(1_000_000).decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = text.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if " ERROR " in line and "Failed to start" in line),
        None,
    )
    if start is None:
        return None
    # The ERROR line, then its exception's message and causes (not the stack frames),
    # up to the next line of the log.
    said = [lines[start]]
    for line in lines[start + 1 :]:
        if line[:4].isdigit():
            break
        if not line.startswith(("\tat ", "\t...")) and len(said) < 8:
            said.append(line.strip())
    return "\n".join(said)
