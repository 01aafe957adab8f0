"""Which attribute a fact fills, for the zero-key dreamer (pure).

`slot_of` reads facts of the shape "<peer> lives in Lisbon" or "<peer>'s favourite colour is
green", or with a later clause so shaped, as (slot, value) pairs. Two facts that fill one
updatable slot with different values are a knowledge update; the same value is a repeat.

Precision comes before recall, by construction:
- the subject must be the peer itself: "Alice's sister lives in Rome" fills nothing;
- values are cut at the first comma, clause or time word and must be short; places and
  employers must be proper nouns (capitalised), so "lives in a small flat" fills nothing;
- future, past-habitual and hedged forms ("is moving to", "used to live", "might move") and
  negations never fill a slot;
- only single-valued attributes are updatable: a second child's name is not an update.

English only. Facts whose wording these patterns do not know are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from reasoners.dreamer.contacts import (
    ANOTHER_PHONE,
    EMAIL_ANYWHERE,
    EMAIL_FORM,
    NUMBER_SHAPED,
    PHONE_FORM,
    phone_digits,
)

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
# The extractive deriver dates its facts: "... (stated on 2024-05-03).", and the LLM deriver a
# current state: "... (as of 2024-05-03)".
_STATED = re.compile(
    r"\(stated on [^)]*\)\s*\.?\s*$|\s*\(as of [^()]{1,40}\)\s*\.?\s*$", re.IGNORECASE
)
# The suffix is looked for in a fact's last characters only: searched over a whole fact, a long
# run of spaces cost the square of its length (7 s for 25,000 characters).
_STATED_WINDOW = 64
_SPACES = re.compile(r"\s+")

# Where a value ends: punctuation, or a word that starts a new clause or a time expression.
_BOUNDARY = re.compile(
    r"[,.;:!?()\"]| (?:with|for|since|because|and|but|as|where|when|after|before|until|from"
    r"|last|this|next|in \d{4}|a few|about|around|now|recently|ago|yesterday|today|tonight"
    r"|currently|anymore|any more|again|these days|at the moment|which|who|that|so|to be|by"
    r"|at|in|on|near|while|during|full-time|part-time)\b",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an|her|his|their|its)\s+", re.IGNORECASE)
_NOT_A_VALUE = frozenset(
    [
        "home",
        "night",
        "nights",
        "weekends",
        "work",
        "school",
        "night-time",
        "the",
        "moment",
        "the",
        "same",
        "place",
        "the",
        "weekend",
        "weekend",
        "morning",
        "mornings",
        "evening",
        "evenings",
    ]
)
_NUMBER = re.compile(r"^\d{1,3}$")


@dataclass(frozen=True)
class Slot:
    name: str
    updatable: bool  # a later different value replaces the earlier one
    card: bool  # an identity marker the peer card keeps


RESIDENCE = Slot("residence", True, True)
WORKPLACE = Slot("workplace", True, True)
OCCUPATION = Slot("occupation", True, True)
AGE = Slot("age", True, True)
NAME = Slot("name", True, True)
RELATIONSHIP = Slot("relationship status", True, True)
HOMETOWN = Slot("hometown", False, True)
# Contact details: one current value each, but not identity markers the card keeps.
PHONE = Slot("phone number", True, False)
EMAIL = Slot("email address", True, False)


def favourite(thing: str) -> Slot:
    return Slot(f"favourite {thing}", True, False)


def relation(thing: str) -> Slot:
    """Family members and pets: identity markers, but a second one is not an update."""
    kind = "pet" if thing in ("dog", "cat") else "family"
    return Slot(f"{kind} {thing}", False, True)


CARD_PREFIXES = ("family ", "pet ")


@dataclass(frozen=True)
class SlotFill:
    slot: Slot
    value: str  # normalised: lower case, no article

    @property
    def key(self) -> str:
        """What the graph indexes: facts of one slot are found by it."""
        return self.slot.name


@dataclass(frozen=True)
class Pattern:
    slot: Slot | Callable[[str], Slot]  # a callable names the slot from the `thing` group
    regex: re.Pattern[str]
    proper: bool = False  # the value must be capitalised (a place, an employer)
    number: bool = False  # the value must be a number (an age)
    max_words: int = 5
    # The value is what this matches at its start, whole (a phone number or an address holds
    # the punctuation that ends other values), and normalised by `normal`.
    form: re.Pattern[str] | None = None
    normal: Callable[[str], str | None] | None = None
    tight: bool = False  # the value must end its clause (nothing but punctuation after it)


def _p(slot: Slot | Callable[[str], Slot], text: str, **kw: bool | int) -> Pattern:
    return Pattern(slot, re.compile(text, re.IGNORECASE), **kw)  # type: ignore[arg-type]


_NOW = r"(?:now |currently |still |also )?"
_JUST = r"(?:just |recently |finally |also )?"
# After "<peer> " (or "<peer>'s " for the possessive ones).
_PATTERNS: tuple[Pattern, ...] = (
    _p(
        RESIDENCE,
        _NOW + r"(?:lives|is (?:now |currently |still )?living|has been living|has lived|resides"
        r"|is (?:now |currently )?based) in (?P<v>.+)",
        proper=True,
    ),
    _p(RESIDENCE, _JUST + r"(?:has )?(?:moved|relocated) (?:back )?to (?P<v>.+)", proper=True),
    _p(
        WORKPLACE,
        _NOW + r"(?:works|is working|has been working|has worked) (?:at|for) (?P<v>.+)",
        proper=True,
    ),
    _p(
        WORKPLACE,
        _JUST + r"(?:started|began|has started) (?:working|a new job|a job) (?:at|for) (?P<v>.+)",
        proper=True,
    ),
    _p(WORKPLACE, _JUST + r"got a (?:new )?job (?:at|with) (?P<v>.+)", proper=True),
    _p(OCCUPATION, _NOW + r"works as (?:a|an) (?P<v>.+)", max_words=4),
    _p(OCCUPATION, r"is (?:a|an) (?P<v>.+?) by (?:profession|trade)", max_words=4),
    _p(AGE, r"is (?P<v>\d{1,3}) years? old\b.*", number=True),
    _p(AGE, _JUST + r"turned (?P<v>\d{1,3})\b.*", number=True),
    _p(NAME, r"goes by (?P<v>.+)", proper=True, max_words=3),
    _p(NAME, r"prefers to be called (?P<v>.+)", proper=True, max_words=3),
    _p(
        RELATIONSHIP,
        _NOW + r"is (?P<v>married|single|engaged|divorced|widowed|separated)\b.*",
    ),
    _p(RELATIONSHIP, _JUST + r"got (?P<v>married|engaged|divorced)\b.*"),
    _p(HOMETOWN, r"(?:is|comes) (?:originally )?from (?P<v>.+)", proper=True),
    _p(HOMETOWN, r"grew up in (?P<v>.+)", proper=True),
    _p(
        relation,
        r"has (?:a|an|one) (?P<thing>daughter|son|sister|brother|wife|husband|partner|"
        r"girlfriend|boyfriend|dog|cat) (?:named|called) (?P<v>.+)",
        proper=True,
        max_words=3,
    ),
)
_POSSESSIVE: tuple[Pattern, ...] = (
    Pattern(
        PHONE,
        re.compile(
            r"(?:(?:new|current|mobile|cell|personal|main) )*"
            r"(?:(?:tele)?phone(?: number)?|(?:mobile|cell)(?: number)?) is (?P<v>.+)",
            re.IGNORECASE,
        ),
        form=PHONE_FORM,
        normal=phone_digits,
    ),
    # A bare "number" may be any number: only one that ends the fact reads as a phone's.
    Pattern(
        PHONE,
        re.compile(r"(?:(?:new|current|personal|main) )*number is (?P<v>.+)", re.IGNORECASE),
        form=PHONE_FORM,
        normal=phone_digits,
        tight=True,
    ),
    Pattern(
        EMAIL,
        re.compile(
            r"(?:(?:new|current|personal|main) )*e-?mail(?: address)? is (?P<v>.+)",
            re.IGNORECASE,
        ),
        form=EMAIL_FORM,
        normal=str.lower,
    ),
    _p(
        favourite,
        r"(?:all[- ]time |absolute )?favou?rite (?P<thing>[a-z]+(?: [a-z]+)?) is (?P<v>.+)",
        max_words=6,
    ),
    _p(NAME, r"(?:full |real |preferred )?name is (?P<v>.+)", proper=True, max_words=4),
    _p(
        relation,
        r"(?P<thing>daughter|son|sister|brother|wife|husband|partner|girlfriend|boyfriend)"
        r"(?:'s name)? is (?:named |called )?(?P<v>.+)",
        proper=True,
        max_words=3,
    ),
)
_HEDGES = re.compile(
    r"\b(?:might|may|maybe|perhaps|probably|would|could|wants? to|plans? to|hopes? to|"
    r"thinking of|used to|will|going to|if|not|n't|never|no longer)\b",
    re.IGNORECASE,
)


def core_text(content: str) -> str:
    """The fact without the deriver's date suffix, apostrophes unified, spaces collapsed."""
    text = content.translate(_APOSTROPHES)
    stated = _STATED.search(text, max(0, len(text) - _STATED_WINDOW))
    if stated is not None:
        text = text[: stated.start()]
    return _SPACES.sub(" ", text).strip().rstrip(".").strip()


