import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

import pytest

from reasoners.deriver.first_person import (
    ExtractedFact,
    extract,
    is_self_statement,
    restated,
    to_third_person,
    undated,
)
from reasoners.text.sentences import split_sentences
from reasoners.text.spans import is_grounded

pytestmark = pytest.mark.unit

MAY_3 = date(2024, 5, 3)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("I moved. My dog is Rex!", ["I moved.", "My dog is Rex!"]),
        ("Dr. Smith treats me, e.g. for my knee.", ["Dr. Smith treats me, e.g. for my knee."]),
        ("It cost 3.5 euros. Cheap!", ["It cost 3.5 euros.", "Cheap!"]),
        ("I was thinking... maybe not. Well... Okay.",
         ["I was thinking... maybe not.", "Well...", "Okay."]),
        ("Ready?! Yes.", ["Ready?!", "Yes."]),
        ("I live in the U.S. My job is there.", ["I live in the U.S.", "My job is there."]),
        ("See you at 6 p.m. tomorrow.", ["See you at 6 p.m. tomorrow."]),
        ("Apples, pears, etc. and more. Done", ["Apples, pears, etc. and more.", "Done"]),
        ("No. 5 is my number. No. I refuse.", ["No. 5 is my number.", "No.", "I refuse."]),
        ("J. R. R. Tolkien wrote it. So do I. Really.",
         ["J. R. R. Tolkien wrote it.", "So do I.", "Really."]),
        ('He said "I quit." Then he left.', ['He said "I quit."', "Then he left."]),
        ("first line\n\nsecond line", ["first line", "second line"]),
        ("My hobbies:\n- climbing\n* chess\n\u2022 I also paint\n2. I sing", [
            "My hobbies:", "climbing", "chess", "I also paint", "I sing",
        ]),
        ("  ", []),
        ("no terminator", ["no terminator"]),
        ("Wait!... What?", ["Wait!...", "What?"]),
        ("So.... Fine", ["So....", "Fine"]),
        # Runs that mix an ellipsis with other marks were not read as terminators at all.
        ("Wait\u2026! Next one.", ["Wait\u2026!", "Next one."]),
        ("Ok\u2026. Next", ["Ok\u2026.", "Next"]),
        ("Really?!\u2026 Yes.", ["Really?!\u2026", "Yes."]),
        ("Really?!\u2026 yes.", ["Really?!\u2026 yes."]),
    ],
)  # fmt: skip
def test_split_sentences(text: str, sentences: list[str]) -> None:
    result = split_sentences(text)
    assert result == sentences
    assert all(sentence in text for sentence in result)  # verbatim pieces of the text


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("a" + "." * 25_000 + "a", 1),
        ("I" + "!?" * 12_000 + "x", 1),
        (("I " + "a" * 500 + ". ") * 49, 49),
        ("Dr. " * 6_000, 1),
        ("J. " * 8_000, 1),
    ],
    ids=["dots", "marks", "long-words", "titles", "initials"],
)
def test_splitting_a_long_line_costs_its_length(text: str, count: int) -> None:
    # Each of these took 2.5 to 22 s when every terminator rescanned the line (a message held the
    # worker that long); linear splitting takes milliseconds, so a second is a wide margin.
    started = time.perf_counter()
    assert len(split_sentences(text)) == count
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    "text",
    [
        "I am here" + " " * 24_980 + "z",
        "I am here " + ", " * 12_490 + "z",
        "I am here " + "lol " * 6_245 + "z",
        "I am here " + ":) " * 8_326 + "z",
    ],
    ids=["spaces", "commas", "laughter", "smileys"],
)
def test_extracting_a_long_sentence_costs_its_length(text: str) -> None:
    # The trailing-laughter and final-mark patterns backtracked over such runs from every
    # position: 25 to 40 s each, holding the worker (and, by the GIL, the server).
    started = time.perf_counter()
    extract([Turn("alice", text, datetime(2024, 5, 3, tzinfo=UTC))], "Alice")
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    "sentence",
    [
        "I moved to Berlin last year.",
        "My dog is called Rex",
        "I'm a nurse",
        "i work night shifts at the hospital",
        "Oh, I really love hiking in the Alps!",
        "We have two kids.",
        "When I was young, I lived in Rome.",
        "Thanks, I\u2019ve been vegetarian since 2019 lol",
        # "U" that is not "you": these were dropped whole.
        "I moved to the U.S. in 2010.",
        "I love U2 so much.",
        "I got my PhD from U of T.",
        # A wh-word before no auxiliary opens a statement.
        "What I want is a new bike.",
        "How I met my wife is a long story.",
        "I can swim.",
        "Which is why I moved to Berlin.",  # the diff review: dropped as a question
        "What was great is I got the job.",
    ],
)
def test_self_statements_are_kept(sentence: str) -> None:
    assert is_self_statement(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Do you like Berlin?",  # question
        "Is my cat ok?",  # question about something of mine
        "Can I ask something",  # question without a question mark
        "Tell me about Berlin.",  # request
        "Please help me with my CV.",  # request
        "Thanks!",  # filler
        "ok",
        "I think so.",
        "Me too!",
        "I love it too",
        "I'm good, thanks.",
        "Hi, I'm fine",
        "You should try it, I loved it.",  # about the other speaker
        "If I were rich I'd buy a boat.",  # hypothetical
        "Sarah gave me a puppy.",  # only an object pronoun: about Sarah
        "Berlin is lovely in May.",  # no first person
        "Even if I lived in Paris, I'd hate it.",  # a condition before the subject
        "Say I lived in Paris.",
        "Pretend I'm a pirate.",
        "i will call u later today",  # chat's "u" is "you"
        "I think ur right about it",
        # A wh-question typed without "?" (the review: "How do Alice reset Alice's password").
        "how do I reset my password",
        "what do I do now",
        "where can I buy a cheap laptop",
        # Elliptic agreement: nothing of its own ("Neither do Alice").
        "Neither do I.",
        "So do I.",
        "Neither do I like cats.",  # probe K: "Neither do Alice like cats"
        "Neither does my wife.",
        "",
    ],
)
def test_non_statements_are_dropped(sentence: str) -> None:
    assert not is_self_statement(sentence)


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("I moved to Berlin last year.", "Alice moved to Berlin last year"),
        ("My dog is called Rex", "Alice's dog is called Rex"),
        ("I'm a nurse", "Alice is a nurse"),
        ("I've been vegetarian since 2019.", "Alice has been vegetarian since 2019"),
        ("I was born in Lyon.", "Alice was born in Lyon"),
        ("I work as a nurse.", "Alice works as a nurse"),
        ("I study chemistry.", "Alice studies chemistry"),
        ("I usually go running before work.", "Alice usually goes running before work"),
        ("I don't eat meat!", "Alice doesn't eat meat"),
        ("I have a sister.", "Alice has a sister"),
        ("I am not a morning person.", "Alice is not a morning person"),
        ("I can speak French.", "Alice can speak French"),
        ("I'd love to visit Japan.", "Alice would love to visit Japan"),
        ("I'd been there before.", "Alice had been there before"),
        ("I'll start a new job in June.", "Alice will start a new job in June"),
        ("I read a book every week.", "Alice reads a book every week"),
        ("I read that book yesterday.", "Alice read that book yesterday"),
        ("I need a new laptop.", "Alice needs a new laptop"),
        ("When I was young, I lived in Rome.", "When Alice was young, Alice lived in Rome"),
        ("My sister called me.", "Alice's sister called Alice"),
        ("I taught myself Python.", "Alice taught themself Python"),
        ("That bike is mine.", "That bike is Alice's"),
        ("We have two kids and our daughter is five.",
         "Alice and others have two kids and Alice's daughter is five"),
        ("We're moving to Lisbon.", "Alice and others are moving to Lisbon"),
        ("Oh, i love sushi lol", "Alice loves sushi"),
        ("So I moved to Berlin", "Alice moved to Berlin"),
        ("I live in the US.", "Alice lives in the US"),
        ("I\u2019m from Lyon, i.e. France.", "Alice is from Lyon, i.e. France"),
        ("I now own a boat.", "Alice now owns a boat"),
        ("I probably need glasses.", "Alice probably needs glasses"),
        ("I secretly hate flying.", "Alice secretly hates flying"),
        # "no" was taken for the verb: "Alice noes longer live in Leeds".
        ("I no longer live in Leeds.", "Alice no longer lives in Leeds"),
        ("I apply for jobs weekly.", "Alice applies for jobs weekly"),
        # "ever" and "neither" were taken for the verb: "Alice hardly evers drink".
        ("I hardly ever drink coffee.", "Alice hardly ever drinks coffee"),
        ("I neither smoke nor drink.", "Alice neither smokes nor drink"),
        ("I so love this band.", "Alice so loves this band"),
    ],
)  # fmt: skip
def test_to_third_person(sentence: str, fact: str) -> None:
    assert to_third_person(sentence, "Alice", MAY_3) == f"{fact} (stated on 2024-05-03)."


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        # A Roman numeral or a road: "Alice has type Alice diabeteses", "Alice-95 everies day".
        ("I have type I diabetes.", "Alice has type I diabetes"),
        ("My grandpa fought in World War I.", "Alice's grandpa fought in World War I"),
        ("I drive on I-95 every day.", "Alice drives on I-95 every day"),
        ("I'm reading Part I of the book.", "Alice is reading Part I of the book"),
        ("I said no to the offer.", "Alice said no to the offer"),
        # After a determiner and a noun, "I" opens a clause: "The book I read" kept "I".
        ("The book I read last year was great.", "The book Alice read last year was great"),
        ("The class I teach starts at nine.", "The class Alice teaches starts at nine"),
        # A compound subject, an inversion: "Alice ares", "Alice knowns".
        ("My brother and I are twins.", "Alice's brother and Alice are twins"),
        ("Tom and I go hiking.", "Tom and Alice go hiking"),
        ("Had I known, I would have come.", "Had Alice known, Alice would have come"),
        ("I live in Rome and I love it.", "Alice lives in Rome and Alice loves it"),
    ],
)
def test_an_i_that_is_not_the_speaker_stays(sentence: str, fact: str) -> None:
    assert to_third_person(sentence, "Alice", MAY_3) == f"{fact} (stated on 2024-05-03)."


