"""The extractive (no-LLM) deriver core: first-person sentences become third-person facts.

A sentence the target peer said about themself ("I moved to Berlin last year.") becomes a
dated fact about them ("Alice moved to Berlin last year (stated on 2024-05-03)."), and the
original sentence is kept verbatim as the grounding span. Every first-person reference is
replaced by the peer's name (never "he"/"she", which would guess a gender, nor "they", which
reads as plural); "myself" becomes "themself", "we"/"us" become "<name> and others" (so plural
verbs still agree) and "our" becomes "<name>'s".

What this cannot do, honestly:
- English only, and only sentences with a first-person subject or possessive (I, my, we, our).
  "Sarah gave me a puppy" (only "me") is skipped: such sentences are mostly about others.
- No coreference across sentences: "I have a dog. He is called Rex." yields only the first.
- No facts stated by other speakers about the peer, and nothing implicit or inferred.
- Sentences that mention "you" are skipped, since "you" cannot be resolved without the other
  speaker; so are questions, requests, greetings, fillers ("I think so") and hypotheticals
  ("If I ..."). Sarcasm, jokes and role-play are taken at face value.
- Bullet items without a first-person word ("- climbing") are lost, even under "My hobbies:".
- Reported speech is rewritten naively: in 'My mom said "I hate cats"' the quoted "I" becomes
  the peer too.
- Verb agreement is heuristic: the verb right after "I" (skipping adverbs such as "really") gets
  a third-person form, so "I read books" gives "reads"; an ambiguous present/past verb such
  as "read" is left alone when the sentence has a past-time marker like "yesterday".
- Relative dates ("last year") are not resolved; the statement date is appended instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from reasoners.deriver.retractions import after_retraction, is_retraction
from reasoners.text.sentences import split_sentences

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*")
# What a fact's words leave out, though a message held it: zero-width marks and a byte-order
# mark go; control characters (a NUL, a tab) become one space.
# The joiners (U+200C, U+200D) stay: emoji sequences and some scripts' spelling need them.
_FORMAT_MARKS = re.compile("[\u200b\u200e\u200f\u2060-\u2064\ufeff]+")
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]+")


def _vocabulary(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text.translate(_APOSTROPHES))]


# --- filtering ----------------------------------------------------------------------------

# Interjections dropped from the front of a sentence when followed by punctuation ...
_INTERJECTIONS = (
    "thank you|thanks|thx|oh well|oh|ah|aw|well|so|yeah|yes|yep|yup|no|nope|nah|ok|okay|hey|hi"
    "|hello|haha+|hehe+|lol|lmao|sure|honestly|actually|anyway|anyways|um+|uh+|hmm+|wow|right"
    "|cool|great|nice|awesome|sorry|omg|btw|also|and|but|plus"
)
# ... and these also before a bare first-person word ("so I moved"), but not before anything
# else, where they may carry meaning ("So many people ...").
_FILLER_OPENERS = (
    "oh|ah|well|so|yeah|yep|yup|um+|uh+|hmm+|haha+|lol|honestly|actually|anyway|btw|and|but"
)
_LEADING = re.compile(
    rf"^(?:(?:{_INTERJECTIONS})\b\s*[,!.:;\-\u2013\u2014]+\s*"
    rf"|(?:{_FILLER_OPENERS})\s+(?=(?:i|im|ive|my|we|our)\b))+",
    re.IGNORECASE,
)
_TRAILING = re.compile(r"(?:[\s,]*(?:\b(?:lol|haha+|hehe+|lmao|xd)\b|[:;]-?[)(DPp]))+\s*$", re.I)
# _TRAILING is tried only on a sentence's last characters: searched over a whole sentence it
# backtracks through every run of spaces or commas from every position in it (40 s for one
# 25,000-character sentence), and laughter at the end is never this long.
_TRAILING_WINDOW = 80

_FIRST_PERSON = _vocabulary(
    "i i'm im i've ive i'd i'll my mine myself we we're we've we'd we'll our ours ourselves"
)
_SECOND_PERSON = _vocabulary("you your yours yourself yourselves you're you've you'll you'd ya")
# "u" and "ur" as chat writes "you" and "your": lower case, alone; not "U.S.", "U2", "U of T".
_CHAT_YOU = re.compile(r"(?<![\w.'])(?:u|ur)(?![\w.'\u2019])")
# Yes/no-question openers; a wh-word opens a question only before one of them and a subject
# ("how do I reset my password", typed without "?"), since it also opens statements ("When I
# was young", "What I want is ...", "Which is why I moved", "What was great is ...").
_QUESTION_OPENERS = _vocabulary(
    "do does did can could would will should shall is are am was were have has may might must"
    " isn't aren't wasn't weren't"
)
_WH_WORDS = _vocabulary("what when where why how who whom whose which")
_ASKED_ABOUT = _vocabulary("i we you he she they it my our your his her their")
_REQUEST_OPENERS = _vocabulary(
    "please tell give show help let let's make write find explain send remind check list"
    " describe suggest recommend try look take bring keep stop don't imagine remember consider"
    " thank thanks hi hello hey bye goodbye welcome if unless suppose supposing assuming say"
    " pretend"
)
# A condition before the first first-person word makes the rest hypothetical ("Even if I
# lived in Paris, I'd hate it"); after it, it qualifies a statement ("I'd go if I could").
_CONDITIONS = _vocabulary("if unless suppose supposing assuming imagine")
# A sentence made only of these says nothing on its own ("I think so", "I love it too").
_EMPTY_WORDS = _vocabulary(
    "i i'm im i've ive i'd i'll me my mine myself we we're we've we'd we'll us our it it's that"
    " that's this these those so too very really just totally also still not don't do does did"
    " am is are was were be been have has had think guess know agree see mean hope feel love"
    " like understand get got sure good fine ok okay great glad sorry happy same well right"
    " thinking wondering kidding joking thanks thx lol a an the to and or but neither nor either"
    " didn't doesn't isn't wasn't aren't weren't haven't hasn't won't can't wait never mind"
    " forget asked no yes"
)
_MIN_WORDS = 3


def _core(sentence: str) -> str:
    """The sentence without leading interjections and trailing laughter or emoticons."""
    core = _LEADING.sub("", sentence.strip())
    cut = max(0, len(core) - _TRAILING_WINDOW)
    return (core[:cut] + _TRAILING.sub("", core[cut:])).strip()


def is_self_statement(sentence: str) -> bool:
    """Whether `sentence` is a declarative first-person statement worth keeping as a fact."""
    if "?" in sentence:
        return False
    words = _words(_core(sentence))
    if len(words) < _MIN_WORDS:
        return False
    if words[0] in _QUESTION_OPENERS or words[0] in _REQUEST_OPENERS:
        return False
    if words[0] in _WH_WORDS and words[1] in _QUESTION_OPENERS and words[2] in _ASKED_ABOUT:
        return False
    if words[0] in ("neither", "nor") and words[1] in _QUESTION_OPENERS:
        return False  # "Neither do I like cats": inverted, it reads "Neither do Alice like cats"
    if "please" in words or any(word in _SECOND_PERSON for word in words):
        return False
    if _CHAT_YOU.search(sentence):
        return False
    first = next((i for i, word in enumerate(words) if word in _FIRST_PERSON), None)
    if first is None:
        return False
    if any(word in _CONDITIONS for word in words[:first]):
        return False
    return not all(word in _EMPTY_WORDS for word in words)


# --- rewriting ----------------------------------------------------------------------------

# Contracted and plain first-person forms -> (replacement template, conjugate the next verb).
_PRONOUNS: dict[str, tuple[str, bool]] = {
    "i": ("{name}", True),
    "i'm": ("{name} is", False),
    "im": ("{name} is", False),
    "i've": ("{name} has", False),
    "ive": ("{name} has", False),
    "i'll": ("{name} will", False),
    "i'd": ("{name} {would}", False),
    "me": ("{name}", False),
    "my": ("{name}'s", False),
    "mine": ("{name}'s", False),
    "myself": ("themself", False),
    "we": ("{name} and others", False),
    "we're": ("{name} and others are", False),
    "we've": ("{name} and others have", False),
    "we'll": ("{name} and others will", False),
    "we'd": ("{name} and others {would}", False),
    "us": ("{name} and others", False),
    "our": ("{name}'s", False),
    "ours": ("{name}'s", False),
    "ourselves": ("themselves", False),
}
# Words that may sit between "I" and its verb ("I really love ...").
_ADVERBS = _vocabulary(
    "also really just still usually never always often sometimes actually recently finally"
    " totally definitely honestly literally mostly only currently rarely seldom generally"
    " normally typically mainly even already absolutely kinda sort kind of too"
    " now then probably almost nearly hardly barely certainly occasionally frequently"
    " regularly simply basically personally truly seriously genuinely once"
    " ever so neither either"  # "I hardly ever drink", "I neither smoke nor drink"
    " no longer not"  # "I no longer live", "I not only cook"
)
_LY_VERBS = _vocabulary("apply reply supply imply rely multiply rally tally bully ally sully")
_IRREGULAR_3RD = {
    "am": "is", "have": "has", "haven't": "hasn't", "havent": "hasn't", "do": "does",
    "don't": "doesn't", "dont": "doesn't", "go": "goes",
}  # fmt: skip
# Already agree with any subject: modals, past auxiliaries, negations of those.
_UNCHANGED = _vocabulary(
    "can could will would shall should may might must can't cannot couldn't won't wouldn't"
    " shouldn't mustn't was wasn't did didn't had hadn't used ought cant wont didnt wasnt"
)
IRREGULAR_PAST = _vocabulary(
    "went was were had did got made took came saw knew thought told became left felt found gave"
    " began kept ran wrote bought brought met paid sold spent taught won lost grew flew drove ate"
    " drank swam sang broke chose forgot fell built sent sat stood understood woke wore caught"
    " fought heard held led meant slept spoke stole threw hung dug rode hid bit lent shook froze"
    " sought dealt fed forgave overcame said drew shot swore stuck struck rang sank spun tore"
    " rose blew slid learnt dreamt burnt spelt"
)
ENDS_IN_ED_BUT_PRESENT = _vocabulary(
    "need feed bleed breed proceed succeed exceed speed heed seed weed shed wed embed"
)
_PRESENT_OR_PAST = _vocabulary("read put cut set let hit quit hurt cost spread bet shut split cast")
_PAST_MARKER = re.compile(
    r"\b(?:yesterday|ago|last|earlier|previously|back then|in (?:19|20)\d\d)\b", re.I
)
_PARTICIPLE_AFTER_D = _vocabulary("been had gone done seen known taken given got gotten")


def _third_person_verb(word: str, past_context: bool) -> str:
    lowered = word.lower()
    if lowered in _IRREGULAR_3RD:
        return _IRREGULAR_3RD[lowered]
    if lowered in _UNCHANGED or lowered in IRREGULAR_PAST or "'" in lowered:
        return word
    if lowered.endswith("ed") and lowered not in ENDS_IN_ED_BUT_PRESENT:
        return word
    if lowered in _PRESENT_OR_PAST and past_context:
        return word
    if lowered.endswith(("s", "sh", "ch", "x", "z", "o")):
        return word + "es"
    if len(lowered) > 1 and lowered.endswith("y") and lowered[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def _is_adverb(lowered: str) -> bool:
    """An adverb between the subject and its verb ("I secretly hate"): listed, or an -ly word
    that is not one of the verbs ending so."""
    if lowered in _ADVERBS:
        return True
    return len(lowered) > 4 and lowered.endswith("ly") and lowered not in _LY_VERBS


def _strip_terminal(text: str) -> str:
    """`text` without the spaces and final marks it ends with. A loop, not a `[...]+$` search:
    that tries every position of a run of spaces to its end (3 s for a run of 25,000)."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in ".!\u2026"):
        end -= 1
    return text[:end]


