from datetime import UTC, datetime, timedelta

import pytest

from reasoners.context.packing import (
    PackedContext,
    Piece,
    RecentMessage,
    choose_summary,
    pack,
    render,
)

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 3, 9, 0, tzinfo=UTC)


def _messages_newest_first(*tokens: int) -> list[RecentMessage]:
    """Messages m0 (oldest) .. mN (newest), returned newest first as the packer expects."""
    chronological = [
        RecentMessage(
            "alice" if i % 2 == 0 else "bot", f"m{i}", T0 + timedelta(minutes=i), t, f"m{i}"
        )
        for i, t in enumerate(tokens)
    ]
    return list(reversed(chronological))


def _within_budget(packed: PackedContext) -> None:
    assert packed.tokens_used <= packed.budget
    assert packed.summary_tokens <= packed.summary_cap
    assert packed.summary_cap == packed.remainder * 2 // 5


CARD = Piece("Name: Alice. Nurse. Lives in Berlin.", 30)
REPRESENTATION = [Piece("most relevant", 20), Piece("middle", 15), Piece("least relevant", 10)]


def test_full_accounting_with_everything_fitting() -> None:
    packed = pack(
        300,
        representation=REPRESENTATION,
        peer_card=CARD,
        short_summary=Piece("short", 20),
        long_summary=Piece("long", 60),
        messages_newest_first=_messages_newest_first(10, 10, 10),
    )
    assert packed.remainder == 300 - 45 - 30
    assert packed.summary_cap == 90  # floor(0.4 * 225)
    assert packed.summary_kind == "long"
    assert [m.content for m in packed.messages] == ["m0", "m1", "m2"]
    assert packed.tokens_used == 30 + 45 + 60 + 30
    assert (packed.card_dropped, packed.representation_dropped, packed.messages_dropped) == (
        False,
        0,
        0,
    )
    _within_budget(packed)


def test_budget_smaller_than_the_card_drops_the_card_and_keeps_what_fits() -> None:
    packed = pack(
        25,
        representation=REPRESENTATION,
        peer_card=CARD,
        short_summary=Piece("short", 1),
        messages_newest_first=_messages_newest_first(1),
    )
    assert packed.peer_card is None and packed.card_dropped
    # Representation then fills B from the most relevant end: 20 fits, 15 does not.
    assert packed.representation == (REPRESENTATION[0],)
    assert packed.representation_dropped == 2
    assert packed.remainder == 5
    assert packed.summary_cap == 2
    assert packed.summary is not None  # 1 token fits under the cap of 2
    assert packed.messages == (_messages_newest_first(1)[0],)
    _within_budget(packed)


def test_card_and_representation_consume_the_whole_budget() -> None:
    packed = pack(
        50,
        representation=REPRESENTATION,
        peer_card=CARD,
        short_summary=Piece("short", 1),
        messages_newest_first=_messages_newest_first(1),
    )
    # The card fits alone and is kept; representation is trimmed from its least relevant end.
    assert packed.peer_card == CARD
    assert packed.representation == (REPRESENTATION[0],)
    assert packed.remainder == 0
    assert packed.summary is None and packed.messages == ()
    _within_budget(packed)


def test_representation_skips_an_item_that_does_not_fit_for_the_next() -> None:
    # One long belief shut out every shorter one after it (the reader review).
    packed = pack(34, representation=[Piece("a", 20), Piece("b", 15), Piece("c", 1)])
    assert [piece.text for piece in packed.representation] == ["a", "c"]
    assert (packed.remainder, packed.representation_dropped) == (13, 1)
    assert packed.representation_kept == (0, 2)  # where each kept one was given (probe K)
    packed = pack(10, representation=[Piece("long", 40), Piece("b", 4), Piece("c", 5)])
    assert [piece.text for piece in packed.representation] == ["b", "c"]
    _within_budget(packed)


