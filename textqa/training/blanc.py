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
import math
import os
import shutil
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from textqa.errors import InputError
from textqa.evaluation.mt import (read_mt_tsv, score_from_statistics, segment_statistics,
                                  sentence_scores_and_statistics)
from textqa.models.blanc.batch import PairBatch
from textqa.models.blanc.metric import BLANC, BLANCParams, stats_f
from textqa.models.blanc.store import save_blanc
from textqa.models.sklearn_data import same_numbers_anywhere
from textqa.runtime.paths import DATA_DIR, artifacts_dir

MT = DATA_DIR / "mt"
DEFAULT_TRAIN = [MT / "wmt21_toen_da_seg.tsv.gz", MT / "coling16_toen_da_seg.tsv.gz"]
DEFAULT_TEST = [MT / "wmt22_toen_da_seg.tsv.gz"]
DEFAULT_DATA = DEFAULT_TRAIN + DEFAULT_TEST
DEFAULT_SELECT = ["ja-en", "liv-en"]        # half of WMT22's pairs choose among the restarts; the others report

GRIDS = {
    "alpha": (0.0, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6),
    "beta": (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.8, 1.6, 3.2),
    "partial_weight": (0.0, 0.2, 0.35, 0.5, 0.65, 0.8, 1.0),
}


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
    from textqa.runtime import dask_cluster
    dask_cluster.add_arguments(p, None, "run the restarts")


# ------------------------------------------------------------------ data
class JudgedPairs:
    """Tokenised, aligned pairs of some TSVs, with groups (file:lang_pair) and systems."""

    def __init__(self, paths: list[Path], base: BLANCParams, segments_per_pair: int | None = None):
        """Rows without a human score (``NA`` in a system-outputs file) are left out;
        ``segments_per_pair`` keeps each language pair's first N segment ids (every system's)."""
        self.rows = []
        for path in paths:
            kept: dict = {}
            for r in read_mt_tsv(path, allow_empty=True, need_scores=False):
                if r.human_score is None:
                    continue
                if segments_per_pair is not None:
                    segs = kept.setdefault(r.lang_pair, set())
                    if r.seg_id not in segs:
                        if len(segs) >= segments_per_pair:
                            continue
                        segs.add(r.seg_id)
                self.rows.append((Path(path).name.split("_")[0] + ":" + r.lang_pair, r))
        metric = BLANC(base)
        self.n_acs = base.max_k
        hyps = [metric.tokens(r.hypothesis) for _, r in self.rows]
        refs = [metric.tokens(r.reference) for _, r in self.rows]
        self.batch = PairBatch(hyps, refs, base.matching, base.prefix_len, partial=base.partial_weight > 0)
        # the character and word n-gram levels do not depend on what is climbed: computed once
        self.clipped = metric.clipped_batch([r.hypothesis for _, r in self.rows], [r.reference for _, r in self.rows])
        self.human = np.array([r.human_score for _, r in self.rows])
        names = [g for g, _ in self.rows]
        self.groups = {g: np.array([i for i, n in enumerate(names) if n == g]) for g in sorted(set(names))}
        systems = [(g, r.system) for g, r in self.rows]
        keys = sorted(set(systems))
        index = {k: i for i, k in enumerate(keys)}
        self.system_of = np.array([index[k] for k in systems])
        self.system_keys = keys
        self.system_human = np.bincount(self.system_of, self.human) / np.bincount(self.system_of)
        self.system_groups = {g: np.array([i for i, k in enumerate(keys) if k[0] == g]) for g in self.groups}

    def stats(self, alpha: float, beta: float, partial_weight: float, max_k: int, gap_side: str) -> np.ndarray:
        """[N, 3, K + character and word n-gram orders]: the ACS sizes for these decays, then the
        fixed clipped levels."""
        acs = self.batch.stats(alpha, beta, partial_weight, max_k, gap_side)
        return np.concatenate([acs, self.clipped], axis=2) if self.clipped.shape[2] else acs

    def system_totals(self, stats: np.ndarray) -> np.ndarray:
        """[systems, 3, columns]: each system's statistics summed (its corpus score's)."""
        total = np.zeros((len(self.system_keys),) + stats.shape[1:])
        np.add.at(total, self.system_of, stats)
        return total


