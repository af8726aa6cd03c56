from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from textqa.models.truecaser.casing import (CA, LC, MC, NONE, UC, apply_class, capitalize_first, case_class,
                                            fold_accents, restore_accents, transfer_case)
from textqa.models.truecaser.tokenize import split_at_sentence_final


def test_paper_classes():
    # Lita et al. 2003 section 2: LC, UC (first letter), CA (all caps), MC (mixed)
    assert case_class("delay") == LC
    assert case_class("Delay") == UC
    assert case_class("DeLay") == MC
    assert case_class("NASA") == CA
    assert case_class("McCartney") == MC
    assert case_class("TheBeatles") == MC
    assert case_class("1991") == NONE
    assert case_class(",") == NONE


def test_single_letters_and_punctuated():
    assert case_class("A") == UC and case_class("I") == UC
    assert case_class("U.S.") == CA
    assert case_class("X-ray") == UC
    assert case_class("-LRB-") == CA


def test_rendering():
    assert apply_class("lenon", UC) == "Lenon"
    assert apply_class("now", CA) == "NOW"
    assert apply_class("it", LC) == "it"
    assert capitalize_first("''hello") == "''Hello"
    # no one-character capital ("SS", "FI"): left as it is, the token keeps its length
    assert capitalize_first("\u00dfx") == "\u00dfx" and capitalize_first("\ufb01sh") == "\ufb01sh"
    assert capitalize_first("stra\u00dfe") == "Stra\u00dfe" and capitalize_first("\u03c2") == "\u03a3"
    assert transfer_case('"', "``") == '"'
    assert transfer_case("new", "New") == "New"


def test_sentence_split_of_tokenized_lines():
    toks = "He left . She stayed ! `` Why ? '' he asked .".split()
    parts = split_at_sentence_final(toks)
    assert parts[0] == ["He", "left", "."]
    assert parts[1] == ["She", "stayed", "!"]
    assert [t for p in parts for t in p] == toks
    assert split_at_sentence_final(["a", "."]) == [["a", "."]]
    assert split_at_sentence_final([]) == []


def test_fold_accents_drops_marks_letter_for_letter():
    assert fold_accents("Pyrénées-Atlantiques") == "Pyrenees-Atlantiques"
    assert fold_accents("São Tomé , ÉCOLE") == "Sao Tome , ECOLE"
    for kept in ("Malmø", "Straße", "\ufb01ne", "\ud55c\uad6d", "x\u00b2", "plain"):   # no single base letter
        assert fold_accents(kept) == kept
    assert restore_accents("são", "Sao") == "São" and restore_accents("ÉCOLE", "Ecole") == "École"
    assert restore_accents("straße", "STRASSE") == "STRASSE"          # not its fold: the decision as is
    assert restore_accents("straße", "STRAßE") == "STRAßE"            # "ß" has no one-letter capital


@settings(max_examples=300, deadline=None)
@given(text=st.text())
def test_fold_then_restore_gives_the_text_back(text):
    folded = fold_accents(text)
    assert len(folded) == len(text) and fold_accents(folded) == folded
    assert restore_accents(text, folded) == text
    upper = folded.upper()
    if len(upper) == len(text):
        out = restore_accents(text, upper)
        assert len(out) == len(text) and all(a == b or a.upper() == b.upper() for a, b in zip(out, text))


def test_the_casing_table_round_trips_through_arrays_and_rejects_junk(wiki_sentences):
    """The artifact's form of the casing table (arrays; a word's list made when asked for) holds the
    same forms in the same order as the counted table, and malformed arrays are refused."""
    import numpy as np
    import pytest

    from textqa.models.truecaser.baseline import CasingTable
    table = CasingTable.from_counts(Counter(t for s in wiki_sentences[:2000] for t in s.split()))
    arrays = table.to_arrays()
    again = CasingTable.from_arrays(arrays)
    assert len(again.forms) == len(table.forms) > 1000 and list(again.forms) == list(table.forms)
    assert all([list(p) for p in table.forms[w]] == again.forms[w] for w in table.forms)
    assert "the" in again.forms and "no-such-word" not in again.forms and again.forms.get("no-such-word") is None
    assert again.most_frequent("the") == table.most_frequent("the")
    assert {"word_hashes", "word_order"} <= set(arrays)       # the word index stored, read at load
    unindexed = {k: v for k, v in arrays.items() if not k.startswith("word_")}
    assert list(CasingTable.from_arrays(unindexed).forms) == list(table.forms)      # format 8: built at load
    twice = np.frombuffer(b"\n".join([b"a"] * (len(arrays["off"]) - 1)), dtype=np.uint8)
    for junk in (dict(arrays, off=arrays["off"][:-1]), dict(arrays, counts=-arrays["counts"]),
                 dict(arrays, off=arrays["off"].astype(np.int32)), {"words": arrays["words"]},
                 dict(unindexed, words=twice), dict(arrays, word_order=arrays["word_order"][::-1][:-1]),
                 dict(arrays, word_hashes=arrays["word_hashes"][::-1].copy()),
                 dict(arrays, word_order=arrays["word_order"] + np.int32(1)),
                 dict(arrays, words=twice, word_hashes=np.sort(np.zeros_like(arrays["word_hashes"])))):
        with pytest.raises(ValueError, match="not a casing table"):
            CasingTable.from_arrays(junk)
