"""The managed Neo4j's admin password: generated once into a 0600 file, then given to Neo4j
before its first start."""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from pathlib import Path

from graph.errors import Unavailable
from graph.server.java import Java
from graph.server.layout import (
    PASSWORD_PATTERN,
    InstancePaths,
    admin_env,
    set_password_command,
)


def read_or_create_password(paths: InstancePaths) -> str:
    """The admin password, generated into a 0600 file the first time."""
    path = paths.password_file
    if not path.exists():
        if paths.system_database.exists():
            raise Unavailable(
                f"{path} is missing but {paths.data} already holds a database whose "
                f"password is set: restore the file, or delete {paths.data} to start "
                "over with an empty database"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process wrote it first
        else:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(secrets.token_urlsafe(24) + "\n")
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
    password = path.read_text(encoding="utf-8").strip()
    if not PASSWORD_PATTERN.fullmatch(password):
        raise Unavailable(
            f"{path} must hold one password of 8+ characters from A-Z a-z 0-9 _.~+=!%^*,:-"
        )
    return password


def set_initial_password(paths: InstancePaths, java: Java, password: str) -> None:
    fd, name = tempfile.mkstemp(prefix=".admin-", suffix=".args", dir=paths.root)
    argfile = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            # `--` ends the options: a password may start with "-" (a generated one does
            # 1 time in 64), and would otherwise read as an unknown option.
            handle.write(f"dbms\nset-initial-password\n--\n{password}\n")
        result = subprocess.run(
            set_password_command(paths, argfile, java.path, java.version),
            env=admin_env(paths, os.environ),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        argfile.unlink(missing_ok=True)
    if result.returncode != 0:
        # The cause comes first; a usage text may follow it.
        output = "\n".join((result.stderr + result.stdout).splitlines()[:15])
        raise Unavailable(f"could not set the initial Neo4j password:\n{output}")
