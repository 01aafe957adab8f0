"""Knowledge updates undone: a belief that is gone (its message deleted or purged, the belief
itself deleted) replaces nothing any more, and a repeat that alone made a value the newer one
stops counting once it is deleted."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graph.errors import Conflict
from graph.repo import messages, observations, peer_cards
from graph.repo.observation_search import ObservationQuery
from graph.validation import now
from reasoners.context.assemble import ContextRequest, get_context
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tools import Toolbox
from reasoners.peers import invalidation, purge
from resolvers.services import Services
from tests.integration.dream_helpers import (
    belief_id,
    contents,
    conversation,
    derive,
    say,
    with_dreams,
)
from tests.integration.dream_helpers import dream_now as dream

pytestmark = pytest.mark.integration

AGENT_ALICE = ("agent", "alice")


async def talk(
    services: Services, workspace: str, lines: tuple[tuple[str, str], ...], *, in_turn: bool
) -> Services:
    """alice says each (date, line): each derived and dreamed before the next (`in_turn`), or
    all derived, then dreamed at once."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1")
    for i, (when, line) in enumerate(lines):
        await say(s, workspace, "s1", when, line)
        if in_turn or i == len(lines) - 1:
            await derive(s, workspace)
            await dream(s, workspace, *AGENT_ALICE)
    return s


async def moved(services: Services, workspace: str, *lines: tuple[str, str]) -> Services:
    return await talk(services, workspace, lines, in_turn=True)


async def together(services: Services, workspace: str, *lines: tuple[str, str]) -> Services:
    return await talk(services, workspace, lines, in_turn=False)


async def june_repeat(s: Services, workspace: str) -> list[str]:
    """The June message the Lisbon belief cites (of LISBON_BERLIN_LISBON)."""
    lisbon = await belief_id(s, workspace, "Lisbon")
    detail = await observations.get_detail(s.db, workspace, lisbon)
    return [x.message.id for x in detail.sources if x.message.created_at.month == 6]


async def source_of(s: Services, workspace: str, text: str) -> str:
    detail = await observations.get_detail(s.db, workspace, await belief_id(s, workspace, text))
    (source,) = detail.sources
    return source.message.id


async def homes(s: Services, workspace: str, **filters: Any) -> list[str]:
    """The cities alice lives in, as the current beliefs say."""
    current = await contents(s, workspace, **filters)
    return [c for c in ("Lisbon", "Berlin", "Madrid") if any(c in line for line in current)]


LISBON_BERLIN = (("2024-01-10", "I live in Lisbon."), ("2024-03-10", "I live in Berlin."))
LISBON_BERLIN_LISBON = (*LISBON_BERLIN, ("2024-06-10", "I live in Lisbon."))


@pytest.mark.parametrize("how", [moved, together])
async def test_a_move_told_after_a_preamble_replaces_the_old_home(
    services: Services, workspace: str, how: Any
) -> None:
    """ "Big news: I live in Berlin now." filled no slot (the words before the colon), and the
    plain "I live in Berlin." said later only repeated it: Lisbon stayed home, on the card too."""
    s = await how(
        services,
        workspace,
        ("2024-01-10", "Hi Bob! I live in Lisbon."),
        ("2024-03-05", "Big news: I live in Berlin now. I don't eat meat."),
        ("2024-04-01", "I live in Berlin."),
    )
    assert await homes(s, workspace) == ["Berlin"]
    card = (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries
    assert any("Berlin" in x for x in card) and not any("Lisbon" in x for x in card), card


async def test_deleting_the_newer_value_brings_the_older_back(
    services: Services, workspace: str
) -> None:
    """Berlin's only message deleted: the dream drops Berlin, and Lisbon, which only Berlin
    replaced, is current again (the view held no home at all)."""
    s = await moved(services, workspace, *LISBON_BERLIN)
    assert await homes(s, workspace) == ["Berlin"]
    berlin = await source_of(s, workspace, "Berlin")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [berlin])
    await derive(s, workspace)  # runs the reconciling dream the deletion scheduled
    assert await homes(s, workspace) == ["Lisbon"]
    lisbon = await observations.get_detail(s.db, workspace, await belief_id(s, workspace, "Lisbon"))
    assert lisbon.observation.superseded_at is None
    assert lisbon.replaced_by == []  # a deleted replacement replaces nothing
    # The dream that dropped Berlin queued one behind it, which wrote the card again (it was
    # left empty).
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert [line for line in card.entries if "Lisbon" in line], card.entries


