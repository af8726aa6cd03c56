"""The answer reader: trained by distant supervision over what the fitted system reads for questions it
never trained on (real questions: TREC 2000's beyond the fixture's 300, judged by their NIST patterns;
real open-domain questions judged by DrQA's exact match), saved as data, loaded to the same scores,
and ranking the answers ``QAModel.answer`` gives."""
import argparse
import json

import numpy as np

import textqa
from textqa.models.qa.merging import FEATURES, Answer, merge_strategies
from textqa.models.qa.questions import TrainingQuestion, drqa_normalise, read_training_questions
from textqa.runtime.paths import DATA_DIR
from textqa.training import qa_reader

TREC9 = DATA_DIR / "qa" / "trec_qa" / "derived" / "trec9.jsonl.gz"


def test_answers_match_as_drqa_and_nist_judge_them():
    assert drqa_normalise("The  U.S. Army!") == "us army"
    q = TrainingQuestion("1", "where do the great lakes meet the ocean", answers=["the Saint Lawrence River"])
    assert q.matches("Saint Lawrence River") and not q.matches("Saint Lawrence")
    assert TrainingQuestion("2", "?", patterns=["Lyachin"]).matches("Captain Gennady Lyachin")
    nq = read_training_questions(DATA_DIR / "qa" / "open" / "nq_open" / "dev.tsv.gz")
    assert len(nq) == 8757 and nq[31].answers[1] == "Ch\u00e2teau d'Amboise"        # a CSV-quoted field
    trec = read_training_questions(DATA_DIR / "qa" / "trec_qa" / "derived" / "trec14.jsonl.gz")
    assert trec[0].question == "When did the submarine sink? (Russian submarine Kursk sinks)"


def test_the_merge_sums_each_strategys_best_mention_with_redundancy():
    class M:
        def __init__(self, frame):
            self.frame = frame
    from textqa.models.qa.candidates import Candidate
    data = [(None, Candidate("Paris", 0, 1, "location")), (None, Candidate("paris", 3, 4, "location")),
            (None, Candidate("Lyon", 5, 6, "location"))]
    scores = [np.array([0.5, 0.7, 0.6]), np.array([0.2, 0.1, 0.9])]
    got = merge_strategies([M("a"), M("b")], [1.0, 0.5], data, ["paris", "paris", "lyon"], scores, 0.1)
    assert isinstance(got["paris"], Answer) and got["paris"].mentions == [0, 1]
    assert np.isclose(got["paris"].score, 1.0 * (0.7 + 0.1 * np.log(2)) + 0.5 * (0.2 + 0.1 * np.log(2)))
    assert got["paris"].text == "paris" and got["lyon"].score == 0.6 + 0.5 * 0.9


def test_a_reader_trained_by_distant_supervision_ranks_the_answers(qa_artifact, copy_root, tmp_path):
    from textqa.models.qa.store import load_qa, save_qa
    root = copy_root(qa_artifact)
    model = load_qa(root / "qa")
    args = argparse.Namespace(reader_questions=[str(TREC9)], reader_max=120, seed=13, jobs=2, learning_curve=False)
    trained = [{"question": q.question} for q in read_training_questions(TREC9)[:100]]
    metrics: dict = {}
    parts = {"answer_types": model.answer_types, "selector": model.selector, "instance": model.instance,
             "index": model.index}
    reader_qs = qa_reader.questions_for(args, trained, [])
    qa_reader.train_answer_reader(args, root / "qa", parts, root / "collections", "pool", reader_qs, [], metrics,
                                  lambda m: None)
    info = metrics["reader"]
    assert info["questions"] == 120 and 10 <= info["questions_with_a_right_answer_read"] <= 120
    reader = model.instance.reader_
    assert reader is not None and reader.model_.coef_.shape == (1, len(FEATURES))
    assert not [p for p in root.iterdir() if p.name.startswith(".qa-reader-")]       # its scratch copy is gone
    # saved as data and loaded again: the same answers in the same order, with the reader's probabilities
    save_qa(model.answer_types, model.selector, tmp_path / "qa", instance=model.instance, index=model.index)
    again = textqa.load(str(tmp_path / "qa"))
    assert again.manifest["hyper_parameters"]["reader"] is True
    question = "What is the capital of Yugoslavia?"
    first, second = model.answer(question, 5, "pool"), again.answer(question, 5, "pool")
    assert first["answers"] == second["answers"] and first["answers"]
    scores = [a["score"] for a in first["answers"]]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    # the reader decides the order: without it the merged score ranks (another order, or other scores)
    model.instance.reader_ = None
    plain = model.answer(question, 5, "pool")["answers"]
    assert [(a["answer"], a["score"]) for a in plain] != [(a["answer"], a["score"]) for a in first["answers"]]
    manifest = json.loads((tmp_path / "qa" / "manifest.json").read_text())
    assert manifest["hyper_parameters"]["paragraphs"] == model.instance.paragraphs
