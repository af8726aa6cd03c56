"""Train BLANC's parameters on human judgments of MT (Lita, Rogati & Lavie 2005, section 5).

Hill climbing from several starting points (chrF, chrF++, the earlier default, random points)
over the gap decay alpha, the gap-difference decay beta, the partial-match weight, the weights of
the ACS sizes, of the character orders and of chrF++'s word orders, and the recall weight
rho = beta_F^2 / (1 + beta_F^2) in [0, 1), maximising the correlation of BLANC with human scores
(Pearson by default; Spearman or Kendall tau-b), at segment level or system level, computed per
language pair of each training file and averaged.  Restarts run in parallel (joblib); a fixed
seed makes the result reproducible.  The final parameters are chosen on held-out language pairs
(``--select-pairs``) among every point the climbs passed through (``--select-from path``: early
stopping, the starts chrF and chrF++ included) or their end points (``ends``), and the other
held-out pairs are reported.  The default climbs on WMT21 DA + COLING-16 DA, selects on WMT22 ja-en + liv-en and
reports on WMT22 ru-en + uk-en.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from textqa.errors import InputError
from textqa.evaluation.mt import (
    bootstrap_average_pearsons,
    score_from_statistics,
    segment_statistics,
    sentence_scores_and_statistics,
)
from textqa.models.blanc.metric import BLANC, BLANCParams, stats_f
from textqa.models.blanc.store import save_blanc
from textqa.runtime import dask_cluster
from textqa.runtime.paths import DATA_DIR, artifacts_dir

from .blanc_search import JudgedPairs, _corr, _restart, averaged, correlations, params_of

MT = DATA_DIR / "mt"
DEFAULT_TRAIN = [MT / "wmt21_toen_da_seg.tsv.gz", MT / "coling16_toen_da_seg.tsv.gz"]
DEFAULT_TEST = [MT / "wmt22_toen_da_seg.tsv.gz"]
DEFAULT_DATA = DEFAULT_TRAIN + DEFAULT_TEST
DEFAULT_SELECT = ["ja-en", "liv-en"]        # half of WMT22's pairs choose among the restarts; the others report



def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--train", nargs="+", type=Path, default=DEFAULT_TRAIN, metavar="TSV",
                   help="judgment TSVs to train on (default: WMT21 DA + COLING-16 DA)")
    p.add_argument("--test", nargs="*", type=Path, default=DEFAULT_TEST, metavar="TSV",
                   help="held-out judgment TSVs to report on (default: WMT22 DA)")
    p.add_argument("--level", choices=["segment", "system"], default="segment", help="correlation level")
    p.add_argument("--segments-per-pair", type=int, default=None, metavar="N",
                   help="keep each training language pair's first N segments (of every system): for "
                        "system-level training on the large system-outputs files (default: all; the --test data "
                        "is always whole)")
    p.add_argument("--objective", choices=["pearson", "spearman", "kendall"], default="pearson")
    p.add_argument("--restarts", type=int, default=6, help="hill-climbing starting points (default 6)")
    p.add_argument("--max-steps", type=int, default=60, help="hill-climbing steps per restart")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="parallel restarts")
    p.add_argument("--max-k", type=int, default=4, help="largest skip-ngram size (default 4)")
    p.add_argument("--char-orders", type=int, default=6,
                   help="character n-gram orders of the character level (default 6, chrF's; 0: none)")
    p.add_argument("--char-max-gap", type=int, default=0, choices=range(5), metavar="G",
                   help="character skip-n-grams: most characters an occurrence may skip (0-4; default 0, "
                        "contiguous n-grams as chrF)")
    p.add_argument("--char-alpha", type=float, default=0.0,
                   help="gap decay of the character skip-n-grams (weight exp(-alpha * gaps); default 0)")
    p.add_argument("--word-ngram-orders", type=int, default=2,
                   help="chrF++'s word n-gram orders (default 2; 0: none)")
    p.add_argument("--select-pairs", nargs="+", default=None, metavar="LANG_PAIR",
                   help="language pairs of the --test data on which the candidate points (--select-from) are "
                        "compared to choose the final parameters (then not reported as held-out); default: ja-en liv-en "
                        "with the default test data (WMT22), otherwise choose by the training objective")
    p.add_argument("--select-from", choices=["path", "ends"], default="path",
                   help="what --select-pairs chooses among: every point of every climb (default; early stopping "
                        "on the selection pairs) or each restart's end point")
    p.add_argument("--matching", choices=["one-to-one", "all"], default="one-to-one",
                   help="word matching policy (default one-to-one; 'all' is the paper's all pairs)")
    p.add_argument("--gap-side", choices=["max", "hyp", "ref"], default="max",
                   help="which sentence's gap the gap weight uses (default: the larger)")
    p.add_argument("--no-partial", action="store_true", help="exact word matches only")
    p.add_argument("--lowercase", action="store_true", help="lowercase before matching (default: cased, "
                   "which correlated better on the training data)")
    p.add_argument("--tokenize", choices=["13a", "13a-words", "none"], default="13a-words",
                   help="13a-words (default): sacrebleu's 13a tokens without punctuation-only tokens, which "
                        "correlated better on the training data; 13a; none = whitespace")
    p.add_argument("--no-baselines", action="store_true", help="skip sentence BLEU/chrF on the test data")
    p.add_argument("--out", type=Path, default=None, help="artifact folder (default: <artifacts>/blanc)")
    p.add_argument("--artifacts", type=Path, default=None,
                   help="artifacts root (default: $TEXTQA_ARTIFACTS or ./artifacts)")
    dask_cluster.add_arguments(p, None, "run the restarts")


# ------------------------------------------------------------------ run
def run(args: argparse.Namespace) -> int:
    """Train; with ``--scheduler`` the joblib loops run on a Dask cluster (the same artifact)."""
    with dask_cluster.joblib_on(args.scheduler, args.workers, "textqa train blanc",
                           preload=("textqa.training.blanc",)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from textqa.training.corpus import file_fingerprint  # deferred: loads tqdm

    t0 = time.perf_counter()
    say = lambda msg: print(f"[blanc {time.perf_counter() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)
    base = _base_params(args)
    out = args.out or artifacts_dir(args.artifacts) / "blanc"
    try:
        say("reading and aligning " + ", ".join(p.name for p in args.train))
        train = JudgedPairs(args.train, base, args.segments_per_pair)
        results, paths = _climb(args, train, base, say)
        test = JudgedPairs(args.test, base) if args.test else None
        select = _selection_pairs(args, test)
        held_out = _HeldOut(test, args)
        chosen = _choose(args, results, paths, base, select, held_out, say)
        params = params_of(chosen.state, base)
        metrics = _metrics(args, train, test, params, results, chosen, select, held_out, say)
        metrics["training_seconds"] = round(time.perf_counter() - t0, 1)
        work = Path(tempfile.mkdtemp(prefix="blanc-plots-"))
        try:
            along = None
            if select and args.select_from == "path":      # the selection pairs' value at every point
                along = {}
                for corr_r, _, i, j, _ in sorted(chosen.ranked, key=lambda r: (r[2], r[3])):
                    along.setdefault(i, []).append(averaged(corr_r, select)["average"])
            files = _plots(work, paths, chosen.restart, chosen.step if select else len(paths[chosen.restart]) - 1,
                           along, test if test is not None else train, params, args)
            save_blanc(params, out, metrics=metrics, data_fingerprint=file_fingerprint(args.train),
                       extra={"training_data": [str(p) for p in args.train], "test_data": [str(p) for p in args.test]},
                       files=files)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    except InputError as e:
        raise SystemExit(f"error: {e}") from e
    say(f"wrote {out} (params.json, plots: hill_climbing.png, human_vs_blanc.png)")
    _print_summary(args, train, params, metrics)
    return 0


def _base_params(args) -> BLANCParams:
    """The options checked, and the parameters every restart starts from."""
    for f in list(args.train) + list(args.test):
        if not Path(f).is_file():
            raise SystemExit(f"error: {f}: no such file")
    if args.segments_per_pair is not None and args.segments_per_pair < 1:
        raise SystemExit("error: --segments-per-pair must be at least 1")
    if args.char_orders < 0 or args.word_ngram_orders < 0 or args.max_k < 1:
        raise SystemExit("error: --max-k must be >= 1, --char-orders and --word-ngram-orders >= 0")
    return BLANCParams(size_weights=[1.0] * args.max_k, matching=args.matching, gap_side=args.gap_side,
                       partial_weight=0.0 if args.no_partial else 0.5, lowercase=args.lowercase,
                       tokenize=args.tokenize, char_weights=[1.0] * args.char_orders,
                       char_max_gap=args.char_max_gap, char_alpha=args.char_alpha,
                       word_ngram_weights=[1.0] * args.word_ngram_orders)


def _climb(args, train: JudgedPairs, base: BLANCParams, say) -> tuple[list, dict]:
    """The hill-climbing restarts, in parallel: ([(value, restart, end state)], {restart: its path})."""
    from joblib import Parallel, delayed  # deferred: loads joblib, psutil
    from tqdm import tqdm  # deferred: loads tqdm
    say(f"{len(train.rows)} training pairs in {len(train.groups)} groups; "
        f"{args.restarts} restarts on " + (f"the Dask cluster {args.scheduler}" if args.scheduler
                                           else f"{args.jobs} process(es)"))
    spec = (args.max_k, args.gap_side, args.level, args.objective, args.max_steps, not args.no_partial,
            args.char_orders, args.word_ngram_orders)
    results, paths = [], {}
    for i, state, value, secs, path in tqdm(Parallel(n_jobs=args.jobs, return_as="generator")(
            delayed(_restart)(train, i, args.seed, spec) for i in range(args.restarts)),
            total=args.restarts, desc="hill-climbing restarts", unit="restart", file=sys.stderr, disable=None):
        results.append((value, i, state))
        paths[i] = path
        q = params_of(state, base)
        say(f"restart {i + 1}/{args.restarts}: train {args.level} {args.objective} {value:.4f} (alpha {q.alpha}, "
            f"beta {q.beta}, partial {q.partial_weight}, beta_F {q.beta_f}, ACS {sum(q.size_weights):.2f}, "
            f"characters {sum(q.char_weights):.2f}, word n-grams {sum(q.word_ngram_weights):.2f}, {secs:.0f}s)")
    return results, paths


def _selection_pairs(args, test: JudgedPairs | None) -> dict | None:
    """{group: rows} of the held-out language pairs that select the parameters (--select-pairs; by
    default with the default test data), or None."""
    select_pairs = args.select_pairs
    if select_pairs is None and [Path(t) for t in args.test] == DEFAULT_TEST:
        select_pairs = DEFAULT_SELECT
    if not select_pairs:
        return None
    if test is None:
        raise SystemExit("error: --select-pairs needs --test data")
    wanted = set(select_pairs)
    select = {g: idx for g, idx in test.groups.items() if g.split(":", 1)[1] in wanted}
    if not select:
        raise SystemExit(f"error: none of {', '.join(sorted(wanted))} is a language pair of the test data "
                         f"({', '.join(sorted(test.groups))})")
    return select


class _HeldOut:
    """Every test group's correlation with given parameters, the statistics computed once per
    (alpha, beta, partial weight)."""

    def __init__(self, test: JudgedPairs | None, args):
        self.test, self.args, self.stats = test, args, {}

    def __call__(self, params: BLANCParams) -> dict:
        a, test = self.args, self.test
        key = (params.alpha, params.beta, params.partial_weight)
        if key not in self.stats:
            st = test.stats(*key, a.max_k, a.gap_side)
            self.stats[key] = test.system_totals(st) if a.level == "system" else st
        return correlations(test, self.stats[key], params.weights, params.beta_f, a.level, a.objective,
                            aggregated=True)


@dataclass
class _Choice:
    state: object
    value: float
    restart: int
    step: int | None = None
    corr: dict | None = None            # the held-out correlations of the chosen point (with a selection)
    ranked: list = field(default_factory=list)
    ends: dict = field(default_factory=dict)


def _choose(args, results: list, paths: dict, base: BLANCParams, select, held_out: _HeldOut, say) -> _Choice:
    """The kept parameters: the best restart on the training objective, or with a selection the
    candidate whose selection pairs correlate best."""
    if not select:
        value, best_i, state = max(results, key=lambda r: (r[0], -r[1]))
        return _Choice(state, value, best_i)
    # candidates: each restart's end point, or (--select-from path) every point of every climb,
    # which stops a climb early where the selection pairs stop gaining (the starts chrF and
    # chrF++ among them)
    if args.select_from == "path":
        say(f"selecting among the {sum(len(p) for p in paths.values())} points of the climbs on "
            + ", ".join(sorted(select)))
        cands = [(v, i, j, st) for i in sorted(paths) for j, (st, v) in enumerate(paths[i])]
    else:
        cands = [(v, i, len(paths[i]) - 1, st) for v, i, st in results]
    ranked = [(held_out(params_of(st, base)), v, i, j, st) for v, i, j, st in cands]
    corr, value, best_i, best_j, state = max(ranked, key=lambda r: (averaged(r[0], select)["average"], r[1], -r[2], r[3]))
    ends = {r[2]: r for r in ranked if r[3] == len(paths[r[2]]) - 1}
    return _Choice(state, value, best_i, best_j, corr, ranked, ends)


def _metrics(args, train: JudgedPairs, test, params: BLANCParams, results: list, chosen: _Choice, select,
             held_out: _HeldOut, say) -> dict:
    """What the manifest records: the training and held-out correlations, the selection, the baselines."""
    stats = train.stats(params.alpha, params.beta, params.partial_weight, args.max_k, args.gap_side)
    metrics = {"train": correlations(train, stats, params.weights, params.beta_f, args.level, args.objective),
               "level": args.level, "objective": args.objective, "best_restart": chosen.restart,
               "restart_values": [round(r[0], 4) for r in sorted(results, key=lambda r: r[1])],
               "recall_weight": round(params.beta_f ** 2 / (1 + params.beta_f ** 2), 6)}
    if test is None:
        return metrics
    say("scoring the held-out data " + ", ".join(p.name for p in args.test))
    corr = chosen.corr if select else held_out(params)
    report = [g for g in test.groups if not select or g not in select]
    metrics["test"] = {"blanc": averaged(corr, report)}
    if select:
        metrics["selection"] = {"pairs": sorted(select), "blanc": averaged(corr, list(select)),
                                "from": args.select_from, "step": chosen.step,
                                "restarts": [round(averaged(chosen.ends[i][0], select)["average"], 4)
                                             for i in sorted(chosen.ends)]}
    if not args.no_baselines:
        metrics.update(_held_out_baselines(args, test, report, params, held_out.stats, metrics["test"], say))
    return metrics


def _print_summary(args, train: JudgedPairs, params: BLANCParams, metrics: dict) -> None:
    print(f"parameters: {BLANC(params).signature}")
    print(f"train {args.level} {args.objective} (average over {len(train.groups)} groups): "
          f"{metrics['train']['average']:.4f}")
    for name, corr in metrics.get("test", {}).items():
        cells = "  ".join(f"{g} {v:.4f}" for g, v in corr.items() if g != "average")
        print(f"test  {name:<9}{corr['average']:.4f}   ({cells})")
    for name, (lo, hi) in metrics.get("test_ci", {}).items():
        if name.startswith("blanc-"):
            print(f"test  {name:<16} paired 95% CI {lo:+.4f} to {hi:+.4f}")
    if "test_system" in metrics:
        print("test  system level (DA rows): " + "  ".join(f"{n} {c['average']:.4f}"
                                                        for n, c in metrics["test_system"].items()))


def _plots(work: Path, paths: dict, best_i: int, best_j: int, selection, data: JudgedPairs, params: BLANCParams,
           args) -> dict:
    """``hill_climbing.png`` (each restart's objective along its climb, and the selection pairs'
    correlation at each point when the parameters were selected along the climbs) and
    ``human_vs_blanc.png`` (segment BLANC with the kept parameters against the human scores, per
    language pair of the held-out data, or of the training data without --test)."""
    from textqa.evaluation.plots import climb_traces, metric_vs_human  # deferred: loads matplotlib
    traces = {f"restart {i + 1}": [v for _, v in paths[i]] for i in sorted(paths)}
    sel = {f"restart {i + 1}": v for i, v in selection.items()} if selection else None
    climb_traces(traces, work / "hill_climbing.png", f"train {args.level} {args.objective}",
                 chosen=(f"restart {best_i + 1}", best_j), selection=sel,
                 selection_label="selection pairs (average)",
                 title=f"BLANC hill climbing: {len(paths)} restarts")
    key = (params.alpha, params.beta, params.partial_weight)
    stats = data.stats(*key, args.max_k, args.gap_side)
    scores = stats_f(stats, params.weights, params.beta_f, data.n_acs)
    metric_vs_human({g: (scores[idx], data.human[idx]) for g, idx in data.groups.items()},
                    work / "human_vs_blanc.png", xlabel="segment BLANC (kept parameters)", ylabel="human score (DA z)")
    return {"hill_climbing.png": work / "hill_climbing.png", "human_vs_blanc.png": work / "human_vs_blanc.png"}


def _held_out_baselines(args, test: JudgedPairs, report: list, params: BLANCParams, test_stats: dict,
                        table: dict, say) -> dict:
    """Sentence BLEU, chrF and chrF++ on the reported pairs at the training level (added to
    ``table``); at segment level with Pearson also the paired 95% bootstrap intervals of the
    averages and of BLANC minus each (1,000 resamples of the segments) and the system-level
    correlations of the DA rows (a system's corpus score over its judged segments against its mean
    human score), which are returned for the manifest."""

    hyps, refs = [r.hypothesis for _, r in test.rows], [r.reference for _, r in test.rows]
    key = (params.alpha, params.beta, params.partial_weight)
    segment = args.level == "segment"
    seg_scores, sys_table, extra = {}, {}, {}
    for name in ("sentbleu", "chrf", "chrf++"):
        say(f"baseline {name} on the held-out data ({args.level} level)")
        totals = None
        if segment:
            seg_scores[name], stats = sentence_scores_and_statistics(name, hyps, refs)
            table[name] = averaged({g: _corr(seg_scores[name][idx], test.human[idx], args.objective)
                                    for g, idx in test.groups.items() if g in report}, report)
        else:
            stats = segment_statistics(name, hyps, refs)
        if not segment or args.objective == "pearson":     # corpus scores from sacrebleu's summed statistics
            totals = score_from_statistics(name)(test.system_totals(stats))
            sys_table[name] = averaged({g: _corr(totals[idx], test.system_human[idx], args.objective)
                                        for g, idx in test.system_groups.items() if g in report}, report)
            if not segment:
                table[name] = sys_table[name]
    if segment and args.objective == "pearson":
        say("paired bootstrap intervals on the reported pairs (1,000 resamples)")
        blanc = stats_f(test_stats[key], params.weights, params.beta_f, test.n_acs)
        idx = np.concatenate([test.groups[g] for g in report])
        rows = [replace(test.rows[i][1], lang_pair=test.rows[i][0]) for i in idx]
        names = ["blanc", "sentbleu", "chrf", "chrf++"]
        boot = bootstrap_average_pearsons(rows, [blanc[idx]] + [seg_scores[n][idx] for n in names[1:]], 1000, 0)
        ci = lambda x: [round(float(v), 4) for v in np.percentile(x, [2.5, 97.5])]
        extra["test_ci"] = {**{n: ci(boot[:, k]) for k, n in enumerate(names)},
                            **{f"blanc-{n}": ci(boot[:, 0] - boot[:, k]) for k, n in enumerate(names) if k}}
        blanc_sys = correlations(test, test.system_totals(test_stats[key]), params.weights, params.beta_f, "system",
                                 "pearson", aggregated=True)
        extra["test_system"] = {"blanc": averaged(blanc_sys, report), **sys_table}
    return extra


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m textqa.training.blanc", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