@pytest.mark.parametrize("undo", ["message", "belief"])
async def test_undoing_a_value_that_replaced_two_brings_back_the_later_only(
    services: Services, workspace: str, undo: str
) -> None:
    """Dreamed together, Madrid replaced Lisbon and Berlin at once; undone, both came back
    current, for good: two homes."""
    s = await together(services, workspace, *LISBON_BERLIN, ("2024-05-10", "I live in Madrid."))
    assert await homes(s, workspace) == ["Madrid"]
    madrid = await belief_id(s, workspace, "Madrid")
    if undo == "message":
        gone = await source_of(s, workspace, "Madrid")
        await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [gone])
    else:
        outcome = await invalidation.delete_observation(s.db, s.settings, workspace, madrid)
        assert outcome.dreams == 1  # its card quoted Madrid
    await derive(s, workspace)
    assert await homes(s, workspace) == ["Berlin"]
    lisbon = await observations.get_detail(s.db, workspace, await belief_id(s, workspace, "Lisbon"))
    assert [o.id for o in lisbon.replaced_by] == [await belief_id(s, workspace, "Berlin")]
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert [line for line in card.entries if "Berlin" in line], card.entries
    assert not [line for line in card.entries if "Madrid" in line], card.entries


async def test_a_value_replaced_since_stays_replaced(services: Services, workspace: str) -> None:
    """Lisbon, Berlin, then Madrid: deleting Berlin's message leaves Madrid, which replaced it,
    and Lisbon stays history."""
    s = await moved(services, workspace, *LISBON_BERLIN, ("2024-05-10", "I live in Madrid."))
    assert await homes(s, workspace) == ["Madrid"]
    berlin = await source_of(s, workspace, "Berlin")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [berlin])
    await derive(s, workspace)
    assert await homes(s, workspace) == ["Madrid"]
    # Madrid's message deleted too: Lisbon, replaced by nothing left, is current again.
    madrid = await source_of(s, workspace, "Madrid")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [madrid])
    await derive(s, workspace)
    assert await homes(s, workspace) == ["Lisbon"]


async def test_a_value_brought_back_and_replaced_again_is_replaced_by_the_live_one(
    services: Services, workspace: str
) -> None:
    s = await moved(services, workspace, *LISBON_BERLIN)
    berlin = await source_of(s, workspace, "Berlin")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [berlin])
    await derive(s, workspace)
    await say(s, workspace, "s1", "2024-05-10", "I live in Madrid.")
    await derive(s, workspace)
    await dream(s, workspace, *AGENT_ALICE)
    assert await homes(s, workspace) == ["Madrid"]
    lisbon = await observations.get_detail(s.db, workspace, await belief_id(s, workspace, "Lisbon"))
    # Not the deleted Berlin as well.
    assert [o.id for o in lisbon.replaced_by] == [await belief_id(s, workspace, "Madrid")]


async def test_a_value_brought_back_meets_one_stated_since(
    services: Services, workspace: str
) -> None:
    """Madrid was derived, not yet dreamed, when Berlin's message was deleted: the dream that
    dropped Berlin read Madrid as new and compared it with Berlin's slot as it was (empty once
    Berlin went); Lisbon came back after, and the two stayed current for good."""
    s = await moved(services, workspace, *LISBON_BERLIN)
    await say(s, workspace, "s1", "2024-05-10", "I live in Madrid.")
    await derive(s, workspace)  # derived; its dream not run
    berlin = await source_of(s, workspace, "Berlin")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [berlin])
    await derive(s, workspace)
    await dream(s, workspace, *AGENT_ALICE)
    assert await homes(s, workspace) == ["Madrid"]


async def test_purging_a_value_between_two_keeps_the_chain(
    services: Services, workspace: str
) -> None:
    """Lisbon, Berlin, Madrid: a purge of Berlin erased both its edges, and deleting Madrid
    later left no home at all."""
    s = await moved(services, workspace, *LISBON_BERLIN, ("2024-05-10", "I live in Madrid."))
    await purge.purge_messages(
        s.db, s.settings, workspace, [await source_of(s, workspace, "Berlin")]
    )
    assert await homes(s, workspace) == ["Madrid"]
    madrid = await source_of(s, workspace, "Madrid")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [madrid])
    await derive(s, workspace)
    assert await homes(s, workspace) == ["Lisbon"]


