"""Train the truecaser (Lita et al. 2003) and its unigram baseline; write ``artifacts/truecaser``.

    python -m textqa.training.truecaser [--data FILE ...] [--dev FILE] [--out DIR]
    textqa train truecaser ...          (the same code)

Training text: WikiExtractor output or plain text (one paragraph a line; .gz/.xz
allowed) or Reuters-21578 SGML (``*.sgm[.gz]``), PTB-tokenized here with Punkt +
the Treebank tokenizer; or
``--pretokenized`` text, one sentence a line (each its own paragraph).  Training
paragraphs that repeat dev text (a whole dev sentence, or any 50 characters of one,
after normalisation: ``corpus.HeldoutOverlap``, the check that kept the benchmark's
test sentences out of the bundled text) are dropped, so that dev is as far from
the training text as the test set is and dev numbers stay honest.  The dev set
(one tokenized sentence a line, true case) is lowercased, truecased and scored.
"""
from __future__ import annotations

import argparse
import logging
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from textqa.evaluation.truecase import CLASSES, score_by_frequency, score_truecase
from textqa.models.truecaser import lm as lmmod
from textqa.models.truecaser.casing import NONE, UNKNOWN_TOKENS, case_class, fold_accents
from textqa.models.truecaser.classes import CLASS_ORDER, DEFAULT_CLASSES, TARGETS
from textqa.models.truecaser.context import DEFAULT_C, DEFAULT_CAP, DEFAULT_MIN_WEIGHT, DEFAULT_WEIGHT
from textqa.models.truecaser.lm import BINARY_FORMATS
from textqa.models.truecaser.model import DEFAULT_OOV_WEIGHT, ORDERS, Truecaser
from textqa.models.truecaser.rerank import FEATURE_SETS
from textqa.models.truecaser.store import save_truecaser
from textqa.models.truecaser.vocabulary import UNKNOWN_NONE
from textqa.runtime import dask_cluster
from textqa.runtime.paths import DATA_DIR, PUNKT_DIR, WIKIPEDIA_TEXT, artifacts_dir, cache_dir

from .corpus import drop_heldout_paragraphs, file_fingerprint, read_lines, tokenized_paragraphs
from .truecaser_dask import count_on_cluster

DEFAULT_DATA = [*WIKIPEDIA_TEXT,
                *[DATA_DIR / "truecase" / "reuters21578" / f"reut2-{i:03d}.sgm.gz" for i in range(22)],
                DATA_DIR / "truecase" / "wsj_15-18.txt.xz"]
DEFAULT_DEV = DATA_DIR / "truecase" / "val_input.txt.gz"

log = logging.getLogger("textqa.train.truecaser")


def add_arguments(p: argparse.ArgumentParser) -> None:
    _add_data(p.add_argument_group("the training and dev text, and where the artifact goes"))
    _add_lm(p.add_argument_group("the word LM and the search (Lita et al. 2003)"))
    _add_beyond_the_paper(p.add_argument_group("the search's parts beyond the paper"))


def _add_data(p) -> None:
    p.add_argument("--data", nargs="+", type=Path, default=DEFAULT_DATA, metavar="FILE",
                   help="training text: WikiExtractor dump or plain text, one paragraph a line (.gz/.xz ok), or "
                        "Reuters-21578 .sgm files (default: the bundled Wikipedia text, Reuters-21578 outside its test "
                        "split and WSJ sections 15-18)")
    p.add_argument("--pretokenized", action="store_true",
                   help="--data is already PTB-tokenized, one sentence a line")
    p.add_argument("--dev", type=Path, default=DEFAULT_DEV,
                   help="dev set: tokenized, truecased sentences, one a line (default: bundled Wikipedia dev)")
    p.add_argument("--out", type=Path, default=None,
                   help="artifact folder to write (default: <artifacts>/truecaser)")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="tokenizer processes")
    p.add_argument("--max-sentences", type=int, default=0, help="train on the first N sentences only (0: all)")
    p.add_argument("--no-cache", action="store_true", help="do not reuse/store the tokenized corpus in .cache/")
    p.add_argument("--arpa", type=Path, default=None, metavar="FILE",
                   help="also write the LM as an ARPA file here (the artifact keeps KenLM's binary)")
    dask_cluster.add_arguments(p, None, "tokenize and count n-grams and the class LM's counts (map-reduces; the "
                                   "artifact is the same)")
    p.add_argument("--partition-size", type=int, default=20000,
                   help="paragraphs per Dask task with --scheduler (default 20,000)")


