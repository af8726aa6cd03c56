"""Quoted spans: evidence the trigram LM cannot see for the tokens inside `` ... ''.

The error analysis of 2026-12-01 found the default's error rate inside the dev set's closed quoted
spans (5,441 tokens, 1.9% of dev) at 11.6%, against 2.5% over all tokens: 630 of its 7,435 errors,
455 of them capitals missed (song, single and episode titles: `` Wait A Minute '', `` Just Missed
the Train ''). Inside a span the LM sees the opening quote for the first two tokens only, and never
the span's length, the word before it or whether the span closes.

This script fits one logistic regression over the training text's tokens (scikit-learn, liblinear,
hashed features): whether a token has a capital, given the bucket of its training capitalisation share
and, for a token inside a closed span, its position in the span, the span's length, the words before
and after the span, and (for the 100 commonest words) the word itself, each also crossed with the
share's bucket or the position. Every token with a letter of a closed span is an instance (a
sentence's first word aside), with one in 250 of the tokens outside spans, which carry only the
share's bucket and the commonest-word feature. Its
evidence for a candidate casing c of an in-span token with two or more candidates is added
to c's emission score, as the sentence-context model's is, so the search stays exact:

    W * (log10 P(y(c) | the token and its span) - log10 P(y(c) | the token alone))

with y(c) whether c has a capital, and the second probability the same model's with the span's
features off. The fit uses no dev label; W is scored on dev, and WSJ section 20 and the
Reuters-21578 test split are scored too (neither trained on).

    python dev/truecaser_quotes.py [--artifacts DIR] [--weights 0.25 0.5 1]

Needs the default truecaser artifact and its tokenized corpus in .cache/ (``make train``); about
2 minutes to fit and 40 s a weight.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

N_COMMON = 100           # the commonest words get features of their own ("the", "a" start titles)
N_NEIGHBOURS = 300       # words before and after a span kept as features; the rest are OTHER
OUTSIDE_RATE = 1 / 250   # share of the tokens outside spans kept as instances
LINE_RATE = 1 / 50       # share of the lines without a quote read


def has_letter(tok: str) -> bool:
    return any(ch.isalpha() for ch in tok)


def closed_spans(low: list[str]) -> list[tuple[int, int]]:
    """The (first, end) token ranges inside each `` ... '' of one sentence that closes before the
    sentence ends and holds at least one token; nested or unclosed quotes give no span."""
    out, i = [], 0
    while i < len(low):
        if low[i] == "``":
            j = i + 1
            while j < len(low) and low[j] not in ("''", "``"):
                j += 1
            if j < len(low) and low[j] == "''" and j > i + 1:
                out.append((i + 1, j))
                i = j
        i += 1
    return out


def first_word(low: list[str]) -> int:
    """The index of the sentence's first token with a letter (the first-word rule cases it), or -1."""
    return next((i for i, t in enumerate(low) if has_letter(t)), -1)


class SpanFeatures:
    """The features of a token: its training capitalisation share's bucket, and its span's."""

    def __init__(self, forms: dict, neighbours: set):
        self.neighbours = neighbours
        totals = {k: sum(c for _, c in v) for k, v in forms.items()}
        self.common = set(sorted(totals, key=totals.get, reverse=True)[:N_COMMON])
        self.buckets = {k: self._bucket(sum(c for f, c in v if f != f.lower()), totals[k]) for k, v in forms.items()}

    @staticmethod
    def _bucket(cap: int, total: int) -> str:
        return "never" if cap == 0 else "always" if cap == total else str(min(int(10 * cap / total), 9))

    def bucket(self, word: str) -> str:
        """The bucket of the share of ``word``'s training occurrences that have a capital."""
        return self.buckets.get(word, "unseen")

    def __call__(self, low: list[str], k: int, span=None) -> list[str]:
        word, b = low[k], self.bucket(low[k])
        f = ["b=" + b] + (["w=" + word] if word in self.common else [])
        if span is None:
            return f
        s, e = span
        p, n = min(k - s + 1, 4), min(e - s, 7)
        before = low[s - 2] if s >= 2 else "<s>"
        after = low[e + 1] if e + 1 < len(low) else "</s>"
        before, after = (w if w in self.neighbours else "OTHER" for w in (before, after))
        f += ["q", f"q|b={b}", f"p={p}", f"p={p}|b={b}", f"n={n}", f"n={n}|p={p}", f"before={before}",
              f"before={before}|p={p}", f"after={after}"]
        if k == e - 1:
            f += ["last", f"last|b={b}"]
        if word in self.common:
            f += [f"q|w={word}", f"q|w={word}|p={min(p, 2)}"]
        return f


