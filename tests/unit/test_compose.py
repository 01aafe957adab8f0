"""docker-compose.yml wires the app to its own Neo4j, with auth on and nothing off-loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_neo4j_is_the_2026_community_image(compose: dict[str, Any]) -> None:
    # The managed server and the image are the same release (graph/server/pom.xml).
    pom = (ROOT / "graph" / "server" / "pom.xml").read_text(encoding="utf-8")
    image = compose["services"]["neo4j"]["image"]
    assert image == "neo4j:2026.09.0" and "<neo4j.version>2026.09.0</neo4j.version>" in pom


def test_neo4j_password_is_required_not_defaulted(compose: dict[str, Any]) -> None:
    auth = compose["services"]["neo4j"]["environment"]["NEO4J_AUTH"]
    assert auth.startswith("neo4j/${NEO4J_PASSWORD:?")


def test_neo4j_keeps_data_in_a_named_volume(compose: dict[str, Any]) -> None:
    volumes = compose["services"]["neo4j"]["volumes"]
    assert "neo4j-data:/data" in volumes
    assert "neo4j-data" in compose["volumes"]


def test_neo4j_healthcheck_runs_a_query(compose: dict[str, Any]) -> None:
    check = compose["services"]["neo4j"]["healthcheck"]
    command = " ".join(check["test"])
    assert "cypher-shell" in command
    assert "RETURN 1" in command
    assert check["retries"] >= 10


def test_app_is_wired_to_neo4j_with_auth_on(compose: dict[str, Any]) -> None:
    app = compose["services"]["app"]
    env = app["environment"]
    assert app["build"] == "."
    assert env["NEO4J_URI"] == "bolt://neo4j:7687"
    assert env["NEO4J_USER"] == "neo4j"
    assert env["NEO4J_PASSWORD"].startswith("${NEO4J_PASSWORD:?")
    assert env["BELIEFGRAPH_HOST"] == "0.0.0.0"
    # A bare `on` in YAML would be the boolean true, not the string the settings expect.
    assert env["BELIEFGRAPH_AUTH"] == "on"
    assert env["BELIEFGRAPH_AUTH_SECRET"].startswith("${BELIEFGRAPH_AUTH_SECRET:?")


def test_app_waits_for_a_healthy_neo4j(compose: dict[str, Any]) -> None:
    depends = compose["services"]["app"]["depends_on"]
    assert depends == {"neo4j": {"condition": "service_healthy"}}


@pytest.mark.parametrize(("service", "ports"), [("neo4j", {7474, 7687}), ("app", {8000})])
def test_ports_are_published_on_loopback_only(
    compose: dict[str, Any], service: str, ports: set[int]
) -> None:
    published = compose["services"][service]["ports"]
    assert all(entry.startswith("127.0.0.1:") for entry in published)
    assert {int(entry.split(":")[1]) for entry in published} == ports


def test_dockerfile_serves_the_app() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "FROM python:3.11-slim" in dockerfile
    assert 'CMD ["beliefgraph", "serve"]' in dockerfile
    assert "USER beliefgraph" in dockerfile