def _add_lm(p) -> None:
    p.add_argument("--min-count", type=int, default=2, help="rarer cased forms become UNKNOWN_* tokens")
    p.add_argument("--n-casings", type=int, default=4, help="candidate casings per word")
    p.add_argument("--smoothing", choices=["kneser_ney", "deleted_interpolation"], default="kneser_ney",
                   help="LM smoothing (paper eq. 1 is deleted interpolation; Kneser-Ney is better on dev)")
    p.add_argument("--order", type=int, choices=ORDERS, default=3,
                   help="LM order (default 3, the paper's trigram; 2, 4 and 5 need --smoothing kneser_ney; with the "
                        "default pruning, 5 gains little dev F1 for a larger LM, a longer training and more memory: "
                        "docs/experiments/truecaser.md)")
    p.add_argument("--prune", type=int, nargs="+", default=None, metavar="T",
                   help="count pruning as KenLM's lmplz --prune: one threshold per order from the unigrams "
                        "(which must be 0) up, non-decreasing, the last repeated; an n-gram seen no more than "
                        "its order's threshold times is dropped and its mass goes to the back-off. Kneser-Ney "
                        "only. Default '0 0 1' (n-grams of order 3 and up seen once: a smaller LM, the same "
                        "dev F1, better on news: docs/experiments/truecaser.md); '--prune 0' keeps every n-gram")
    p.add_argument("--lm-binary", choices=list(BINARY_FORMATS), default="trie-q8",
                   help="KenLM binary layout: trie-q8 (default: trie, 8-bit quantised probabilities and "
                        "back-offs, smaller than probing at the same F1: docs/experiments/truecaser.md), trie, or "
                        "probing (hash)")
    p.add_argument("--first-word", choices=["lm", "lm+upper", "mask", "mask+upper"], default="lm+upper",
                   help="sentence-initial casing strategy (paper section 2.5)")
    p.add_argument("--no-split", action="store_true", help="decode dev lines whole, not sentence by sentence")


def _add_beyond_the_paper(p) -> None:
    p.add_argument("--oov-model", choices=["char", "none"], default="char",
                   help="character-level casing model for unseen words")
    p.add_argument("--oov-weight", type=float, default=DEFAULT_OOV_WEIGHT,
                   help="weight of the OOV model in the search (default %(default)g: the middle of dev F1's "
                        "plateau, docs/experiments/truecaser.md)")
    p.add_argument("--phrase-weight", type=float, default=0.5,
                   help="weight of the cased-phrase score in the search (default 0.5, best on dev; 0: the paper's "
                        "trigram decoder alone, no phrase table)")
    p.add_argument("--phrase-min-count", type=int, default=2,
                   help="cased phrases seen fewer times are left out of the phrase table (default 2)")
    p.add_argument("--discriminative", choices=("none", *FEATURE_SETS), default="none",
                   help="a discriminative pass over the lattice (beyond the paper): a perceptron over "
                        "'local' features (case class, rank and share of the casing, position), 'lexical' "
                        "(+ word, suffix) or 'context' (+ words up to three to each side), learned on one "
                        "block of training text in 40, held out of the LM; default none (it lowered dev "
                        "F1: docs/experiments/truecaser.md)")
    p.add_argument("--class-lm", type=int, default=None, metavar="K",
                   help=f"a class-based LM over K word classes beside the word LM (k-means over neighbour counts; "
                        f"Brown et al. 1992; beyond the paper): default {DEFAULT_CLASSES} (it gained dev F1 "
                        f"and F1 on news, docs/experiments/truecaser.md); 0: none. The default is 0 with "
                        f"--discriminative, which cannot be combined with it")
    p.add_argument("--class-lm-weight", type=float, default=0.25,
                   help="weight of the class LM's score against the word LM's (default 0.25, the middle of dev "
                        "F1's plateau: docs/experiments/truecaser.md)")
    p.add_argument("--class-lm-order", type=int, choices=ORDERS, default=CLASS_ORDER,
                   help=f"order of the class LM (default {CLASS_ORDER}; 4 gained little dev F1 and decoded "
                        f"slower: docs/experiments/truecaser.md)")
    p.add_argument("--class-lm-words", type=int, default=TARGETS, metavar="N",
                   help=f"how many of the commonest LM tokens are clustered; each rarer one goes to its case "
                        f"class's class (default {TARGETS:,}, best on dev: docs/experiments/truecaser.md)")
    p.add_argument("--class-lm-binary", choices=list(BINARY_FORMATS), default="trie-q8",
                   help="KenLM binary layout of the class LM (default trie-q8: much smaller than probing, with the "
                        "same dev, WSJ and Reuters scores: docs/experiments/truecaser.md; probing is the fastest "
                        "to ask)")
    p.add_argument("--context-cap", type=int, default=DEFAULT_CAP, metavar="N",
                   help=f"the sentence's words (beyond the paper): a logistic regression per ambiguous known word "
                        f"over the other words of its sentence, trained on the first N training occurrences of "
                        f"each of its casings (default {DEFAULT_CAP:,}; 0: none, the decoder without it)")
    p.add_argument("--context-weight", type=float, default=DEFAULT_WEIGHT,
                   help=f"weight of the sentence-context score against the LM's (default {DEFAULT_WEIGHT:g}, "
                        f"docs/experiments/truecaser.md)")
    p.add_argument("--context-C", type=float, default=DEFAULT_C,
                   help=f"inverse L2 strength of the sentence-context regressions (default {DEFAULT_C:g})")
    p.add_argument("--context-min-weight", type=float, default=DEFAULT_MIN_WEIGHT, metavar="W",
                   help=f"store only the sentence-context weights larger than this in absolute value (default "
                        f"{DEFAULT_MIN_WEIGHT:g}: the artifact's size)")
    p.add_argument("--no-fold-accents", action="store_true",
                   help="keep the training text's diacritics (default: learn from it folded, 'Sao' for 'São', "
                        "as the benchmark's text is, and decode each word by its folded form)")