async def test_purging_the_newer_value_brings_the_older_back(
    services: Services, workspace: str
) -> None:
    """A purge erases Berlin with its SUPERSEDES edge: Lisbon was left replaced by nothing."""
    s = await moved(services, workspace, *LISBON_BERLIN)
    berlin = await source_of(s, workspace, "Berlin")
    await purge.purge_messages(s.db, s.settings, workspace, [berlin])
    assert await homes(s, workspace) == ["Lisbon"]
    await derive(s, workspace)  # the dream the purge's end queued writes the card again
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert [line for line in card.entries if "Lisbon" in line], card.entries


async def test_deleting_the_newer_belief_brings_the_older_back(
    services: Services, workspace: str
) -> None:
    s = await moved(services, workspace, *LISBON_BERLIN)
    berlin = await belief_id(s, workspace, "Berlin")
    await invalidation.delete_observation(s.db, s.settings, workspace, berlin)
    assert await homes(s, workspace) == ["Lisbon"]


async def test_deleting_a_correction_brings_back_neither_its_words_nor_what_they_replaced(
    services: Services, workspace: str
) -> None:
    s = await moved(services, workspace, *LISBON_BERLIN)
    berlin = await belief_id(s, workspace, "Berlin")
    corrected = await invalidation.correct_observation(
        s.db, s.embedder, s.settings, workspace, berlin, "Alice lives in Berlin-Mitte."
    )
    await invalidation.delete_observation(s.db, s.settings, workspace, corrected.ids[0])
    assert await homes(s, workspace) == []


async def test_deleting_the_repeat_that_made_a_value_newer_reverses_the_update(
    services: Services, workspace: str
) -> None:
    """Lisbon (January), Berlin (March), Lisbon again (June), dreamed together: Lisbon replaced
    Berlin from its June repeat. With June deleted, Lisbon was last stated in January: Berlin
    replaces it, at once, as a dream would have."""
    s = await together(services, workspace, *LISBON_BERLIN_LISBON)
    assert await homes(s, workspace) == ["Lisbon"]
    lisbon = await belief_id(s, workspace, "Lisbon")
    berlin = await belief_id(s, workspace, "Berlin")
    june = await june_repeat(s, workspace)
    before = now()
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, june)
    assert await homes(s, workspace) == ["Berlin"]
    # As it stood before the deletion, corrected: one home, not both.
    assert await homes(s, workspace, as_of=before) == ["Berlin"]
    old = await observations.get_detail(s.db, workspace, lisbon)
    assert [o.id for o in old.replaced_by] == [berlin]
    assert old.replaces == []  # the reversed edge is gone: no cycle
    new = await observations.get_detail(s.db, workspace, berlin)
    assert (new.replaced_by, [o.id for o in new.replaces]) == ([], [lisbon])
    await derive(s, workspace)  # the dream it scheduled writes the card again
    assert await homes(s, workspace) == ["Berlin"]
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert any("Berlin" in line for line in card.entries), card.entries
    assert not any("Lisbon" in line for line in card.entries), card.entries


async def test_editing_the_repeat_out_of_its_message_reverses_the_update(
    services: Services, workspace: str
) -> None:
    """June's "I live in Lisbon" edited to say something else: Lisbon was last stated in
    January, but it went on replacing Berlin (March) for good once the dream unlinked June."""
    s = await together(services, workspace, *LISBON_BERLIN_LISBON)
    lisbon = await belief_id(s, workspace, "Lisbon")
    berlin = await belief_id(s, workspace, "Berlin")
    [june] = await june_repeat(s, workspace)
    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, june, "I love jazz."
    )
    await derive(s, workspace)  # June derived again, then the dream that unlinks it, and its own
    assert await homes(s, workspace) == ["Berlin"]
    old = await observations.get_detail(s.db, workspace, lisbon)
    assert [o.id for o in old.replaced_by] == [berlin]
    assert june not in [x.message.id for x in old.sources]


async def test_a_value_edited_into_the_repeat_replaces_the_value_its_reversal_brings_back(
    services: Services, workspace: str
) -> None:
    """June edited from Lisbon to Paris: the dream that unlinks June from Lisbon hands Berlin
    the slot back after planning, and Paris, newer than both, must still end up alone."""
    s = await together(services, workspace, *LISBON_BERLIN_LISBON)
    [june] = await june_repeat(s, workspace)
    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, june, "I live in Paris."
    )
    await derive(s, workspace)
    current = await contents(s, workspace)
    assert [c for c in ("Lisbon", "Berlin", "Paris") if any(c in x for x in current)] == [
        "Paris"
    ], current


