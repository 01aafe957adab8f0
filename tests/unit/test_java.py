"""Finding Java 21+ for the managed Neo4j: JAVA_HOME, the PATH, then installed JDKs."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from graph.errors import Unavailable
from graph.server.java import find_java

pytestmark = pytest.mark.unit


def fake_java(root: Path, name: str, version: str) -> Path:
    """An executable that answers `-version` like a JDK of that version."""
    java = root / name / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2025-01-01' >&2\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    return java


def test_java_home_wins_when_it_is_new_enough(tmp_path: Path) -> None:
    home = fake_java(tmp_path, "home", "21.0.5")
    fake_java(tmp_path / "jvm", "temurin-25", "25.0.1")
    found = find_java(
        {"JAVA_HOME": str(home.parent.parent), "PATH": ""}, roots=[f"{tmp_path}/jvm/*/bin/java"]
    )
    assert (found.path, found.version) == (str(home), 21)


def test_an_old_default_java_is_passed_over_for_an_installed_jdk(tmp_path: Path) -> None:
    old = fake_java(tmp_path, "old", "17.0.15")
    fake_java(tmp_path / "jvm", "java-21", "21.0.4")
    newest = fake_java(tmp_path / "jvm", "temurin-25", "25.0.3")
    found = find_java({"PATH": str(old.parent)}, roots=[f"{tmp_path}/jvm/*/bin/java"])
    assert (found.path, found.version) == (str(newest), 25)


def test_no_suitable_java_says_what_was_found_and_what_to_install(tmp_path: Path) -> None:
    old = fake_java(tmp_path, "old", "17.0.15")
    with pytest.raises(Unavailable) as error:
        find_java({"PATH": str(old.parent)}, roots=[f"{tmp_path}/none/*/bin/java"])
    message = error.value.message
    assert "Java 21 or later" in message and "(Java 17)" in message and "JAVA_HOME" in message