def to_third_person(sentence: str, peer_name: str, date: dt.date) -> str:
    """Rewrite a first-person sentence as a dated third-person fact about `peer_name`."""
    if not peer_name.strip():
        raise ValueError("peer_name must not be empty")
    text = _core(_visible(sentence)).translate(_APOSTROPHES)
    past_context = bool(_PAST_MARKER.search(text))
    tokens = list(_WORD.finditer(text))
    out: list[str] = []
    cursor = 0
    conjugate_next = False
    for index, token in enumerate(tokens):
        word = token.group(0)
        lowered = word.lower()
        replacement = word
        previous = tokens[index - 1].group(0).lower() if index else ""
        # "The book I read": a determiner before the noun makes "I" the subject of a clause.
        before = tokens[index - 2].group(0).lower() if index > 1 else ""
        numeral_after = "" if before in _DETERMINERS else previous
        if _is_pronoun(word, text, token.end(), numeral_after):
            template, conjugate_next = _PRONOUNS[lowered]
            # "My brother and I are twins": the verb agrees with both (not "I live here and I
            # love it", where "I" was the subject before); "Had I known": no verb follows.
            compound = previous in ("and", "or", "nor") and not any(
                t.group(0).lower() in _SUBJECTS for t in tokens[:index]
            )
            conjugate_next = conjugate_next and not compound and previous not in _INVERTED_AFTER
            following = tokens[index + 1].group(0).lower() if index + 1 < len(tokens) else ""
            would = "had" if following in _PARTICIPLE_AFTER_D else "would"
            replacement = template.format(name=peer_name.strip(), would=would)
        elif conjugate_next and not _is_adverb(lowered):
            replacement = _third_person_verb(word, past_context)
            conjugate_next = False
        out.append(text[cursor : token.start()] + replacement)
        cursor = token.end()
    out.append(text[cursor:])
    rewritten = _strip_terminal("".join(out))
    rewritten = rewritten[:1].upper() + rewritten[1:]
    # isoformat: strftime's %Y writes the year 1 as "1", which the date's reader (_STATED_ON)
    # does not take.
    return f"{rewritten} (stated on {date.isoformat()})."


