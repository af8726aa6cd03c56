"""NIST and BLEU as NIST's ``mteval-v13a.pl`` computes them, from its SGML files.

sacrebleu reproduces mteval's BLEU (its ``13a`` tokenizer is mteval-v13a's normalisation)
but has no NIST score, and NLTK's ``corpus_nist`` scores each segment against a single best
reference instead of mteval's pooled counts, so NIST is written out here (Doddington 2002,
as implemented in mteval-v13a):

* information weight of an n-gram from the reference counts (all references, all segments):
  info(w_1..w_n) = log2(count(w_1..w_{n-1}) / count(w_1..w_n)), with count() of the empty
  prefix = the number of reference words;
* per order n: sum over segments and hypothesis n-grams of info, for min(hyp count, max
  reference count) occurrences, divided by the number of hypothesis n-grams;
* NIST = (sum over n = 1..5 of those) x exp(beta log^2 min(1, hyp words / ref words)), with
  beta chosen so the factor is 0.5 at a length ratio of 2/3; ref words = per segment the
  average reference length, summed.

mteval lower-cases only ASCII letters unless ``-c`` is given: ``ascii_lowercase`` does the
same, so Cyrillic text stays case-sensitive as in the official numbers.
"""
from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

from textqa.errors import InputError
from textqa.runtime.files import read_lines

_SEG = re.compile(r'<seg[^>]*\bid\s*=\s*"?([^">\s]+)"?[^>]*>(.*?)</seg>', re.IGNORECASE)
_DOC = re.compile(r'<doc[^>]*\bdocid\s*=\s*"([^"]+)"', re.IGNORECASE)
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def read_sgml(path) -> dict:
    """{(docid, segid): text} of an mteval SGML file (srcset, refset or tstset)."""
    out: dict = {}
    doc = None
    for lineno, line in enumerate(read_lines(path), start=1):
        m = _DOC.search(line)
        if m:
            doc = m.group(1)
        for seg_id, text in _SEG.findall(line):
            if doc is None:
                raise InputError(f"{path}:{lineno}: <seg> outside a <doc>")
            if (doc, seg_id) in out:
                raise InputError(f"{path}:{lineno}: segment {seg_id} of document {doc} given twice")
            out[(doc, seg_id)] = text
    if not out:
        raise InputError(f"{path}: no <seg> elements found")
    return out


def ascii_lowercase(text: str) -> str:
    return text.translate(_ASCII_UPPER)


