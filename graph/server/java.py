"""Finding a Java runtime that can run the managed Neo4j (Java 21 or later).

Looked for, in order: `JAVA_HOME`, `java` on the PATH, then the JDKs installed where systems
keep them (Debian's /usr/lib/jvm, macOS's JavaVirtualMachines, /opt/java), newest first. A
runtime older than MIN_JAVA is skipped; when none fits, the error lists what was found and
says what to install.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from graph.errors import Unavailable
from graph.server.layout import MIN_JAVA, java_major

JVM_ROOTS: tuple[str, ...] = (
    "/usr/lib/jvm/*/bin/java",
    "/Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java",
    "/opt/java/*/bin/java",
)


@dataclass(frozen=True)
class Java:
    path: str
    version: int


def java_version(path: str) -> int | None:
    try:
        result = subprocess.run(
            [path, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return java_major(result.stderr + result.stdout)


def _installed(patterns: Sequence[str]) -> list[str]:
    found: list[str] = []
    for pattern in patterns:
        root, _, rest = pattern.partition("*")
        base = Path(root)
        if base.is_dir():
            found += sorted(str(p) for p in base.glob("*" + rest) if p.is_file())
    return found


def candidates(
    env: Mapping[str, str], roots: Sequence[str] = JVM_ROOTS
) -> Iterator[tuple[str, bool]]:
    """(path, chosen) of each java executable found, most preferred first, without duplicates;
    `chosen` marks the ones the user pointed at (JAVA_HOME, PATH)."""
    seen: set[str] = set()
    java_home = env.get("JAVA_HOME")
    listed = [(str(Path(java_home) / "bin" / "java"), True)] if java_home else []
    on_path = shutil.which("java", path=env.get("PATH"))
    listed += [(on_path, True)] if on_path else []
    listed += [(path, False) for path in _installed(roots)]
    for path, chosen in listed:
        real = str(Path(path).resolve())
        if real not in seen and Path(path).is_file():
            seen.add(real)
            yield path, chosen


def find_java(env: Mapping[str, str], roots: Sequence[str] = JVM_ROOTS) -> Java:
    """The preferred Java of MIN_JAVA or later: JAVA_HOME or PATH when they fit, else the
    newest installed one. Raises Unavailable naming what was found and what to install."""
    seen: list[tuple[Java, bool]] = []
    for path, chosen in candidates(env, roots):
        version = java_version(path)
        if version is not None:
            seen.append((Java(path, version), chosen))
    preferred = [j for j, chosen in seen if chosen and j.version >= MIN_JAVA]
    installed = sorted(
        (j for j, chosen in seen if not chosen and j.version >= MIN_JAVA), key=lambda j: -j.version
    )
    usable = preferred or installed
    if usable:
        return usable[0]
    found = ", ".join(f"{j.path} (Java {j.version})" for j, _ in seen) or "no Java at all"
    raise Unavailable(
        f"the managed Neo4j needs Java {MIN_JAVA} or later; found {found}. Install a JDK "
        f"{MIN_JAVA}+ (e.g. Eclipse Temurin 21 or 25 from adoptium.net, or your system's "
        f"openjdk-{MIN_JAVA}-jre-headless package) and set JAVA_HOME to it, or set NEO4J_URI "
        "to use a Neo4j you run yourself"
    )
