"""Longer context for the truecaser: LMs of order 3, 4 and 5 over the same
case-carrying tokens, decoded exactly, on the dev set.

The project's own estimator (``textqa/models/truecaser/lm.py``) is a trigram; KenLM's ``lmplz``
estimates any order but needs Boost, which ``make`` does not install (``make lmplz`` builds it
into ``.build/kenlm-full/``).  This script writes the default model's training text with the
model's own token mapping (rare cased forms as ``UNKNOWN_*`` class tokens), estimates modified
Kneser-Ney LMs of each order with ``lmplz``, binarises them as the default does (trie, 8-bit
quantisation), swaps each into the default artifact's truecaser (same casing table, same OOV
model) and reports dev accuracy/F1, speed with the C++ search, LM size, and the trellis's
growth: the mean and largest number of distinct KenLM states per token after recombination (the
exact search keeps them all), over the first 3,000 dev lines.  ``--prune 0 0 1`` passes ``lmplz``
its count thresholds (n-grams seen at most that often are dropped; one value per order, the last
repeated for higher orders) and also scores WSJ and the Reuters test split, so that a pruned LM
can be compared on all three sets.

    make lmplz && python dev/truecaser_order.py [--orders 3 4 5] [--prune 0 0 1] [--work DIR]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LMPLZ = ROOT / ".build" / "kenlm-full" / "bin" / "lmplz"


def lmplz_work(work: Path | None, prefix: str) -> Path:
    """The experiment's folder (``work``, or a new temp dir), once ``lmplz`` is known to be built."""
    if not LMPLZ.exists():
        raise SystemExit(f"error: {LMPLZ} missing; run 'make lmplz' (needs root for the Boost packages)")
    work = work or Path(tempfile.mkdtemp(prefix=prefix))
    work.mkdir(parents=True, exist_ok=True)
    return work


def lmplz_binary(text: Path, binary: Path, work: Path, order: int = 3, prune=None) -> Path:
    """``binary``: the modified Kneser-Ney LM ``lmplz`` estimates from ``text`` (``prune``: its
    ``--prune`` thresholds as strings), binarised as the default does (trie, 8-bit quantisation);
    the ARPA file in between is removed."""
    from textqa.models.truecaser.lm import BINARY_FORMATS, find_build_binary
    arpa = binary.with_suffix(".arpa")
    with open(text, "rb") as src, open(arpa, "wb") as dst:
        subprocess.run([str(LMPLZ), "-o", str(order), "-S", "40%", "-T", str(work), "--discount_fallback",
                        *(["--prune", *prune] if prune else [])],
                       stdin=src, stdout=dst, stderr=subprocess.DEVNULL, check=True)
    subprocess.run([find_build_binary(), "-s", *BINARY_FORMATS["trie-q8"], str(arpa), str(binary)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    arpa.unlink()
    return binary


def lm_corpus(work: Path) -> Path:
    """``work``/lm-corpus.txt: the default training text as LM tokens, written once."""
    corpus = work / "lm-corpus.txt"
    if not corpus.exists():
        print(f"writing the LM-token training text to {corpus}", file=sys.stderr)
        write_lm_corpus(corpus)
    return corpus


def write_lm_corpus(path: Path) -> int:
    """The default training sentences as LM tokens (what ``Truecaser.fit`` counts)."""
    from textqa.models.truecaser.vocabulary import LMVocabulary
    from textqa.runtime.paths import PUNKT_DIR, cache_dir
    from bench.truecaser import dev_sentences
    from textqa.training.corpus import drop_heldout_paragraphs, tokenized_paragraphs
    from textqa.training.truecaser import DEFAULT_DATA
    paras = tokenized_paragraphs(DEFAULT_DATA, PUNKT_DIR, cache_dir(), n_jobs=2)
    sents, _ = drop_heldout_paragraphs(paras, dev_sentences())
    counts: dict = {}
    for s in sents:
        for t in s.split():
            counts[t] = counts.get(t, 0) + 1
    vocab = LMVocabulary.build(counts, 2)
    with open(path, "w", encoding="utf-8") as f:
        for s in sents:
            f.write(" ".join(vocab.words[vocab.id_of(t)] for t in s.split()) + "\n")
    return len(sents)


def states_per_token(model, lines) -> tuple[float, int]:
    """Mean and largest number of distinct LM states a token's trellis column keeps."""
    import kenlm

    from textqa.models.truecaser.tokenize import split_at_sentence_final
    lm, total, most, n = model.lm_, 0, 0, 0
    for toks in lines:
        for part in split_at_sentence_final(toks):
            start = kenlm.State()
            lm.BeginSentenceWrite(start)
            layer = [start]
            for t in part:
                seen: dict = {}
                for s in layer:
                    for _, w, _ in model.candidates(t):
                        out = kenlm.State()
                        lm.BaseScore(s, w, out)
                        seen.setdefault(out, out)
                layer = list(seen)
                total, most, n = total + len(layer), max(most, len(layer)), n + 1
    return total / max(n, 1), most


def main(argv=None) -> int:

    from textqa.evaluation.truecase import score_truecase
    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.runtime.paths import artifacts_dir
    from bench.truecaser import dev_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--orders", type=int, nargs="+", default=[3, 4, 5])
    p.add_argument("--work", type=Path, default=None, help="folder for the corpus and the LMs (default: a temp dir)")
    p.add_argument("--prune", type=int, nargs="+", default=None,
                   help="lmplz --prune thresholds, one per order (the last repeated); also scores the news sets")
    args = p.parse_args(argv)
    work = lmplz_work(args.work, "truecaser-order-")
    corpus = lm_corpus(work)
    gold = dev_sentences()
    lower = [l.lower().split() for l in gold]
    n_tokens = sum(map(len, lower))
    svc = TruecaserService.load(artifacts_dir(None) / "truecaser")
    from textqa.models.truecaser.experiments import ExperimentalTruecaser
    model = ExperimentalTruecaser.of(svc.model)
    news = {}
    if args.prune:
        from bench.truecaser import score_cells, scoring_sets
        news = {k: v for k, v in scoring_sets(gold).items() if k != "dev"}
    print("| LM (lmplz, modified Kneser-Ney, trie-q8) | LM file (MB) | dev accuracy | dev F1 | "
          + "".join(f"{k} accuracy | {k} F1 | " for k in news) + "tokens/s | states per token (mean / max) |")
    print("|---|" + "---:|" * (5 + 2 * len(news)))
    for order in args.orders:
        prune = [] if not args.prune else [str(args.prune[min(k, len(args.prune) - 1)]) for k in range(order)]
        tag = f"{order}" + (f"-prune{''.join(prune)}" if prune else "")
        binary = work / f"lm{tag}.binary"
        if not binary.exists():
            lmplz_binary(corpus, binary, work, order, prune)
        model.replace_lm(binary)
        model.predict_tokens(lower[:100])
        t = time.perf_counter()
        out = model.predict_tokens(lower)
        speed = n_tokens / (time.perf_counter() - t)
        s = score_truecase(gold, [" ".join(x) for x in out])
        mean, most = states_per_token(model, lower[:3000])
        cells = "".join(f"{c} | " for c in score_cells(model, news)) if news else ""
        name = f"order {order}" + (f", --prune {' '.join(prune)}" if prune else "")
        print(f"| {name} | {binary.stat().st_size / 1e6:,.0f} | {s.accuracy:.2f} | {s.f1:.2f} | {cells}{speed:,.0f} | "
              f"{mean:.2f} / {most} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
