"""Property tests: truecasing never changes anything but the case of letters, whatever the input."""
import re
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from textqa.models.truecaser.service_api import TruecaserService
from textqa.models.truecaser.tokenize import PTBTokenizer
from textqa.runtime.paths import PUNKT_DIR

WORDS = st.sampled_from(["the", "new", "york", "u.s.", "(", ")", '"', "''", "``", "'s", "n't", ".", "?", "!",
                         "paris", "mcdonald", "x-ray", "1991", "-lrb-", "\u00e9cole", "\u4e2d", " ", "\n", "\t"])
TEXT = st.one_of(st.text(max_size=80), st.lists(WORDS, max_size=40).map(" ".join))


@cache
def tokenizer() -> PTBTokenizer:
    """One tokenizer for every example (it keeps no state between calls; building one reads the
    Punkt tables, about 14 ms)."""
    return PTBTokenizer(PUNKT_DIR)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_raw_text_only_case_changes(small_truecaser, text):
    service = TruecaserService(small_truecaser, tokenizer())
    out = service.truecase_text(text)
    assert len(out) == len(text)
    assert all(a == b or a.lower() == b.lower() for a, b in zip(out, text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_tokenized_only_case_changes(small_truecaser, text):
    service = TruecaserService(small_truecaser, tokenizer())
    out = service.truecase_tokenized([text])[0]
    assert len(out) == len(text)
    assert all(a == b or a.lower() == b.lower() for a, b in zip(out, text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_tokenized_rejoin_equals_the_span_edit(small_truecaser, text):
    """Tokenized lines are rejoined from their re-cased tokens (their original separators kept); that
    equals editing each \\S+ span of the line in place, the raw-text path's method."""
    service = TruecaserService(small_truecaser, tokenizer())
    for line in (text, " ".join(text.split())):
        spans = [[[(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", line)]]]
        assert service.truecase_tokenized([line]) == service._recase([line], spans, False)


MODEL_WORDS = st.sampled_from(["the", "paris", "x-ray", "alpes-maritimes", "o'brien", "1991", ".", "\u00df",
                               "\u00dfx", "\ufb01sh", "stra\u00dfe", "\u03c2", "\u0130", "i\u0307x", "\u01c6-\u01c6", "#a_b#"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(MODEL_WORDS, min_size=1, max_size=12))
def test_the_models_tokens_keep_their_length(small_truecaser, tokens):
    """The Python API (``predict_tokens``, without the service's guards), in both searches: each
    token comes back with its own length and letters, whatever its first letter uppercases to
    ("\u00df" -> "SS")."""
    try:
        for search in ("native", "python"):
            small_truecaser.search = search
            out = small_truecaser.predict_tokens([tokens])[0]
            assert len(out) == len(tokens), search
            assert all(len(o) == len(t) and o.casefold() == t.casefold() for o, t in zip(out, tokens)), search
    finally:
        small_truecaser.search = "auto"


def _spans_by_two_passes(tok: PTBTokenizer, text: str) -> list:
    """:meth:`PTBTokenizer.spans` as NLTK's own calls define it: each sentence's spans from
    ``span_tokenize`` and its tokens from ``tokenize(convert_parentheses=True)`` (:meth:`PTBTokenizer.words`;
    two passes)."""
    out = []
    for a, b in tok._sentences.span_tokenize(text):
        sentence = text[a:b]
        try:
            spans = list(tok._words.span_tokenize(sentence))
            tokens = tok.words(sentence)
            assert len(spans) == len(tokens)
        except (ValueError, IndexError):
            return None                                      # the fallback split: not compared here
        out.append([(a + x, a + y, t) for (x, y), t in zip(spans, tokens)])
    return out


BRACKETS = st.lists(st.sampled_from(["(", ")", "[", "]", "{", "}", "<", ">", '"', "''", "``", "'", "--", "-",
                                     "-LRB-", "can", "not", "n't", "'s", "a", "B", ".", " ", "\n"]),
                    max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(TEXT, BRACKETS))
def test_the_spans_of_one_treebank_pass_are_those_of_two(text):
    """The raw-text path tokenizes each sentence once and maps its brackets to PTB symbols: the same
    tokens and spans as NLTK's span_tokenize beside tokenize(convert_parentheses=True)."""
    tok = tokenizer()
    expected = _spans_by_two_passes(tok, text)
    if expected is not None:
        assert tok.spans(text) == expected
