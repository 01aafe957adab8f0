"""Turns at the one embedding model: one encode at a time, a short one first.

A search embeds one query and waits for it; a message batch embeds hundreds of texts and waits
for none of them in particular. With one lock and batches taken whole, a query waited behind
every batch before it: searches took seconds (p50 2.6 s, against 53 ms idle) while messages
were posted. Batches now take turns of at most a model batch each, and a short call waiting is
served before the next long turn. Long calls take their turns in the order they asked: one that
let go of the model and asked again at once took it back ahead of the others waiting, so a
large upload held the model until it was done, and other workspaces' messages waited for it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

# Urgent turns in a row while a bulk caller waits: steady searches cannot starve the writes.
URGENT_IN_A_ROW = 4


class Turns:
    """One holder at a time; a waiting urgent caller goes before waiting bulk ones, at most
    URGENT_IN_A_ROW times in a row while a bulk one waits; bulk callers go in arrival order."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._held = False
        self._urgent_waiting = 0
        self._bulk_waiting: deque[int] = deque()  # tickets, in the order they were taken
        self._next_ticket = 0
        self._urgent_in_a_row = 0

    def _may_go(self, urgent: bool, ticket: int) -> bool:
        if self._held:
            return False
        bulk_is_due = self._bulk_waiting and self._urgent_in_a_row >= URGENT_IN_A_ROW
        if urgent:
            return not bulk_is_due
        first = self._bulk_waiting[0] == ticket
        return first and (not self._urgent_waiting or bool(bulk_is_due))

    @contextmanager
    def turn(self, *, urgent: bool) -> Iterator[None]:
        with self._changed:
            ticket = -1  # urgent callers take none: they do not queue among themselves
            if urgent:
                self._urgent_waiting += 1
            else:
                ticket, self._next_ticket = self._next_ticket, self._next_ticket + 1
                self._bulk_waiting.append(ticket)
            try:
                while not self._may_go(urgent, ticket):
                    self._changed.wait()
            finally:
                if urgent:
                    self._urgent_waiting -= 1
                else:
                    self._bulk_waiting.remove(ticket)
                    # Another bulk caller may be first now (one that gave up waiting included).
                    self._changed.notify_all()
            self._urgent_in_a_row = self._urgent_in_a_row + 1 if urgent else 0
            self._held = True
        try:
            yield
        finally:
            with self._changed:
                self._held = False
                self._changed.notify_all()
