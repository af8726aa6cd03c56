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

    make lmplz && python dev/truecaser_discriminative.py [--work DIR] [--epochs 3]

Needs the default truecaser artifact (``make train``).  Takes about 3 minutes (the tokenised corpus cached).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from dev.truecaser_order import LMPLZ  # noqa: E402

BLOCK, EVERY = 500, 40
TEMPLATES = {
    "local (class, rank, share, position)": ["b", "r", "sh", "pos"],
    "+ word, suffix": ["b", "r", "sh", "pos", "w", "s3"],
    "+ context words and pairs (all)": ["b", "r", "sh", "pos", "w", "s3", "p1", "n1", "p2", "n2", "p3", "n3",
                                        "p1w", "wn1", "n1n2", "p2p1"],
}


def corpora(work: Path):
    """(held-out gold sentences, path of the LM-token text without them)."""
    from textqa.models.truecaser.model import LMVocabulary
    from textqa.paths import PUNKT_DIR, cache_dir
    from textqa.training.corpus import drop_overlap, read_lines, tokenized_corpus
    from textqa.training.truecaser import DEFAULT_DATA, DEFAULT_DEV
    sents = tokenized_corpus(DEFAULT_DATA, PUNKT_DIR, cache_dir(), n_jobs=2)
    sents, _ = drop_overlap(sents, [l.strip() for l in read_lines(DEFAULT_DEV) if l.strip()])
    reuters = tokenized_corpus([p for p in DEFAULT_DATA if "reuters" in str(p)], PUNKT_DIR, cache_dir(), n_jobs=2)
    n_wiki = len(sents) - len(reuters)           # Reuters comes last; hold out Wikipedia only
    held_out = [i < n_wiki and (i // BLOCK) % EVERY == EVERY // 2 for i in range(len(sents))]
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


class Lattice:
    """Candidates, KenLM ids, base emissions and feature ids of a set of gold sentences."""

    def __init__(self, model, dec, sentences, templates, index: dict, grow: bool):
        from textqa.models.truecaser.casing import case_class
        from textqa.models.truecaser.tokenize import split_at_sentence_final
        self.sentences = sentences
        oov = model._oov_scores([[t.lower() for t in s] for s in sentences])
        sent_off, cand_off, ids, em, feat, fcand, gold, skip, self.forms, self.tokens = \
            [0], [0], [], [], [], [], [], [], [], []
        for s in sentences:
            pos = 0
            for part in split_at_sentence_final(s):
                low = [t.lower() for t in part]
                n = len(low)
                first_cased = next((k for k, t in enumerate(part) if case_class(t) != "NONE"), -1)

                def ctx(j):
                    return low[j] if 0 <= j < n else ("<s>" if j < 0 else "</s>")
                for i, tok in enumerate(part):
                    w = low[i]
                    cands = model._candidates(w)
                    counts = dict(model.casing_.forms.get(w) or [])
                    total = sum(counts.values()) or 1
                    g = -1
                    for r, (form, lmw, cls) in enumerate(cands):
                        ci = len(ids)
                        ids.append(dec.index(lmw))
                        em.append(model.oov_weight * oov[w][cls] if cls is not None and oov else 0.0)
                        if form == tok:
                            g = r
                        if len(cands) < 2:
                            continue
                        c = case_class(form)
                        values = {"b": "", "r": r, "sh": min(int(10 * counts.get(form, 0) / total), 9),
                                  "pos": min(i, 3), "w": w, "s3": w[-3:], "p1": ctx(i - 1), "n1": ctx(i + 1),
                                  "p2": ctx(i - 2), "n2": ctx(i + 2), "p3": ctx(i - 3), "n3": ctx(i + 3),
                                  "p1w": f"{ctx(i - 1)} {w}", "wn1": f"{w} {ctx(i + 1)}",
                                  "n1n2": f"{ctx(i + 1)} {ctx(i + 2)}", "p2p1": f"{ctx(i - 2)} {ctx(i - 1)}"}
                        for t in templates:
                            key = f"{t}|{values[t]}|{c}"
                            j = index.get(key)
                            if j is None and grow:
                                j = index[key] = len(index)
                            if j is not None:
                                feat.append(j)
                                fcand.append(ci)
                    cand_off.append(len(ids))
                    gold.append(g)
                    skip.append(i == first_cased or len(cands) < 2)     # the first word is capitalised anyway
                    self.forms.append([f for f, _, _ in cands])
                    self.tokens.append(tok)
                sent_off.append(len(self.tokens))
                pos += len(part)
        self.sent_off, self.cand_off = np.array(sent_off, np.int32), np.array(cand_off, np.int32)
        self.ids, self.em = np.array(ids, np.uint32), np.array(em, np.float64)
        self.feat, self.fcand = np.array(feat, np.int64), np.array(fcand, np.int64)
        self.gold, self.skip = np.array(gold, np.int64), np.array(skip, bool)
        self.feat_off = np.searchsorted(self.fcand, np.arange(len(ids) + 1))

    def decode(self, dec, W, s0=0, s1=None):
        s1 = len(self.sent_off) - 1 if s1 is None else s1
        t0, t1 = self.sent_off[s0], self.sent_off[s1]
        c0, c1 = self.cand_off[t0], self.cand_off[t1]
        f0, f1 = self.feat_off[c0], self.feat_off[c1]
        em = self.em[c0:c1] + np.bincount(self.fcand[f0:f1] - c0, weights=W[self.feat[f0:f1]], minlength=c1 - c0)
        return dec.decode(self.sent_off[s0:s1 + 1] - t0, self.cand_off[t0:t1 + 1] - c0, self.ids[c0:c1], em, True)

    def errors(self, choice, s0=0, s1=None):
        s1 = len(self.sent_off) - 1 if s1 is None else s1
        t0, t1 = self.sent_off[s0], self.sent_off[s1]
        g = self.gold[t0:t1]
        return np.nonzero((g >= 0) & (choice != g) & ~self.skip[t0:t1])[0]

    def score(self, dec, W):
        from textqa.evaluation.truecase import score_truecase
        from textqa.models.truecaser.model import capitalize_first_word
        choice = self.decode(dec, W)
        cased = [f[k] if len(f[k]) == len(t) else t.lower() for f, k, t in zip(self.forms, choice, self.tokens)]
        lines, k = [], 0
        for s in self.sentences:
            out = []
            while len(out) < len(s):
                out.extend(capitalize_first_word(cased[self.sent_off[k]:self.sent_off[k + 1]]))
                k += 1
            lines.append(" ".join(out))
        return score_truecase([" ".join(s) for s in self.sentences], lines)


def perceptron(train: Lattice, dec, n_features: int, epochs: int, lr: float):
    """Averaged structured perceptron, one sentence at a time, LM weight fixed at 1."""
    W, U, c = np.zeros(n_features), np.zeros(n_features), 1.0
    order = np.random.default_rng(0).permutation(len(train.sent_off) - 1)
    online = []
    for _ in range(epochs):
        n_err = 0
        for s in order:
            choice = train.decode(dec, W, s, s + 1)
            bad = train.errors(choice, s, s + 1)
            n_err += len(bad)
            if len(bad):
                base = train.cand_off[train.sent_off[s] + bad]
                for cands, sign in ((base + train.gold[train.sent_off[s] + bad], lr), (base + choice[bad], -lr)):
                    idx = np.concatenate([train.feat[train.feat_off[ci]:train.feat_off[ci + 1]] for ci in cands])
                    np.add.at(W, idx, sign)
                    np.add.at(U, idx, sign * c)
            c += 1
        online.append(n_err)
    return W - U / c, online


def main(argv=None) -> int:
    import kenlm

    from textqa.models.truecaser.lm import BINARY_FORMATS, find_build_binary
    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.paths import artifacts_dir
    from textqa.training.corpus import read_lines
    from textqa.training.truecaser import DEFAULT_DEV
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", type=Path, default=None, help="folder for the corpus and the LM (default: a temp dir)")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--lr", type=float, default=0.002, help="perceptron step (LM scores are log10)")
    args = p.parse_args(argv)
    if not LMPLZ.exists():
        raise SystemExit(f"error: {LMPLZ} missing; run 'make lmplz' (needs root for the Boost packages)")
    work = args.work or Path(tempfile.mkdtemp(prefix="truecaser-disc-"))
    work.mkdir(parents=True, exist_ok=True)
    print("held-out corpus and LM text ...", file=sys.stderr, flush=True)
    held, text = corpora(work)
    binary = work / "lm-without-heldout.binary"
    if not binary.exists():
        print("lmplz ...", file=sys.stderr, flush=True)
        arpa = work / "lm.arpa"
        with open(text, "rb") as src, open(arpa, "wb") as dst:
            subprocess.run([str(LMPLZ), "-o", "3", "-S", "40%", "-T", str(work), "--discount_fallback"],
                           stdin=src, stdout=dst, stderr=subprocess.DEVNULL, check=True)
        subprocess.run([find_build_binary(), "-s", *BINARY_FORMATS["trie-q8"], str(arpa), str(binary)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        arpa.unlink()
    model = TruecaserService.load(artifacts_dir(None) / "truecaser").model
    model.lm_, model.lm_path_ = kenlm.Model(str(binary)), str(binary)
    model._native, model._native_cache, model._cand_cache = None, {}, {}
    dec = model._native_decoder()
    if dec is None:
        raise SystemExit("error: the C++ decoder is not built (run make)")
    dev = [l.split() for l in read_lines(DEFAULT_DEV) if l.strip()]
    print(f"held out: {len(held):,} sentences, {sum(map(len, held)):,} tokens", file=sys.stderr)
    print("| pass | features | dev accuracy | dev P | dev R | dev F1 | held-out errors (online, by epoch) |")
    print("|---|---:|---:|---:|---:|---:|---|")

    def row(name, n, s, extra):
        print(f"| {name} | {n:,} | {s.accuracy:.2f} | {s.precision:.2f} | {s.recall:.2f} | {s.f1:.2f} | {extra} |",
              flush=True)
    for name, templates in TEMPLATES.items():
        index: dict = {}
        train = Lattice(model, dec, held, templates, index, grow=True)
        test = Lattice(model, dec, dev, templates, index, grow=False)
        if name == next(iter(TEMPLATES)):
            zero = np.zeros(len(index))
            row("Viterbi alone (this LM)", 0, test.score(dec, zero), f"{len(train.errors(train.decode(dec, zero))):,}")
            caps = [j for k, j in index.items() if k.startswith("b||") and not k.endswith("|LC")]
            for bias in (-0.1, 0.1, 0.2):
                W = np.zeros(len(index))
                W[caps] = bias
                row(f"capitalised candidates {bias:+g}", 1, test.score(dec, W),
                    f"{len(train.errors(train.decode(dec, W))):,}")
        W, online = perceptron(train, dec, len(index), args.epochs, args.lr)
        row(f"perceptron: {name}", len(index), test.score(dec, W), " / ".join(f"{e:,}" for e in online))
    return 0


if __name__ == "__main__":
    sys.exit(main())