def test_to_third_person_requires_a_name() -> None:
    with pytest.raises(ValueError, match="peer_name"):
        to_third_person("I am here.", " ", MAY_3)


@dataclass(frozen=True)
class Turn:
    peer: str
    content: str
    created_at: datetime


START = datetime(2024, 5, 3, 18, 30, tzinfo=UTC)
CHAT = [
    Turn("assistant", "Hi! How was your week?", START),
    Turn("alice", "Hey! Pretty busy. I started a new job at the Charit\u00e9 on Monday.", START),
    Turn("assistant", "Congratulations! What will you be doing there?", START),
    Turn("alice", "I'm a pediatric nurse. I work night shifts, so I sleep until noon.", START),
    Turn("assistant", "That sounds demanding. Do you have time for hobbies?", START),
    Turn("alice", "Not much lol. I\u2019ve been climbing twice a week since 2021.\n"
                  "My partner climbs too.", START),
    Turn("assistant", "Nice. Any pets at home?", START),
    Turn("alice", "Yes, my dog is called Rex. He's a beagle. Do you like dogs?", START),
    Turn("assistant", "I do! Where did you live before Berlin?", START),
    Turn("alice", "I grew up in Lyon, but I moved to Berlin in 2019. Thanks for asking!",
         START + timedelta(days=1)),
]  # fmt: skip


