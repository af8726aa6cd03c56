"""A discriminative pass over the truecasing lattice (beyond the paper, off by default).

Each candidate casing of a token with two or more candidates gets a linear score from features
the LM cannot see, added to its emission score in the same exact Viterbi search (the C++ and the
Python search alike), so the search stays exact.  Feature templates, each conjoined with the
candidate's case class (LC / UC / CA / MC):

- ``local``: a bias, the candidate's rank among the word's training casings, its share of them
  (in tenths), the token's position in the sentence (0, 1, 2, 3+);
- ``lexical``: + the lowercased word and its last three letters;
- ``context``: + the lowercased words up to three to each side and the pairs (previous, word),
  (word, next), (next, next but one), (previous but one, previous).

The weights are learned by the averaged structured perceptron (Collins 2002, "Discriminative
training methods for hidden Markov models", figure 1, with the averaged parameters of its
section 2.5), the LM's score a fixed feature of weight 1, on training text held out from the LM:
one block of 500 consecutive sentences in 40 (:func:`held_out`), so the LM has seen neither a
held-out sentence nor its neighbours.  docs/experiments/truecaser.md ("A discriminative pass over the lattice") reports what it does on dev.
"""
from __future__ import annotations

import math

import numpy as np

from .casing import NONE, case_class

BLOCK, EVERY = 500, 40
_LOCAL = ("b", "r", "sh", "pos")
#: The feature templates of each feature set (``Truecaser(discriminative=...)``).
FEATURE_SETS = {"local": _LOCAL, "lexical": _LOCAL + ("w", "s3"),
                "context": _LOCAL + ("w", "s3", "p1", "n1", "p2", "n2", "p3", "n3", "p1w", "wn1", "n1n2", "p2p1")}


