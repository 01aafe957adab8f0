"""Card lines rest on beliefs: a line whose beliefs are all gone (deleted, dropped, stale,
superseded) goes, the app's own lines (which cite none) stay."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from graph.db import Tx
from graph.keys import Representation
from graph.repo import dream_writes, dreams
from graph.repo.peer_cards import CardLine
from reasoners.dreamer.plan import without_support


async def still_supported(
    tx: Tx, view: Representation, card: list[CardLine], gone: Collection[str] = ()
) -> list[CardLine] | None:
    """The card without the support that is not current now, nor in `gone` (what a plan
    replaces or prunes); None when every line still stands."""
    cited = {i for line in card for i in line.support}
    current = await dreams.current_ids(tx, view, cited)
    return without_support(card, (cited - current) | set(gone))


async def drop_unsupported(tx: Tx, view: Representation, now: datetime) -> bool:
    """Write the view's card without the lines left with no current support, where no dream
    will come to (dreams off); True when it changed."""
    card = await dreams.card_in(tx, view)
    kept = await still_supported(tx, view, card)
    if kept is None:
        return False
    await dream_writes.set_card(tx, view, kept, now=now)
    return True
