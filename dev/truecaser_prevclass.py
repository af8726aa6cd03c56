"""Three more scores beside the LM, measured on dev: none was kept.

1. ``--bias B ...``: B added to the log10 score of every capitalised candidate of a known word with
   two or more candidates (does the default decoder under-capitalise? 67% of its dev errors are
   capitals missed).
2. ``--lambdas L ...``: a model of a word's casing given the case class of the token before it
   (LC / UC / CA / MC / NONE / sentence start), counted on the default training text as LM tokens,
   interpolated with the word's overall casing distribution (``--alpha`` pseudo-counts):

       P(form | word, class_prev) = (N(class_prev, form) + alpha * P(form | word)) / (N(class_prev, word) + alpha)

   added as ``L * log10 P`` to each candidate of a known word with two or more candidates, on every
   LM step or (``--only-backoff``) only where the LM backs off to the unigram, where the cased
   bigram is unseen ("Abbottabad District": the LM falls back on how often "district" and
   "District" occur anywhere).  The score depends on the previous token, which the search's
   states (the last two LM tokens, ``dev/truecaser_backward.py``'s exact search) hold, so the
   search stays exact.
3. ``--window W ...``: a model of a word's casing given the lowercased words on each side of it,
   counted on the same text (a rare word there reads as ``unknown``), each level smoothed towards
   the one below with ``--beta`` pseudo-counts:

       P(form | prev, word, next) = (N(prev word next, form) + beta * P2) / (N(prev word next) + beta)
       P2 = (P(form | prev, word) + P(form | word, next)) / 2,  P(form | prev, word) likewise over P(form | word)

   added as ``W * log10 P`` to each candidate's emission score, as the phrase scores are.  Unlike
   the LM, it sees the right context and conditions on the lowercased text, which is given.

Bias 0 and weights 0 give the default decoder's dev F1 (a check).

    python dev/truecaser_prevclass.py [--bias 0 0.1 0.2] [--lambdas 0 0.25 1] [--window 0 0.5] [--work DIR]

Needs the default artifact.  With a class-model or window weight, writes the LM-token text once
(``--work``, about 2 minutes) and counts it (30 s each); then about 20 s per setting.
"""
from __future__ import annotations

import argparse
import itertools
import math
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def class_of(token) -> str:
    """The case class of an LM token (``UNKNOWN_UC`` -> UC; None: the sentence start)."""
    from textqa.models.truecaser.casing import case_class
    if token is None:
        return "<s>"
    return token[8:] if token.startswith("UNKNOWN_") else case_class(token)


def count_after_class(corpus: Path, words: set) -> dict:
    """{lowercased word: Counter((class of the previous token, cased form))} over ``corpus`` (one
    sentence of LM tokens a line), for the words in ``words``."""
    counts: dict = {}
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            prev = None
            for t in line.split():
                low = t.lower()
                if low in words:
                    counts.setdefault(low, Counter())[(class_of(prev), t)] += 1
                prev = t
    return counts


def window_keys(sentences, ambiguous) -> tuple[set, set, set]:
    """The (prev, word, next), (prev, word) and (word, next) windows of the ``ambiguous`` words of
    lowercased ``sentences`` (token lists; ``<s>`` and ``</s>`` past the ends)."""
    w3, w2l, w2r = set(), set(), set()
    for s in sentences:
        for i, w in enumerate(s):
            if ambiguous(w):
                prev, nxt = s[i - 1] if i else "<s>", s[i + 1] if i + 1 < len(s) else "</s>"
                w3.add((prev, w, nxt))
                w2l.add((prev, w))
                w2r.add((w, nxt))
    return w3, w2l, w2r


def count_windows(corpus: Path, keys: tuple[set, set, set]) -> tuple[dict, dict, dict]:
    """{window: Counter(cased form)} over ``corpus`` (LM tokens) for the windows in ``keys``."""
    w3, w2l, w2r = keys
    words = {w for _, w, _ in w3}
    c3, c2l, c2r = {}, {}, {}
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            toks = line.split()
            low = ["unknown" if t.startswith("UNKNOWN_") else t.lower() for t in toks]
            for i, w in enumerate(low):
                if w not in words:
                    continue
                prev, nxt = low[i - 1] if i else "<s>", low[i + 1] if i + 1 < len(low) else "</s>"
                for table, key, wanted in ((c3, (prev, w, nxt), w3), (c2l, (prev, w), w2l), (c2r, (w, nxt), w2r)):
                    if key in wanted:
                        table.setdefault(key, Counter())[toks[i]] += 1
    return c3, c2l, c2r