def _corr(x: np.ndarray, y: np.ndarray, method: str) -> float:
    if len(x) < 3 or x.std() == 0 or y.std() == 0:
        return math.nan
    if method == "pearson":
        return float(np.corrcoef(x, y)[0, 1])
    from scipy import stats
    if method == "spearman":
        return float(stats.spearmanr(x, y).statistic)
    return float(stats.kendalltau(x, y, variant="b").statistic)


def correlations(data: JudgedPairs, stats: np.ndarray, weights, beta_f: float, level: str = "segment",
                 method: str = "pearson", aggregated: bool = False) -> dict:
    """Per group correlation of BLANC with the human scores, and their average (each group, a
    language pair of a file, weighs the same).  At system level ``stats`` may already be
    ``data.system_totals`` (``aggregated``)."""
    if level == "segment":
        scores = stats_f(stats, weights, beta_f, data.n_acs)
        out = {g: _corr(scores[idx], data.human[idx], method) for g, idx in data.groups.items()}
    else:
        total = stats if aggregated else data.system_totals(stats)
        scores = stats_f(total, weights, beta_f, data.n_acs)
        out = {g: _corr(scores[idx], data.system_human[idx], method) for g, idx in data.system_groups.items()}
    return averaged(out, list(out))


def averaged(corr: dict, groups) -> dict:
    """``groups``' correlations from ``corr`` and their average (NaNs left out, as ``correlations`` does)."""
    vals = [corr[g] for g in groups if not math.isnan(corr[g])]
    return {**{g: corr[g] for g in groups}, "average": sum(vals) / len(vals) if vals else math.nan}


# ------------------------------------------------------------------ hill climbing
class _Objective:
    def __init__(self, data: JudgedPairs, max_k: int, gap_side: str, level: str, method: str, cache_size=48):
        self.data, self.max_k, self.gap_side, self.level, self.method = data, max_k, gap_side, level, method
        self.cache: OrderedDict = OrderedDict()
        self.cache_size = cache_size

    def stats(self, ai: int, bi: int, pi: int) -> np.ndarray:
        key = (ai, bi, pi)
        if key not in self.cache:
            stats = self.data.stats(GRIDS["alpha"][ai], GRIDS["beta"][bi], GRIDS["partial_weight"][pi],
                                    self.max_k, self.gap_side)
            # at system level only the systems' sums matter: cached instead of every segment's
            self.cache[key] = self.data.system_totals(stats) if self.level == "system" else stats
            if len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        self.cache.move_to_end(key)
        return self.cache[key]

    def __call__(self, state) -> float:
        ai, bi, pi, w, rho = state
        r = correlations(self.data, self.stats(ai, bi, pi), w, beta_f_of(rho), self.level, self.method,
                         aggregated=True)["average"]
        return -1.0 if math.isnan(r) else r


RHO_MAX = 0.999999          # recall weight beta^2 / (1 + beta^2) < 1 (1 would be recall alone: beta = inf)


def beta_f_of(rho: float) -> float:
    """beta_F of a recall weight rho: F = P R / (rho P + (1 - rho) R) = F_beta with beta^2 = rho / (1 - rho)."""
    return math.sqrt(rho / (1.0 - rho)) if rho > 0 else 1e-6


