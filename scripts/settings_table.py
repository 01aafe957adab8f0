"""Prints the README's settings table from the code (run after adding a setting)."""

from graph.settings import documented_settings
from reasoners.llm.config import LLM_SETTINGS


def main() -> None:
    print("| variable | default | what it does |\n|---|---|---|")
    for env, default, doc in [*documented_settings(), *LLM_SETTINGS]:
        shown = default if default else "(empty)"
        print(f"| `{env}` | `{shown}` | {doc.replace('|', '/')} |")


if __name__ == "__main__":
    main()
