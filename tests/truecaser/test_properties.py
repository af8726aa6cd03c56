"""Property tests: truecasing never changes anything but the case of letters, whatever the input."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from textqa.models.truecaser.service_api import TruecaserService
from textqa.models.truecaser.tokenize import PTBTokenizer
from textqa.paths import PUNKT_DIR

WORDS = st.sampled_from(["the", "new", "york", "u.s.", "(", ")", '"', "''", "``", "'s", "n't", ".", "?", "!",
                         "paris", "mcdonald", "x-ray", "1991", "-lrb-", "\u00e9cole", "\u4e2d", " ", "\n", "\t"])
TEXT = st.one_of(st.text(max_size=80), st.lists(WORDS, max_size=40).map(" ".join))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_raw_text_only_case_changes(small_truecaser, text):
    service = TruecaserService(small_truecaser, PTBTokenizer(PUNKT_DIR))
    out = service.truecase_text(text)
    assert len(out) == len(text)
    assert all(a == b or a.lower() == b.lower() for a, b in zip(out, text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_tokenized_only_case_changes(small_truecaser, text):
    service = TruecaserService(small_truecaser, PTBTokenizer(PUNKT_DIR))
    out = service.truecase_tokenized([text])[0]
    assert len(out) == len(text)
    assert all(a == b or a.lower() == b.lower() for a, b in zip(out, text))
