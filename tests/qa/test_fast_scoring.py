"""The answering path's own linear algebra gives scikit-learn's numbers bit for bit.

A question is scored by ~10 cluster SVMs, the answer-type SVMs and the sentence ranker; the answering
path computes their margins without scikit-learn's per-call input checks, and scores one prebuilt
matrix per question instead of rebuilding it per cluster.  Each shortcut is checked here against the
estimator's own ``decision_function`` / ``predict`` / ``transform`` on the questions of the small
model trained on real data (``qa_artifact``), for exact equality, and the whole answers against the
answers computed with scikit-learn's calls patched back in."""
from __future__ import annotations

import json

import numpy as np
import pytest

from textqa.models.qa import system
from textqa.models.qa.nlp import parse
from textqa.models.qa.store import load_qa

QUESTIONS = ["Who is the author of the book The Iron Lady?", "What river flows through Baghdad?",
             "When did the Titanic sink?", "How tall is Mount Everest?", "Where is the Taj Mahal?",
             "What is the capital of Australia?", "Who invented the telephone?"]


@pytest.fixture(scope="module")
def model(qa_artifact):
    return load_qa(qa_artifact / "qa")


def _blocks(model):
    qa = model.instance
    docs = parse(QUESTIONS)
    fine, coarse = model.answer_types.classify(docs)
    for doc, f, c in zip(docs, fine, coarse):
        kws = system.keywords(doc)
        sents = qa.retrieve(model.index, kws, doc, qa.answer_k or qa.retrieve_k)
        data = qa.candidates(doc, sents)
        if data:
            yield system._Block(qa, set(kws), data, c, system.focus_of(doc), qa._ranked(doc, sents, c, f), f)


def test_cluster_margins_equal_decision_function(model):
    svms = [m for m in model.instance.cluster_models_.values() if m.svm is not None][:25] + [model.instance.global_]
    checked = 0
    for block in _blocks(model):
        scored = system._Scored(block)
        for m in svms:
            want = m.svm.decision_function(system._with_types([block], m.type_probs))
            assert np.array_equal(scored.decision(m.svm, m.type_probs), want)
            checked += 1
    assert checked > 50


def test_answer_types_equal_predict_and_decision_function(model):
    at = model.answer_types
    docs = parse(QUESTIONS)
    X = at._X(docs)
    labels, dists = at.classify(docs)
    coarse = at.coarse_.predict(X)
    fine_scores = at.fine_.decision_function(X)
    for label, c, row in zip(labels, coarse, fine_scores):
        inside = [j for j, name in enumerate(at.fine_.classes_) if name.startswith(c + ":")]
        assert label == (at.fine_.classes_[max(inside, key=lambda j: row[j])] if inside else f"{c}:other")
    m = at.coarse_.decision_function(X)
    e = np.exp(2.0 * (m - m.max(1, keepdims=True)))
    assert [list(d.values()) for d in dists] == (e / e.sum(1, keepdims=True)).tolist()


def test_ranker_scores_equal_scikit_learn(model):
    sel = model.selector
    docs = parse(QUESTIONS)
    for doc in docs:
        sents = model.instance.retrieve(model.index, system.keywords(doc), doc)
        X = sel.features(system.Sentence([t.text for t in doc]),
                         [system.as_ranked_sentence(s.tokens, s.candidates) for s in sents], {}, None)
        width = len(sel.scaler_.mean_)
        want = sel.model_.decision_function(sel.scaler_.transform(X[:, :width]))
        assert np.array_equal(sel.scores_features(X), want)


def test_answers_equal_the_scikit_learn_path(model, monkeypatch):
    fast = json.dumps(model.answer(QUESTIONS, 5))

    class Slow(system._Scored):
        def decision(self, svm, probs):
            return svm.decision_function(system._with_types([self.block], probs))

        def __init__(self, block):
            self.block = block

    monkeypatch.setattr(system, "_Scored", Slow)
    monkeypatch.setattr(model.answer_types, "classify", lambda docs: (
        _slow_fine(model.answer_types, docs), _slow_dist(model.answer_types, docs)))
    monkeypatch.setattr(model.selector, "scores_features", lambda X: model.selector.model_.decision_function(
        model.selector.scaler_.transform(X[:, :len(model.selector.scaler_.mean_)])) if len(X) else np.zeros(0))
    assert json.dumps(model.answer(QUESTIONS, 5)) == fast


def _slow_fine(at, docs):
    X = at._X(docs)
    out = []
    for c, row in zip(at.coarse_.predict(X), np.atleast_2d(at.fine_.decision_function(X))):
        inside = [j for j, label in enumerate(at.fine_.classes_) if label.startswith(c + ":")]
        out.append(at.fine_.classes_[max(inside, key=lambda j: row[j])] if inside else f"{c}:other")
    return out


def _slow_dist(at, docs):
    m = np.atleast_2d(at.coarse_.decision_function(at._X(docs)))
    e = np.exp(2.0 * (m - m.max(1, keepdims=True)))
    return [dict(zip(at.coarse_.classes_, map(float, row))) for row in e / e.sum(1, keepdims=True)]