def _subject_rest(text: str, name: str) -> tuple[str, bool] | None:
    """The text after the peer's name, and whether it was possessive ("Alice's ...")."""
    lowered = text.lower()
    for prefix in (name.lower(), "the " + name.lower()):
        if lowered.startswith(prefix + "'s "):
            return text[len(prefix) + 3 :], True
        if lowered.startswith(prefix + " "):
            return text[len(prefix) + 1 :], False
    return None


def _formed(raw: str, pattern: Pattern) -> str | None:
    """A value of a fixed form (a phone number, an email address): it must be followed by
    punctuation or the end, or (unless `tight`) by a word that starts a new clause, so that
    "555-1234 or 555-9999" fills nothing."""
    assert pattern.form is not None
    shaped = pattern.form.match(raw)
    if shaped is None:
        return None
    after = raw[shaped.end() :]
    ends = not after.strip() or after.lstrip()[:1] in tuple(",;:.!?)")
    if not ends and (pattern.tight or _BOUNDARY.match(after) is None):
        return None
    value = shaped.group(0)
    if pattern.form is PHONE_FORM:
        # "555-1234 and 555-4444": which one is meant is not said.
        if ANOTHER_PHONE.search(after):
            return None
        if pattern.tight and NUMBER_SHAPED.match(value):
            return None
    return pattern.normal(value) if pattern.normal else value


