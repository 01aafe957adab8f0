"""Each bench starts its own managed Neo4j: two benches run side by side only if their default
instances differ in name and ports, and each can be moved to other ports."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence

import pytest

BENCHES = ["api", "dream", "memory", "pipeline", "rest", "search", "stale", "tree"]
REQUIRED = {"memory": ["--dataset", "longmemeval", "--path", "data.json"]}


def parse(name: str, extra: Sequence[str] = ()) -> argparse.Namespace:
    module = importlib.import_module(f"tests.bench.{name}_bench")
    parser: Callable[[Sequence[str]], argparse.Namespace] = (
        getattr(module, "parse", None) or module.parse_args
    )
    return parser([*REQUIRED.get(name, []), *extra])


def test_instances_with_different_names_use_different_ports() -> None:
    ports: dict[str, tuple[int, int]] = {}
    for name in BENCHES:
        args = parse(name)
        ports.setdefault(args.instance, (args.bolt_port, args.http_port))
        assert ports[args.instance] == (args.bolt_port, args.http_port), name
    used = [port for pair in ports.values() for port in pair]
    assert len(used) == len(set(used)), ports


@pytest.mark.parametrize("name", BENCHES)
def test_every_bench_takes_its_instance_and_ports(name: str) -> None:
    args = parse(name, ["--instance", "other", "--bolt-port", "40001", "--http-port", "40002"])
    assert (args.instance, args.bolt_port, args.http_port) == ("other", 40001, 40002)