async def test_deleting_the_repeat_with_the_value_it_replaced_reverses_nothing(
    services: Services, workspace: str
) -> None:
    """June and March deleted together: Berlin, left with no message, replaced Lisbon, and the
    view showed no home."""
    s = await together(services, workspace, *LISBON_BERLIN_LISBON)
    june = await june_repeat(s, workspace)
    march = await source_of(s, workspace, "Berlin")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [*june, march])
    assert await homes(s, workspace) == ["Lisbon"]
    await derive(s, workspace)
    assert await homes(s, workspace) == ["Lisbon"]


async def test_purging_the_repeat_that_made_a_value_newer_reverses_the_update(
    services: Services, workspace: str
) -> None:
    """A purge erases the belief the June repeat joined and derives January again: Berlin
    is current again, and the January Lisbon it replaced comes back as history."""
    s = await together(services, workspace, *LISBON_BERLIN_LISBON)
    june = await june_repeat(s, workspace)
    await purge.purge_messages(s.db, s.settings, workspace, june)
    assert await homes(s, workspace) == ["Berlin"]
    await derive(s, workspace)  # January derived again, and dreamed: older than Berlin
    await dream(s, workspace, *AGENT_ALICE)
    assert await homes(s, workspace) == ["Berlin"]


async def test_corrections_of_one_belief_at_once_replace_it_once(
    services: Services, workspace: str
) -> None:
    """Four at once each read the belief current before any committed: three replaced it."""
    s = await moved(services, workspace, ("2024-01-10", "I live in Lisbon."))
    lisbon = await belief_id(s, workspace, "Lisbon")
    answers = await asyncio.gather(
        *[
            invalidation.correct_observation(
                s.db, s.embedder, s.settings, workspace, lisbon, f"Alice lives in City{i}."
            )
            for i in range(4)
        ],
        return_exceptions=True,
    )
    assert sum(isinstance(a, Conflict) for a in answers) == 3, answers
    assert len((await observations.get_detail(s.db, workspace, lisbon)).replaced_by) == 1
    assert len([c for c in await contents(s, workspace) if "City" in c]) == 1


async def test_a_correction_writes_the_card_again(services: Services, workspace: str) -> None:
    """The card kept quoting the corrected words: no dream came for it."""
    s = await moved(services, workspace, ("2024-01-10", "I live in Lisbon."))
    lisbon = await belief_id(s, workspace, "Lisbon")
    outcome = await invalidation.correct_observation(
        s.db, s.embedder, s.settings, workspace, lisbon, "Alice lives in Porto."
    )
    assert outcome.dreams == 1
    await derive(s, workspace)
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert [line for line in card.entries if "Porto" in line], card.entries
    assert not [line for line in card.entries if "Lisbon" in line], card.entries


async def test_an_old_value_said_again_in_other_words_and_then_deleted_leaves_one(
    services: Services, workspace: str
) -> None:
    """January's number said again in June in another format, all dreamed together: June
    replaced March, January stayed (the same number). June deleted: March came back beside
    January, two numbers for good."""
    s = await together(
        services,
        workspace,
        ("2024-01-10", "My phone number is 555-123-4567."),
        ("2024-03-10", "My phone number is 555-987-6543."),
        ("2024-06-10", "My phone number is (555) 123 4567."),
    )
    june = await source_of(s, workspace, "(555) 123 4567")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [june])
    await derive(s, workspace)
    await dream(s, workspace, *AGENT_ALICE)
    numbers = [c for c in await contents(s, workspace) if "phone" in c]
    assert len(numbers) == 1 and "987" in numbers[0], numbers


@pytest.mark.parametrize("in_turn", [False, True])
@pytest.mark.parametrize("words", ["I live in Berlin.", "I moved to Berlin."])
async def test_a_repeat_edited_into_the_value_it_replaced_ends_as_if_said_so(
    services: Services, workspace: str, other_workspace: str, in_turn: bool, words: str
) -> None:
    """June edited from Lisbon to Berlin: June is derived again while March's Berlin is still
    replaced, and the dream's reversal makes March's current after. The view ends as it would
    had June said Berlin from the start: Lisbon replaced; the same words one belief stated in
    March and June, other words a second belief of the one value."""
    s = await talk(services, workspace, LISBON_BERLIN_LISBON, in_turn=in_turn)
    recent = await messages.recent(s.db, workspace, "s1", 10)
    [june] = [m.id for m in recent if m.created_at.month == 6]
    await invalidation.edit_message(s.db, s.embedder, s.tokens, s.settings, workspace, june, words)
    await derive(s, workspace)
    await talk(services, other_workspace, (*LISBON_BERLIN, ("2024-06-10", words)), in_turn=in_turn)
    assert sorted(await contents(s, workspace)) == sorted(await contents(s, other_workspace))
    assert await homes(s, workspace) == ["Berlin"]
    if words == "I live in Berlin.":
        berlin = await belief_id(s, workspace, "Berlin")
        detail = await observations.get_detail(s.db, workspace, berlin)
        assert sorted(x.message.created_at.month for x in detail.sources) == [3, 6]