def _visible(sentence: str) -> str:
    """`sentence` without zero-width marks, each run of control characters and the spaces
    around it one space (split, not a pattern with spaces on both sides: that backtracks over a
    long run of spaces from each of its positions)."""
    parts = _CONTROLS.split(_FORMAT_MARKS.sub("", sentence))
    if len(parts) == 1:
        return parts[0]
    inner = [part.strip(" ") for part in parts[1:-1] if part.strip(" ")]
    return " ".join([parts[0].rstrip(" "), *inner, parts[-1].lstrip(" ")])


def _is_pronoun(word: str, text: str, end: int, previous: str = "") -> bool:
    lowered = word.lower()
    if lowered not in _PRONOUNS:
        return False
    if word == "US":  # the country, not "us"
        return False
    if lowered != "i":
        return True
    # "i" in "i.e." is not a pronoun, nor the numeral of "type I diabetes", "World War I",
    # "Part I", nor the road of "I-95".
    if re.match(r"\.[A-Za-z]|[-\u2010-\u2013]|\d", text[end : end + 2]):
        return False
    return previous not in _NUMERAL_I_AFTER


_DETERMINERS = _vocabulary(
    "the a an this that these those my your his her its our their every each which what any"
    " some no whose"
)
# A subject after these is inverted ("Had I known"): no verb of its own follows.
_INVERTED_AFTER = _vocabulary(
    "had were should did do does was have can could would will shall may might must"
)
_SUBJECTS = _vocabulary("i i'm i've i'd i'll im ive")
# A capital I after these is a Roman numeral: "type I diabetes", "World War I".
_NUMERAL_I_AFTER = _vocabulary(
    "type stage part phase war grade class chapter level volume vol act book section tier"
    " category appendix article schedule"
)


