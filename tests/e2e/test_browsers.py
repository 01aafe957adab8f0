"""What a person opens, opened in a headless Chromium (Debian's; Playwright drives it): GraphiQL
served by the app itself, and Neo4j Browser with beliefgraph's guide and style."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.async_api import Browser, Page, async_playwright

from graph.settings import Settings
from tests.e2e.conftest import Served

pytestmark = pytest.mark.e2e

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Headless, and quiet on a machine without internet: no background fetches, no first-run pages.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
async def browser() -> AsyncIterator[Browser]:
    assert shutil.which("chromium"), "install Chromium (scripts/bootstrap.sh does, as root)"
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield launched
        finally:
            await launched.close()


async def test_graphiql_loads_from_the_app_and_runs_a_query(
    browser: Browser, served: Served
) -> None:
    page = await browser.new_page()
    outside: list[str] = []
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith(served.url) else None,
    )
    failed: list[str] = []  # a 404 for /favicon.ico was logged as an error on every load
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    await page.goto(f"{served.url}/graphql")
    await page.wait_for_selector(".graphiql-container", timeout=30_000)
    await page.click(".graphiql-execute-button")
    result = page.locator(".graphiql-response")
    await result.get_by_text('"ok": true').wait_for(timeout=30_000)
    assert outside == [], f"GraphiQL fetched from elsewhere: {outside}"
    assert failed == []
    await page.close()


async def test_graphiql_runs_a_subscription_over_its_websocket(
    browser: Browser, served: Served
) -> None:
    """GraphiQL had no WebSocket: a subscription got "subscriptions run over WebSocket
    (graphql-transport-ws), not HTTP"."""
    page = await browser.new_page()
    await page.goto(f"{served.url}/graphql")
    await page.wait_for_selector(".graphiql-container", timeout=30_000)
    workspace = f"w-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(base_url=served.url) as client:  # a queue of no workspace: 404
        assert (await client.post("/v3/workspaces", json={"id": workspace})).status_code == 201
    await page.locator(".graphiql-query-editor .CodeMirror").first.click()
    await page.keyboard.press("Control+A")
    await page.keyboard.insert_text(
        f'subscription {{ queueStatus(workspace: "{workspace}", untilIdle: true) {{ pending }} }}'
    )
    await page.click(".graphiql-execute-button")
    result = page.locator(".graphiql-response")
    await result.get_by_text('"pending": 0').wait_for(timeout=30_000)
    assert "not HTTP" not in await result.inner_text()
    # A query typed over it and run at once goes over HTTP: GraphiQL's parsed document was
    # still the subscription's, and its own fetcher refused it (probe W).
    await page.locator(".graphiql-query-editor .CodeMirror").first.click()
    await page.keyboard.press("Control+A")
    await page.keyboard.insert_text("query { health { ok } }")
    await page.keyboard.press("Control+Enter")
    await result.get_by_text('"ok": true').wait_for(timeout=30_000)
    await page.close()


async def test_graphiql_keeps_no_headers_in_the_browser(browser: Browser, served: Served) -> None:
    """GraphiQL's history kept each run's Headers tab (the key) in localStorage, across reloads,
    whatever shouldPersistHeaders said."""
    secret = f"Bearer bgk_{uuid.uuid4().hex}"
    page = await browser.new_page()
    await page.goto(f"{served.url}/graphql")
    await page.wait_for_selector(".graphiql-container", timeout=30_000)
    # What an earlier page kept is cleaned when GraphiQL loads.
    await page.evaluate(
        "k => localStorage.setItem('graphiql:favorites', JSON.stringify("
        "{favorites: [{query: '{ health { ok } }', headers: k}]}))",
        f'{{"Authorization": "{secret}"}}',
    )
    await page.reload()
    await page.wait_for_selector(".graphiql-container", timeout=30_000)
    await page.get_by_text("Headers", exact=True).click()
    await page.locator(".graphiql-editor-tool .CodeMirror").last.click()
    await page.keyboard.insert_text(f'{{"Authorization": "{secret}"}}')
    await page.click(".graphiql-execute-button")
    await page.locator(".graphiql-response").get_by_text('"ok": true').wait_for(timeout=30_000)
    await page.reload()
    await page.wait_for_selector(".graphiql-container", timeout=30_000)
    stored = await page.evaluate(
        "() => Object.keys(localStorage).map(k => k + '=' + localStorage.getItem(k))"
    )
    assert any("health" in item for item in stored if item.startswith("graphiql:queries"))
    assert not [item for item in stored if secret in item], stored
    await page.close()


async def test_graphiql_documents_the_search_arguments(browser: Browser, served: Served) -> None:
    # What a developer does to learn an argument: open the docs, then Query, then the field.
    page = await browser.new_page()
    await page.goto(f"{served.url}/graphql")
    await page.wait_for_selector(".graphiql-container", timeout=30_000)
    await page.get_by_label("Show Documentation Explorer").click()
    docs = page.locator(".graphiql-doc-explorer")
    await docs.get_by_text("Query", exact=True).first.click()
    await docs.get_by_text("searchMessages", exact=True).first.click()
    await docs.get_by_text("asker", exact=True).first.wait_for(timeout=30_000)
    await docs.get_by_text("closest passage", exact=False).first.wait_for(timeout=30_000)
    await page.close()


async def browser_command(page: Page, command: str) -> None:
    await page.locator('[data-testid="activeEditor"]').click()
    await page.keyboard.type(command)
    await page.keyboard.press("Enter")


async def test_neo4j_browser_connects_and_plays_the_guide_with_the_style(
    browser: Browser, served: Served, test_settings: Settings, neo4j_password: str
) -> None:
    # A peer to draw, captioned by its name once the style is loaded.
    name = f"peer{uuid.uuid4().hex[:8]}"
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    mutation = """mutation($w: String!, $p: String!) {
      createWorkspace(name: $w) { name } createPeer(workspace: $w, name: $p) { name }
    }"""
    created = httpx.post(
        f"{served.url}/graphql", json={"query": mutation, "variables": {"w": workspace, "p": name}}
    ).json()
    assert not created.get("errors"), created
    # Browser allows remote guides from `localhost` (see graph/settings.py browser_app_url).
    app = f"http://localhost:{urlsplit(served.url).port}"

    page = await browser.new_page()
    await page.goto(f"http://127.0.0.1:{test_settings.neo4j_http_port}/browser/")
    await page.fill('[data-testid="username"]', "neo4j")
    await page.fill('[data-testid="password"]', neo4j_password)
    await page.click('[data-testid="connect"]')
    await page.get_by_text("You are connected as user neo4j").wait_for(timeout=30_000)

    await browser_command(page, f":play {app}/browser/guide.html")
    # Our frame's guide: the server's own connect command may have played another (a
    # `scripts/serve` of this machine on its default port answers that one).
    ours = page.get_by_role("article").filter(has_text=f":play {app}/browser/guide.html")
    await ours.get_by_text("beliefgraph: exploring belief graphs").wait_for(timeout=30_000)

    await browser_command(page, f":style {app}/browser/style.grass")
    await browser_command(
        page, f"MATCH (p:Peer {{workspace: '{workspace}', name: '{name}'}}) RETURN p"
    )
    # Peers are drawn in the style's blue with their name as the caption (cut to fit the circle).
    await page.locator("svg text", has_text=name[:9]).first.wait_for(timeout=30_000)
    fills = await page.eval_on_selector_all(
        "svg g.node circle", "circles => circles.map(c => c.getAttribute('fill'))"
    )
    assert "#4C8EDA" in [str(f).upper() for f in fills], fills
    await page.close()
