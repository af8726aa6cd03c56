"""Answer types from answers themselves and candidate phrases (Lita & Carbonell 2004, 4.1, 4.3)."""
import pytest

from textqa.models.qa.candidates import (ANSWER_TYPES, answer_type, cluster_distribution, knn_distribution,
                                  sentence_candidates, type_distribution)
from textqa.models.qa.nlp import parse


@pytest.mark.parametrize("text, label, expected", [
    ("1827", None, "year"), ("the 1960s", None, "decade"), ("1,500", None, "number"),
    ("March 26, 1827", "DATE", "date"), ("Ludwig van Beethoven", "PERSON", "person"),
    ("Vienna", "GPE", "location"), ("Interscope Records", "ORG", "organization"),
    ("40 miles", None, "quantity"), ("$ 5 million", "MONEY", "quantity"), ("a violin", None, "phrase"),
])
def test_answer_types_come_from_the_answer_text(text, label, expected):
    assert answer_type(text, label) == expected


def test_sentence_candidates():
    doc = parse(["Beethoven died in Vienna on March 26, 1827, aged 56."])[0]
    cands = {c.text: c.type for c in sentence_candidates(doc)}
    assert "Beethoven" in cands and cands.get("Vienna") == "location"
    assert "date" in cands.values() and cands.get("56") == "number"


def test_eq1_knn_distribution_and_cluster_mixture():
    year, person = type_distribution(["year"] * 5), type_distribution(["person"] * 5)
    d = knn_distribution([(0.9, year), (0.1, person)])
    assert d["year"] == pytest.approx(0.9 * year["year"] + 0.1 * person["year"])   # gamma normalises to 1
    assert sum(d.values()) == pytest.approx(1.0) and set(d) == set(ANSWER_TYPES)
    dense = cluster_distribution(["year"] * 12, [(1.0, person)])
    assert dense == type_distribution(["year"] * 12)                 # high density: plain frequency count
    sparse = cluster_distribution(["year"], [(1.0, person)])
    assert sparse["person"] > sparse["year"] > knn_distribution([(1.0, person)])["year"]