def fit(sentences: list[str], forms: dict, seed: int = 0):
    """(the fitted regression, its hasher, its :class:`SpanFeatures`, the number of instances, the
    share of them with a capital) over the training sentences."""
    from sklearn.feature_extraction import FeatureHasher
    from sklearn.linear_model import LogisticRegression
    before = Counter()
    for line in sentences:
        if "``" in line:
            low = line.lower().split()
            before.update(low[s - 2] if s >= 2 else "<s>" for s, _ in closed_spans(low))
    feats = SpanFeatures(forms, {w for w, _ in before.most_common(N_NEIGHBOURS)})
    rng, X, y = random.Random(seed), [], []
    for line in sentences:
        quoted = "``" in line
        if not quoted and rng.random() >= LINE_RATE:     # a line without quotes: 1 in 50 read
            continue
        keep = OUTSIDE_RATE if quoted else OUTSIDE_RATE / LINE_RATE    # so 1 in 250 tokens outside spans
        toks = line.split()
        low = [t.lower() for t in toks]
        inside = {k: sp for sp in closed_spans(low) for k in range(*sp)} if quoted else {}
        skip = first_word(low)
        for k, tok in enumerate(toks):
            if k == skip or not has_letter(tok):
                continue
            if k in inside:
                X.append(feats(low, k, inside[k]))
            elif rng.random() < keep:
                X.append(feats(low, k))
            else:
                continue
            y.append(tok != low[k])
    hasher = FeatureHasher(2 ** 20, input_type="string", alternate_sign=False)
    model = LogisticRegression(C=1.0, solver="liblinear", max_iter=200).fit(hasher.transform(X), y)
    return model, hasher, feats, len(X), float(np.mean(y))


def span_scores(model, hasher, feats, candidate_forms, low: list[str], sent_off, weight: float) -> dict:
    """{flat token index: each candidate's added score} for the in-span tokens of the sentences
    ``low[sent_off[i]:sent_off[i + 1]]`` with two or more candidates."""
    rows, where = [], []
    for a, b in zip(sent_off, sent_off[1:]):
        sent = low[a:b]
        skip = first_word(sent)
        for span in closed_spans(sent):
            for k in range(*span):
                if k == skip or not has_letter(sent[k]):
                    continue
                cands = candidate_forms(sent[k])
                if len(cands) > 1:
                    rows += [feats(sent, k, span), feats(sent, k)]
                    where.append((a + k, cands))
    if not rows:
        return {}
    p = model.predict_proba(hasher.transform(rows))[:, 1].reshape(-1, 2)
    out = {}
    for (pos, cands), (p_span, p_alone) in zip(where, p):
        cap, low_ = math.log10(p_span / p_alone), math.log10((1 - p_span) / (1 - p_alone))
        out[pos] = [weight * (cap if c != c.lower() else low_) for c in cands]
    return out


def main(argv=None) -> int:
    from bench.truecaser import default_model_and_sets, score_cells, training_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: artifacts/)")
    p.add_argument("--weights", type=float, nargs="+", default=[0.25, 0.5, 1.0], help="W values to score")
    args = p.parse_args(argv)
    from textqa.models.truecaser.experiments import ExperimentalTruecaser
    truecaser, dev, sets = default_model_and_sets(args.artifacts)
    truecaser = ExperimentalTruecaser.of(truecaser)
    sentences = training_sentences(truecaser, dev)
    model, hasher, feats, n, rate = fit(sentences, truecaser.casing_.forms)
    print(f"fitted on {n:,} tokens ({100 * rate:.1f}% capitalised)", file=sys.stderr)
    weight = [0.0]
    truecaser.add_emission_scorer(lambda low, sent_off: span_scores(
        model, hasher, feats, truecaser.candidate_forms, low, sent_off, weight[0]) if weight[0] else {})

    print("| W | " + " | ".join(f"{name} accuracy | {name} F1" for name in sets) + " |")
    print("|---:|" + "---:|" * (2 * len(sets)))
    for w in [0.0] + args.weights:
        weight[0] = w
        print(f"| {w:g} | " + " | ".join(score_cells(truecaser, sets)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
