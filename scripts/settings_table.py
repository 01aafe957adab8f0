"""Prints the README's settings table from the code (run after adding a setting)."""

from graph.settings import documented_settings
from reasoners.llm.config import LLM_SETTINGS


def rows() -> list[str]:
    """The table's rows, one a setting."""
    return [
        f"| `{env}` | `{default if default else '(empty)'}` | {doc.replace('|', '/')} |"
        for env, default, doc in [*documented_settings(), *LLM_SETTINGS]
    ]


def main() -> None:
    print("| variable | default | what it does |\n|---|---|---|")
    print("\n".join(rows()))


if __name__ == "__main__":
    main()
