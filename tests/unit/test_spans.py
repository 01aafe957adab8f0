import pytest

from reasoners.text.spans import Grounding, is_grounded, locate, normalize

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  Hello,   World!  ", "hello, world"),
        ("\u201cQuoted\u201d and \u2018single\u2019", "quoted\" and 'single"),
        ("2019\u20132021 \u2014 long", "2019-2021 - long"),
        ("\ufb01ne \uff21\uff22\uff23", "fine abc"),  # NFKC: ligature and fullwidth letters
        ("Stra\u00dfe", "strasse"),  # casefold, not just lower
        ("line\none\ttab", "line one tab"),
        ("...!?", ""),
        ("", ""),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


MESSAGE = "Honestly?  I\u2019ve   been living in M\u00fcnchen since 2019 \u2014 love it!"


@pytest.mark.parametrize(
    "span",
    [
        "I've been living in M\u00fcnchen since 2019",  # straight apostrophe, single spaces
        "i\u2019ve been living in m\u00fcnchen",  # case differs
        '"living in M\u00fcnchen since 2019 - love it."',  # dash unified, quotes stripped
        "Mu\u0308nchen",  # decomposed umlaut still matches the composed one
    ],
)
def test_grounded_spans(span: str) -> None:
    assert is_grounded(span, MESSAGE)


@pytest.mark.parametrize(
    "span",
    [
        "I have been living in M\u00fcnchen",  # paraphrase
        "living in Munich",  # translation
        "",  # empty
        "  ...  ",  # nothing left after normalization
    ],
)
def test_ungrounded_spans(span: str) -> None:
    assert not is_grounded(span, MESSAGE)


def test_locate_returns_offsets_in_the_original_message() -> None:
    span = "I've been living in M\u00fcnchen"
    found = locate(span, MESSAGE)
    assert found is not None
    start, end = found
    assert MESSAGE[start:end] == "I\u2019ve   been living in M\u00fcnchen"


def test_locate_excludes_surrounding_punctuation_of_the_span() -> None:
    message = "She said: I moved to Berlin. Then nothing."
    found = locate('"I moved to Berlin."', message)
    assert found is not None
    assert message[found[0] : found[1]] == "I moved to Berlin"


def test_locate_covers_whole_expanded_characters() -> None:
    message = "A \ufb01ne day"  # the "fi" ligature is one source character
    found = locate("fine day", message)
    assert found == (2, len(message))
    found = locate("a f", message)  # ends inside the ligature: the ligature is included
    assert found is not None
    assert message[found[0] : found[1]] == "A \ufb01"


def test_locate_none_when_not_grounded() -> None:
    assert locate("Paris", MESSAGE) is None
    assert locate("", MESSAGE) is None


def test_locate_agrees_with_is_grounded() -> None:
    for span in ["living", "LIVING IN", "nowhere", "2019 \u2013 love"]:
        assert (locate(span, MESSAGE) is not None) == is_grounded(span, MESSAGE)


def test_fullwidth_and_non_breaking_forms_match_ascii() -> None:
    message = "Call me at 555\uff0d0100,\u00a0please"
    assert is_grounded("555-0100, please", message)
    found = locate("555-0100", message)
    assert found is not None
    assert message[found[0] : found[1]] == "555\uff0d0100"


def test_one_grounding_answers_as_is_grounded_across_messages() -> None:
    grounding = Grounding()
    other = "Call me at 555\uff0d0100,\u00a0please"
    for span in ["living", "LIVING IN", "nowhere", "2019 \u2013 love", "555-0100", ""]:
        for message in (MESSAGE, other, MESSAGE):  # the second time from what it kept
            assert grounding.check(span, message) == is_grounded(span, message), (span, message)
