"""A right-to-left LM beside the left-to-right one: does it settle casings?

The default truecaser scores a path with a left-to-right trigram LM, so a token's right context
reaches it only through the next tokens' probabilities.  This experiment adds a second trigram LM
estimated by ``lmplz`` on the same LM-token training text with every sentence reversed (modified
Kneser-Ney, ``--prune 0 0 1`` as the default), and decodes the dev set exactly with the product of
the two (``lambda`` weights the right-to-left LM's log-probability; 0 is the default decoder):

    score(path) = log P_lr(path) + lambda * log P_rl(path) + emissions (OOV model, phrase scores)

or, with ``--mix``, ``(1 - lambda) * log P_lr + lambda * log P_rl`` (lambda 1: the right-to-left LM
alone).

The right-to-left LM's factor P_rl(w_k | w_k+2, w_k+1) is known once w_k+2 is decoded, so a
Viterbi whose states are the last two LM tokens stays exact for both LMs; the sentence's first
two tokens' terms (after ``</s>`` ... read backwards) are added at its end.  The search is in
Python (about a minute per setting); the rest of the default decoder (first-word rule, compound
casing) is unchanged, and lambda 0 must give the default's dev F1.

    make lmplz && python dev/truecaser_backward.py [--lambdas 0 0.5 1] [--mix] [--work DIR]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def reversed_lm(work: Path) -> Path:
    """The right-to-left trigram LM (trie-q8 binary) of the default training text, built once."""
    from dev.truecaser_order import lm_corpus, lmplz_binary
    binary = work / "lm-reversed.binary"
    if binary.exists():
        return binary
    corpus, rev = lm_corpus(work), work / "lm-corpus-reversed.txt"
    with open(corpus, encoding="utf-8") as src, open(rev, "w", encoding="utf-8") as dst:
        for line in src:
            dst.write(" ".join(reversed(line.split())) + "\n")
    print("estimating the right-to-left LM with lmplz", file=sys.stderr)
    lmplz_binary(rev, binary, work, 3, ["0", "0", "1"])
    rev.unlink()
    return binary


class Backward:
    """log10 P_rl(word | the two tokens after it), cached (``nearest``, ``further``: the tokens that
    follow ``word`` in the sentence; None: past the sentence's end)."""

    def __init__(self, lm):
        import kenlm
        self.lm, self.kenlm, self.cache = lm, kenlm, {}

    def __call__(self, word: str, nearest, further) -> float:
        key = (word, nearest, further)
        s = self.cache.get(key)
        if s is None:
            kenlm, lm = self.kenlm, self.lm
            st = kenlm.State()
            if further is None:             # the reversed sentence starts at <s>
                lm.BeginSentenceWrite(st)
                ctx = [] if nearest is None else [nearest]
            else:
                lm.NullContextWrite(st)
                ctx = [further, nearest]
            for w in ctx:
                out = kenlm.State()
                lm.BaseScore(st, w, out)
                st = out
            s = self.cache[key] = lm.BaseScore(st, word, kenlm.State())
        return s


def viterbi(model, tokens, oov, extra, bwd, lam, fwd=1.0, transition=None):
    """Exact search over (previous, current) LM-token states for ``fwd`` times the left-to-right
    LM's log-probability plus ``lam`` times the right-to-left LM's, plus the emissions, plus
    ``transition(position, previous LM token or None, candidate, n-gram length the LM matched)``
    when given (a score that may depend on the previous token, which the states hold)."""
    import kenlm
    if not tokens:
        return []
    lm = model.lm_
    w = model.oov_weight
    cands = [model._candidates(t) for t in tokens]
    start = kenlm.State()
    lm.BeginSentenceWrite(start)
    # a state: (prev LM token, current LM token) -> (score, forward KenLM state, backpointer key, candidate)
    layers = [{(None, None): (0.0, start, None, -1)}]
    for pos, cs in enumerate(cands):
        em = [(w * oov[tokens[pos].lower()][cls]) if cls is not None and oov else 0.0 for _, _, cls in cs]
        if pos in extra:
            em = [a + b for a, b in zip(em, extra[pos])]
        nxt = {}
        for (p, c), (sc, st, _, _) in layers[-1].items():
            for ci, (_, lmw, _) in enumerate(cs):
                out = kenlm.State()
                if transition is None:
                    s = sc + fwd * lm.BaseScore(st, lmw, out) + em[ci]
                else:
                    full = lm.BaseFullScore(st, lmw, out)
                    s = sc + fwd * full.log_prob + em[ci] + transition(pos, c, cs[ci], full.ngram_length)
                if lam:
                    if pos == 1:
                        s += lam * bwd("</s>", c, lmw)           # P_rl(</s> | w2, w1)
                    elif pos >= 2:
                        s += lam * bwd(p, c, lmw)
                key = (c, lmw)
                cur = nxt.get(key)
                if cur is None or s > cur[0]:
                    nxt[key] = (s, out, (p, c), ci)
        layers.append(nxt)
    best, best_key = -math.inf, None
    n = len(tokens)
    for (p, c), (sc, st, _, _) in layers[-1].items():
        s = sc + fwd * lm.BaseScore(st, "</s>", kenlm.State())
        if lam:
            # P_rl(w_n | <s>), and P_rl(w_n-1 | <s>, w_n) or, for one token, P_rl(</s> | <s>, w_1)
            s += lam * (bwd(c, None, None) + (bwd("</s>", c, None) if n == 1 else bwd(p, c, None)))
        if s > best:
            best, best_key = s, (p, c)
    out, key = [None] * n, best_key
    for pos in range(n, 0, -1):
        _, _, back, ci = layers[pos][key]
        form = cands[pos - 1][ci][0]
        out[pos - 1] = form if len(form) == len(tokens[pos - 1]) else tokens[pos - 1]
        key = back
    return out


def dev_scorer(model, gold: list[str]):
    """A function scoring a search on the ``gold`` lines (lowercased and recased): the search,
    ``search(tokens, oov scores, added emission scores) -> cased tokens``, decodes each sentence part
    as the default decoder splits them, with the default's first-word rule and compound casing
    around it; the OOV and phrase scores are computed once."""
    from textqa.evaluation.truecase import score_truecase
    from textqa.models.truecaser.model import capitalize_first_word
    lower = [l.lower().split() for l in gold]
    oov = model._oov_scores(lower)
    parts = [model._parts(toks) for toks in lower]
    extras = [[model._extra_scores(part, [0, len(part)]) for part in ps] for ps in parts]

    def score(search):
        out = []
        for ps, ex in zip(parts, extras):
            res = []
            for part, extra in zip(ps, ex):
                cased = capitalize_first_word(search(part, oov, extra))
                model._case_compounds(cased, [t.lower() for t in part], range(len(part)))
                res.extend(cased)
            out.append(" ".join(res))
        return score_truecase(gold, out)
    return score


def main(argv=None) -> int:
    import kenlm

    from dev.truecaser_order import lmplz_work

    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.runtime.paths import artifacts_dir
    from bench.truecaser import dev_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lambdas", type=float, nargs="+", default=[0.0, 0.5, 1.0])
    p.add_argument("--work", type=Path, default=None, help="folder for the corpus and the LM (default: a temp dir)")
    p.add_argument("--mix", action="store_true",
                   help="weigh the left-to-right LM by 1 - lambda (an interpolation of the two log-probabilities) "
                        "instead of 1 (a product)")
    p.add_argument("--lines", type=int, default=0, help="score only the first N dev lines (default: all)")
    args = p.parse_args(argv)
    work = lmplz_work(args.work, "truecaser-backward-")
    bwd = Backward(kenlm.Model(str(reversed_lm(work))))
    model = TruecaserService.load(artifacts_dir(None) / "truecaser").model
    gold = dev_sentences()
    if args.lines:
        gold = gold[:args.lines]
    score = dev_scorer(model, gold)
    print(f"| right-to-left LM weight (lambda{'; left-to-right 1 - lambda' if args.mix else ''}) | dev accuracy | dev P | dev R | dev F1 |")
    print("|---:|---:|---:|---:|---:|")
    for lam in args.lambdas:
        s = score(lambda part, oov, extra: viterbi(model, part, oov, extra, bwd, lam, 1.0 - lam if args.mix else 1.0))
        print(f"| {lam:g} | {s.accuracy:.2f} | {s.precision:.2f} | {s.recall:.2f} | {s.f1:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
