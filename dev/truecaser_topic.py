"""Issue 14, accuracy: a sentence-level bag-of-words casing model for ambiguous known words.

The LM sees two words to the left; the error analysis's commonest errors ("district", "the" in
titles of works, "church", "president", "Raw" the television show) often hang on what the whole
sentence is about (Pakistan or a school board, an album, a wrestling show).  As in word-sense
disambiguation, each ambiguous word gets its own classifier of its casing given the other words
of its sentence:

- **Words.** Known words of the scored sets with two or more candidate casings, seen at least 20
  times in training, whose second candidate has at least 1% of the word's occurrences.
- **Training.** Their occurrences in the default training text (the tokenized corpus in
  ``.cache/``; not the first word of a sentence), at most ``--cap`` per casing; the features are the
  set of the other lowercased (accent-folded) words of the sentence, less the ``--stop`` words in
  most samples.  One L2-regularised logistic regression per word (scikit-learn, ``--C``).
- **Decoding.** ``W * (log10 P(casing | sentence words) - log10 P(casing))``, the prior being the
  casing's share of the word's sample, is added to each candidate's emission score (as the phrase
  scores are, so the search stays exact), on top of everything the default decoder scores.
  W = 0 gives the default's scores (a check of the script).

Only the scored sets' words are modelled, which saves time and changes nothing for them; the dev
labels are not used but to score.

    python dev/truecaser_topic.py [--cap 3000] [--C 1] [--weights 0.5 0.75 1] [--max-lines N]

Needs the default artifact and its tokenized training text in ``.cache/`` (``textqa train
truecaser`` writes it); with ``--cap 3000``, about 3.5 minutes to read the samples and train the classifiers,
then 12 s a setting after a first one of about 3 minutes that fills the score cache.
"""
from __future__ import annotations

import argparse
import gzip
import math
import sys
import time
import types
import warnings
from array import array
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def target_words(model, sets: dict, min_count: int = 20, min_second: float = 0.01) -> dict:
    """{lowercased word: its candidate forms} for the ambiguous known words of the scored sets."""
    from textqa.models.truecaser.casing import fold_accents
    forms, targets = model.casing_.forms, {}
    for gold in sets.values():
        for line in gold:
            for t in line.split():
                w = fold_accents(t.lower())
                f = forms.get(w)
                if w in targets or not f or len(f) < 2:
                    continue
                cands = model._candidate_forms(w)
                counts, total = dict(f), sum(c for _, c in f)
                if len(cands) >= 2 and total >= min_count and \
                        sorted((counts.get(c, 0) for c in cands), reverse=True)[1] >= min_second * total:
                    targets[w] = cands
    return targets


