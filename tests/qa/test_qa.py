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
from textqa.paths import DATA_DIR
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
    qt_tr = answer_types.distribution(parse([p.question.text for p in train]))
    qt_dv = answer_types.distribution(parse([p.question.text for p in dev]))
    sel = SentenceSelector(C=1.0).fit(train, qt_tr, [c for p in train + dev for _, c in p.candidates])
    scores = [sel.scores(p.question, [c for _, c in p.candidates], qt) for p, qt in zip(dev, qt_dv)]
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
