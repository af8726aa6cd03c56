"""Answer-type classification of questions (Li & Roth 2002 UIUC labels, COARSE:fine).

Used by the instance-based QA system as question features (Lita & Carbonell 2004, section
4.1 mentions answer types learned from the data; the UIUC classifier is the measurable,
standard variant).  Features, all from the question alone: lowercased words and bigrams, the
wh-word and the words after it, the head word of the first noun phrase after the wh-word (the
"informer" of Huang et al. 2008, e.g. *city* in "What city ..."), its lemma, POS tags of the
first three words, and named-entity types in the question.  A linear SVM (scikit-learn) over
hashed features predicts the fine label; the coarse label is the fine label's prefix.
"""
from __future__ import annotations

import gzip
import re
import warnings
from dataclasses import dataclass

WH = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how", "name")


def question_features(doc) -> list[str]:
    """Feature strings of one spaCy Doc of a question."""
    words = [t.lower_ for t in doc]
    feats = [f"w={w}" for w in words]
    feats += [f"b={a}_{b}" for a, b in zip(words, words[1:])]
    wh_i = next((i for i, w in enumerate(words) if w in WH), None)
    if wh_i is not None:
        wh = words[wh_i]
        nxt = words[wh_i + 1] if wh_i + 1 < len(words) else "</s>"
        feats += [f"wh={wh}", f"wh+1={wh}_{nxt}"]
        if wh_i + 2 < len(words):
            feats.append(f"wh+2={wh}_{nxt}_{words[wh_i + 2]}")
        head = informer(doc, wh_i)
        if head is not None:
            feats += [f"head={head.lower_}", f"headlemma={head.lemma_.lower()}", f"wh_head={wh}_{head.lemma_.lower()}"]
    feats += [f"pos{i}={t.tag_}" for i, t in enumerate(doc[:3])]
    feats += [f"ent={e.label_}" for e in doc.ents]
    feats.append(f"len={min(len(doc), 20) // 4}")
    return feats


def informer(doc, wh_i: int | None = None):
    """The question's informer (Huang et al. 2008): the root token of the first noun chunk after
    (or including) the wh-word, e.g. *city* in "What city ...", or None."""
    if wh_i is None:
        wh_i = next((i for i, t in enumerate(doc) if t.lower_ in WH), None)
        if wh_i is None:
            return None
    for chunk in doc.noun_chunks:
        if chunk.end > wh_i + 1 or (chunk.start <= wh_i < chunk.end and len(chunk) > 1):
            head = chunk.root
            if head.lower_ not in WH:
                return head
    return None


@dataclass
class LabelledQuestion:
    label: str          # COARSE:fine
    question: str
    line: int


def read_uiuc(path) -> list[LabelledQuestion]:
    """``COARSE:fine question words ...`` per line (UIUC ``train_5500.label``; ``.gz`` accepted).

    The files are Latin-1 in places; undecodable bytes are replaced."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        lines = f.read().decode("utf-8", errors="replace").splitlines()
    out = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        m = re.match(r"([A-Z]+:[a-z]+)\s+(.*)$", line)
        if not m:
            raise ValueError(f"{path}:{lineno}: expected 'COARSE:fine question', got {line[:40]!r}")
        out.append(LabelledQuestion(m.group(1), m.group(2).strip(), lineno))
    return out


class AnswerTypeClassifier:
    """Two linear SVMs over hashed question features: one for the 6 coarse classes, one for the
    50 fine ones.  ``predict`` gives ``COARSE:fine`` with the coarse class of the coarse model
    (5-fold CV on train_5500: 89.2% against 88.9% when taken from the fine model) and the best
    fine label inside it."""

    def __init__(self, C: float = 0.5, n_features: int = 2 ** 18):
        self.C, self.n_features = C, n_features

    def _X(self, docs):
        from sklearn.feature_extraction import FeatureHasher  # deferred: loads sklearn, scipy, joblib
        return FeatureHasher(self.n_features, input_type="string", alternate_sign=False).transform(
            question_features(d) for d in docs)

    def fit(self, docs, labels: list[str]) -> "AnswerTypeClassifier":

        from sklearn.exceptions import ConvergenceWarning  # deferred: loads sklearn, scipy, joblib
        from sklearn.svm import LinearSVC  # deferred: loads sklearn, scipy, joblib
        X = self._X(docs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.fine_ = LinearSVC(C=self.C, max_iter=5000, random_state=0).fit(X, labels)
            self.coarse_ = LinearSVC(C=self.C, max_iter=5000, random_state=0).fit(X, [self.coarse(l) for l in labels])
        return self

    def predict(self, docs) -> list[str]:
        return self.classify(docs)[0]

    def distribution(self, docs) -> list[dict]:
        """Coarse-class probabilities (softmax of the coarse SVM's margins) per question."""
        return self.classify(docs)[1]

    def classify(self, docs) -> tuple[list[str], list[dict]]:
        """(:meth:`predict`, :meth:`distribution`) of ``docs``, their features hashed once: the fine
        label is the best fine label inside the coarse model's class."""
        import numpy as np  # deferred: loads numpy

        from textqa.models.sklearn_data import linear_decision, linear_predict  # deferred: loads numpy
        if not docs:
            return [], []
        X = self._X(docs)
        margins = np.atleast_2d(linear_decision(self.coarse_, X))
        coarse = linear_predict(self.coarse_, X)
        fine_scores = linear_decision(self.fine_, X)
        classes = list(self.fine_.classes_)
        labels = []
        for c, row in zip(coarse, np.atleast_2d(fine_scores)):
            inside = [j for j, label in enumerate(classes) if label.startswith(c + ":")]
            labels.append(classes[max(inside, key=lambda j: row[j])] if inside else f"{c}:other")
        e = np.exp(2.0 * (margins - margins.max(1, keepdims=True)))
        p = e / e.sum(1, keepdims=True)
        return labels, [dict(zip(self.coarse_.classes_, map(float, row))) for row in p]

    @staticmethod
    def coarse(label: str) -> str:
        return label.split(":", 1)[0]