class Window:
    """log10 P(form | prev, word, next) (module docstring) of each candidate form."""

    def __init__(self, counts: tuple[dict, dict, dict], casings, beta: float):
        self.c3, self.c2l, self.c2r = counts
        self.casings, self.beta = casings, beta

    def __call__(self, prev: str, word: str, nxt: str, forms: list[str]) -> list[float]:
        pairs = self.casings(word)
        total = sum(c for _, c in pairs)
        p1 = {f: c / total for f, c in pairs}

        def smooth(counts, prior):
            n = sum(counts.values()) if counts else 0
            return {f: ((counts or {}).get(f, 0) + self.beta * prior[f]) / (n + self.beta) for f in prior}
        left, right = smooth(self.c2l.get((prev, word)), p1), smooth(self.c2r.get((word, nxt)), p1)
        p3 = smooth(self.c3.get((prev, word, nxt)), {f: (left[f] + right[f]) / 2 for f in p1})
        return [math.log10(max(p3.get(f, 0.0), 1e-6)) for f in forms]


class PrevClass:
    """log10 P(form | word, class of the previous token) (module docstring), cached."""

    def __init__(self, counts: dict, alpha: float):
        self.counts, self.alpha, self.cache = counts, alpha, {}

    def __call__(self, word: str, form: str, prev_class: str) -> float | None:
        key = (word, prev_class)
        dist = self.cache.get(key)
        if dist is None:
            total, after = Counter(), Counter()
            for (pc, f), n in self.counts.get(word, Counter()).items():
                total[f] += n
                if pc == prev_class:
                    after[f] += n
            t, a = sum(total.values()), sum(after.values())
            dist = self.cache[key] = {f: (after[f] + self.alpha * n / t) / (a + self.alpha) for f, n in total.items()}
        p = dist.get(form)
        return None if p is None else math.log10(p)


def main(argv=None) -> int:
    from dev.truecaser_backward import dev_scorer, viterbi
    from dev.truecaser_order import lm_corpus

    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.runtime.paths import artifacts_dir
    from bench.truecaser import dev_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bias", type=float, nargs="+", default=[0.0, 0.1, 0.2])
    p.add_argument("--lambdas", type=float, nargs="+", default=[0.0, 0.25, 0.5, 1.0])
    p.add_argument("--alpha", type=float, default=5.0, help="pseudo-counts of the overall casing distribution")
    p.add_argument("--window", type=float, nargs="+", default=[0.0], help="weights of the window model")
    p.add_argument("--beta", type=float, default=2.0, help="pseudo-counts of each window level's back-off")
    p.add_argument("--only-backoff", action="store_true", help="add the class model only where the LM backs off to the unigram")
    p.add_argument("--work", type=Path, default=None, help="folder for the LM-token text (default: a temp dir)")
    args = p.parse_args(argv)
    model = TruecaserService.load(artifacts_dir(None) / "truecaser").model
    gold = dev_sentences()
    lower = [l.lower().split() for l in gold]
    lams = [lam for lam in args.lambdas if lam]
    windows = [x for x in args.window if x]

    def ambiguous(word):
        return word in model.casing_.forms and len(model._candidates(word)) > 1
    prev_class = window = None
    if lams or windows:
        work = args.work or Path(tempfile.mkdtemp(prefix="truecaser-prevclass-"))
        work.mkdir(parents=True, exist_ok=True)
        corpus = lm_corpus(work)
    if lams:
        print("counting casings after each case class", file=sys.stderr)
        prev_class = PrevClass(count_after_class(corpus, {t for s in lower for t in s}), args.alpha)
    if windows:
        print("counting casings in each window", file=sys.stderr)
        window = Window(count_windows(corpus, window_keys(lower, ambiguous)), model.casing_.forms.get, args.beta)
    score = dev_scorer(model, gold)
    print(f"| bias | class model weight{' (where the LM backs off to the unigram)' if args.only_backoff else ''} "
          "| window model weight | dev accuracy | dev P | dev R | dev F1 |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for bias, lam, win in itertools.product(args.bias, [0.0, *lams], [0.0, *windows]):
        def transition(pos, prev, cand, ngram_length):
            form, lmw, oov_class = cand
            word = form.lower()
            if oov_class is not None or not ambiguous(word):
                return 0.0
            s = bias if form != word else 0.0
            if lam and (not args.only_backoff or ngram_length == 1):
                lp = prev_class(word, lmw, class_of(prev))
                s += lam * lp if lp is not None else 0.0
            return s

        def search(part, oov, extra):
            if win:
                low, extra = [t.lower() for t in part], dict(extra)
                for i, w in enumerate(low):
                    if ambiguous(w):
                        sc = window(low[i - 1] if i else "<s>", w, low[i + 1] if i + 1 < len(low) else "</s>",
                                    model._candidate_forms(w))
                        extra[i] = [a + win * b for a, b in zip(extra.get(i, [0.0] * len(sc)), sc)]
            return viterbi(model, part, oov, extra, None, 0.0, transition=transition)
        s = score(search)
        print(f"| {bias:g} | {lam:g} | {win:g} | {s.accuracy:.2f} | {s.precision:.2f} | {s.recall:.2f} | {s.f1:.2f} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
