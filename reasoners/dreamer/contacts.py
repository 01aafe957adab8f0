"""Contact details in a fact's words, for the zero-key dreamer's phone and email slots (pure).

A phone number or an email address holds the punctuation that ends other values, so each is
read by its own form; a phone number is compared by its digits.
"""

from __future__ import annotations

import re

# A phone number as written ("555-1234", "+1 (555) 123-4567") and an email address, each
# followed by the end or by what ends a clause.
PHONE_FORM = re.compile(r"\+?\(?\d[\d ().-]{4,24}\d(?=$|[,;:!? ]|\.(?:$| ))")
# Possessive, and started only where a run of address characters starts: a long run with no
# "@" in it was scanned again from each of its characters (94 s for 100,000 digits).
EMAIL_FORM = re.compile(r"[\w.+-]++@[\w-]++(?:\.[\w-]++)+(?=$|[,;:!? ]|\.(?:$| ))")
# What has a phone number's digits but is a date (with any separator, or none: "20240105").
DATE_LIKE = re.compile(
    r"(?:19|20)\d\d[-/. ](?:0?[1-9]|1[0-2])[-/. ](?:0?[1-9]|[12]\d|3[01])$"
    r"|(?:0?[1-9]|[12]\d|3[01])[-/. ](?:0?[1-9]|[12]\d|3[01])[-/. ](?:19|20)\d\d$"
    r"|(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$"
)
# What a bare "number is" may be besides a phone's: a decimal, a number grouped in thousands.
NUMBER_SHAPED = re.compile(r"\d+\.\d+$|\d{1,3}(?:[.,]\d{3})+$")
# A second phone number after the first ("555-1234 and 555-4444"): seven digits or more.
ANOTHER_PHONE = re.compile(r"\d(?:[ ().-]?\d){6}")
EMAIL_ANYWHERE = re.compile(r"(?<![\w.+-])[\w.+-]++@[\w-]++(?:\.[\w-]++)+")


def phone_digits(phone: str) -> str | None:
    """A phone number as its last ten digits: however it is grouped, and with or without its
    country code ("+1 555 123 4567", "(555) 123-4567"), it is one number. None for what is not
    one: fewer than seven digits, more than fifteen, or a date's shape."""
    digits = re.sub(r"\D", "", phone)
    if not 7 <= len(digits) <= 15 or DATE_LIKE.match(phone):
        return None
    return digits[-10:]
