"""Query expansion, four kinds (Lita & Carbonell, cluster-based query expansion): the lexical
expansions, the fusion of several queries, the paper's comparison and its command."""
import json

import pytest

from textqa.cli import main
from textqa.models.qa import expansion as E
from textqa.models.qa.index import SentenceIndex
from textqa.models.qa.nlp import parse


def test_wordnet_synonyms_and_lemminflect_inflections():
    assert {"auto", "automobile"} <= set(E.synonyms("car", "NOUN")) and "car" not in E.synonyms("car", "NOUN")
    assert ("city", "of", "light") in E.synonyms("Paris", "PROPN")      # a multi-word synonym stays one phrase
    assert E.synonyms("car", "DET") == ()
    forms = E.inflections("wrote", "write", "VERB")
    assert {"write", "written", "writes", "writing"} <= set(forms) and "wrote" not in forms
    assert "mouse" in E.inflections("mice", "mouse", "NOUN") and E.inflections("Paris", "Paris", "PROPN") == ()


def test_lexical_terms_keep_the_simple_query_first():
    (doc,) = parse(["Who wrote the biography of Thatcher?"])
    simple = E.lexical_terms(doc, "simple")
    assert simple == ["wrote", "biography", "thatcher"]
    assert E.lexical_terms(doc, "inflect")[:3] == simple and "written" in E.lexical_terms(doc, "inflect")
    assert E.lexical_terms(doc, "synonym")[:3] == simple and ("life", "story") in E.lexical_terms(doc, "synonym")
    with pytest.raises(ValueError):
        E.lexical_terms(doc, "stemmed")
    feats = ["<Q> was born in", "born"]
    assert E.queries(doc, "cluster", feats) == [simple + ["was", "born", "in"], simple + ["born"]]
    assert E.queries(doc, "cluster") == [simple]                          # no cluster: the simple query


def test_phrase_terms_are_fts5_phrases():
    assert SentenceIndex.query([("City", "of", "Light"), "U.S. car"]) == '"city of light" OR "u" OR "s" OR "car"'
    ix = SentenceIndex()
    ix.add(["Paris is the city of light .", "The light in the city was dim ."])
    assert [t for _, t, _ in ix.search([("city", "of", "light")])] == ["Paris is the city of light ."]
    assert len(ix.search(["city of light"])) == 2                         # a string is its words


def test_reciprocal_rank_fusion():
    a = [(1, "a", 9.0), (2, "b", 5.0), (3, "c", 1.0)]
    b = [(3, "c", 7.0), (4, "d", 2.0)]
    fused = E.fuse([a, b], 3)
    # 3 is in both lists (1/63 + 1/61) and beats 1 (1/61 alone); 1 (first seen) then 4 and 2 tie at 1/62
    assert [r for r, _, _ in fused] == [3, 1, 2]
    assert fused[0][2] == pytest.approx(1 / 63 + 1 / 61)
    assert E.fuse([a], 2) == a[:2]


def test_summary_counts_gains_recall_and_the_papers_unions():
    # two questions (synthetic): relevant rowids of each strategy and every retrieved rowid's rank
    def pos(*ranked):
        return {r: i for i, r in enumerate(ranked)}
    rows = [
        (None, True, {"simple": [1], "synonym": [1, 7], "inflect": [1], "cluster": [9]},
         {"simple": pos(1, 2), "synonym": pos(7, 1), "inflect": pos(1), "cluster": pos(5, 9)}),
        (None, False, {"simple": [], "synonym": [], "inflect": [], "cluster": []},
         {"simple": {}, "synonym": {}, "inflect": {}, "cluster": {}}),
    ]
    r = E.summarise(rows, ks=(1, 20))
    assert r["questions"] == 2 and r["answerable"] == 1 and r["with_cluster_features"] == 1
    # pool of question 1: {1, 7, 9}; at k=1 simple has 1, synonym 7, cluster nothing (9 is second)
    assert r["strategies"]["simple"][1]["recall"] == pytest.approx(1 / 3)
    assert r["strategies"]["synonym"][1] == {"recall": pytest.approx(1 / 3), "gain": 0.5, "new": 0.5}
    assert r["strategies"]["cluster"][1]["gain"] == 0.0 and r["strategies"]["cluster"][20]["gain"] == 0.5
    assert r["strategies"]["synonym"][20]["recall"] == pytest.approx(2 / 3)
    u = r["union20"]
    assert u["simple"]["relevant"] == 0.5 and u["synonym"]["relevant"] == 0.5 and u["inflect"]["relevant"] == 0
    assert u["all"] == {"relevant": 1.5, "percent_of_simple": 300.0}
    assert u["all - cluster"]["relevant"] == 1.0


