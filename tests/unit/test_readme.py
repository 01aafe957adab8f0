"""The README starts with the two commands and documents every setting."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graph.settings import documented_settings
from reasoners.llm.config import LLM_SETTINGS

pytestmark = pytest.mark.unit
README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_the_two_commands_come_first() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README, re.DOTALL)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines()]
    assert commands == ["scripts/serve", "scripts/test"]
    assert README.index("```bash") < README.index("## ")


def test_every_setting_is_documented() -> None:
    missing = [
        env for env, _, _ in [*documented_settings(), *LLM_SETTINGS] if f"`{env}`" not in README
    ]
    assert missing == []


def test_the_settings_table_is_the_codes() -> None:
    """Each row as `scripts/settings_table.py` prints it from the code: a description edited
    in the README alone was lost the next time the table was printed."""
    from scripts.settings_table import rows

    stale = [row for row in rows() if row not in README.splitlines()]
    assert stale == []