def tokens(text: str, lowercase: bool) -> list[str]:
    """mteval-v13a's tokens of a segment: SGML entities undone, ASCII letters lowercased when
    ``lowercase``, then its normalisation (sacrebleu's ``13a`` tokenizer)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # deferred: loads sacrebleu
    text = _unescape(text)
    return Tokenizer13a()(ascii_lowercase(text) if lowercase else text).split()


def _unescape(text: str) -> str:
    # mteval's NormalizeText: SGML entities back to characters before tokenising
    return (text.replace("<skipped>", "").replace("&quot;", '"').replace("&amp;", "&")
            .replace("&lt;", "<").replace("&gt;", ">"))


def ngrams(words: list[str], n: int) -> Counter:
    """The n-grams of ``words`` (tuples) and their counts."""
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def clipped_matches(hyp: list[str], refs: list[list[str]], n: int):
    """(n-gram, matched count) of each hypothesis n-gram that a reference holds: its count clipped by
    the most any one reference holds (Papineni et al. 2002's modified precision; mteval-v13a's)."""
    best = ngrams(refs[0], n)
    for r in refs[1:]:
        best |= ngrams(r, n)
    return [(g, min(c, best[g])) for g, c in ngrams(hyp, n).items() if g in best]


def brevity_penalty(hyp_words: float, ref_words: float) -> float:
    """BLEU's brevity penalty (Papineni et al. 2002, section 2.2.2): ``exp(min(0, 1 - r/c))``, 0 without
    hypothesis words."""
    return math.exp(min(0.0, 1 - ref_words / hyp_words)) if hyp_words > 0 else 0.0


def bleu_statistics(hyp: list[str], refs: list[list[str]], order: int = 4) -> np.ndarray:
    """One segment's BLEU statistics, additive over segments: for n = 1..``order`` the hypothesis
    n-grams matched (clipped by the most any reference holds), then for n = 1..``order`` the
    hypothesis n-grams, then the hypothesis words and the closest reference's words (the shorter on
    a tie), as mteval-v13a counts them."""
    row = np.zeros(2 * order + 2)
    for n in range(1, order + 1):
        row[n - 1] = sum(k for _, k in clipped_matches(hyp, refs, n))
        row[order + n - 1] = max(len(hyp) - n + 1, 0)
    row[2 * order] = len(hyp)
    row[2 * order + 1] = min((abs(len(r) - len(hyp)), len(r)) for r in refs)[1]
    return row


def bleu_of_statistics(sums: np.ndarray, order: int = 4) -> np.ndarray:
    """BLEU of each row of summed :func:`bleu_statistics` (Papineni et al. 2002, eq. 1-2, as
    mteval-v13a's ``bleu_score`` computes it): the brevity penalty ``exp(min(0, 1 - r/c))`` (0 without
    hypothesis words) times the geometric mean of the ``order`` n-gram precisions.  An order whose
    hypothesis holds no n-gram counts as precision 1; an order with n-grams and no match takes
    mteval's smoothing, ``1 / (2^k x n-grams)`` for the k-th such order (Chen & Cherry 2014's
    method 3, sacrebleu's ``exp``).  A corpus of real output never meets either case; a segment may."""
    sums = np.atleast_2d(np.asarray(sums, dtype=float))
    matched, total, hyp, ref = sums[:, :order], sums[:, order:2 * order], sums[:, 2 * order], sums[:, 2 * order + 1]
    out = np.zeros(len(sums))
    for k in range(len(sums)):
        if hyp[k] <= 0:
            continue
        log_p, smooth = 0.0, 1.0
        for n in range(order):
            if total[k, n] == 0:
                continue
            if matched[k, n] == 0:
                smooth *= 2
                log_p += math.log(1 / (smooth * total[k, n]))
            else:
                log_p += math.log(matched[k, n] / total[k, n])
        out[k] = brevity_penalty(hyp[k], ref[k]) * math.exp(log_p / order)
    return out


def bleu_summary(sums: np.ndarray, order: int = 4) -> dict:
    """BLEU of summed :func:`bleu_statistics` with its parts: ``bleu``, the modified n-gram
    ``precisions`` (unsmoothed, as mteval prints them), the ``brevity_penalty``, the ``length_ratio``
    (hypothesis words over the closest references' words) and both word counts."""
    matched, total, hyp, ref = sums[:order], sums[order:2 * order], sums[2 * order], sums[2 * order + 1]
    return {"bleu": float(bleu_of_statistics(sums, order)[0]),
            "precisions": [float(m / t) if t else 0.0 for m, t in zip(matched, total)],
            "brevity_penalty": brevity_penalty(hyp, ref), "length_ratio": float(hyp / ref) if ref else 0.0,
            "hyp_words": int(hyp), "ref_words": int(ref)}


def nist_information(refs: list[list[list[str]]], order: int = 5) -> dict:
    """NIST's information weight of every reference n-gram to ``order`` (Doddington 2002, as
    mteval-v13a): ``log2(count(w_1..w_{n-1}) / count(w_1..w_n))`` over all references of all segments,
    the empty prefix counting the reference words."""
    counts: Counter = Counter()
    words = 0
    for rs in refs:
        for r in rs:
            words += len(r)
            for n in range(1, order + 1):
                counts.update(ngrams(r, n))
    return {g: math.log2((counts[g[:-1]] if len(g) > 1 else words) / c) for g, c in counts.items()}


def nist_statistics(hyp: list[str], refs: list[list[str]], info: dict, order: int = 5) -> np.ndarray:
    """One segment's NIST statistics, additive over segments (the information weights ``info`` fixed by
    the corpus): for n = 1..``order`` the information of the matched hypothesis n-grams (each
    clipped by the most any reference holds), then for n = 1..``order`` the hypothesis n-grams, then
    the hypothesis words and the references' average words."""
    row = np.zeros(2 * order + 2)
    for n in range(1, order + 1):
        row[n - 1] = sum(k * info.get(g, 0.0) for g, k in clipped_matches(hyp, refs, n))
        row[order + n - 1] = max(len(hyp) - n + 1, 0)
    row[2 * order] = len(hyp)
    row[2 * order + 1] = sum(len(r) for r in refs) / len(refs)
    return row


