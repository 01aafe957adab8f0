"""SIGTERM (CI's time limit) tears a test session's fixtures down, as the managed Neo4j's
stop depends on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CONFTEST = """
import pytest
from tests import interrupt

def pytest_configure(config):
    interrupt.install()
"""

HUNG = """
import time
import pytest

@pytest.fixture(scope="session")
def server(tmp_path_factory):
    yield
    open({stopped!r}, "w").write("stopped")

def test_hangs(server):
    open({started!r}, "w").write("started")
    time.sleep(60)
"""


def _session_cut_by_sigterm(tmp_path: Path, conftest: str) -> bool:
    """Whether the session fixture's teardown ran when the session got SIGTERM mid-test."""
    started, stopped = tmp_path / "started", tmp_path / "stopped"
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(conftest)
    (suite / "test_hung.py").write_text(HUNG.format(started=str(started), stopped=str(stopped)))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)]
    with subprocess.Popen(command, cwd=suite, env=env, stdout=subprocess.DEVNULL) as run:
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the test never started"
        run.send_signal(signal.SIGTERM)
        run.wait(timeout=30)
    return stopped.exists()


def test_sigterm_tears_the_session_down(tmp_path: Path) -> None:
    assert _session_cut_by_sigterm(tmp_path, CONFTEST)


def test_without_it_sigterm_skips_the_teardown(tmp_path: Path) -> None:
    """The control: Python's default ends the process with no teardown."""
    assert not _session_cut_by_sigterm(tmp_path, "")
