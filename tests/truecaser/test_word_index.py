"""The stored word index (read, not built at load) answers as a dictionary of the same words does:
words that share a CRC-32 are told apart, a word not in the index is never taken for one that is,
and stored arrays that do not fit their words are refused."""
import numpy as np
import pytest

from textqa.models.truecaser.word_index import WordIndex


def test_the_index_answers_as_a_dictionary(wiki_sentences):
    words = list(dict.fromkeys(t.lower() for s in wiki_sentences for t in s.split()))
    words += ["plumless"]                        # shares its CRC-32 with "buckeroo", which is not in
    index = WordIndex.build(words)
    stored = WordIndex.from_words_blob("\n".join(words).encode("utf-8"), **{
        "hashes": index.arrays()["word_hashes"], "order": index.arrays()["word_order"]})
    plain = dict(zip(words, range(len(words))))
    # (with a word of undecodable input, as the command reads it: surrogate escapes)
    asked = words[::7] + ["buckeroo", "no-such-word", "The", "", b"\xff\xfe".decode("utf-8", "surrogateescape")] \
        + [w.upper() for w in words[:50]]
    for idx in (index, stored):
        assert idx.find(asked).tolist() == [plain.get(w, -1) for w in asked]
        assert [idx.get(w) for w in reversed(asked)] == [plain.get(w) for w in reversed(asked)]
        assert "plumless" in idx and "buckeroo" not in idx and len(idx) == len(words) > 3000
        assert list(idx) == words and list(idx.values()) == list(range(len(words)))


def test_words_of_one_hash_are_both_found():
    index = WordIndex.build(["buckeroo", "a", "plumless", "b"])
    assert index.find(["plumless", "buckeroo", "c"]).tolist() == [2, 0, -1]


def test_stored_arrays_that_do_not_fit_are_refused():
    words = ["buckeroo", "a", "plumless", "b"]
    a = WordIndex.build(words).arrays()
    blob = "\n".join(words).encode()
    twice = "\n".join(["plumless", "a", "plumless", "b"]).encode()
    for bad_blob, hashes, order in ((blob, a["word_hashes"][::-1].copy(), a["word_order"]),
                                    (blob, a["word_hashes"], a["word_order"][:-1]),
                                    (blob, a["word_hashes"], np.zeros(4, np.int32)),
                                    (blob, a["word_hashes"], a["word_order"].astype(np.int64)),
                                    (twice, WordIndex.build(["plumless", "a", "plumless", "b"]).arrays()["word_hashes"],
                                     WordIndex.build(["plumless", "a", "plumless", "b"]).arrays()["word_order"])):
        with pytest.raises(ValueError, match="word index"):
            WordIndex.from_words_blob(bad_blob, hashes, order)