def test_temporal_questions():
    assert E.is_temporal("When did Bob Marley die?") and E.is_temporal("What year did Montana become a state?")
    assert not E.is_temporal("Who is the founder of Scientology?")


def test_synonym_expansion_reaches_what_the_words_miss():
    from textqa.models.qa.system import InstanceQA, keywords
    ix = SentenceIndex()
    ix.add_analysed([("Karl Benz built the first automobile .", "Karl Benz built the first automobile .".split(),
                      [["Karl Benz", 0, 2, "person"]]), ("Cats sleep .", ["Cats", "sleep", "."], [])])
    (doc,) = parse(["Who made the car?"])
    assert InstanceQA().retrieve(ix, keywords(doc), doc) == []
    (hit,) = InstanceQA(expansion="synonym").retrieve(ix, keywords(doc), doc)
    assert hit.tokens[-2] == "automobile" and hit.candidates[0].text == "Karl Benz"
    with pytest.raises(ValueError, match="unknown query expansion"):
        InstanceQA(expansion="stemmed")


def test_the_expanded_query_adds_to_the_simple_one():
    from textqa.models.qa.system import InstanceQA, keywords
    ix = SentenceIndex()
    ix.add_analysed([("Karl Benz made history .", "Karl Benz made history .".split(), []),
                     ("The first automobile , the first motorcar .", "The first automobile , the first motorcar .".split(),
                      [])])
    (doc,) = parse(["Who made the car?"])
    expanded = E.search(ix, doc, "synonym", 1)
    assert "automobile" in expanded[0][1]                   # alone, the synonyms' sentence ranks first
    (hit,) = InstanceQA(expansion="synonym", retrieve_k=1).retrieve(ix, keywords(doc), doc)
    assert hit.tokens[2] == "made"                          # fused with the simple query, its best stays first


def test_expansion_command(qa_artifact, capsys):
    assert main(["qa", "expansion", "--model", str(qa_artifact / "qa"), "--train-sets", "trec8",
                 "--test-sets", "trec2002", "--limit", "40", "--json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    r = out["results"]["all"]
    assert r["questions"] == 40 and 0 < r["answerable"] <= 40 and out["clusters"] > 0
    for s, by_k in r["strategies"].items():
        recalls = [by_k[str(k)]["recall"] for k in E.KS]
        assert recalls == sorted(recalls) and all(0 <= x <= 1 for x in recalls)     # recall grows with k
    assert all(r["strategies"]["simple"][str(k)]["gain"] == 0 for k in E.KS)
    u = r["union20"]
    assert u["all"]["relevant"] >= u["simple"]["relevant"] > 0
    assert u["all"]["relevant"] == pytest.approx(u["simple"]["relevant"] + sum(
        u[s]["relevant"] for s in ("synonym", "inflect", "cluster")), abs=1.0)
    assert out["paper_table2"]["simple"] == [4.43, 100.0]
    assert main(["qa", "expansion", "--model", str(qa_artifact / "qa"), "--train-sets", "trec8",
                 "--test-sets", "trec8", "--limit", "5", "--quiet"]) == 2       # every test question is trained on
    assert "no test questions left" in capsys.readouterr().err