def held_out(n: int) -> list[bool]:
    """Which of ``n`` training sentences are held out from the LM: one block of consecutive
    sentences in ``EVERY`` (the middle one of each run of ``EVERY``); a block holds ``BLOCK``
    sentences, fewer in a corpus too small for four blocks."""
    block = min(BLOCK, max(1, n // (4 * EVERY)))
    return [(i // block) % EVERY == EVERY // 2 for i in range(n)]


def candidate_features(templates, low: list[str], i: int, forms: list[str], counts) -> list[list[str]]:
    """The feature keys of each candidate form (``forms``) of token ``i`` of a lowercased sentence
    ``low``; ``counts``: the word's [form, count] pairs in training (None: an unseen word)."""
    n, w = len(low), low[i]
    share = dict(counts or [])
    total = sum(share.values()) or 1

    def ctx(j):
        return low[j] if 0 <= j < n else ("<s>" if j < 0 else "</s>")
    fixed = {"b": "", "pos": min(i, 3), "w": w, "s3": w[-3:], "p1": ctx(i - 1), "n1": ctx(i + 1), "p2": ctx(i - 2),
             "n2": ctx(i + 2), "p3": ctx(i - 3), "n3": ctx(i + 3), "p1w": f"{ctx(i - 1)} {w}",
             "wn1": f"{w} {ctx(i + 1)}", "n1n2": f"{ctx(i + 1)} {ctx(i + 2)}", "p2p1": f"{ctx(i - 2)} {ctx(i - 1)}"}
    out = []
    for r, form in enumerate(forms):
        c = case_class(form)
        values = {**fixed, "r": r, "sh": min(int(10 * share.get(form, 0) / total), 9)}
        out.append([f"{t}|{values[t]}|{c}" for t in templates])
    return out


class CandidateWeights:
    """The learned weights of one feature set (:data:`FEATURE_SETS`)."""

    def __init__(self, feature_set: str, weights: dict[str, float], info: dict | None = None):
        if feature_set not in FEATURE_SETS:
            raise ValueError(f"feature set must be one of {tuple(FEATURE_SETS)}, got {feature_set!r}")
        self.feature_set, self.weights, self.info = feature_set, weights, dict(info or {})
        self.templates = FEATURE_SETS[feature_set]

    def __len__(self) -> int:
        return len(self.weights)

    def scores(self, low: list[str], sent_off, forms_of, counts_of) -> dict[int, list[float]]:
        """{index in ``low``: the added emission score of each candidate} for the tokens with two or
        more candidates (``forms_of(word)``) whose features carry weight; ``low`` holds sentences
        at the offsets ``sent_off``; ``counts_of(word)``: its training casings."""
        get, out = self.weights.get, {}
        for a, b in zip(sent_off, sent_off[1:]):
            part = low[a:b]
            for i, w in enumerate(part):
                forms = forms_of(w)
                if len(forms) < 2:
                    continue
                s = [sum(get(k, 0.0) for k in f) for f in candidate_features(self.templates, part, i, forms, counts_of(w))]
                if any(s):
                    out[a + i] = s
        return out

    def to_data(self) -> dict:
        return {"feature_set": self.feature_set, "weights": self.weights, "info": self.info}

    @classmethod
    def from_data(cls, data) -> "CandidateWeights":
        """From :meth:`to_data`'s JSON; ValueError on anything else."""
        if not isinstance(data, dict) or not isinstance(data.get("weights"), dict):
            raise ValueError("not a weight table")
        weights = data["weights"]
        if not all(isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                   for k, v in weights.items()):
            raise ValueError("weights must be finite numbers keyed by feature")
        info = data.get("info", {})
        return cls(data.get("feature_set"), {k: float(v) for k, v in weights.items()},
                   info if isinstance(info, dict) else {})


class Lattice:
    """The decoder's search inputs (phrase scores included) over gold sentences (token lists), with the feature ids
    of each candidate (``index``: feature key -> id, grown when ``grow``), the gold candidate of
    each token (-1: not among them), and which tokens count as errors (two or more candidates, not
    the sentence's first cased word, which the first-word rule capitalises anyway)."""

    def __init__(self, model, sentences, templates, index: dict, grow: bool):
        search = model.native_search()
        self.inputs = inp = search.inputs([[t.lower() for t in s] for s in sentences])
        parts = model.scores().parts
        gold_tokens = [t for s in sentences for part in parts(s) for t in part]
        feat, fcand, gold, skip = [], [], [], []
        counts_of = model.casing_.forms.get
        for a, b in zip(inp.sent_off, inp.sent_off[1:]):
            low = inp.low[a:b]
            first_cased = next((k for k, t in enumerate(low) if case_class(t) != NONE), -1)
            for i in range(b - a):
                t = a + i
                forms = search.forms(inp, t)
                g = forms.index(gold_tokens[t]) if gold_tokens[t] in forms else -1
                gold.append(g)
                skip.append(i == first_cased or len(forms) < 2)
                if len(forms) < 2:
                    continue
                for r, keys in enumerate(candidate_features(templates, low, i, forms, counts_of(low[i]))):
                    for key in keys:
                        j = index.get(key)
                        if j is None and grow:
                            j = index[key] = len(index)
                        if j is not None:
                            feat.append(j)
                            fcand.append(inp.cand_off[t] + r)
        self.sent_off, self.cand_off = np.array(inp.sent_off, np.int32), np.array(inp.cand_off, np.int32)
        self.ids, self.em = np.array(inp.ids, np.uint32), np.array(inp.em, np.float64)
        self.feat, self.fcand = np.array(feat, np.int64), np.array(fcand, np.int64)
        self.gold, self.skip = np.array(gold, np.int64), np.array(skip, bool)
        self.feat_off = np.searchsorted(self.fcand, np.arange(len(self.ids) + 1))

    def decode(self, dec, W, s0: int = 0, s1: int | None = None) -> np.ndarray:
        """The chosen candidate of each token of sentences ``s0`` to ``s1`` under weights ``W``."""
        s1 = len(self.sent_off) - 1 if s1 is None else s1
        t0, t1 = self.sent_off[s0], self.sent_off[s1]
        c0, c1 = self.cand_off[t0], self.cand_off[t1]
        f0, f1 = self.feat_off[c0], self.feat_off[c1]
        em = self.em[c0:c1] + np.bincount(self.fcand[f0:f1] - c0, weights=W[self.feat[f0:f1]], minlength=c1 - c0)
        return dec.decode(self.sent_off[s0:s1 + 1] - t0, self.cand_off[t0:t1 + 1] - c0, self.ids[c0:c1], em, True)

    def errors(self, choice, s0: int = 0, s1: int | None = None) -> np.ndarray:
        """Positions (from sentence ``s0``'s first token) of the counted tokens ``choice`` gets wrong."""
        s1 = len(self.sent_off) - 1 if s1 is None else s1
        t0, t1 = self.sent_off[s0], self.sent_off[s1]
        g = self.gold[t0:t1]
        return np.nonzero((g >= 0) & (choice != g) & ~self.skip[t0:t1])[0]


def perceptron(train: Lattice, dec, n_features: int, epochs: int = 3, lr: float = 0.002, progress=None):
    """Averaged structured perceptron (Collins 2002), one sentence at a time in a fixed random
    order, the LM's score a fixed feature of weight 1 (``lr`` is small: LM scores are log10).
    Returns the averaged weights and the errors made online in each epoch."""
    W, U, c = np.zeros(n_features), np.zeros(n_features), 1.0
    order = np.random.default_rng(0).permutation(len(train.sent_off) - 1)
    online = []
    for epoch in range(epochs):
        n_err = 0
        for s in order:
            choice = train.decode(dec, W, s, s + 1)
            bad = train.errors(choice, s, s + 1)
            n_err += len(bad)
            if len(bad):
                base = train.cand_off[train.sent_off[s] + bad]
                for cands, sign in ((base + train.gold[train.sent_off[s] + bad], lr), (base + choice[bad], -lr)):
                    idx = np.concatenate([train.feat[train.feat_off[ci]:train.feat_off[ci + 1]] for ci in cands])
                    np.add.at(W, idx, sign)
                    np.add.at(U, idx, sign * c)
            c += 1
        online.append(n_err)
        if progress:
            progress(f"perceptron epoch {epoch + 1}/{epochs}: {n_err:,} errors on the held-out text")
    return W - U / c, online


def train_weights(model, sentences, feature_set: str, epochs: int = 3, lr: float = 0.002,
                  progress=None) -> CandidateWeights:
    """Learn :class:`CandidateWeights` for ``model`` (fitted, its LM without ``sentences``) on the
    gold token lists ``sentences`` with its C++ search (``model.native_search()``)."""
    dec = model.native_decoder()
    index: dict = {}
    lattice = Lattice(model, sentences, FEATURE_SETS[feature_set], index, grow=True)
    W, online = perceptron(lattice, dec, len(index), epochs, lr, progress)
    keys = list(index)
    weights = {keys[j]: round(float(W[j]), 7) for j in np.flatnonzero(np.round(W, 7))}
    zero = len(lattice.errors(lattice.decode(dec, np.zeros(len(index)))))
    after = len(lattice.errors(lattice.decode(dec, W)))
    return CandidateWeights(feature_set, weights, {
        "held_out_sentences": len(sentences), "held_out_tokens": int(len(lattice.gold)), "features": len(index),
        "epochs": epochs, "learning_rate": lr, "online_errors": online,
        "held_out_errors_without": zero, "held_out_errors_with": after})
