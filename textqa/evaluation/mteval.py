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


def _tokens(text: str, lowercase: bool) -> list[str]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # deferred: loads sacrebleu
    text = _unescape(text)
    return Tokenizer13a()(ascii_lowercase(text) if lowercase else text).split()


def _unescape(text: str) -> str:
    # mteval's NormalizeText: SGML entities back to characters before tokenising
    return (text.replace("<skipped>", "").replace("&quot;", '"').replace("&amp;", "&")
            .replace("&lt;", "<").replace("&gt;", ">"))


def _ngrams(words: list[str], n: int) -> Counter:
    return Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def nist_bleu(hypotheses: list[str], references: list[list[str]], max_n_nist: int = 5, max_n_bleu: int = 4,
              lowercase: bool = True) -> dict:
    """mteval-v13a NIST and BLEU of one system.  ``references[i]``: the references of segment i."""
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    hyps = [_tokens(h, lowercase) for h in hypotheses]
    refs = [[_tokens(r, lowercase) for r in rs] for rs in references]
    max_n = max(max_n_nist, max_n_bleu)
    # information weights from all reference n-grams
    ref_counts = Counter()
    ref_words = 0
    for rs in refs:
        for r in rs:
            ref_words += len(r)
            for n in range(1, max_n_nist + 1):
                ref_counts.update(_ngrams(r, n))
    info = {}
    for g, c in ref_counts.items():
        prefix = ref_counts[g[:-1]] if len(g) > 1 else ref_words
        info[g] = math.log2(prefix / c)
    nist_num = [0.0] * max_n
    matched = [0] * max_n
    total = [0] * max_n
    hyp_len = ref_len_avg = ref_len_closest = 0.0
    for h, rs in zip(hyps, refs):
        hyp_len += len(h)
        ref_len_avg += sum(len(r) for r in rs) / len(rs)
        ref_len_closest += min((abs(len(r) - len(h)), len(r)) for r in rs)[1]
        for n in range(1, max_n + 1):
            hc = _ngrams(h, n)
            best = Counter()
            for r in rs:
                best |= _ngrams(r, n)
            total[n - 1] += max(len(h) - n + 1, 0)
            for g, c in hc.items():
                k = min(c, best[g])
                if k:
                    matched[n - 1] += k
                    if n <= max_n_nist:
                        nist_num[n - 1] += k * info.get(g, 0.0)
    nist_beta = -math.log(2) / math.log(1.5) ** 2
    ratio = hyp_len / ref_len_avg if ref_len_avg else 0.0
    nist_bp = math.exp(nist_beta * math.log(min(ratio, 1.0)) ** 2) if ratio > 0 else 0.0
    nist_individual = [nist_num[n] / total[n] if total[n] else 0.0 for n in range(max_n_nist)]
    bleu_individual = [matched[n] / total[n] if total[n] else 0.0 for n in range(max_n_bleu)]
    bleu_bp = 1.0 if hyp_len > ref_len_closest else (math.exp(1 - ref_len_closest / hyp_len) if hyp_len else 0.0)
    bleu = bleu_bp * math.exp(sum(math.log(p) for p in bleu_individual) / max_n_bleu) \
        if all(bleu_individual) else 0.0
    return {"nist": sum(nist_individual) * nist_bp, "bleu": bleu, "nist_individual": nist_individual,
            "bleu_individual": bleu_individual, "length_ratio": ratio, "hyp_words": int(hyp_len),
            "ref_words": ref_len_avg, "bleu_brevity_penalty": bleu_bp, "ref_words_closest": int(ref_len_closest),
            "bleu_length_ratio": hyp_len / ref_len_closest if ref_len_closest else 0.0}


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