def test_zero_budget() -> None:
    packed = pack(0, peer_card=CARD, messages_newest_first=_messages_newest_first(1))
    assert packed.tokens_used == 0
    assert render(packed) == ""


def test_no_summary_fits_the_forty_percent_cap() -> None:
    packed = pack(
        100,
        short_summary=Piece("short", 41),
        long_summary=Piece("long", 80),
        messages_newest_first=_messages_newest_first(30, 30, 30),
    )
    assert packed.summary_cap == 40
    assert packed.summary is None and packed.summary_kind is None
    # All of B' is then available to messages: three of 30 fit in 100.
    assert len(packed.messages) == 3
    _within_budget(packed)


def test_summary_cap_rounds_down() -> None:
    assert pack(12, short_summary=Piece("s", 5)).summary_cap == 4  # 0.4 * 12 = 4.8
    assert pack(12, short_summary=Piece("s", 5)).summary is None
    assert pack(13, short_summary=Piece("s", 5)).summary_kind == "short"  # 0.4 * 13 = 5.2


@pytest.mark.parametrize(
    ("short", "long", "cap", "expected"),
    [
        (Piece("s", 10), Piece("l", 30), 40, "long"),  # long fits and is longer
        (Piece("s", 10), Piece("l", 50), 40, "short"),  # long too big, short fits
        (Piece("s", 30), Piece("l", 30), 40, "short"),  # long not strictly longer
        (Piece("s", 35), Piece("l", 20), 40, "short"),  # long shorter than short
        (Piece("s", 45), Piece("l", 20), 40, None),  # long fits but is shorter; short too big
        (None, Piece("l", 20), 40, "long"),  # no short summary counts as 0 tokens
        (Piece("", 0), Piece("l", 20), 40, "long"),  # an empty short one too
        (Piece("s", 10), None, 40, "short"),
        (None, None, 40, None),
        (Piece("s", 41), Piece("l", 60), 40, None),
    ],
)
def test_long_versus_short_summary(
    short: Piece | None, long: Piece | None, cap: int, expected: str | None
) -> None:
    chosen, kind = choose_summary(short, long, cap)
    assert kind == expected
    assert chosen is {"long": long, "short": short, None: None}[kind]


def test_messages_pack_newest_first_and_come_out_chronological() -> None:
    newest_first = _messages_newest_first(5, 50, 10, 10, 10)  # m0..m4, m4 newest
    packed = pack(40, messages_newest_first=newest_first)
    assert packed.summary is None
    # m4, m3, m2 fit (30); m1 (50) does not, and packing stops there: m0 is not used either.
    assert [m.content for m in packed.messages] == ["m2", "m3", "m4"]
    assert packed.messages_dropped == 2
    assert packed.message_tokens == 30
    _within_budget(packed)


def test_messages_use_what_the_summary_leaves() -> None:
    packed = pack(
        100,
        peer_card=Piece("card", 50),
        short_summary=Piece("short", 20),
        messages_newest_first=_messages_newest_first(10, 10, 10, 10),
    )
    assert packed.remainder == 50
    assert packed.summary_cap == 20 and packed.summary_kind == "short"
    assert [m.content for m in packed.messages] == ["m1", "m2", "m3"]  # 30 = 50 - 20
    assert packed.tokens_used == 100
    _within_budget(packed)


def _matched(*tokens: int) -> list[RecentMessage]:
    """Matched messages x0 (best) .. xN, older than every recent one."""
    return [
        RecentMessage("alice", f"x{i}", T0 - timedelta(days=i + 1), t, f"x{i}")
        for i, t in enumerate(tokens)
    ]