def _neighbours(state, partial_allowed: bool):
    """The decays one grid step either way; each weight times or divided by 1.5 (below 1e-3 it
    becomes 0) and plus 0.05 (so that a level at 0 can enter); the recall weight rho by 0.01 and
    0.05 either way within [0, RHO_MAX].  Weights are renormalised to sum 1."""
    ai, bi, pi, w, rho = state
    for name, i, pos in (("alpha", ai, 0), ("beta", bi, 1), ("partial_weight", pi, 2)):
        if name == "partial_weight" and not partial_allowed:
            continue
        for step in (-1, 1):
            j = i + step
            if 0 <= j < len(GRIDS[name]):
                s = list(state)
                s[pos] = j
                yield tuple(s)
    for k in range(len(w)):
        for change in ("up", "down", "add"):
            w2 = np.array(w, dtype=float)
            if change == "add":
                w2[k] += 0.05
            else:
                w2[k] = w2[k] * (1.5 if change == "up" else 1 / 1.5)
                if w2[k] < 1e-3:
                    w2[k] = 0.0
            if w2.sum() > 0 and not np.array_equal(w2, w):
                yield (ai, bi, pi, tuple(float(x) for x in w2 / w2.sum()), rho)
    for d in (-0.05, -0.01, 0.01, 0.05):
        r2 = float(min(max(rho + d, 0.0), RHO_MAX))
        if r2 != rho:
            yield (ai, bi, pi, w, r2)


def hill_climb(objective: _Objective, start, max_steps: int, partial_allowed: bool = True, path=None):
    """Steepest ascent: move to the best neighbour while it improves the objective.  ``path``, a
    list, receives every (state, value) visited (the start first), for selection along the climb."""
    state, value = start, objective(start)
    if path is not None:
        path.append((state, value))
    for _ in range(max_steps):
        best, best_v = None, value
        for cand in _neighbours(state, partial_allowed):
            v = objective(cand)
            if v > best_v + 1e-6:
                best, best_v = cand, v
        if best is None:
            break
        state, value = best, best_v
        if path is not None:
            path.append((state, value))
    return state, value


def _start(i: int, rng: np.random.Generator, max_k: int, partial_allowed: bool, n_char: int = 0, n_wng: int = 0):
    """Restart i's starting point: 0 chrF (when there is a character level), 1 chrF++ (when there
    are word n-grams too), then the earlier default (no gap decay, some displacement decay, uniform
    ACS sizes, F1), then random points.  rho = 0.8 is chrF's beta = 2."""
    beta0, partial0 = GRIDS["beta"].index(0.4), GRIDS["partial_weight"].index(0.5) if partial_allowed else 0
    fixed = []
    if n_char:
        fixed.append((0, beta0, partial0, tuple([0.0] * max_k + [1.0 / n_char] * n_char + [0.0] * n_wng), 0.8))
        if n_wng:
            u = 1.0 / (n_char + n_wng)
            fixed.append((0, beta0, partial0, tuple([0.0] * max_k + [u] * (n_char + n_wng)), 0.8))
    fixed.append((0, beta0, partial0, tuple([1.0 / max_k] * max_k + [0.0] * (n_char + n_wng)), 0.5))
    if i < len(fixed):
        return fixed[i]
    w = rng.dirichlet(np.ones(max_k + n_char + n_wng))
    return (int(rng.integers(len(GRIDS["alpha"]))), int(rng.integers(len(GRIDS["beta"]))),
            int(rng.integers(len(GRIDS["partial_weight"]))) if partial_allowed else 0,
            tuple(float(x) for x in w), float(rng.uniform(0.2, 0.95)))


@same_numbers_anywhere
def _restart(data, i, seed, args_tuple):
    max_k, gap_side, level, method, max_steps, partial_allowed, n_char, n_wng = args_tuple
    rng = np.random.default_rng([seed, i])
    objective = _Objective(data, max_k, gap_side, level, method)
    t = time.perf_counter()
    path: list = []
    state, value = hill_climb(objective, _start(i, rng, max_k, partial_allowed, n_char, n_wng), max_steps,
                              partial_allowed, path)
    return i, state, value, time.perf_counter() - t, path


