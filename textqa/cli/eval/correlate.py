"""textqa eval correlate: segment- (and system-) level correlation of BLANC and the baselines
with human judgments, per language pair and averaged over pairs.

It lives in training/ because it needs a trained model (evaluation/ imports nothing from models/).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from textqa.cli.eval import print_json
from textqa.cli.io import add_model_arguments
from textqa.errors import InputError
from textqa.evaluation.mt import (
    SystemLevel,
    bootstrap_average_pearsons,
    per_pair_correlation,
    read_mt_tsv,
    score_from_statistics,
    segment_statistics,
    sentence_scores_and_statistics,
)
from textqa.registry import BY_NAME
from textqa.runtime.paths import artifacts_dir

HELP = "correlation of BLANC, sentence BLEU, chrF and ROUGE-L with human MT judgments"
DESCRIPTION = ("Pearson correlation with the human score, per language pair and averaged over pairs, of BLANC "
               "(a trained model), sentence BLEU and chrF (sacrebleu) and ROUGE-L (as ROUGE-1.5.5, textqa eval rouge).\n\n"
               "--tsv: header line, then tab-separated lang_pair seg_id system source reference hypothesis "
               "human_score (the layout of data/mt/*.tsv.gz; .gz accepted)\n"
               "--level system (or both; --system-level is both) correlates at system level: a system's score "
               "is the corpus score of its segments (BLANC's and the baselines' statistics summed), its "
               "human score the mean of its rows' (a system-outputs file such as "
               "data/mt/wmt22_toen_sys_outputs.tsv.gz repeats the system's score on every row; NA rows are "
               "left out), Pearson and Kendall tau-b per language pair and averaged; with --ci, bootstrap "
               "intervals resampling the test segments (the same for every system and metric).")
METRICS = ("blanc", "sentbleu", "chrf", "chrf++", "rougeL")


def add_arguments(p) -> None:
    p.add_argument("--tsv", type=Path, required=True, help="human judgments with hypotheses and references")
    add_model_arguments(p, BY_NAME["blanc"])
    p.add_argument("--pair-model", action="append", metavar="LANG_PAIR=DIR",
                   help="score this language pair's segments with another BLANC model (repeatable; segment "
                        "level): cross-validated evaluations, where each pair is held out from its own model")
    p.add_argument("--lowercase", action="store_true", help="lowercase hypotheses and references first")
    p.add_argument("--level", choices=["segment", "system", "both"], default="segment",
                   help="segment-level correlations (default), system-level, or both")
    p.add_argument("--system-level", action="store_true", help="the same as --level both")
    p.add_argument("--metrics", nargs="+", choices=METRICS, default=list(METRICS), help="metrics to compare")
    p.add_argument("--ci", action="store_true", help="95%% bootstrap intervals of the averages and of BLANC's "
                   "differences from the others (table only)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for --ci (default 1000)")
    p.add_argument("--plot", type=Path, help="PNG scatter of BLANC against the human score per language pair")
    p.add_argument("--allow-empty", action="store_true", help="score empty hypotheses 0 instead of failing")


def blanc_stats(metric, hyps: list[str], refs: list[str]) -> np.ndarray:
    """[N, 3, columns]: BLANC's statistics of many single-reference pairs through the batched ACS
    path, with the character and word n-gram levels' appended (``scores_from_stats`` gives the
    sentence scores; summed over a system's segments, ``score_of_total`` its corpus score)."""
    from textqa.models.blanc.batch import PairBatch  # deferred: loads scipy, numba
    p = metric.params
    batch = PairBatch([metric.tokens(h) for h in hyps], [metric.tokens(r) for r in refs], p.matching,
                      p.prefix_len, partial=p.partial_weight > 0)
    acs = batch.stats(p.alpha, p.beta, p.partial_weight, p.max_k, p.gap_side)
    return np.concatenate([acs, metric.clipped_batch(hyps, refs)], axis=2)


def blanc_scores(metric, hyps: list[str], refs: list[str]) -> np.ndarray:
    """Sentence BLANC for many single-reference pairs (``blanc_stats`` then the F)."""
    return metric.scores_from_stats(blanc_stats(metric, hyps, refs))


def run(args) -> int:
    level = "both" if args.system_level else args.level
    if args.resamples < 1:
        raise InputError("--resamples must be at least 1")
    # a system-outputs file has NA for systems without a human score: allowed at system level only
    rows = read_mt_tsv(args.tsv, allow_empty=args.allow_empty, need_scores=level != "system")
    metric, pair_models = _blanc_models(args, rows, level)
    scores, sys_stats = _score(args, rows, level, metric, pair_models)
    result, system = _correlations(args, rows, scores, sys_stats)
    if args.plot and metric is not None and "blanc" in scores:
        _plot(rows, scores["blanc"], args.plot)
    if args.json:
        print_json(result)
        return 0
    _report(args, rows, result, scores, system, metric, pair_models)
    return 0


def _blanc_models(args, rows, level: str):
    """(the BLANC model, {language pair: its own model}) that score the rows (``--pair-model``)."""
    from textqa.models.artifact import ArtifactError  # deferred: loads orjson
    from textqa.models.blanc.store import load_blanc  # deferred: loads scipy, numba, orjson
    metric, pair_models = None, {}
    for spec in args.pair_model or []:
        lp, sep, folder = spec.partition("=")
        if not sep or not lp or not folder:
            raise InputError(f"--pair-model {spec!r}: expected LANG_PAIR=DIR")
        if level != "segment":
            raise InputError("--pair-model works at segment level only")
        try:
            pair_models[lp] = load_blanc(Path(folder))
        except ArtifactError as e:
            raise InputError(f"--pair-model {spec}: {e}") from e
    unknown = set(pair_models) - {r.lang_pair for r in rows}
    if unknown:
        raise InputError(f"--pair-model: {', '.join(sorted(unknown))} not a language pair of {args.tsv}")
    if "blanc" in args.metrics and not {r.lang_pair for r in rows} <= set(pair_models):
        try:
            metric = load_blanc(args.model or artifacts_dir(args.artifacts) / "blanc")
        except ArtifactError as e:
            raise InputError(f"{e} (or leave BLANC out: --metrics sentbleu chrf rougeL)") from e
    return metric, pair_models


