"""Issue 14 item 2: a discriminative pass over the truecasing lattice, measured on dev.

The model: the exact Viterbi of the default decoder over the trigram LM, plus a linear score of
each candidate casing from features the LM cannot see (lowercased words up to three to each side,
word and neighbour pairs, suffix, position, the casing's rank and share among the word's training
casings, the candidate's case class).  Local features add to the emission scores of the C++
decoder, so the search stays exact.  The weights are learned by an averaged structured perceptron
(Collins 2002) with the LM score as a fixed feature of weight 1, on Wikipedia text held out from
the LM: blocks of 500 consecutive training sentences (one block in 40, ~0.9M tokens; whole
stretches of articles, so the LM has not seen the neighbouring sentences), the LM re-estimated
with ``lmplz`` on the rest.  Dev (Coster & Kauchak) is only scored, never trained on.

Also measured: a single bias for capitalised candidates (does the LM under-capitalise?).

The pass itself (features, lattice, perceptron) is :mod:`textqa.models.truecaser.rerank`, which
``textqa train truecaser --discriminative local|lexical|context`` trains in one command on top of
the default decoder; this script measures it on the trigram decoder with an ``lmplz`` LM.

    make lmplz && python dev/truecaser_discriminative.py [--work DIR] [--epochs 3]

Needs the default truecaser artifact (``make train``).  Takes about 3 minutes (the tokenised corpus cached).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from dev.truecaser_order import lmplz_binary, lmplz_work  # noqa: E402
from textqa.models.truecaser import rerank  # noqa: E402
from textqa.models.truecaser.rerank import FEATURE_SETS, Lattice, perceptron  # noqa: E402

TEMPLATES = {"local (class, rank, share, position)": "local", "+ word, suffix": "lexical",
             "+ context words and pairs (all)": "context"}


def corpora(work: Path):
    """(held-out gold sentences, path of the LM-token text without them)."""
    from textqa.models.truecaser.model import LMVocabulary
    from textqa.runtime.paths import PUNKT_DIR, cache_dir
    from bench.truecaser import dev_sentences
    from textqa.training.corpus import drop_overlap, tokenized_corpus
    from textqa.training.truecaser import DEFAULT_DATA
    sents = tokenized_corpus(DEFAULT_DATA, PUNKT_DIR, cache_dir(), n_jobs=2)
    sents, _ = drop_overlap(sents, dev_sentences())
    reuters = tokenized_corpus([p for p in DEFAULT_DATA if "reuters" in str(p)], PUNKT_DIR, cache_dir(), n_jobs=2)
    n_wiki = len(sents) - len(reuters)           # Reuters comes last; hold out Wikipedia only
    held_out = [i < n_wiki and h for i, h in enumerate(rerank.held_out(len(sents)))]
    counts: dict = {}
    for s in sents:
        for t in s.split():
            counts[t] = counts.get(t, 0) + 1
    vocab = LMVocabulary.build(counts, 2)
    text = work / "lm-corpus-without-heldout.txt"
    if not text.exists():
        with open(text, "w", encoding="utf-8") as f:
            for s, h in zip(sents, held_out):
                if not h:
                    f.write(" ".join(vocab.words[vocab.id_of(t)] for t in s.split()) + "\n")
    return [s.split() for s, h in zip(sents, held_out) if h], text


def score(lattice, sentences, dec, W):
    """Dev accuracy/P/R/F1 of decoding the lattice with weights ``W`` (first word capitalised)."""
    from textqa.evaluation.truecase import score_truecase
    from textqa.models.truecaser.model import capitalize_first_word
    choice = lattice.decode(dec, W)
    inp = lattice.inputs
    cased = [e[4][k] if len(e[4][k]) == len(t) else t for e, k, t in zip(inp.ents, choice, inp.flat)]
    lines, k = [], 0
    for s in sentences:
        out = []
        while len(out) < len(s):
            out.extend(capitalize_first_word(cased[inp.sent_off[k]:inp.sent_off[k + 1]]))
            k += 1
        lines.append(" ".join(out))
    return score_truecase([" ".join(s) for s in sentences], lines)


def main(argv=None) -> int:
    import kenlm

    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.runtime.paths import artifacts_dir
    from bench.truecaser import dev_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, default=None, help="folder for the corpus and the LM (default: a temp dir)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=0.002, help="perceptron step (LM scores are log10)")
    args = p.parse_args(argv)
    work = lmplz_work(args.work, "truecaser-disc-")
    print("held-out corpus and LM text ...", file=sys.stderr, flush=True)
    held, text = corpora(work)
    binary = work / "lm-without-heldout.binary"
    if not binary.exists():
        print("lmplz ...", file=sys.stderr, flush=True)
        lmplz_binary(text, binary, work)
    model = TruecaserService.load(artifacts_dir(None) / "truecaser").model
    model.set_params(phrase_weight=0.0)         # as measured: the trigram decoder's search plus the pass
    model.lm_, model.lm_path_ = kenlm.Model(str(binary)), str(binary)
    model._native, model._native_cache, model._cand_cache = None, {}, {}
    dec = model._native_decoder()
    if dec is None:
        raise SystemExit("error: the C++ decoder is not built (run make)")
    dev = [s.split() for s in dev_sentences()]
    print(f"held out: {len(held):,} sentences, {sum(map(len, held)):,} tokens", file=sys.stderr)
    print("| pass | features | dev accuracy | dev P | dev R | dev F1 | held-out errors (online, by epoch) |")
    print("|---|---:|---:|---:|---:|---:|---|")

    def row(name, n, s, extra):
        print(f"| {name} | {n:,} | {s.accuracy:.2f} | {s.precision:.2f} | {s.recall:.2f} | {s.f1:.2f} | {extra} |",
              flush=True)
    for name, feature_set in TEMPLATES.items():
        templates = FEATURE_SETS[feature_set]
        index: dict = {}
        train = Lattice(model, dec, held, templates, index, grow=True)
        test = Lattice(model, dec, dev, templates, index, grow=False)
        if name == next(iter(TEMPLATES)):
            zero = np.zeros(len(index))
            row("Viterbi alone (this LM)", 0, score(test, dev, dec, zero), f"{len(train.errors(train.decode(dec, zero))):,}")
            caps = [j for k, j in index.items() if k.startswith("b||") and not k.endswith("|LC")]
            for bias in (-0.1, 0.1, 0.2):
                W = np.zeros(len(index))
                W[caps] = bias
                row(f"capitalised candidates {bias:+g}", 1, score(test, dev, dec, W),
                    f"{len(train.errors(train.decode(dec, W))):,}")
        W, online = perceptron(train, dec, len(index), args.epochs, args.lr)
        row(f"perceptron: {name}", len(index), score(test, dev, dec, W), " / ".join(f"{e:,}" for e in online))
    return 0


if __name__ == "__main__":
    sys.exit(main())
