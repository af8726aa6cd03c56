"""Other ways to combine the class LM with the word LM: measured on dev and the
news sets, not kept.

The default decoder adds ``class_lm_weight * (log10 P_class(c | class history) + log10 P(w | c))``
to the word LM's log10 P(w | history): a log-linear mixture.  Brown et al. (1992, section 3) and
Goodman (2001, "A bit of progress in language modeling", section 4) combine a class model with the
word model linearly instead,

    P(w | h) = lambda * P_word(w | h) + (1 - lambda) * P_class(c(w) | class history) * P(w | c(w)),

which is a probability again and lets the class model speak mostly where the word LM has backed
off to small probabilities.  Both models are over the same case-carrying tokens (the rare ones as
``UNKNOWN_*``), so the mixture is well defined.  This script decodes exactly with it (the same
search over pairs of states as the default's Python search; the OOV model and the phrase scores
unchanged) for each ``lambda``:

    python dev/truecaser_class_lm_mix.py [--lam 0.5 0.8 0.9] [--dev-only]   # 17 s a setting, 5 s dev only

``--by-order MU1,MU2,MU3`` keeps the default's log-linear sum but weights the class LM by the order
of the n-gram the word LM matched (more where it backed off, or less), which the linear mixture
does implicitly.

The script prints, per setting, dev accuracy and F1, WSJ accuracy and F1, Reuters test accuracy and
F1, after the default (log-linear) decoder's. Measured on the default model: every lambda from 0.2
to 0.99 loses to the log-linear default on dev (92.39-92.66 against 92.89), and lambda 0.8 on the
news sets too. Weighting by order is flat at best: eleven settings from 0.1 to 0.75 give
92.50-92.89, the constant 0.25 (the default) and 0.25,0.35,0.35 at the top.
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
from textqa.models.truecaser import lm as lmmod            # noqa: E402
from textqa.models.truecaser.model import load_truecaser    # noqa: E402


def mix(lam: float, a: float, b: float) -> float:
    """log10(lam * 10**a + (1 - lam) * 10**b)."""
    hi = max(a, b)
    return hi + math.log10(lam * 10 ** (a - hi) + (1 - lam) * 10 ** (b - hi))


def linear(lam: float):
    """The linear mixture: a combination for :func:`combined_viterbi`."""
    return lambda pw, order, pc: mix(lam, pw, pc)


def by_order(mus: tuple):
    """The default's log-linear sum with the class LM's weight ``mus[n - 1]`` where the word LM
    matched an n-gram of order n (1: backed off to the unigram)."""
    return lambda pw, order, pc: pw + mus[min(order, len(mus)) - 1] * pc


def combined_viterbi(model, tokens, oov_scores, phrase, combine):
    """``Truecaser._viterbi`` with the word LM's log10 probability ``pw`` (matched n-gram order
    ``order``) and the class LM's ``pc`` (log10 P(c | class history) + log10 P(w | c)) combined as
    ``combine(pw, order, pc)``; states are (word LM, class LM)."""
    lm, clm, table, State = model.lm_, model.class_lm_, model.classes_, kenlm.State
    layers, cand_lists = [{model._start_key(model._class_lms()): (0.0, None, -1)}], []
    for pos, tok in enumerate(tokens):
        cands = model._candidates(tok)
        cand_lists.append(cands)
        em, _ = model._emissions(tok, cands, oov_scores, phrase.get(pos) if phrase else None, [])
        classes = [table.lookup(lmw) for _, lmw, _ in cands]
        nxt = {}
        for key, (sc, _, _) in layers[-1].items():
            for ci, (_, lmw, _) in enumerate(cands):
                wo, co = State(), State()
                r = lm.BaseFullScore(key[0], lmw, wo)
                pc = clm.BaseScore(key[1], classes[ci][0], co) + classes[ci][1]
                s = sc + combine(r.log_prob, r.ngram_length, pc) + em[ci]
                out = (wo, co)
                cur = nxt.get(out)
                if cur is None or s > cur[0]:
                    nxt[out] = (s, key, ci)
        layers.append(nxt)
    best, best_key = -math.inf, None
    for key, (sc, _, _) in layers[-1].items():
        r = lm.BaseFullScore(key[0], lmmod.EOS, State())
        s = sc + combine(r.log_prob, r.ngram_length, clm.BaseScore(key[1], lmmod.EOS, State()))
        if s > best:
            best, best_key = s, key
    return model._backtrack(tokens, layers, cand_lists, best_key)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lam", type=float, nargs="*", default=[], help="weights of the word LM, each in (0, 1]")
    p.add_argument("--by-order", nargs="*", default=[], metavar="MU1,MU2,MU3",
                   help="log-linear, with the class LM's weight by the order of the n-gram the word LM "
                        "matched (1: backed off to the unigram); 0.25,0.25,0.25 is the default decoder")
    p.add_argument("--model", type=Path, default=ROOT / "artifacts" / "truecaser")
    p.add_argument("--dev-only", action="store_true", help="score dev alone")
    args = p.parse_args()
    if not all(0 < lam <= 1 for lam in args.lam):
        p.error("--lam: each weight must be in (0, 1]")
    try:
        orders = [tuple(float(x) for x in text.split(",")) for text in args.by_order]
    except ValueError:
        p.error(f"--by-order: expected comma-separated weights, got {' '.join(args.by_order)}")
    try:
        model = load_truecaser(args.model)
    except ArtifactError as e:
        p.error(str(e))
    if getattr(model, "class_lm_", None) is None or model.first_word.startswith("mask"):
        p.error(f"{args.model}: needs a model with a class LM and the default first-word rule")
    sets = scoring_sets(dev_sentences())
    if args.dev_only:
        sets = {"dev": sets["dev"]}
    print("decoder | " + " | ".join(f"{name} acc, F1" for name in sets))
    t = time.perf_counter()
    print("log-linear (default) |", " ".join(score_cells(model, sets)), f"({time.perf_counter() - t:.0f} s)",
          flush=True)
    viterbi = model._viterbi
    runs = [(f"linear, lambda {lam:g}", linear(lam)) for lam in args.lam]
    runs += [(f"log-linear, class LM weight by order {','.join(f'{m:g}' for m in mus)}", by_order(mus))
             for mus in orders]
    for name, combine in runs:
        model._viterbi = lambda tokens, oov, phrase, c=combine: combined_viterbi(model, tokens, oov, phrase, c)
        t = time.perf_counter()
        print(f"{name} |", " ".join(score_cells(model, sets)), f"({time.perf_counter() - t:.0f} s)", flush=True)
    model._viterbi = viterbi


if __name__ == "__main__":
    main()
