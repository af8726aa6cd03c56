"""Answer matching: NIST patterns decide QA training labels and the reported MRR@5."""
import pytest

from textqa.models.qa.system import normalise_answer, pattern_match


@pytest.mark.parametrize("text, expected", [
    ("The Iron Lady", "iron lady"),                 # a leading article goes
    ("an  Apple, Inc.", "apple inc"),               # punctuation and runs of spaces
    ("A", "a"),                                     # a lone article is the answer itself
    ("Theodore Roosevelt", "theodore roosevelt"),   # 'the' only as a word
    ("  1,000 -- miles!  ", "1 000 miles"),
    ("Café Zürich", "caf z rich"),                  # non-ASCII letters are dropped (ASCII key)
])
def test_normalise_answer(text, expected):
    assert normalise_answer(text) == expected


def test_answers_that_differ_only_in_form_merge():
    assert normalise_answer("The Beatles.") == normalise_answer("beatles") == normalise_answer("the  BEATLES")
    assert normalise_answer("Young") != normalise_answer("Hugo Young")     # a shorter answer stays distinct


@pytest.mark.parametrize("patterns, text, expected", [
    (["Hugo Young"], "hugo young", True),                       # case-insensitive
    (["Hugo\\s+Young"], "by Hugo   Young (Farrar)", True),      # a search, not a full match
    (["^1789$"], "in 1789", False),                             # anchors are honoured
    (["^1789$"], "1789", True),
    (["(Nicole )?Kidman"], "Kidman", True),
    (["Vesuvius", "Etna"], "Mount Etna", True),                 # any pattern of the list
    (["Vesuvius"], "Mount Etna", False),
    ([], "anything", False),
    (["C++ (language"], "written in c++ (language of choice", True),   # not a regex: substring fallback
    (["C++ (language"], "written in C", False),
])
def test_pattern_match(patterns, text, expected):
    assert pattern_match(patterns, text) is expected
