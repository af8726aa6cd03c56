"""A class-based LM beside the word LM: the one try that gains on every set.

This is the experiment that chose the settings, with ``lmplz`` LMs; the product's version is
:mod:`textqa.models.truecaser.classes` (``textqa train truecaser --class-lm 600``).

The learning curve (``dev/truecaser_learning_curve.py``) says the default is short of text: most
errors are cased n-grams seen too rarely ("Abbottabad District" unseen, so the LM falls back on
how often "district" and "District" occur anywhere).  A class-based LM (Brown et al. 1992,
"Class-based n-gram models of natural language", eq. 3: P(w_i | c_i) P(c_i | c_i-n+1 .. c_i-1))
shares counts between words used alike: if "Lahore District" and "Karachi District" were seen,
the class sequence (place name, name-part noun) is, whatever the place.

- Classes: each of the ``--targets`` most frequent LM tokens (cased, so "district" and "District"
  are different words) is described by the counts of its left and right neighbours among the
  ``--contexts`` most frequent tokens (log(1 + count)), reduced to 100 dimensions by truncated SVD,
  length-normalised and clustered by k-means into ``--clusters`` classes (scikit-learn; seeded).
  A rarer token's class is its case class (``R_LC`` ...); an ``UNKNOWN_*`` token is its own.
- The class LM: modified Kneser-Ney of ``--order`` over the training text's class sequence,
  estimated by ``lmplz`` and binarised as the default LM is (trie, 8-bit quantisation).
- P(w | c) = N(w) / N(c) over the same text.
- Decoding: the exact Viterbi search with states that are pairs (word-LM state, class-LM state),
  each candidate scored

      log10 P_word(w | h) + mu * (log10 P_class(c | class history) + log10 P(w | c))

  plus the default decoder's emissions (OOV model, phrase scores), first-word rule and compound
  casing.  ``mu`` 0 gives the default decoder's scores (a check of the search).

Scores dev, WSJ section 20 and the Reuters-21578 test split (``bench.truecaser``'s sets); mu is
chosen on dev, the news sets are the check.

    make lmplz && python dev/truecaser_classlm.py [--mus 0 0.25 0.5] [--clusters 600] [--order 4] [--work DIR]

Needs the default artifact.  Writes the LM-token text once (``--work``, about 2 minutes), then
about 2 minutes for the classes and the class LM, and 30 s per weight.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cluster_tokens(corpus: Path, targets: int, contexts: int, k: int, seed: int = 0) -> dict[str, int]:
    """{token: class} for the ``targets`` most frequent tokens of ``corpus`` (one sentence of LM tokens
    a line), clustered by their neighbours (module docstring)."""
    import numpy as np
    import scipy.sparse as sp
    from sklearn.cluster import MiniBatchKMeans
    from sklearn.decomposition import TruncatedSVD
    from sklearn.preprocessing import normalize
    counts: Counter = Counter()
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            counts.update(line.split())
    vocab = [w for w, _ in counts.most_common()]
    index = {w: i for i, w in enumerate(vocab)}
    bos, eos, other = contexts, contexts + 1, contexts + 2          # context columns past the frequent tokens
    rows, cols = [], []
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            ids = np.fromiter((index[w] for w in line.split()), dtype=np.int64)
            if not len(ids):
                continue
            ctx = np.where(ids < contexts, ids, other)
            left, right = np.r_[bos, ctx[:-1]], np.r_[ctx[1:], eos]
            keep = ids < targets
            rows += [ids[keep], ids[keep]]
            cols += [left[keep], right[keep] + contexts + 3]
    r, c = np.concatenate(rows), np.concatenate(cols)
    m = sp.coo_matrix((np.ones(len(r), dtype=np.float32), (r, c)), shape=(targets, 2 * (contexts + 3))).tocsr()
    m.data = np.log1p(m.data)
    x = normalize(TruncatedSVD(100, random_state=seed).fit_transform(m))
    labels = MiniBatchKMeans(k, random_state=seed, batch_size=4096, n_init=3).fit(x).labels_
    return {w: int(c) for w, c in zip(vocab[:targets], labels)}


class Classes:
    """The class of each LM token and log10 P(token | its class), counted on the training text."""

    def __init__(self, classes: dict[str, int], corpus: Path, class_text: Path):
        self.classes = classes
        words, per_class = Counter(), Counter()
        with open(corpus, encoding="utf-8") as src, open(class_text, "w", encoding="utf-8") as dst:
            for line in src:
                toks = line.split()
                cs = [self.of(t) for t in toks]
                words.update(toks)
                per_class.update(cs)
                dst.write(" ".join(cs) + "\n")
        self.emission = {w: math.log10(n / per_class[self.of(w)]) for w, n in words.items()}

    def of(self, token: str) -> str:
        from textqa.models.truecaser.casing import case_class
        c = self.classes.get(token)
        if c is not None:
            return f"C{c}"
        return token if token.startswith("UNKNOWN_") else f"R_{case_class(token)}"


def viterbi(model, class_lm, classes: Classes, tokens, oov, extra, mu: float, states=None):
    """Exact search over (word-LM state, class-LM state) pairs (module docstring); ``states``, a
    list, gets the number of states after recombination at each token."""
    import kenlm
    lm, w = model.lm_, model.oov_weight
    cands = [model._candidates(t) for t in tokens]
    start, cstart = kenlm.State(), kenlm.State()
    lm.BeginSentenceWrite(start)
    class_lm.BeginSentenceWrite(cstart)
    layers = [{(start, cstart): (0.0, None, -1)}]
    for pos, cs in enumerate(cands):
        em = [(w * oov[tokens[pos].lower()][oc]) if oc is not None and oov else 0.0 for _, _, oc in cs]
        if pos in extra:
            em = [a + b for a, b in zip(em, extra[pos])]
        if mu:
            em = [e + mu * classes.emission.get(lmw, -7.0) for e, (_, lmw, _) in zip(em, cs)]
        nxt = {}
        for key, (sc, _, _) in layers[-1].items():
            st, ct = key
            for ci, (_, lmw, _) in enumerate(cs):
                out, cout = kenlm.State(), kenlm.State()
                s = sc + lm.BaseScore(st, lmw, out) + em[ci]
                if mu:
                    s += mu * class_lm.BaseScore(ct, classes.of(lmw), cout)
                cur = nxt.get((out, cout))
                if cur is None or s > cur[0]:
                    nxt[(out, cout)] = (s, key, ci)
        layers.append(nxt)
        if states is not None:
            states.append(len(nxt))
    best, best_key = -math.inf, None
    for (st, ct), (sc, _, _) in layers[-1].items():
        s = sc + lm.BaseScore(st, "</s>", kenlm.State())
        if mu:
            s += mu * class_lm.BaseScore(ct, "</s>", kenlm.State())
        if s > best:
            best, best_key = s, (st, ct)
    out, key = [None] * len(tokens), best_key
    for pos in range(len(tokens), 0, -1):
        _, back, ci = layers[pos][key]
        form = cands[pos - 1][ci][0]
        out[pos - 1] = form if len(form) == len(tokens[pos - 1]) else tokens[pos - 1]
        key = back
    return out


def main(argv=None) -> int:
    import kenlm

    from bench.truecaser import scoring_sets
    from dev.truecaser_backward import dev_scorer
    from dev.truecaser_order import lm_corpus, lmplz_binary, lmplz_work
    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.runtime.paths import artifacts_dir
    from bench.truecaser import dev_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mus", type=float, nargs="+", default=[0.0, 0.15, 0.25, 0.4])
    p.add_argument("--clusters", type=int, default=600, help="k-means classes")
    p.add_argument("--targets", type=int, default=60000, help="how many of the most frequent tokens are clustered")
    p.add_argument("--contexts", type=int, default=3000, help="how many of the most frequent tokens describe them")
    p.add_argument("--order", type=int, default=4, help="order of the class LM")
    p.add_argument("--work", type=Path, default=None, help="folder for the corpus and the LMs (default: a temp dir)")
    p.add_argument("--dev-only", action="store_true", help="score dev only, not the news sets")
    args = p.parse_args(argv)
    work = lmplz_work(args.work, "truecaser-classlm-")
    corpus = lm_corpus(work)
    name = f"classes-{args.clusters}-{args.targets}-{args.contexts}"
    mapping = work / f"{name}.json"
    if not mapping.exists():
        print(f"clustering the {args.targets:,} most frequent tokens into {args.clusters} classes", file=sys.stderr)
        mapping.write_text(json.dumps(cluster_tokens(corpus, args.targets, args.contexts, args.clusters)))
    class_text = work / f"{name}.txt"
    classes = Classes(json.loads(mapping.read_text()), corpus, class_text)
    binary = work / f"{name}-order{args.order}.binary"
    if not binary.exists():
        print(f"estimating the class LM of order {args.order} with lmplz", file=sys.stderr)
        lmplz_binary(class_text, binary, work, args.order)
    class_text.unlink()
    class_lm = kenlm.Model(str(binary))
    model = TruecaserService.load(artifacts_dir(None) / "truecaser").model
    dev = dev_sentences()
    sets = {"dev": dev} if args.dev_only else scoring_sets(dev)
    scorers = {n: dev_scorer(model, gold) for n, gold in sets.items()}
    print(f"class LM: {args.clusters} classes of the {args.targets:,} commonest tokens, order {args.order}, "
          f"{binary.stat().st_size / 1e6:.0f} MB (trie-q8)", file=sys.stderr)
    print("| class LM weight (mu) | " + " | ".join(f"{n} accuracy | {n} F1" for n in sets)
          + " | dev states per token (mean / max) |")
    print("|---:|" + "---:|" * (2 * len(sets) + 1))
    for mu in args.mus:
        cells, states = [], []
        for n, score in scorers.items():
            s = score(lambda part, oov, extra: viterbi(model, class_lm, classes, part, oov, extra, mu,
                                                       states if n == "dev" else None))
            cells += [f"{s.accuracy:.2f}", f"{s.f1:.2f}"]
        cells.append(f"{sum(states) / len(states):.2f} / {max(states)}")
        print(f"| {mu:g} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