def samples(corpus: Path, targets: dict, cap: int, max_lines: int = 0):
    """(sparse bag-of-words rows, word index, casing index, vocabulary) of the occurrences of the
    ``targets`` (not sentence-initial) in ``corpus``, at most ``cap`` per word and casing."""
    from textqa.models.truecaser.casing import fold_accents
    tid = {w: i for i, w in enumerate(targets)}
    form_idx = [{f: k for k, f in enumerate(c)} for c in targets.values()]
    taken = [[0] * len(c) for c in targets.values()]
    vocab: dict = {}
    indptr, indices, words, labels = array("q", [0]), array("i"), array("i"), array("i")
    with gzip.open(corpus, "rt", encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if max_lines and n > max_lines:
                break
            toks = list(map(fold_accents, line.split()))
            low = [t.lower() for t in toks]
            hits = []
            for i in range(1, len(low)):
                j = tid.get(low[i])
                k = form_idx[j].get(toks[i]) if j is not None else None
                if k is not None and taken[j][k] < cap:
                    taken[j][k] += 1
                    hits.append((i, j, k))
            if not hits:
                continue
            ids = [vocab.setdefault(x, len(vocab)) for x in low]
            for i, j, k in hits:
                ctx = set(ids)
                ctx.discard(ids[i])
                indices.extend(ctx)
                indptr.append(len(indices))
                words.append(j)
                labels.append(k)
            if n % 500_000 == 0:
                print(f"  {n:,} lines, {len(words):,} samples", file=sys.stderr, flush=True)
    X = sp.csr_matrix((np.ones(len(indices), np.float32), np.frombuffer(indices, np.int32),
                       np.frombuffer(indptr, np.int64)), shape=(len(words), len(vocab)))
    return X, np.frombuffer(words, np.int32).astype(np.int64), np.frombuffer(labels, np.int32), vocab


def fit(targets: dict, X, words, labels, keep: np.ndarray, C: float) -> dict:
    """{word: (its feature columns, fitted logistic regression, casing shares of its sample)}."""
    from sklearn.linear_model import LogisticRegression
    order = np.argsort(words, kind="stable")
    bounds = np.searchsorted(words[order], np.arange(len(targets) + 1))
    models = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for j, (w, cands) in enumerate(targets.items()):
            rows = order[bounds[j]:bounds[j + 1]]
            y = labels[rows]
            if len(np.unique(y)) < 2:
                continue
            Xw = X[rows]
            cols = np.unique(Xw.indices)
            cols = cols[keep[cols]]
            clf = LogisticRegression(C=C, solver="liblinear" if len(cands) == 2 else "lbfgs", max_iter=200)
            clf.fit(Xw[:, cols], y)
            models[w] = (cols, clf, np.bincount(y, minlength=len(cands)) / len(y))
    return models


def log10_ratio(entry, bag: list[int]) -> np.ndarray:
    """log10 P(casing | bag) - log10 P(casing) of each candidate (0 for a casing not in the sample)."""
    cols, clf, prior = entry
    hit = np.nonzero(np.isin(cols, bag))[0]
    x = sp.csr_matrix((np.ones(len(hit)), hit, [0, len(hit)]), shape=(1, len(cols)))
    p = np.full(len(prior), 1e-9)
    p[clf.classes_] = clf.predict_proba(x)[0]
    out = np.zeros(len(prior))
    ok = prior > 0
    out[ok] = (np.log(np.maximum(p[ok], 1e-9)) - np.log(prior[ok])) / math.log(10)
    return out


def add_topic_scores(model, models: dict, vocab: dict, keep: np.ndarray, setting: dict) -> None:
    """Make ``model`` add ``setting["w"]`` times :func:`log10_ratio` to the candidates of the
    modelled words, given the other words of their sentence part."""
    from textqa.models.truecaser.model import add_emissions
    own, cache = model._extra_scores, {}

    def extra(self, low, sent_off):
        out = own(low, sent_off)
        w = setting["w"]
        if not w:
            return out
        for a, b in zip(sent_off, sent_off[1:]):
            ids = [vocab.get(x) for x in low[a:b]]
            for i in range(a, b):
                word = low[i]
                if word not in models:
                    continue
                me = vocab.get(word)
                bag = sorted({x for x in ids if x is not None and x != me and keep[x]})
                key = (word, tuple(bag))
                if key not in cache:
                    cache[key] = log10_ratio(models[word], bag)
                add_emissions(out, i, (w * cache[key]).tolist())
        return out
    model._extra_scores = types.MethodType(extra, model)
    setting["cache"] = cache


def main(argv=None) -> int:
    from bench.truecaser import score_cells, scoring_sets
    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.paths import artifacts_dir
    from textqa.training.corpus import read_lines
    from textqa.training.truecaser import DEFAULT_DEV
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", type=Path, default=None,
                   help="tokenized training text (default: the newest .cache/tokenized-*.txt.gz)")
    p.add_argument("--cap", type=int, default=3000, help="samples per word and casing (default 3000)")
    p.add_argument("--stop", type=int, default=100, help="leave out the words in most samples (default 100)")
    p.add_argument("--C", type=float, nargs="+", default=[1.0], help="inverse L2 strength(s) (default 1)")
    p.add_argument("--weights", type=float, nargs="+", default=[0.5, 0.75, 1.0])
    p.add_argument("--max-lines", type=int, default=0, help="read only the first N training lines")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: artifacts/)")
    args = p.parse_args(argv)
    corpus = args.corpus
    if corpus is None:
        found = sorted((ROOT / ".cache").glob("tokenized-*.txt.gz"), key=lambda f: f.stat().st_mtime)
        if not found:
            p.error("no tokenized corpus in .cache/: run `textqa train truecaser` first, or give --corpus")
        corpus = found[-1]
    t0 = time.time()
    model = TruecaserService.load(artifacts_dir(args.artifacts) / "truecaser").model
    sets = scoring_sets([l.strip() for l in read_lines(DEFAULT_DEV) if l.strip()])
    targets = target_words(model, sets)
    X, words, labels, vocab = samples(corpus, targets, args.cap, args.max_lines)
    df = np.bincount(X.indices, minlength=len(vocab))
    keep = np.ones(len(vocab), bool)
    keep[np.argsort(-df)[:args.stop]] = False
    print(f"{len(targets):,} words, {X.shape[0]:,} samples from {corpus.name} ({time.time() - t0:.0f} s)",
          file=sys.stderr, flush=True)
    models, setting = {}, {"w": 0.0}
    add_topic_scores(model, models, vocab, keep, setting)
    print("| C | weight W | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---:|---:|" + "---:|" * (2 * len(sets)))
    print("| | 0 | " + " | ".join(score_cells(model, sets)) + " |", flush=True)
    for C in args.C:
        models.clear()
        models.update(fit(targets, X, words, labels, keep, C))
        setting["cache"].clear()
        for w in args.weights:
            setting["w"] = w
            print(f"| {C:g} | {w:g} | " + " | ".join(score_cells(model, sets)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
