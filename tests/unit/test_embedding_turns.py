"""Turns at the embedding model: one holder at a time, a waiting short call first."""

from __future__ import annotations

import threading
import time

import pytest

from reasoners.embeddings.turns import Turns

pytestmark = pytest.mark.unit


def test_a_waiting_urgent_call_goes_before_waiting_bulk_ones() -> None:
    """A query waited behind every batch queued before it (2.6 s at p50 under writes)."""
    turns, order = Turns(), []
    holding, release = threading.Event(), threading.Event()

    def bulk_holder() -> None:
        with turns.turn(urgent=False):
            holding.set()
            release.wait(5)
            order.append("first bulk")

    def caller(name: str, urgent: bool) -> None:
        with turns.turn(urgent=urgent):
            order.append(name)

    threads = [threading.Thread(target=bulk_holder)]
    threads[0].start()
    assert holding.wait(5)
    for name, urgent in (("bulk 1", False), ("bulk 2", False), ("query", True)):
        threads.append(threading.Thread(target=caller, args=(name, urgent)))
        threads[-1].start()
        time.sleep(0.05)  # each is waiting before the next comes
    release.set()
    for thread in threads:
        thread.join(5)
    assert order[:2] == ["first bulk", "query"]
    assert sorted(order[2:]) == ["bulk 1", "bulk 2"]


def test_one_holder_at_a_time() -> None:
    turns, inside, most = Turns(), [0], [0]
    lock = threading.Lock()

    def work(urgent: bool) -> None:
        for _ in range(50):
            with turns.turn(urgent=urgent):
                with lock:
                    inside[0] += 1
                    most[0] = max(most[0], inside[0])
                time.sleep(0.0005)
                with lock:
                    inside[0] -= 1

    threads = [threading.Thread(target=work, args=(i % 2 == 0,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert most[0] == 1


def test_steady_urgent_calls_do_not_starve_a_waiting_bulk_one() -> None:
    """With urgent calls always waiting, a bulk caller never got a turn."""
    turns, order = Turns(), []
    stop = threading.Event()

    def urgent_forever() -> None:
        while not stop.is_set():
            with turns.turn(urgent=True):
                order.append("urgent")
                time.sleep(0.002)

    def bulk() -> None:
        with turns.turn(urgent=False):
            order.append("bulk")

    urgent = [threading.Thread(target=urgent_forever) for _ in range(3)]
    for thread in urgent:
        thread.start()
    time.sleep(0.05)
    waiting = threading.Thread(target=bulk)
    waiting.start()
    waiting.join(5)
    starved = waiting.is_alive()  # read while the urgent calls still come
    stop.set()
    for thread in urgent:
        thread.join(5)
    waiting.join(5)
    assert not starved


def test_long_calls_take_turns_in_the_order_they_asked() -> None:
    """A long call that let go of the model and asked again at once took it back ahead of
    another waiting: a large upload held the model until it was done."""
    turns, order = Turns(), []
    holding, release = threading.Event(), threading.Event()

    def upload() -> None:
        with turns.turn(urgent=False):
            holding.set()
            release.wait(5)
            order.append("upload")
        for _ in range(3):  # asks again at once, each time
            with turns.turn(urgent=False):
                order.append("upload")

    def batch() -> None:
        with turns.turn(urgent=False):
            order.append("batch")

    first = threading.Thread(target=upload)
    first.start()
    assert holding.wait(5)
    second = threading.Thread(target=batch)
    second.start()
    time.sleep(0.05)  # waiting before the upload lets go
    release.set()
    for thread in (first, second):
        thread.join(5)
    assert order == ["upload", "batch", "upload", "upload", "upload"]
