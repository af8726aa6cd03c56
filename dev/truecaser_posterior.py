"""Posterior (max-marginal) decoding instead of Viterbi: measured on dev and the
news sets.

The Viterbi search finds the single most probable casing of the sentence; the scores count tokens,
so the decision that minimises the expected number of wrong tokens is, for each token, the casing
with the highest posterior probability summed over every path (minimum Bayes risk for token
accuracy).  This script computes those posteriors by forward-backward over the default decoder's own
lattice: the same candidates, the same states (word LM and class LM, recombined exactly as the
search does, which is exact for sums too, since paths in one state share every later score) and the
same scores (word LM, class LM and log10 P(w | c), OOV model, phrase scores).  A path's probability
is ``10 ** (scale * score)``; ``--scale 1`` takes the scores as the log-probabilities they mostly are,
smaller values flatten the distribution, larger ones sharpen it towards Viterbi's choice.

    python dev/truecaser_posterior.py [--scale 1 ...]        # about a minute a setting

prints, per scale, dev accuracy and F1, WSJ accuracy and F1, Reuters test accuracy and F1, and the
Viterbi decoder's first (the Python search, as the product's C++ one; a check).
"""
import argparse
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["TEXTQA_NATIVE_VITERBI"] = "0"        # the per-sentence search is replaced below

import kenlm                                                # noqa: E402

from bench.truecaser import dev_sentences, score_cells, scoring_sets  # noqa: E402
from textqa.models.artifact import ArtifactError           # noqa: E402
from textqa.models.truecaser.model import load_truecaser    # noqa: E402

LN10 = math.log(10)


def logadd(a: float, b: float) -> float:
    if a < b:
        a, b = b, a
    return a if b == -math.inf else a + math.log1p(math.exp(b - a))


def posterior_decode(model, tokens, oov_scores, phrase, scale):
    """Each token's candidate of highest posterior over the lattice of ``Truecaser._viterbi`` (its
    states, start, emissions and end score; the transitions below are its own, summed not maxed)."""
    lm, State = model.lm_, kenlm.State
    cls_lms = model._class_lms()
    k = scale * LN10                            # log10 scores -> natural log of 10 ** (scale * score)
    alpha = [{model._start_key(cls_lms): 0.0}]
    edges, cand_lists = [], []                  # per layer: (previous key, candidate, key, score)
    for pos, tok in enumerate(tokens):
        cands = model._candidates(tok)
        cand_lists.append(cands)
        em, classes = model._emissions(tok, cands, oov_scores, phrase.get(pos) if phrase else None, cls_lms)
        nxt, layer_edges = {}, []
        for key, a in alpha[-1].items():
            for ci, (_, lmw, _) in enumerate(cands):
                out = State()
                s = lm.BaseScore(key[0] if cls_lms else key, lmw, out)
                if cls_lms:
                    c, out = model._class_step(key, out, ci, classes, cls_lms)
                    s += c
                s = k * (s + em[ci])
                layer_edges.append((key, ci, out, s))
                nxt[out] = logadd(nxt.get(out, -math.inf), a + s)
        alpha.append(nxt)
        edges.append(layer_edges)
    beta = {key: k * model._end_score(key, cls_lms) for key in alpha[-1]}
    result = [None] * len(tokens)
    for pos in range(len(tokens) - 1, -1, -1):
        post = [-math.inf] * len(cand_lists[pos])
        prev_beta = {}
        for key, ci, out, s in edges[pos]:
            x = s + beta[out]
            post[ci] = logadd(post[ci], alpha[pos][key] + x)
            prev_beta[key] = logadd(prev_beta.get(key, -math.inf), x)
        best = max(range(len(post)), key=post.__getitem__)
        form, tok = cand_lists[pos][best][0], tokens[pos]
        result[pos] = form if len(form) == len(tok) else tok
        beta = prev_beta
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=float, nargs="+", default=[1.0], help="scales of the log10 scores")
    p.add_argument("--model", type=Path, default=ROOT / "artifacts" / "truecaser")
    args = p.parse_args()
    try:
        model = load_truecaser(args.model)
    except ArtifactError as e:
        p.error(str(e))
    sets = scoring_sets(dev_sentences())
    print("decoder | dev acc, F1 | WSJ acc, F1 | Reuters test acc, F1")
    t = time.perf_counter()
    print("Viterbi |", " ".join(score_cells(model, sets)), f"({time.perf_counter() - t:.0f} s)", flush=True)
    viterbi = model._viterbi
    for scale in args.scale:
        model._viterbi = lambda tokens, oov, phrase, scale=scale: posterior_decode(model, tokens, oov, phrase, scale)
        t = time.perf_counter()
        print(f"posterior, scale {scale:g} |", " ".join(score_cells(model, sets)),
              f"({time.perf_counter() - t:.0f} s)", flush=True)
    model._viterbi = viterbi


if __name__ == "__main__":
    main()