# --- extraction ---------------------------------------------------------------------------


class DatedMessage(Protocol):
    @property
    def content(self) -> str: ...

    @property
    def created_at(self) -> dt.datetime: ...


@dataclass(frozen=True)
class ExtractedFact:
    content: str  # the third-person, dated fact
    message_index: int  # index into the messages given to `extract`
    span: str  # the source sentence, verbatim


def extract(messages_of_target: Sequence[DatedMessage], peer_name: str) -> list[ExtractedFact]:
    """Facts about `peer_name` from the messages they sent, in message and sentence order."""
    facts: list[ExtractedFact] = []
    for index, message in enumerate(messages_of_target):
        stated_on = message.created_at.date()
        last: int | None = None  # the sentence of this message the last fact came from
        for at, sentence in enumerate(split_sentences(message.content)):
            # Judged as it reads: "Ple\u200base remember ..." is a request.
            rest = after_retraction(sentence)
            if is_retraction(_visible(sentence)) or rest is not None:
                if last == at - 1:
                    facts.pop()  # what it takes back: the sentence just before it
                    last = None
                if rest is None:
                    continue
                sentence = rest
            if is_self_statement(_visible(sentence)):
                content = to_third_person(sentence, peer_name, stated_on)
                facts.append(ExtractedFact(content, index, sentence))
                last = at
    return facts


# The date this module ends a fact with; a fact's last characters only are looked at.
_STATED_ON = re.compile(r" \(stated on (\d{4}-\d{2}-\d{2})\)\.$")


def undated(content: str) -> str:
    """`content` without the date this module ends a fact with (the words of the fact)."""
    found = _STATED_ON.search(content, max(0, len(content) - 32))
    return content if found is None else content[: found.start()]


def restated(content: str, dates: Collection[dt.date]) -> str | None:
    """`content` dated anew when the date it says it was stated on is none of `dates` (the
    messages that still state it): the earliest of them. None when it needs no change (it
    carries no such date, or one of theirs)."""
    found = _STATED_ON.search(content, max(0, len(content) - 32))
    if found is None or not dates:
        return None
    if found.group(1) in {d.isoformat() for d in dates}:
        return None
    return f"{content[: found.start()]} (stated on {min(dates).isoformat()})."