def test_matched_messages_take_at_most_half_of_what_the_summary_left() -> None:
    packed = pack(
        120,
        peer_card=Piece("card", 20),
        short_summary=Piece("short", 20),
        messages_newest_first=_messages_newest_first(10, 10, 10, 10, 10, 10, 10, 10),
        matched_best_first=_matched(30, 25, 10, 5),
    )
    # B' = 100, summary 20: matched may use 40. x0 (30) fits, x1 (25) does not and is skipped,
    # x2 (10) fills the cap, x3 (5) no longer fits.
    assert [m.content for m in packed.matched] == ["x0", "x2"]
    assert packed.matched_dropped == 2 and packed.matched_tokens == 40
    # Recent messages fill the other 40, newest first.
    assert [m.content for m in packed.messages] == ["m4", "m5", "m6", "m7"]
    assert packed.tokens_used == 120
    _within_budget(packed)


def test_a_recent_message_already_matched_is_not_shown_twice() -> None:
    recent = _messages_newest_first(10, 10, 10, 10)  # m3 first
    packed = pack(60, messages_newest_first=recent, matched_best_first=[recent[1]])  # m2
    assert [m.content for m in packed.matched] == ["m2"]
    # In the window m2 is passed over at no cost rather than ending it: m3, m1 and m0 follow.
    assert [m.content for m in packed.messages] == ["m0", "m1", "m3"]
    assert packed.messages_dropped == 0
    assert packed.tokens_used == 40
    _within_budget(packed)


def test_without_matched_messages_the_packing_is_unchanged() -> None:
    args = {
        "representation": REPRESENTATION,
        "peer_card": CARD,
        "short_summary": Piece("short", 20),
        "messages_newest_first": _messages_newest_first(10, 10, 10),
    }
    assert pack(150, **args) == pack(150, **args, matched_best_first=())  # type: ignore[arg-type]


@pytest.mark.parametrize("budget", range(0, 120, 7))
def test_never_exceeds_budget(budget: int) -> None:
    packed = pack(
        budget,
        representation=REPRESENTATION,
        peer_card=CARD,
        short_summary=Piece("short", 8),
        long_summary=Piece("long", 16),
        messages_newest_first=_messages_newest_first(3, 9, 4, 12, 6, 2),
        matched_best_first=_matched(7, 3, 11),
    )
    _within_budget(packed)
    assert packed.matched_tokens <= (packed.remainder - packed.summary_tokens) // 2
    assert packed.remainder == budget - packed.card_tokens - packed.representation_tokens
    assert packed.remainder >= 0


def test_invalid_inputs() -> None:
    with pytest.raises(ValueError, match="budget"):
        pack(-1)
    with pytest.raises(ValueError, match="token count"):
        Piece("x", -3)


def test_render_has_readable_sections_in_priority_order() -> None:
    packed = pack(
        1000,
        representation=[Piece("Alice moved to Berlin in 2023.", 9)],
        peer_card=Piece("Name: Alice\nOccupation: nurse", 8),
        short_summary=Piece("Alice and the bot talked about moving.", 9),
        messages_newest_first=[
            RecentMessage("bot", "How is Berlin?", T0 + timedelta(minutes=1), 5),
            RecentMessage("alice", "I just moved!", T0, 5),
        ],
        matched_best_first=[RecentMessage("alice", "Berlin it is.", T0 - timedelta(days=2), 4)],
    )
    text = render(packed)
    assert text == (
        "## Peer card\nName: Alice\nOccupation: nurse\n\n"
        "## What is known (most relevant first)\n- Alice moved to Berlin in 2023.\n\n"
        "## Session summary (short)\nAlice and the bot talked about moving.\n\n"
        "## Messages matching the query (best first)\n"
        "[2024-05-01 09:00+00:00] alice: Berlin it is.\n\n"
        "## Recent messages (oldest first)\n"
        "[2024-05-03 09:00+00:00] alice: I just moved!\n"
        "[2024-05-03 09:01+00:00] bot: How is Berlin?"
    )


def test_render_omits_empty_sections() -> None:
    packed = pack(100, messages_newest_first=_messages_newest_first(5))
    assert render(packed) == "## Recent messages (oldest first)\n[2024-05-03 09:00+00:00] alice: m0"
