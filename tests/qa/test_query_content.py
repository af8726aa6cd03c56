"""Query-content model pieces (Lita & Carbonell 2004, 4.2; 2008, 4.1)."""
import math

import pytest

from textqa.models.qa.query_content import average_mutual_information, learn, query_words, sentence_features

STOP = frozenset({"the", "in", "was", "of", "a"})


def test_average_mutual_information_by_hand():
    # 4 sentences, 2 relevant; the feature is in exactly the relevant ones: AMI = log 2
    assert average_mutual_information(2, 2, 2, 4) == pytest.approx(math.log(2))
    assert average_mutual_information(1, 2, 2, 4) == pytest.approx(0.0)          # independent
    assert average_mutual_information(2, 2, 2, 4) > average_mutual_information(2, 3, 2, 4)


def test_sentence_features_and_paraphrases():
    f = sentence_features("Mozart was born in Salzburg".split(), {"mozart", "born"}, STOP, max_n=3)
    assert "salzburg" in f and "<Q> in salzburg" in f
    assert "<Q> was <Q>" not in f                               # a paraphrase needs a content word
    assert "mozart" not in f and "was" not in f                 # keywords and stopword-only n-grams
    assert query_words("<Q> in salzburg") == ["in", "salzburg"]


def test_learn_keeps_expansions_that_retrieve_more_relevant_sentences():
    sentences = {"x died in 1791": False, "x was born in 1756": True}     # the keyword query finds the wrong one

    def search(words, k):
        hits = [t for t in sentences if any(w in t.split() for w in words)]
        hits.sort(key=lambda t: -sum(w in t.split() for w in words))
        return [(i, t, 1.0) for i, t in enumerate(hits[:1])]      # only the best sentence is retrieved

    ok = lambda t: sentences.get(t, False)
    data = [(["x"], [(sentence_features(t.split(), {"x"}, STOP), rel) for t, rel in sentences.items()], ok)] * 3
    expansions = learn(data, search, candidates=5, keep=2, k=1)
    assert expansions and all("born" in e or "1756" in e for e in expansions)