NIST_BETA = -math.log(2) / math.log(1.5) ** 2       # the brevity factor is 0.5 at a length ratio of 2/3


def nist_of_statistics(sums: np.ndarray, order: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """NIST of each row of summed :func:`nist_statistics` (Doddington 2002, as mteval-v13a): the sum
    over orders of the matched information per hypothesis n-gram, times ``exp(beta log^2 min(1, ratio))``
    with ``ratio`` = hypothesis words / reference words (0 when either is 0).  Also each row's
    per-order information (mteval's "individual" scores)."""
    sums = np.atleast_2d(np.asarray(sums, dtype=float))
    info, total, hyp, ref = sums[:, :order], sums[:, order:2 * order], sums[:, 2 * order], sums[:, 2 * order + 1]
    individual = np.divide(info, total, out=np.zeros_like(info), where=total > 0)
    ratio = np.divide(hyp, ref, out=np.zeros_like(hyp), where=ref > 0)
    with np.errstate(divide="ignore"):
        bp = np.where(ratio > 0, np.exp(NIST_BETA * np.log(np.minimum(np.where(ratio > 0, ratio, 1), 1.0)) ** 2), 0.0)
    return individual.sum(1) * bp, individual


def nist_summary(sums: np.ndarray, order: int = 5) -> dict:
    """NIST of summed :func:`nist_statistics` with its parts: ``nist``, each order's ``information``
    (mteval's "individual" scores), the ``length_ratio`` (hypothesis words over the references'
    average words) and both word counts."""
    score, individual = nist_of_statistics(sums, order)
    hyp, ref = sums[2 * order], sums[2 * order + 1]
    return {"nist": float(score[0]), "information": individual[0].tolist(),
            "length_ratio": float(hyp / ref) if ref else 0.0, "hyp_words": int(hyp), "ref_words": float(ref)}


def nist_bleu(hypotheses: list[str], references: list[list[str]], max_n_nist: int = 5, max_n_bleu: int = 4,
              lowercase: bool = True) -> dict:
    """mteval-v13a NIST and BLEU of one system.  ``references[i]``: the references of segment i."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    hyps = [tokens(h, lowercase) for h in hypotheses]
    refs = [[tokens(r, lowercase) for r in rs] for rs in references]
    info = nist_information(refs, max_n_nist)
    b = sum((bleu_statistics(h, rs, max_n_bleu) for h, rs in zip(hyps, refs)), np.zeros(2 * max_n_bleu + 2))
    n = sum((nist_statistics(h, rs, info, max_n_nist) for h, rs in zip(hyps, refs)), np.zeros(2 * max_n_nist + 2))
    nist, bleu = nist_summary(n, max_n_nist), bleu_summary(b, max_n_bleu)
    return {"nist": nist["nist"], "bleu": bleu["bleu"], "nist_individual": nist["information"],
            "bleu_individual": bleu["precisions"], "length_ratio": nist["length_ratio"],
            "hyp_words": nist["hyp_words"], "ref_words": nist["ref_words"],
            "bleu_brevity_penalty": bleu["brevity_penalty"], "ref_words_closest": bleu["ref_words"],
            "bleu_length_ratio": bleu["length_ratio"]}


def score_sgml(src, ref, tst, lowercase: bool = True) -> dict:
    """Score an mteval tstset against a refset (segments matched by document and segment id)."""
    source = read_sgml(src)
    reference, test = read_sgml(ref), read_sgml(tst)
    missing = [k for k in source if k not in test or k not in reference]
    if missing:
        doc, seg = missing[0]
        raise InputError(f"{tst}: segment {seg} of document {doc} (in {src}) has no output or reference")
    keys = list(source)
    return nist_bleu([test[k] for k in keys], [[reference[k]] for k in keys], lowercase=lowercase)
