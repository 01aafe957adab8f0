"""`bench api`'s report line for the start-up warm-up it ran (or did not)."""

from __future__ import annotations

from tests.bench.api_bench import parse, service_warmup_line


def test_the_line_says_what_the_warm_up_did() -> None:
    line = service_warmup_line(
        {
            "budget_s": 90.0,
            "searches": 200,
            "drawn": 198,
            "messages_read": 1_006_300,
            "seconds": 69.4,
        }
    )
    assert "budget 90 s" in line and "200 searches" in line and "198 with the vector" in line
    assert "a read of 1,006,300 messages" in line and line.endswith("; 69 s")
    assert "belief" not in line  # a report from before beliefs were warmed


def test_the_line_tells_the_belief_part() -> None:
    warmed = {"budget_s": 90.0, "searches": 200, "drawn": 200, "messages_read": 10, "seconds": 9}
    line = service_warmup_line({**warmed, "belief_searches": 100, "observations_read": 5_000})
    assert "then 100 belief searches and a read of 5,000 beliefs; 9 s" in line
    line = service_warmup_line({**warmed, "belief_searches": 3, "observations_read": None})
    assert "then 3 belief searches and no complete read of the beliefs" in line


def test_a_read_cut_short_and_no_warm_up_are_told_apart() -> None:
    cut = {"budget_s": 5.0, "searches": 90, "drawn": 90, "messages_read": None, "seconds": 5.0}
    assert "budget spent first" in service_warmup_line(cut)
    assert "none (`--service-warmup 0`)" in service_warmup_line(None)


def test_the_default_budget_is_serve_s() -> None:
    assert parse([]).service_warmup == 90.0
    assert parse(["--service-warmup", "0"]).service_warmup == 0.0