def _value(raw: str, pattern: Pattern) -> str | None:
    if pattern.form is not None:
        return _formed(raw.strip(), pattern)
    cut = _BOUNDARY.search(raw)
    value = (raw[: cut.start()] if cut else raw).strip()
    value = _ARTICLE.sub("", value).strip()
    if not value or len(value.split()) > pattern.max_words:
        return None
    if pattern.number:
        return value if _NUMBER.match(value) else None
    if pattern.proper and not value[0].isupper():
        return None
    lowered = value.lower()
    return None if lowered in _NOT_A_VALUE else lowered


# A later clause of a fact that names the peer again: "Alice just moved, alice lives in Berlin
# now" (the extractive deriver's words for "Actually I just moved, I live in Berlin now"), after
# a comma, semicolon, colon or spaced dash. It is read only when the first clause is the peer's
# own too: "According to my brother, alice lives in Berlin" is not her saying so.
_CLAUSE = re.compile(r"[,;:] | [-\u2013\u2014] ")
# A lead-in that only announces what follows, before a colon or a dash ("Big news: alice
# lives in Berlin now" filled no slot, and Lisbon stayed her home for good). Any other lead-in
# may say the rest is no fact of the peer's ("Rumour:", "False:", "My brother said:"): that
# clause is not read.
_ANNOUNCED = re.compile(
    r"(?i)(?:(?:big|good|bad|great|exciting|some|quick|latest|life|news)\s+)?"
    r"(?:news|update|correction|fyi|heads[\s-]up|guess what)"
    # A hyphen ends it only when spaced on a side: unspaced, it joins a word ("News-anchor").
    # "Update:- " is one separator; a hyphen before a digit is a minus ("Update -1 degrees").
    r"(?:\s*(?::|\?|--|[\u2013\u2014])(?:\s*-(?=\s))?|\s+-(?![\d.])|-(?=\s))\s*"
)


def without_lead_in(text: str) -> str:
    """`text` after a lead-in that only announces it ("Big news: ...", "Correction - ...")."""
    announced = _ANNOUNCED.match(text)
    return text[announced.end() :] if announced else text


def slot_of(content: str, name: str) -> SlotFill | None:
    """The (slot, value) a fact about `name` fills, or None when it fills none we know: the
    fact read whole (after an announcing lead-in), else the first of its later clauses that
    starts with the peer's name and fills one."""
    text = without_lead_in(core_text(content))
    whole = _fill(text, name)
    if whole is not None or _hedged(text):
        return whole
    first, *later = _CLAUSE.split(text)
    said = _subject_rest(first, name)
    if said is None or said[1]:  # not the peer's own clause ("Alice's brother said, ...")
        return None
    for clause in later:
        if (found := _fill(clause, name)) is not None:
            return found
    return None


def _hedged(text: str) -> bool:
    """Whether `text` hedges or negates (an email address's words do not: "will.smith@...")."""
    return _HEDGES.search(EMAIL_ANYWHERE.sub(" ", text)) is not None


def _fill(text: str, name: str) -> SlotFill | None:
    found = _subject_rest(text, name)
    if found is None:
        return None
    rest, possessive = found
    if _hedged(rest):
        return None
    for pattern in _POSSESSIVE if possessive else _PATTERNS:
        match = pattern.regex.fullmatch(rest)
        if match is None:
            continue
        value = _value(match.group("v"), pattern)
        if value is None:
            return None
        slot = pattern.slot
        if not isinstance(slot, Slot):
            slot = slot(match.group("thing").lower())
        return SlotFill(slot, value)
    return None