def _score(args, rows, level: str, metric, pair_models: dict) -> tuple[dict, dict]:
    """({metric: segment scores}, {metric: (segment statistics, their system score)}) of every metric."""
    fold = (lambda t: t.lower()) if args.lowercase else (lambda t: t)
    hyps = [fold(r.hypothesis) for r in rows]
    refs = [fold(r.reference) for r in rows]
    say = lambda msg: print(f"textqa eval correlate: {msg}", file=sys.stderr, flush=True)
    scores, sys_stats = {}, {}
    from tqdm import tqdm  # deferred: loads tqdm
    for name in tqdm(args.metrics, desc="metrics", unit="metric", file=sys.stderr, disable=None):
        say(f"{name} on {len(rows)} segments")
        if name == "blanc" and pair_models:         # each pair's rows scored by its own model
            sc = np.zeros(len(rows))
            for lp in sorted({r.lang_pair for r in rows}):
                idx = [i for i, r in enumerate(rows) if r.lang_pair == lp]
                sc[idx] = blanc_scores(pair_models.get(lp, metric), [hyps[i] for i in idx], [refs[i] for i in idx])
            scores[name] = list(sc)
            continue
        if name == "blanc":
            st = blanc_stats(metric, hyps, refs)
            if level != "system":
                scores[name] = list(metric.scores_from_stats(st))
            if level != "segment":
                sys_stats[name] = (st, metric.scores_from_stats)
            continue
        if level != "system":
            sentence, stats = sentence_scores_and_statistics(name, hyps, refs)
            scores[name] = sentence.tolist()
        else:
            stats = segment_statistics(name, hyps, refs)
        if level != "segment":
            sys_stats[name] = (stats, score_from_statistics(name))
    return scores, sys_stats


def _correlations(args, rows, scores: dict, sys_stats: dict):
    """({"segment", "system", "system_kendall": {language pair: {metric: correlation}}}, the system level)."""
    result = {}
    if scores:
        table = {m: per_pair_correlation(rows, s) for m, s in scores.items()}
        pairs = [k for k in next(iter(table.values())) if k != "average"]
        result["segment"] = {lp: {m: table[m].get(lp, math.nan) for m in table} for lp in pairs + ["average"]}
    system = None
    if sys_stats:
        system = SystemLevel(rows, sys_stats)
        if not system.pairs:
            raise InputError(f"{args.tsv}: no language pair has 3 or more systems with human scores")
        t = system.table()
        result["system"], result["system_kendall"] = t.pearson, t.kendall
    return result, system


def _plot(rows, blanc_scores_: list, path) -> None:
    """BLANC against the human score, per language pair."""
    from textqa.evaluation.plots import metric_vs_human  # deferred: loads matplotlib
    groups = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.lang_pair, ([], []))
        groups[r.lang_pair][0].append(blanc_scores_[i])
        groups[r.lang_pair][1].append(r.human_score)
    metric_vs_human(groups, path)


def _report(args, rows, result: dict, scores: dict, system, metric, pair_models: dict) -> None:
    """The tables, with ``--ci`` each average's interval."""
    if metric is not None:
        print(f"BLANC: {metric.signature}")
    for lp, m in sorted(pair_models.items()):
        print(f"BLANC for {lp}: {m.signature}")
    titles = {"segment": "segment-level Pearson", "system": "system-level Pearson",
              "system_kendall": "system-level Kendall tau-b"}
    for key, title in titles.items():
        if key not in result:
            continue
        names = list(next(iter(result[key].values())))
        print(f"{title} ({args.tsv.name})")
        print(f"  {'lang_pair':<12}" + "".join(f"{m:>10}" for m in names))
        for lp, v in result[key].items():
            print(f"  {lp:<12}" + "".join(f"{v[m]:10.4f}" for m in names))
        if args.ci and key == "segment":
            _print_cis(names, result[key]["average"], lambda ms: bootstrap_average_pearsons(
                rows, [scores[m] for m in ms], args.resamples, 0))
        if args.ci and key == "system":
            boot = system.bootstrap(args.resamples)
            col = {m: k for k, m in enumerate(system.metrics)}
            _print_cis(names, result[key]["average"], lambda ms: boot[:, [col[m] for m in ms]])
    if args.plot and metric is not None and "blanc" in scores:
        print(f"plot written to {args.plot}")


def _print_cis(names, average: dict, boot_of) -> None:
    """95% percentile intervals of each metric's average, and paired ones of BLANC minus each."""
    boot = boot_of(names)
    cis = [np.percentile(boot[:, k], [2.5, 97.5]) for k in range(len(names))]
    for m, (lo, hi) in zip(names, cis):
        print(f"  {m} average {average[m]:.4f} (95% CI {lo:.4f} to {hi:.4f})")
    if "blanc" in names:
        b = names.index("blanc")
        for k, m in enumerate(names):
            if m != "blanc":
                lo, hi = np.percentile(boot[:, b] - boot[:, k], [2.5, 97.5])
                print(f"  blanc - {m}: {average['blanc'] - average[m]:+.4f} (paired 95% CI {lo:+.4f} to {hi:+.4f})")
