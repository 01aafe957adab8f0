"""Which writes are taken for another site's (resolvers/cross_site.py)."""

from __future__ import annotations

import pytest

from resolvers.cross_site import cross_site

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def headers(**named: str) -> dict[bytes, bytes]:
    return {k.replace("_", "-").encode(): v.encode() for k, v in named.items()}


@pytest.mark.parametrize(
    "sent",
    [
        {"host": "127.0.0.1:8000"},  # a client that is no browser
        {"host": "127.0.0.1:8000", "sec_fetch_site": "same-origin"},
        {"host": "127.0.0.1:8000", "sec_fetch_site": "none", "origin": "http://evil.example"},
        {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000"},
        {"host": "[::1]:8000", "origin": "http://[::1]:8000"},
        {"host": "api.example", "origin": "https://api.example"},
        {"host": "api.example:443", "origin": "https://api.example"},
        # Behind a proxy that sends its own Host: the public name is on the allow-list.
        {"host": "127.0.0.1:8000", "origin": "https://mem.example"},
    ],
)
def test_writes_of_this_site_pass(sent: dict[str, str]) -> None:
    assert cross_site(headers(**sent), LOOPBACK | {"mem.example"}) is None


@pytest.mark.parametrize(
    "sent",
    [
        {"host": "127.0.0.1:8000", "sec_fetch_site": "cross-site"},
        {
            "host": "127.0.0.1:8000",
            "sec_fetch_site": "same-site",
            "origin": "http://127.0.0.1:3000",
        },
        {"host": "127.0.0.1:8000", "origin": "https://evil.example"},
        {"host": "127.0.0.1:8000", "origin": "null"},
        {"host": "127.0.0.1:8000", "origin": "http://[bad"},
        {"host": "api.example", "origin": "https://api.example.evil.example"},
        # Another local server: a loopback name is allowed as a Host, not as any Origin.
        {"host": "127.0.0.1:8000", "origin": "http://localhost:9999"},
        {"host": "localhost:8000", "origin": "http://localhost:9999"},
        {"host": "127.0.0.1:8000", "origin": "http://app.localhost:8000"},
    ],
)
def test_writes_of_another_site_are_refused(sent: dict[str, str]) -> None:
    assert cross_site(headers(**sent), LOOPBACK) is not None
    assert cross_site(headers(**sent), None) is not None


def test_another_port_of_this_host_is_another_site_unless_allowed_by_name() -> None:
    sent = headers(host="api.example:8000", origin="http://api.example:3000")
    assert cross_site(sent, None) is not None
    assert cross_site(sent, frozenset({"api.example"})) is None