async def test_a_replaced_version_whose_message_was_deleted_is_not_shown_as_history(
    services: Services, workspace: str
) -> None:
    """Berlin replaced Lisbon; Lisbon's message deleted: until a dream judged the old version,
    the dialectic's evidence of Berlin quoted it ("replaces ... Lisbon")."""
    s = await moved(services, workspace, *LISBON_BERLIN)
    berlin = await belief_id(s, workspace, "Berlin")
    query = ObservationQuery(*AGENT_ALICE)
    [before] = await observations.in_view(s.db, workspace, query, [berlin])
    assert [o.content for o in before.replaces if "Lisbon" in o.content]
    lisbon = await source_of(s, workspace, "Lisbon")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [lisbon])
    [after] = await observations.in_view(s.db, workspace, query, [berlin])
    assert after.replaces == []


@pytest.mark.parametrize("change", ["delete", "edit"])
async def test_with_dreams_off_a_change_takes_its_lines_off_the_card(
    services: Services, workspace: str, change: str
) -> None:
    """Cards written while dreams ran, then dreams switched off: a deleted or edited message's
    fact stayed on the card (and in its file, and in every context) for good, as no dream came
    to write it again."""
    s = await moved(services, workspace, *LISBON_BERLIN)
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert any("Berlin" in line for line in card.entries), card.entries
    off = with_dreams(services, dream_mode="off")
    berlin = await source_of(s, workspace, "Berlin")
    if change == "delete":
        outcome = await invalidation.delete_messages(
            off.db, off.embedder, off.settings, workspace, [berlin]
        )
    else:
        _, outcome = await invalidation.edit_message(
            off.db, off.embedder, off.tokens, off.settings, workspace, berlin, "I love jazz."
        )
    assert outcome.dreams == 0
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert not any("Berlin" in line for line in card.entries), card.entries


async def test_a_read_shows_the_card_lines_of_the_beliefs_it_may_show(
    services: Services, workspace: str
) -> None:
    """`excludeSessionIds` left a private session's beliefs out of the context, but not the
    card line a dream wrote from one; and a line on a belief deleted since was shown until the
    view's next dream."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1", "s2")
    await say(s, workspace, "s1", "2024-01-10", "I live in Lisbon.")
    await say(s, workspace, "s2", "2024-02-10", "I work as a nurse.")
    await derive(s, workspace)
    await dream(s, workspace, *AGENT_ALICE)
    entries = (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries
    assert any("Lisbon" in x for x in entries) and any("nurse" in x for x in entries), entries

    async def card(**filters: Any) -> list[str]:
        request = ContextRequest(
            workspace, 2000, peer_target="alice", peer_perspective="agent", **filters
        )
        return (await get_context(s.db, s.embedder, s.tokens, request)).card

    assert len(await card()) == len(entries)
    without_s1 = await card(exclude_session_ids=["s1"])
    assert not any("Lisbon" in x for x in without_s1) and any("nurse" in x for x in without_s1)
    # The dialectic's file search reads the card's file, where every line is: the same rule.
    files = Toolbox(s.db, s.embedder, View(workspace, *AGENT_ALICE, exclude_session_ids=("s1",)))
    passages = [c.content for c in (await files.search_files("Lisbon nurse", limit=10)).passages]
    assert any("nurse" in x for x in passages), passages
    assert not any("Lisbon" in x for x in passages), passages
    only_s1 = await card(session_ids=["s1"])
    assert any("Lisbon" in x for x in only_s1) and not any("nurse" in x for x in only_s1)
    # The nurse message deleted, its dream not yet run: the card still cites the belief.
    nurse = await source_of(s, workspace, "nurse")
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [nurse])
    stored = (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries
    assert any("nurse" in x for x in stored)
    assert not any("nurse" in x for x in await card())
