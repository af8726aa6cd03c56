"""QA so far: TrecQA reader, answer types (UIUC) and answer sentence selection, on real data subsets."""
import io
import sys

import numpy as np
import pytest

from textqa.models.qa.answer_type import AnswerTypeClassifier, read_uiuc
from textqa.models.qa.nlp import parse
from textqa.models.qa.selection import SentenceSelector, ner_coarse
from textqa.models.qa.trecqa import Sentence, TrecQAError, read_trecqa
from textqa.cli import main
from textqa.runtime.paths import DATA_DIR
from textqa.training.qa import ranking_scores

QA = DATA_DIR / "qa"
TRAIN = QA / "trecqa" / "train-less-than-40.manual-edit.xml.gz"
DEV = QA / "trecqa" / "dev-less-than-40.manual-edit.xml.gz"


@pytest.fixture(scope="module")
def answer_types():
    qs = read_uiuc(QA / "uiuc_qc" / "train_5500.label.gz")[:2000]          # real UIUC questions, a subset
    return AnswerTypeClassifier().fit(parse([q.question for q in qs]), [q.label for q in qs])


def test_trecqa_files_and_entities():
    train, dev = read_trecqa(TRAIN), read_trecqa(DEV)
    assert (len(train), sum(len(p.candidates) for p in train)) == (94, 4718)
    assert (len(dev), sum(len(p.candidates) for p in dev)) == (82, 1148)
    assert train[0].candidates[0][1].answer == ["Hugo", "Young"]
    s = Sentence(["Hugo", "Young", "wrote", "in", "1989"], ner=["PERSON-B", "PERSON-I", "-", "-", "DATE-B"])
    assert s.entities() == [(0, 2, "PERSON"), (4, 5, "DATE")]
    assert ner_coarse("GPE") == "LOC" and ner_coarse("WORK_OF_ART") == "ENTY"


@pytest.mark.parametrize("text, message", [
    ("<QApairs id='1'>\n<question>\na\tb\n</question>\n</QApairs>\n", "x.xml:2: <question> must hold"),
    ("<question>\n", "x.xml:1: <question> outside <QApairs>"),
    ("<QApairs id='1'>\n", "is not closed"),
    ("hello\n", "x.xml:1: unexpected line"),
])
def test_trecqa_errors_name_file_and_line(tmp_path, text, message):
    f = tmp_path / "x.xml"
    f.write_text(text)
    with pytest.raises(TrecQAError, match=message):
        read_trecqa(f)


def test_answer_types_on_held_out_uiuc_questions(answer_types):
    qs = read_uiuc(QA / "uiuc_qc" / "train_5500.label.gz")[4000:4600]
    pred = answer_types.predict(parse([q.question for q in qs]))
    coarse = np.mean([p.split(":")[0] == q.label.split(":")[0] for p, q in zip(pred, qs)])
    assert coarse > 0.8
    assert answer_types.predict(parse(["Who invented the telephone?"]))[0].startswith("HUM:")
    dist = answer_types.distribution(parse(["When did the war end?"]))[0]
    assert max(dist, key=dist.get) == "NUM" and sum(dist.values()) == pytest.approx(1.0)


def test_ranking_scores_break_ties_against_the_system():
    from textqa.models.qa.trecqa import QAPair
    p = QAPair("1", Sentence(["q"]), [(1, Sentence(["a"])), (0, Sentence(["b"])), (0, Sentence(["c"]))])
    r = ranking_scores([p], [np.array([0.5, 0.5, 0.1])])           # correct tied with a wrong one
    assert r["map"] == pytest.approx(0.5) and r["mrr"] == pytest.approx(0.5)
    r = ranking_scores([p], [np.array([0.9, 0.5, 0.1])])
    assert r["map"] == 1.0


def test_selection_beats_overlap_baseline_on_dev(answer_types):
    train, dev = read_trecqa(TRAIN), read_trecqa(DEV)
    d_tr, d_dv = parse([p.question.text for p in train]), parse([p.question.text for p in dev])
    qt_tr, qt_dv = answer_types.distribution(d_tr), answer_types.distribution(d_dv)
    sel = SentenceSelector(C=1.0).fit(train, qt_tr, [c for p in train + dev for _, c in p.candidates],
                                      answer_types.predict(d_tr))
    scores = [sel.scores(p.question, [c for _, c in p.candidates], qt, fine)
              for p, qt, fine in zip(dev, qt_dv, answer_types.predict(d_dv))]
    from textqa.models.qa.trecqa import read_qids
    clean = read_qids(QA / "trecqa" / "clean-dev.qids")
    ours = ranking_scores(dev, scores, clean)
    overlap = ranking_scores(dev, [np.array([len({t.lower() for t in c.tokens} & {t.lower() for t in p.question.tokens})
                                             for _, c in p.candidates]) for p in dev], clean)
    assert ours["questions"] == 65 and ours["map"] > 0.72 and ours["map"] > overlap["map"] + 0.05


def test_cli_answer_type_errors(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"Who?\n")))
    assert main(["qa", "answer-type", "--model", str(tmp_path / "none")]) == 2
    assert "not a model artifact" in capsys.readouterr().err


