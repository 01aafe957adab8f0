"""The Neo4j jars, gathered once from Maven Central into a shared lib folder."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

from graph.errors import Unavailable
from graph.server.layout import has_jars, maven_command


def _pom() -> Path:
    pom = resources.files("graph.server").joinpath("pom.xml")
    if isinstance(pom, Path) and pom.is_file():
        return pom
    return Path(__file__).parent / "pom.xml"


def ensure_jars(lib: Path, version: str) -> Path:
    """The shared lib folder, filled by Maven the first time."""
    if has_jars(lib):
        return lib
    if shutil.which("mvn") is None:
        raise Unavailable(
            f"Maven is needed once to download the Neo4j {version} jars "
            f"into {lib}: install it (e.g. `apt-get install maven` or `brew install maven`), "
            "or set NEO4J_URI to use a Neo4j you run yourself"
        )
    lib.parent.mkdir(parents=True, exist_ok=True)
    # Download beside the target and rename, so an interrupted download is never used.
    staging = Path(tempfile.mkdtemp(prefix=".lib-", dir=lib.parent))
    try:
        command = maven_command(_pom(), staging, version)
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=1800, check=False
            )
        except subprocess.TimeoutExpired as exc:
            raise Unavailable("Maven did not finish downloading Neo4j in 30 minutes") from exc
        if result.returncode != 0 or not has_jars(staging):
            output = "\n".join((result.stdout + result.stderr).splitlines()[-25:])
            raise Unavailable(
                f"Maven could not download the Neo4j {version} jars "
                f"(exit {result.returncode}); check network access to Maven Central. "
                f"`{' '.join(command)}` said:\n{output}"
            )
        if lib.exists() and not has_jars(lib):
            shutil.rmtree(lib)
        try:
            staging.rename(lib)
        except OSError:
            # Another process finished the same download first; use theirs.
            if not has_jars(lib):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return lib
