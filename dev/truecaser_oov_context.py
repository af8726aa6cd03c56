"""Issue 14, accuracy: the unseen words' casing given their spelling *and* their sentence's words.

The OOV model (:mod:`textqa.models.truecaser.oov`) predicts an unseen word's casing class from its
spelling alone; the sentence-context model (:mod:`textqa.models.truecaser.context`) gives known
ambiguous words the other words of their sentence.  Unseen words are 2% of dev tokens and carry
about 11% of its errors: is a species name or a place name in a sentence about biology or about
geography?  This script fits one multinomial logistic regression of the casing class of the
occurrences of rare words (lowercased key seen at most ``--max-count`` times) in the default
artifact's own training text, over their spelling features and the set of the other lowercased words
of their sentence (less the 100 commonest), and swaps its log-ratio for the OOV model's in the
decoder's emission scores (times ``--weights``), on dev, WSJ section 20 and the Reuters-21578 test
split.  It also fits the same regression on the spelling alone (the same samples), so the table
separates what the occurrence-level sample gives from what the sentence's words give.  Choose on dev.

    python dev/truecaser_oov_context.py [--max-count 3] [--weights 0.5 1] [--C 1]

Needs the default artifact and its tokenized training text in ``.cache/`` (``textqa train
truecaser`` writes both).
"""
from __future__ import annotations

import argparse
import sys
import time
from bisect import bisect_right
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def occurrence_model(with_sentence: bool, stop: set, C: float):
    """The OOV model (:class:`~textqa.models.truecaser.oov.CharCasingClassifier`: its fit, prior and
    log-ratios) over occurrences, ``(word, sentence's lowercased words)`` pairs, instead of word types:
    spelling features, and with ``with_sentence`` the sentence's other words less ``stop`` too."""
    from sklearn.feature_extraction.text import HashingVectorizer

    from textqa.models.truecaser.oov import CharCasingClassifier, char_features

    def features(pair) -> list[str]:
        word, sent = pair
        f = char_features(word)
        if with_sentence:
            f += ["w=" + w for w in set(sent) - stop if w != word]
        return f

    class OccurrenceModel(CharCasingClassifier):
        def _vectorizer(self):
            return HashingVectorizer(analyzer=features, n_features=self.n_features, alternate_sign=False, norm="l2")

    return OccurrenceModel(C=C, n_features=2 ** 20)


def main(argv=None) -> int:
    from bench.truecaser import default_model_and_sets, score_cells, training_sentences
    from textqa.models.truecaser.casing import CASE_CLASSES, NONE, case_class, fold_accents
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", type=Path, default=None,
                   help="tokenized training text (default: the default corpus as training caches it in .cache/)")
    p.add_argument("--max-count", type=int, default=3, help="sample the words seen at most this often")
    p.add_argument("--C", type=float, default=1.0, help="inverse L2 strength")
    p.add_argument("--weights", type=float, nargs="+", default=[0.5, 1.0],
                   help="weights of the occurrence models' log-ratio (the OOV model's is the artifact's oov_weight)")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: artifacts/)")
    args = p.parse_args(argv)
    t0 = time.time()
    say = lambda msg: print(f"[{time.time() - t0:5.0f}s] {msg}", file=sys.stderr, flush=True)  # noqa: E731
    model, dev, sets = default_model_and_sets(args.artifacts)
    sentences = training_sentences(model, dev, args.corpus)
    low_sents = [s.lower().split() for s in sentences]
    count = Counter(w for s in low_sents for w in s)
    stop = {w for w, _ in count.most_common(100)}
    say(f"{len(sentences):,} training sentences, {len(count):,} lowercased types")
    words, sents, classes = [], [], []
    for s, low in zip(sentences, low_sents):
        toks = s.split()
        for i in range(1, len(toks)):
            if count[low[i]] <= args.max_count:
                c = case_class(toks[i])
                if c != NONE and case_class(low[i]) != NONE:
                    words.append(low[i])
                    sents.append(low)
                    classes.append(c)
    say(f"{len(words):,} occurrences of words seen at most {args.max_count} times: {Counter(classes)}")
    fitted = {}
    for name, with_sentence in (("spelling", False), ("spelling + sentence", True)):
        fitted[name] = occurrence_model(with_sentence, stop, args.C).fit(list(zip(words, sents)), classes)
        say(f"fitted {name}")
    del words, sents, classes, sentences, low_sents

    # the classifiers alone on dev's unseen, non-initial tokens
    forms = model.casing_.forms
    dw, ds, dc = [], [], []
    for g in dev:
        toks = (fold_accents(g) if model.fold_accents else g).split()
        low = [t.lower() for t in toks]
        for i in range(1, len(toks)):
            if low[i] not in forms and case_class(low[i]) != NONE:
                dw.append(low[i])
                ds.append(low)
                dc.append(case_class(toks[i]))
    print(f"dev: {len(dw):,} unseen non-initial tokens, classes {dict(Counter(dc))}")
    oov_pred = [max(CASE_CLASSES, key=lambda c: r.get(c, -9)) for r in model.oov_.log10_ratio(dw)]
    print("| classifier alone | dev unseen-token class accuracy |\n|---|---:|")
    print(f"| OOV model (spelling, types) | {100 * np.mean([a == b for a, b in zip(oov_pred, dc)]):.2f} |")
    for name, m in fitted.items():
        pred = m.clf_.predict(m._vectorizer().transform(zip(dw, ds)))
        print(f"| {name} (occurrences) | {100 * np.mean(pred == np.array(dc)):.2f} |", flush=True)

    # in the decoder: each unseen position's OOV score swapped for w times the occurrence model's
    original = model._native_inputs
    state = {}

    def patched(token_lists, dec):
        inp = original(token_lists, dec)
        m, w = state.get("model"), state.get("w", 0.0)
        if m is None or not inp.unseen_at:
            return inp
        unseen = sorted({inp.low[t] for t in inp.unseen_at})
        base = dict(zip(unseen, model.oov_.log10_ratio(unseen)))
        sent = []
        for t in inp.unseen_at:
            k = bisect_right(inp.sent_off, t) - 1
            sent.append(inp.low[inp.sent_off[k]:inp.sent_off[k + 1]])
        new = m.log10_ratio([(inp.low[t], s) for t, s in zip(inp.unseen_at, sent)])
        for t, d in zip(inp.unseen_at, new):
            first, b = int(inp.cand_off[t]), base[inp.low[t]]
            for j, c in enumerate(inp.ents[t][2]):
                if c is not None:
                    inp.em[first + j] += w * d[c] - model.oov_weight * b[c]
        return inp

    model._native_inputs = patched
    print("| OOV scores | W | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets) + " |")
    print("|---|---:|" + "---:|" * (2 * len(sets)))
    print(f"| the OOV model (default) | {model.oov_weight:g} | " + " | ".join(score_cells(model, sets)) + " |",
          flush=True)
    for name, m in fitted.items():
        for w in args.weights:
            state.update(model=m, w=w)
            print(f"| {name} | {w:g} | " + " | ".join(score_cells(model, sets)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