def test_fine_answer_type_match_of_the_sentence_ranker():
    """An entity of a BBN type the question's fine class asks for, not made of question words, sets
    fine_type_match; fine_type_near decays with its distance to the nearest shared question word."""
    from textqa.models.qa.selection import FEATURES, FINE_NER, pair_features
    q = Sentence("Who wrote The Iron Lady ?".split())
    c = Sentence("Hugo Young wrote The Iron Lady in 1989 .".split(),
                 ner=["PERSON-B", "PERSON-I", "-", "WORK_OF_ART-B", "WORK_OF_ART-I", "WORK_OF_ART-I", "-", "DATE-B", "-"])

    def f(fine, sentence=c):
        return dict(zip(FEATURES, pair_features(q, sentence, {}, {}, 1.0, fine)))
    assert f("HUM:ind")["fine_type_match"] == 1.0
    assert f("HUM:ind")["fine_type_near"] == pytest.approx(np.exp(-1 / 5))          # "Young" next to "wrote"
    assert f("NUM:date")["fine_type_match"] == 1.0 and f("NUM:date")["fine_type_near"] == pytest.approx(np.exp(-2 / 5))  # "Lady"
    assert f("NUM:money")["fine_type_match"] == 0.0 and f("DESC:def")["fine_type_match"] == 0.0
    assert f(None)["fine_type_match"] == 0.0
    assert f("ENTY:cremat")["fine_type_match"] == 0.0          # the work of art is the question's own words
    assert all(isinstance(v, (set, frozenset)) and v for v in FINE_NER.values())


def test_abbreviation_questions_ask_for_an_expansion_or_an_acronym():
    """ABBR:exp wants the capitalised words a question's acronym spells (function words skipped
    inside, not at the start); ABBR:abb wants a sentence acronym the question's words spell.  The
    ranker's fine match reads them like an entity of the wanted type (the real TrecQA dev sentence
    of "What does AARP stand for?")."""
    from textqa.models.qa.selection import FEATURES, acronym_spans, expansions, is_acronym, pair_features
    assert expansions("AARP", "the American Association of Retired Persons".split()) == [(1, 6)]
    assert expansions("FBI", "Federal Bureau of Investigation and Federal Bureau Investigation".split()) == [(0, 4), (5, 8)]
    assert expansions("FBI", "of Federal Bureau".split()) == [] == expansions("AARP", "American association".split())
    assert expansions("NBA", "the National Basketball Association".split()) == [(1, 4)]
    assert [is_acronym(t) for t in ("AARP", "A", "U.S.", "NASA1", "Nasa", "ABCDEFGHI")] == [True] + [False] * 5
    c = Sentence("Members of the American Association of Retired Persons -LRB- AARP -RRB- qualify for discounts .".split())
    q = Sentence("What does AARP stand for ?".split())
    assert acronym_spans(q.tokens, c.tokens, "ABBR:exp") == [(3, 8)]
    assert acronym_spans(q.tokens, c.tokens, "ABBR:abb") == [] == acronym_spans(q.tokens, c.tokens, "HUM:ind")
    q2 = "What is the abbreviation for the Federal Bureau of Investigation ?".split()
    assert acronym_spans(q2, "The FBI and the CIA said .".split(), "ABBR:abb") == [(1, 2)]
    assert acronym_spans(q2[:-1] + ["(", "FBI", ")", "?"], "The FBI said .".split(), "ABBR:abb") == []  # asked

    def f(fine):
        return dict(zip(FEATURES, pair_features(q, c, {}, {}, 1.0, fine)))
    assert f("ABBR:exp")["fine_type_match"] == 1.0
    assert f("ABBR:exp")["fine_type_near"] == pytest.approx(np.exp(-2 / 5))      # "Persons" .. "AARP"
    assert f("ABBR:abb")["fine_type_match"] == 0.0 == f("DESC:def")["fine_type_match"]


def test_a_ranker_fitted_before_the_fine_features_still_scores(answer_types, monkeypatch):
    """A saved ranker of 12 features (before the fine answer-type columns) reads the first 12 columns."""
    import textqa.models.qa.selection as S
    train = read_trecqa(TRAIN)[:30]
    qt = answer_types.distribution(parse([p.question.text for p in train]))
    full = S.pair_features
    monkeypatch.setattr(S, "pair_features", lambda *a: full(*a)[:12])
    old = SentenceSelector(C=1.0).fit(train, qt)
    expected = [old.scores(p.question, [c for _, c in p.candidates], t) for p, t in zip(train, qt)]
    monkeypatch.setattr(S, "pair_features", full)
    assert len(old.scaler_.mean_) == 12 == len(S.FEATURES) - 2
    for p, t, e in zip(train, qt, expected):
        assert np.array_equal(old.scores(p.question, [c for _, c in p.candidates], t, "HUM:ind"), e)


def test_reciprocal_ranks_read_the_top_five_answers():
    """The first of the top 5 answers a NIST pattern matches (case-insensitive search) gives 1/rank;
    a match at rank 6 or none gives 0; questions without patterns are left out."""
    from types import SimpleNamespace

    from textqa.training.qa import exact_answer_scores, reciprocal_ranks
    answers = [{"answers": [{"answer": a} for a in ranked]} for ranked in
               (["Lyon", "paris"], ["a", "b", "c", "d", "e", "Paris"], ["Paris"], ["x"])]
    qs = [SimpleNamespace(qid=q) for q in "1234"]
    patterns = {"1": ["Paris"], "2": ["Paris"], "3": ["^Par"], "5": ["x"]}
    assert reciprocal_ranks(answers, qs, patterns) == [(0, 0.5), (1, 0.0), (2, 1.0)]
    s = exact_answer_scores(answers, qs, patterns)
    assert s["mrr5"] == pytest.approx(0.5) and s["acc1"] == pytest.approx(1 / 3) and s["questions"] == 3