def test_extract_from_a_realistic_chat() -> None:
    alice_turns = [turn for turn in CHAT if turn.peer == "alice"]
    facts = extract(alice_turns, "Alice")
    assert [(fact.content, fact.message_index) for fact in facts] == [
        ("Alice started a new job at the Charit\u00e9 on Monday (stated on 2024-05-03).", 0),
        ("Alice is a pediatric nurse (stated on 2024-05-03).", 1),
        ("Alice works night shifts, so Alice sleeps until noon (stated on 2024-05-03).", 1),
        ("Alice has been climbing twice a week since 2021 (stated on 2024-05-03).", 2),
        ("Alice's partner climbs too (stated on 2024-05-03).", 2),
        ("Alice's dog is called Rex (stated on 2024-05-03).", 3),
        ("Alice grew up in Lyon, but Alice moved to Berlin in 2019 (stated on 2024-05-04).", 4),
    ]
    for fact in facts:
        assert isinstance(fact, ExtractedFact)
        source = alice_turns[fact.message_index].content
        assert fact.span in source  # verbatim
        assert is_grounded(fact.span, source)
        # Third person about the peer: no first-person words survive.
        words = fact.content.lower().replace(".", " ").replace(",", " ").split()
        assert not {"i", "i'm", "i've", "me", "my", "we", "our"} & set(words)
        assert fact.content.startswith("Alice")


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("I live in Berlin. Just kidding!", []),
        ("I live in Berlin. jk", []),
        ("I'm getting married. Not really.", []),
        # A bare "no, I don't" answers a question more often than it takes anything back
        # (the quick review: "I'm a recovering alcoholic. No, I don't." lost the fact).
        ("I got the job! Wait, no, I didn't.", ["Alice got the job"]),
        ("I'm a recovering alcoholic. No, I don't.", ["Alice is a recovering alcoholic"]),
        ("I live in Lisbon. Well, never mind, it's complicated.", ["Alice lives in Lisbon"]),
        ("Never mind, forget I asked.", []),
        ("I have a cat. I live in Oslo. lol jk", ["Alice has a cat"]),
        # Taken back and said again: what it says instead is kept (probe K).
        ("I have two cats. Just kidding, I have three cats.", ["Alice has three cats"]),
        ("I work at Google. Not really, I work at Apple.", ["Alice works at Apple"]),
        ("I own a boat. Psych!", []),
        # Only the sentence just before it (the diff review: "teacher" was dropped).
        ("I'm a teacher. Can you help me grade? Never mind.", ["Alice is a teacher"]),
        # Not retractions: a sentence that says more.
        ("I live in Rome. No, I'm not kidding.", ["Alice lives in Rome"]),
        ("I have a cat. Not really a cat, a kitten.", ["Alice has a cat"]),
    ],
)
def test_a_retraction_takes_back_the_fact_before_it(text: str, facts: list[str]) -> None:
    """A fact taken back in the next sentence was kept: "I live in Berlin. Just kidding!" made
    "Alice lives in Berlin" (the review)."""
    found = extract([Turn("alice", text, START)], "Alice")
    assert [f.content.removesuffix(" (stated on 2024-05-03).") for f in found] == facts


