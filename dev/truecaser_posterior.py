"""Posterior (max-marginal) decoding instead of Viterbi (issue 14, accuracy): measured on dev and the
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

from bench.truecaser import score_cells, scoring_sets      # noqa: E402
from textqa.models.artifact import ArtifactError           # noqa: E402
from textqa.models.truecaser import lm as lmmod             # noqa: E402
from textqa.models.truecaser.model import load_truecaser    # noqa: E402
from textqa.training.corpus import read_lines              # noqa: E402
from textqa.training.truecaser import DEFAULT_DEV          # noqa: E402

LN10 = math.log(10)


def logadd(a: float, b: float) -> float:
    if a < b:
        a, b = b, a
    return a if b == -math.inf else a + math.log1p(math.exp(b - a))


def posterior_decode(model, tokens, oov_scores, phrase, scale):
    """Each token's candidate of highest posterior over the lattice of ``Truecaser._viterbi``."""
    lm, w = model.lm_, model.oov_weight
    State = kenlm.State
    cls_lms = model._class_lms()
    starts = []
    for m in [lm] + [c for c, _, _ in cls_lms]:
        st = State()
        m.BeginSentenceWrite(st)
        starts.append(st)
    start = tuple(starts)
    k = scale * LN10                            # log10 scores -> natural log of 10 ** (scale * score)
    alpha = [{start: 0.0}]
    edges, cand_lists = [], []                  # per layer: (previous key, candidate, key, score)
    for pos, tok in enumerate(tokens):
        cands = model._candidates(tok)
        cand_lists.append(cands)
        em = [w * oov_scores[tok.lower()][c] if c is not None and oov_scores else 0.0 for _, _, c in cands]
        if phrase and pos in phrase:
            em = [a + b for a, b in zip(em, phrase[pos])]
        classes = []
        for _, table, mu in cls_lms:
            classes.append([table.lookup(lmw) for _, lmw, _ in cands])
            em = [a + mu * e for a, (_, e) in zip(em, classes[-1])]
        nxt, layer_edges = {}, []
        for key, a in alpha[-1].items():
            for ci, (_, lmw, _) in enumerate(cands):
                outs = [State()]
                s = lm.BaseScore(key[0], lmw, outs[0])
                for j, (clm, _, mu) in enumerate(cls_lms):
                    outs.append(State())
                    s += mu * clm.BaseScore(key[j + 1], classes[j][ci][0], outs[-1])
                s = k * (s + em[ci])
                out = tuple(outs)
                layer_edges.append((key, ci, out, s))
                nxt[out] = logadd(nxt.get(out, -math.inf), a + s)
        alpha.append(nxt)
        edges.append(layer_edges)
    beta = {}
    for key in alpha[-1]:
        s = lm.BaseScore(key[0], lmmod.EOS, State())
        for j, (clm, _, mu) in enumerate(cls_lms):
            s += mu * clm.BaseScore(key[j + 1], lmmod.EOS, State())
        beta[key] = k * s
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
    if model.first_word.startswith("mask"):
        raise SystemExit("error: this script decodes from <s> (the default first-word option)")
    sets = scoring_sets([line.strip() for line in read_lines(DEFAULT_DEV) if line.strip()])
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
