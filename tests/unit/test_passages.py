"""Passages: how a message is cut into the stretches that get vectors of their own."""

from __future__ import annotations

import pytest

from graph.errors import InvalidInput
from graph.settings import Settings
from reasoners.embeddings.passages import (
    PASSAGE_CHARS,
    PASSAGE_SPAN,
    MessageVectors,
    embed_messages,
    model_inputs,
    passages,
)
from tests.fakes.embedder import CountingEmbedder

COUGH = (
    "I've been dealing with a lingering cough for six weeks now, and I'm wondering if you can "
    "recommend some natural remedies to help soothe my symptoms. By the way, I finally went "
    "to see my primary care physician, Dr. Smith, on March 3rd, and he diagnosed me with "
    "bronchitis."
)


def test_a_message_of_one_passage_has_none_of_its_own() -> None:
    assert passages("Short and sweet. Two sentences.") == []
    assert passages("") == []
    assert passages("   \n\n ") == []
    # One long sentence is one passage, however long.
    assert passages("word " * 500) == []


def test_sentences_pack_into_passages_of_at_most_the_limit() -> None:
    parts = passages(COUGH)
    assert parts == [
        "I've been dealing with a lingering cough for six weeks now, and I'm wondering if you "
        "can recommend some natural remedies to help soothe my symptoms.",
        "By the way, I finally went to see my primary care physician, Dr. Smith, on March 3rd, "
        "and he diagnosed me with bronchitis.",
    ]
    short = passages("One. Two. Three. " + "x" * PASSAGE_CHARS)
    # Short sentences share a passage; the long one stands alone.
    assert short == ["One. Two. Three.", "x" * PASSAGE_CHARS]


def test_line_breaks_end_sentences_and_bullets_are_dropped() -> None:
    text = "- " + "a" * 150 + "\n\n- " + "b" * 150 + "\n1. " + "c" * 150
    assert passages(text) == ["a" * 150, "b" * 150, "c" * 150]


def test_passages_cover_only_the_opening_of_a_long_message() -> None:
    sentence = "y" * 98 + "."
    parts = passages(" ".join([sentence] * 100))  # 9,999 characters
    # Two sentences per passage; passages start within the first PASSAGE_SPAN characters.
    assert parts == [f"{sentence} {sentence}"] * 3
    assert sum(len(p) + 1 for p in parts[:-1]) < PASSAGE_SPAN


async def test_messages_and_their_passages_are_embedded_in_one_call() -> None:
    embedder = CountingEmbedder()
    out = await embed_messages(embedder, ["hello", COUGH, "bye"])
    first, second = passages(COUGH)
    assert embedder.calls == [["hello", COUGH, "bye", first, second]]
    assert out == [
        MessageVectors([5.0, 1.0], []),
        MessageVectors([float(len(COUGH)), 1.0], [float(len(first)), 1.0, float(len(second)), 1.0]),
        MessageVectors([3.0, 1.0], []),
    ]
    assert await embed_messages(embedder, []) == []


async def test_without_passages_only_the_texts_are_embedded() -> None:
    embedder = CountingEmbedder()
    out = await embed_messages(embedder, ["hello", COUGH], with_passages=False)
    assert embedder.calls == [["hello", COUGH]]
    assert out == [MessageVectors([5.0, 1.0], None), MessageVectors([float(len(COUGH)), 1.0], None)]


def test_passages_are_on_unless_turned_off() -> None:
    assert Settings.from_env({}).passages_enabled
    assert not Settings.from_env({"BELIEFGRAPH_MESSAGE_PASSAGES": "off"}).passages_enabled
    with pytest.raises(InvalidInput, match="BELIEFGRAPH_MESSAGE_PASSAGES must be on or off"):
        Settings.from_env({"BELIEFGRAPH_MESSAGE_PASSAGES": "no"})


def test_model_inputs_are_the_texts_then_their_passages() -> None:
    first, second = passages(COUGH)
    assert model_inputs(["a", COUGH]) == (["a", COUGH, first, second], [[], [first, second]])
