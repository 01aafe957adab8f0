"""Turns at the one embedding model: one encode at a time, a short one first.

A search embeds one query and waits for it; a message batch embeds hundreds of texts and waits
for none of them in particular. With one lock and batches taken whole, a query waited behind
every batch before it: searches took seconds (p50 2.6 s, against 53 ms idle) while messages
were posted. Batches now take turns of at most a model batch each, and a short call waiting is
served before the next long turn.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Turns:
    """One holder at a time; a waiting urgent caller goes before every waiting bulk one."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held = False
        self._urgent_waiting = 0

    @contextmanager
    def turn(self, *, urgent: bool) -> Iterator[None]:
        with self._changed:
            self._urgent_waiting += urgent
            try:
                while self._held or (not urgent and self._urgent_waiting):
                    self._changed.wait()
            finally:
                self._urgent_waiting -= urgent
            self._held = True
        try:
            yield
        finally:
            with self._changed:
                self._held = False
                self._changed.notify_all()
