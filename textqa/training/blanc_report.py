"""textqa eval correlate: segment- (and system-) level correlation of BLANC and the baselines
with human judgments, per language pair and averaged over pairs.

It lives in training/ because it needs a trained model (evaluation/ imports nothing from models/).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from textqa.evaluation.commands import print_json
from textqa.evaluation.io import EvalInputError
from textqa.evaluation.mt import (CORPUS_BASELINES, SENTENCE_BASELINES, average_pearson_ci,
                                  average_pearson_difference_ci, per_pair_correlation,
                           read_mt_tsv, system_level)
from textqa.common import add_model_arguments
from textqa.paths import artifacts_dir

HELP = "correlation of BLANC, sentence BLEU, chrF and ROUGE-L with human MT judgments"
DESCRIPTION = ("Pearson correlation with the human score, per language pair and averaged over pairs, of BLANC "
               "(a trained model), sentence BLEU and chrF (sacrebleu) and ROUGE-L (rouge-score).\n\n"
               "--tsv: header line, then tab-separated lang_pair seg_id system source reference hypothesis "
               "human_score (the layout of data/mt/*.tsv.gz; .gz accepted)\n"
               "--system-level adds system-level correlations (system score = corpus score of the system's "
               "segments; human = mean of its segments' human scores).")
METRICS = ("blanc", "sentbleu", "chrf", "chrf++", "rougeL")


def add_arguments(p) -> None:
    p.add_argument("--tsv", type=Path, required=True, help="human judgments with hypotheses and references")
    add_model_arguments(p, "blanc", "BLANC")
    p.add_argument("--lowercase", action="store_true", help="lowercase hypotheses and references first")
    p.add_argument("--system-level", action="store_true", help="also correlate at system level")
    p.add_argument("--metrics", nargs="+", choices=METRICS, default=list(METRICS), help="metrics to compare")
    p.add_argument("--ci", action="store_true", help="95%% bootstrap intervals of the averages (table only)")
    p.add_argument("--plot", type=Path, help="PNG scatter of BLANC against the human score per language pair")
    p.add_argument("--allow-empty", action="store_true", help="score empty hypotheses 0 instead of failing")


def blanc_scores(metric, hyps: list[str], refs: list[str]) -> np.ndarray:
    """Sentence BLANC for many single-reference pairs through the batched ACS path, with the
    character and word n-gram levels' statistics appended."""
    from textqa.models.blanc.batch import PairBatch
    p = metric.params
    batch = PairBatch([metric.tokens(h) for h in hyps], [metric.tokens(r) for r in refs], p.matching,
                      p.prefix_len, partial=p.partial_weight > 0)
    acs = batch.stats(p.alpha, p.beta, p.partial_weight, p.max_k, p.gap_side)
    return metric.scores_from_stats(np.concatenate([acs, metric.clipped_batch(hyps, refs)], axis=2))


def run(args) -> int:
    from textqa.models.artifact import ArtifactError
    from textqa.models.blanc.store import load_blanc

    rows = read_mt_tsv(args.tsv, allow_empty=args.allow_empty)
    metric = None
    if "blanc" in args.metrics:
        try:
            metric = load_blanc(args.model or artifacts_dir(args.artifacts) / "blanc")
        except ArtifactError as e:
            raise EvalInputError(f"{e} (or leave BLANC out: --metrics sentbleu chrf rougeL)") from e
    fold = (lambda t: t.lower()) if args.lowercase else (lambda t: t)
    hyps = [fold(r.hypothesis) for r in rows]
    refs = [fold(r.reference) for r in rows]
    scores = {}
    for name in args.metrics:
        print(f"textqa eval correlate: {name} on {len(rows)} segments", file=sys.stderr, flush=True)
        scores[name] = list(blanc_scores(metric, hyps, refs)) if name == "blanc" else \
            SENTENCE_BASELINES[name](hyps, refs)
    table = {m: per_pair_correlation(rows, s) for m, s in scores.items()}
    pairs = [k for k in next(iter(table.values())) if k != "average"]
    result = {"segment": {lp: {m: table[m].get(lp, math.nan) for m in table} for lp in pairs + ["average"]}}
    if args.system_level:
        corpus = {m: CORPUS_BASELINES[m] for m in args.metrics if m != "blanc"}
        if metric is not None:
            corpus = {"blanc": lambda h, r: metric.corpus_score(h, [[x] for x in r]).score, **corpus}
        keys, sys_scores = system_level([_folded(r, fold) for r in rows], corpus)
        result["system"] = {}
        for m, values in sys_scores.items():
            by_lp: dict = {}
            for (lp, _, human), v in zip(keys, values):
                by_lp.setdefault(lp, ([], []))
                by_lp[lp][0].append(v)
                by_lp[lp][1].append(human)
            for lp, (x, y) in by_lp.items():
                r = float(np.corrcoef(x, y)[0, 1]) if len(x) > 2 and np.std(x) > 0 and np.std(y) > 0 else math.nan
                result["system"].setdefault(lp, {})[m] = r
        valid = lambda m: [v[m] for lp, v in result["system"].items() if not math.isnan(v[m])]
        result["system"]["average"] = {m: (sum(valid(m)) / len(valid(m)) if valid(m) else math.nan)
                                       for m in sys_scores}
    if args.plot and metric is not None:
        from textqa.evaluation.plots import metric_vs_human
        groups = {}
        for i, r in enumerate(rows):
            groups.setdefault(r.lang_pair, ([], []))
            groups[r.lang_pair][0].append(scores["blanc"][i])
            groups[r.lang_pair][1].append(r.human_score)
        metric_vs_human(groups, args.plot)
    if args.json:
        print_json(result)
        return 0
    if metric is not None:
        print(f"BLANC: {metric.signature()}")
    for level in ("segment", "system"):
        if level not in result:
            continue
        names = list(next(iter(result[level].values())))
        print(f"{level}-level Pearson ({args.tsv.name})")
        print(f"  {'lang_pair':<12}" + "".join(f"{m:>10}" for m in names))
        for lp, v in result[level].items():
            print(f"  {lp:<12}" + "".join(f"{v[m]:10.4f}" for m in names))
        if level == "segment" and args.ci:
            cis = {m: average_pearson_ci(rows, scores[m]) for m in names}
            print(f"  {'95% CI':<12}" + "".join(f"{f'{lo:.3f}-{hi:.3f}':>12}" for lo, hi in cis.values()))
            if "blanc" in names:
                avg = result[level]["average"]
                for m in names:
                    if m != "blanc":
                        lo, hi = average_pearson_difference_ci(rows, scores["blanc"], scores[m])
                        print(f"  blanc - {m}: {avg['blanc'] - avg[m]:+.4f} (paired 95% CI {lo:+.4f} to {hi:+.4f})")
    if args.plot and metric is not None:
        print(f"plot written to {args.plot}")
    return 0


def _folded(row, fold):
    from dataclasses import replace
    return replace(row, hypothesis=fold(row.hypothesis), reference=fold(row.reference))
