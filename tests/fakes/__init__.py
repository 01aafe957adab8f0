"""Test doubles injected in place of real clients (never patched into module globals)."""