def peak_rss_mb() -> int:
    """The largest resident memory so far of this process or of any worker it has waited for (the
    tokenizer and fitting pools), in MB."""
    own, kids = (resource.getrusage(w).ru_maxrss for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return round(max(own, kids) / 1024)


def check_inputs(paths: list[Path]) -> None:
    for p in paths:
        if not p.is_file():
            raise SystemExit(f"error: {p}: no such file")


def dev_perplexity(model: Truecaser, dev: list[str]) -> float:
    """Perplexity of the dev sentences (true case) with rare/unseen words as UNKNOWN_* tokens (and
    folded as the model's training text was, with ``fold_accents``)."""
    known = {f for forms in model.casing_.forms.values() for f, _ in forms}

    def lm_token(t):
        if model.fold_accents:
            t = fold_accents(t)
        if t in known:
            return t
        c = case_class(t)
        return UNKNOWN_NONE if c == NONE else UNKNOWN_TOKENS[c]

    return lmmod.perplexity(model.lm_, ([lm_token(t) for t in s.split()] for s in dev))


def evaluate(model: Truecaser, dev: list[str], plots: Path | None = None) -> dict:
    """Dev scores of the Viterbi decoder and the unigram baseline; with ``plots`` (a folder) also
    the Viterbi decoder's class confusion heat map and F1 by training-frequency band as PNGs."""
    lower = [s.lower() for s in dev]
    t0 = time.perf_counter()
    pred = model.predict(lower)
    dt = time.perf_counter() - t0
    lm_scores = score_truecase(dev, pred, "dev", "prediction")
    base_pred = model.baseline_.predict(lower)
    base_scores = score_truecase(dev, base_pred, "dev", "baseline")
    n = lm_scores.tokens
    if plots is not None:
        write_plots(model, dev, pred, base_pred, lm_scores, plots)
    return {"dev_sentences": len(dev), "dev_tokens": n,
            "viterbi": _rounded(lm_scores), "unigram_baseline": _rounded(base_scores),
            "dev_perplexity": round(dev_perplexity(model, dev), 2),
            "decode_tokens_per_second": round(n / dt)}


def _rounded(scores) -> dict:
    """Accuracy, P, R and F1 to two decimals, rounded once (as_dict's three-decimal values rounded
    again would turn 87.1646 into 87.17)."""
    return {k: round(getattr(scores, k), 2) for k in ("accuracy", "precision", "recall", "f1")}


PLOTS = ("confusion.png", "f1_by_frequency.png")


def write_plots(model: Truecaser, dev, pred, base_pred, scores, folder: Path) -> None:
    """``confusion.png`` (gold vs predicted case class of Lita et al. 2003 section 2) and
    ``f1_by_frequency.png`` (F1 of both decoders per band of the word's training frequency)."""
    from textqa.evaluation.plots import bars_with_counts, confusion_heatmap  # deferred: loads matplotlib
    folder.mkdir(parents=True, exist_ok=True)
    confusion_heatmap(scores.confusion, folder / PLOTS[0], classes=CLASSES,
                      title=f"Truecaser on dev: case classes ({scores.tokens:,} tokens, accuracy {scores.accuracy:.2f})")
    forms = model.casing_.forms

    def frequency(word):
        return sum(c for _, c in forms.get(word, ()))
    lm_bands = score_by_frequency(dev, pred, frequency)
    base_bands = score_by_frequency(dev, base_pred, frequency)
    bars_with_counts([label for label, _ in lm_bands],
                     {"trigram Viterbi": [b.f1 for _, b in lm_bands], "unigram baseline": [b.f1 for _, b in base_bands]},
                     [b.gold_cased for _, b in lm_bands], folder / PLOTS[1], ylabel="F1 (capitalised tokens)",
                     xlabel="training frequency of the word (words seen once count as unseen: min_count 2)", ylim=(0, 105), count_label="cased",
                     title="Truecaser on dev: F1 by how often the word was seen in training")


def _log_to_stderr() -> None:
    """textqa's own log records (INFO and up) on stderr, timestamped.  Only the ``textqa`` loggers:
    the root logger at INFO would also print the INFO log of the Dask scheduler that ``--scheduler
    local`` runs in this process (about 30 lines a run, and a CommClosedError traceback when a run
    stops on an error while the cluster shuts down)."""
    logger = logging.getLogger("textqa")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
        logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def _check_args(args: argparse.Namespace, say) -> None:
    """Refuse combinations that cannot train; pick the class LM's default."""
    if args.scheduler and args.max_sentences:
        raise SystemExit("error: --max-sentences needs the corpus in one process; with --scheduler, cut the "
                         "input files instead")
    if args.scheduler and args.smoothing == "deleted_interpolation":
        raise SystemExit("error: deleted interpolation fits its lambdas on held-out sentences in one process; "
                         "with --scheduler use --smoothing kneser_ney")
    if args.scheduler and args.discriminative != "none":
        raise SystemExit("error: the discriminative pass learns on held-out sentences in one process; drop "
                         "--scheduler or --discriminative")
    if args.class_lm is None:
        without = args.discriminative != "none"
        args.class_lm = 0 if without else DEFAULT_CLASSES
        if without:
            say("note: training without the class LM, which --discriminative cannot be combined with")
    if args.partition_size < 1:
        raise SystemExit("error: --partition-size must be at least 1")


def _estimator(args: argparse.Namespace) -> Truecaser:
    """The estimator the flags describe (its parameters checked)."""
    model = Truecaser(min_count=args.min_count, n_casings=args.n_casings, smoothing=args.smoothing,
                      first_word=args.first_word, split_sentences=not args.no_split, oov_model=args.oov_model,
                      oov_weight=args.oov_weight, lm_binary=args.lm_binary, phrase_weight=args.phrase_weight,
                      phrase_min_count=args.phrase_min_count, order=args.order,
                      discriminative=args.discriminative, fold_accents=not args.no_fold_accents,
                      prune=None if args.prune is None else tuple(args.prune),
                      class_lm=args.class_lm, class_lm_weight=args.class_lm_weight,
                      class_lm_order=args.class_lm_order, class_lm_binary=args.class_lm_binary,
                      class_lm_words=args.class_lm_words, context_cap=args.context_cap,
                      context_weight=args.context_weight, context_C=args.context_C,
                      context_min_weight=args.context_min_weight)
    try:
        model.check_params()
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    return model


def _fit_on_cluster(model: Truecaser, args, data: list, dev: list, names: str, say) -> tuple[int, int]:
    """Fit ``model`` with the counting on the Dask cluster ``args.scheduler``: (training sentences,
    those dropped for repeating dev text)."""
    say(f"reading {names} into the Dask cluster {args.scheduler}")
    with dask_cluster.cluster(args.scheduler, args.workers, "textqa train truecaser",
                              preload=("textqa.training.truecaser_dask",)) as client:
        vocab, count_ngrams, count_phrases, n_sentences, dropped, class_text, collect = count_on_cluster(
            client, data, PUNKT_DIR, dev, args.pretokenized, args.partition_size, args.min_count, say,
            order=args.order, class_lm=model.class_lm > 0, fold=model.fold_accents,
            context=model.context_cap > 0)
        say(f"dropped {dropped:,} training sentences in paragraphs that repeat dev text")
        phrases = count_phrases(model.phrase_min_count, say) if model.phrase_weight > 0 else None
        model.fit_counts(vocab, count_ngrams, n_sentences, progress=say, arpa_copy=args.arpa,
                         phrases=phrases, class_text=class_text, wait=collect is None)
        del class_text
        if collect is not None:     # the samples collected while a large OOV model is fitted
            model.fit_context(None, progress=say, collect=collect)
            model.finish_oov(say)
    return n_sentences, dropped


def _fit_here(model: Truecaser, args, data: list, dev: list, names: str, say) -> tuple[int, int]:
    """Fit ``model`` in this process: (training sentences, those dropped for repeating dev text)."""
    say(f"reading {names}")
    paras = tokenized_paragraphs(data, PUNKT_DIR, None if args.no_cache else cache_dir(), n_jobs=args.jobs,
                                 pretokenized=args.pretokenized)
    if dev:
        say("dropping the training paragraphs that repeat dev text")
        sentences, dropped = drop_heldout_paragraphs(paras, dev)
        say(f"dropped {dropped:,} training sentences in paragraphs that repeat dev text")
    else:
        sentences, dropped = [s for para in paras for s in para], 0
    del paras
    if args.max_sentences:
        sentences = sentences[:args.max_sentences]
    if not sentences:
        raise SystemExit("error: no training sentences in " + ", ".join(map(str, data)))
    try:
        model.fit(sentences, progress=say, arpa_copy=args.arpa)
    except ValueError as e:                     # e.g. too little text for --discriminative
        raise SystemExit(f"error: {e} ({names})") from None
    return model.n_train_sentences_, dropped        # without those held out for --discriminative


def _print_dev(metrics: dict) -> None:
    v, b = metrics["viterbi"], metrics["unigram_baseline"]
    print(f"dev: Viterbi LM  accuracy {v['accuracy']:.2f}  P {v['precision']:.2f}  R {v['recall']:.2f}  "
          f"F1 {v['f1']:.2f}\n     unigram     accuracy {b['accuracy']:.2f}  P {b['precision']:.2f}  "
          f"R {b['recall']:.2f}  F1 {b['f1']:.2f}\n     perplexity {metrics['dev_perplexity']}")


def run(args: argparse.Namespace) -> int:
    _log_to_stderr()
    data = list(args.data)
    check_inputs(data + ([args.dev] if args.dev else []))
    out = args.out or artifacts_dir(args.artifacts) / "truecaser"
    t_start = time.perf_counter()
    say = lambda msg: print(f"[truecaser {time.perf_counter() - t_start:6.1f}s] {msg}", file=sys.stderr, flush=True)
    _check_args(args, say)
    names = ", ".join(map(str, data[:3])) + (f" and {len(data) - 3} more" if len(data) > 3 else "")
    dev = [l.strip() for l in read_lines(args.dev) if l.strip()] if args.dev else []
    model = _estimator(args)
    work = Path(tempfile.mkdtemp(prefix="truecaser-work-", dir=out.parent if out.parent.exists() else None))
    try:
        model.work_dir = str(work)
        n_sentences, dropped = (_fit_on_cluster if args.scheduler else _fit_here)(model, args, data, dev, names, say)
        model.work_dir = None
        train_seconds = time.perf_counter() - t_start
        metrics = {"training_sentences": n_sentences, "training_sentences_dropped_dev_overlap": dropped,
                   **({"training_sentences_held_out_for_discriminative": model.reranker_.info["held_out_sentences"]}
                      if model.reranker_ is not None else {}),
                   "training_seconds": round(train_seconds, 1), "training_peak_rss_mb": peak_rss_mb()}
        if dev:
            say(f"evaluating on {len(dev)} dev sentences")
            metrics.update(evaluate(model, dev, plots=work / "plots"))
        save_truecaser(model, out, punkt_dir=PUNKT_DIR, metrics=metrics, data_fingerprint=file_fingerprint(data),
                       extra={"training_data": [str(p) for p in data], "dev_data": str(args.dev) if dev else None},
                       files={name: work / "plots" / name for name in PLOTS} if dev else None)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say(f"wrote {out}" + (f" (plots: {', '.join(PLOTS)})" if dev else ""))
    if dev:
        _print_dev(metrics)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m textqa.training.truecaser", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