def params_of(state, base: BLANCParams) -> BLANCParams:
    ai, bi, pi, w, rho = state
    K, Nc = base.max_k, len(base.char_weights)
    w = [round(float(x), 4) for x in w]
    d = base.to_dict()
    d.update(alpha=GRIDS["alpha"][ai], beta=GRIDS["beta"][bi], partial_weight=GRIDS["partial_weight"][pi],
             size_weights=w[:K], char_weights=w[K:K + Nc], word_ngram_weights=w[K + Nc:],
             beta_f=round(beta_f_of(rho), 4))
    return BLANCParams.from_dict(d)


# ------------------------------------------------------------------ run
def run(args: argparse.Namespace) -> int:
    """Train; with ``--scheduler`` the joblib loops run on a Dask cluster (the same artifact)."""
    from textqa.runtime import dask_cluster
    with dask_cluster.joblib_on(args.scheduler, args.workers, "textqa train blanc",
                           preload=("textqa.training.blanc",)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from joblib import Parallel, delayed

    from textqa.training.corpus import file_fingerprint

    t0 = time.perf_counter()
    say = lambda msg: print(f"[blanc {time.perf_counter() - t0:6.1f}s] {msg}", file=sys.stderr, flush=True)
    for f in list(args.train) + list(args.test):
        if not Path(f).is_file():
            raise SystemExit(f"error: {f}: no such file")
    partial_allowed = not args.no_partial
    if args.segments_per_pair is not None and args.segments_per_pair < 1:
        raise SystemExit("error: --segments-per-pair must be at least 1")
    if args.char_orders < 0 or args.word_ngram_orders < 0 or args.max_k < 1:
        raise SystemExit("error: --max-k must be >= 1, --char-orders and --word-ngram-orders >= 0")
    base = BLANCParams(size_weights=[1.0] * args.max_k, matching=args.matching, gap_side=args.gap_side,
                       partial_weight=0.5 if partial_allowed else 0.0, lowercase=args.lowercase,
                       tokenize=args.tokenize, char_weights=[1.0] * args.char_orders,
                       char_max_gap=args.char_max_gap, char_alpha=args.char_alpha,
                       word_ngram_weights=[1.0] * args.word_ngram_orders)
    out = args.out or artifacts_dir(args.artifacts) / "blanc"
    try:
        say("reading and aligning " + ", ".join(p.name for p in args.train))
        train = JudgedPairs(args.train, base, args.segments_per_pair)
        say(f"{len(train.rows)} training pairs in {len(train.groups)} groups; "
            f"{args.restarts} restarts on " + (f"the Dask cluster {args.scheduler}" if args.scheduler
                                               else f"{args.jobs} process(es)"))
        spec = (args.max_k, args.gap_side, args.level, args.objective, args.max_steps, partial_allowed,
                args.char_orders, args.word_ngram_orders)
        results = []
        paths = {}
        from tqdm import tqdm
        for i, state, value, secs, path in tqdm(Parallel(n_jobs=args.jobs, return_as="generator")(
                delayed(_restart)(train, i, args.seed, spec) for i in range(args.restarts)),
                total=args.restarts, desc="hill-climbing restarts", unit="restart", file=sys.stderr, disable=None):
            results.append((value, i, state))
            paths[i] = path
            q = params_of(state, base)
            say(f"restart {i + 1}/{args.restarts}: train {args.level} {args.objective} {value:.4f} (alpha {q.alpha}, "
                f"beta {q.beta}, partial {q.partial_weight}, beta_F {q.beta_f}, ACS {sum(q.size_weights):.2f}, "
                f"characters {sum(q.char_weights):.2f}, word n-grams {sum(q.word_ngram_weights):.2f}, {secs:.0f}s)")
        test = JudgedPairs(args.test, base) if args.test else None
        select = None
        select_pairs = args.select_pairs
        if select_pairs is None and [Path(t) for t in args.test] == DEFAULT_TEST:
            select_pairs = DEFAULT_SELECT
        if select_pairs:
            if test is None:
                raise SystemExit("error: --select-pairs needs --test data")
            wanted = set(select_pairs)
            select = {g: idx for g, idx in test.groups.items() if g.split(":", 1)[1] in wanted}
            if not select:
                raise SystemExit(f"error: none of {', '.join(sorted(wanted))} is a language pair of the test data "
                                 f"({', '.join(sorted(test.groups))})")

        test_stats: dict = {}

        def held_out(params):
            """Every test group's correlation with these parameters."""
            key = (params.alpha, params.beta, params.partial_weight)
            if key not in test_stats:
                st = test.stats(*key, args.max_k, args.gap_side)
                test_stats[key] = test.system_totals(st) if args.level == "system" else st
            return correlations(test, test_stats[key], params.weights, params.beta_f, args.level, args.objective,
                                aggregated=True)

        if select:
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
            corr, value, best_i, best_j, state = max(
                ranked, key=lambda r: (averaged(r[0], select)["average"], r[1], -r[2], r[3]))
            ends = {r[2]: r for r in ranked if r[3] == len(paths[r[2]]) - 1}
        else:
            value, best_i, state = max(results, key=lambda r: (r[0], -r[1]))
        params = params_of(state, base)
        stats = train.stats(params.alpha, params.beta, params.partial_weight, args.max_k, args.gap_side)
        metrics = {"train": correlations(train, stats, params.weights, params.beta_f, args.level, args.objective),
                   "level": args.level, "objective": args.objective, "best_restart": best_i,
                   "restart_values": [round(r[0], 4) for r in sorted(results, key=lambda r: r[1])],
                   "recall_weight": round(params.beta_f ** 2 / (1 + params.beta_f ** 2), 6)}
        if test is not None:
            say("scoring the held-out data " + ", ".join(p.name for p in args.test))
            if not select:
                corr = held_out(params)
            report = [g for g in test.groups if not select or g not in select]
            metrics["test"] = {"blanc": averaged(corr, report)}
            if select:
                metrics["selection"] = {"pairs": sorted(select), "blanc": averaged(corr, list(select)),
                                        "from": args.select_from, "step": best_j,
                                        "restarts": [round(averaged(ends[i][0], select)["average"], 4)
                                                     for i in sorted(ends)]}
            if not args.no_baselines:
                metrics.update(_held_out_baselines(args, test, report, params, test_stats, metrics["test"], say))
        metrics["training_seconds"] = round(time.perf_counter() - t0, 1)
        work = Path(tempfile.mkdtemp(prefix="blanc-plots-"))
        try:
            along = None
            if select and args.select_from == "path":      # the selection pairs' value at every point
                along = {}
                for corr_r, _, i, j, _ in sorted(ranked, key=lambda r: (r[2], r[3])):
                    along.setdefault(i, []).append(averaged(corr_r, select)["average"])
            files = _plots(work, paths, best_i, best_j if select else len(paths[best_i]) - 1, along,
                           test if test is not None else train, params, args)
            save_blanc(params, out, metrics=metrics, data_fingerprint=file_fingerprint(args.train),
                       extra={"training_data": [str(p) for p in args.train], "test_data": [str(p) for p in args.test]},
                       files=files)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    except InputError as e:
        raise SystemExit(f"error: {e}") from e
    say(f"wrote {out} (params.json, plots: hill_climbing.png, human_vs_blanc.png)")
    print(f"parameters: {BLANC(params).signature()}")
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
    return 0


def _plots(work: Path, paths: dict, best_i: int, best_j: int, selection, data: JudgedPairs, params: BLANCParams,
           args) -> dict:
    """``hill_climbing.png`` (each restart's objective along its climb, and the selection pairs'
    correlation at each point when the parameters were selected along the climbs) and
    ``human_vs_blanc.png`` (segment BLANC with the kept parameters against the human scores, per
    language pair of the held-out data, or of the training data without --test)."""
    from textqa.evaluation.plots import climb_traces, metric_vs_human
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
    from dataclasses import replace

    from textqa.evaluation.mt import bootstrap_average_pearsons
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
