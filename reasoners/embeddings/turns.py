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

# Urgent turns in a row while a bulk caller waits: steady searches cannot starve the writes.
URGENT_IN_A_ROW = 4


class Turns:
    """One holder at a time; a waiting urgent caller goes before waiting bulk ones, at most
    URGENT_IN_A_ROW times in a row while a bulk one waits."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held = False
        self._urgent_waiting = 0
        self._bulk_waiting = 0
        self._urgent_in_a_row = 0

    def _may_go(self, urgent: bool) -> bool:
        if self._held:
            return False
        bulk_is_due = self._bulk_waiting and self._urgent_in_a_row >= URGENT_IN_A_ROW
        if urgent:
            return not bulk_is_due
        return not self._urgent_waiting or bool(bulk_is_due)

    @contextmanager
    def turn(self, *, urgent: bool) -> Iterator[None]:
        with self._changed:
            self._urgent_waiting += urgent
            self._bulk_waiting += not urgent
            try:
                while not self._may_go(urgent):
                    self._changed.wait()
            finally:
                self._urgent_waiting -= urgent
                self._bulk_waiting -= not urgent
            self._urgent_in_a_row = self._urgent_in_a_row + 1 if urgent else 0
            self._held = True
        try:
            yield
        finally:
            with self._changed:
                self._held = False
                self._changed.notify_all()