def test_a_retraction_takes_back_nothing_of_an_earlier_message() -> None:
    turns = [Turn("alice", "I live in Rome.", START), Turn("alice", "Just kidding!", START)]
    assert [f.message_index for f in extract(turns, "Alice")] == [0]


def test_extract_skips_messages_with_nothing_to_keep() -> None:
    turns = [Turn("alice", "Thanks! Do you like dogs? ok", START)]
    assert extract(turns, "Alice") == []


def test_a_date_of_the_first_centuries_is_written_in_four_digits() -> None:
    """strftime wrote the year 1 as "1": a date the fact's own reader did not take again."""
    fact = to_third_person("I like tea.", "Kim", date(1, 1, 1))
    assert fact == "Kim likes tea (stated on 0001-01-01)."
    assert restated(fact, {date(1, 2, 1)}) == "Kim likes tea (stated on 0001-02-01)."
    assert undated(fact) == "Kim likes tea"


def test_invisible_characters_stay_out_of_the_words() -> None:
    """A file saved with a byte-order mark began its first fact with one, and a NUL or a
    zero-width space stayed inside the words (so "Acme" did not match "Ac\u200bme")."""
    text = "\ufeffI love jazz\x00 music a lot.\n\x00 I work at Ac\u200bme Corp now.\u200b"
    turns = [Turn("alice", text, START)]
    facts = extract(turns, "Alice")
    day = START.date().isoformat()
    assert [f.content for f in facts] == [
        f"Alice loves jazz music a lot (stated on {day}).",
        f"Alice works at Acme Corp now (stated on {day}).",
    ]
    # The spans stay verbatim, without the marks at their ends.
    assert [f.span for f in facts] == [
        "I love jazz\x00 music a lot.",
        "I work at Ac\u200bme Corp now.",
    ]
    assert all(f.span in text for f in facts)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("I like tea.\u200bI like coffee.", ["I like tea.", "I like coffee."]),
        ("I like tea.\x00 I like coffee.", ["I like tea.", "I like coffee."]),
        ("\ufeff- I live in Oslo.", ["I live in Oslo."]),  # the bullet after the mark
    ],
)
def test_invisible_characters_do_not_hide_sentence_ends_or_bullets(
    text: str, sentences: list[str]
) -> None:
    assert split_sentences(text) == sentences


def test_a_fact_is_judged_as_it_reads() -> None:
    """A zero-width space inside "Please" hid the request from the filter, which then kept
    "Please remember Alice lives in Oslo"; the joiners of an emoji sequence stay."""
    turns = [Turn("alice", "Ple\u200base remember I live in Oslo.", START)]
    assert extract(turns, "Alice") == []
    [fact] = extract([Turn("alice", "I love the \U0001f468\u200d\U0001f469 emoji.", START)], "A")
    assert "\U0001f468\u200d\U0001f469" in fact.content
