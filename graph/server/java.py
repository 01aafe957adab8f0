"""Finding a Java runtime that can run the managed Neo4j."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from graph.errors import Unavailable
from graph.server.layout import MIN_JAVA, java_major


def find_java(env: Mapping[str, str]) -> str | None:
    java_home = env.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file():
            return str(candidate)
    return shutil.which("java")


def require_java(env: Mapping[str, str]) -> str:
    """The java executable to use, or Unavailable saying what to install."""
    java = find_java(env)
    if java is None:
        raise Unavailable(
            f"Java {MIN_JAVA}+ is needed to run the managed Neo4j: install a JDK 17 or 21 "
            "(e.g. `apt-get install openjdk-17-jre-headless`), or set NEO4J_URI to use a "
            "Neo4j you run yourself"
        )
    result = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    major = java_major(result.stderr + result.stdout)
    if major is None or major < MIN_JAVA:
        raise Unavailable(
            f"{java} is Java {major or 'of unknown version'}; Neo4j 5 needs Java {MIN_JAVA} "
            "or 21: install one and put it first on PATH or in JAVA_HOME"
        )
    return java
