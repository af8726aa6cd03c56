"""Train BLANC's parameters on human judgments of MT (Lita, Rogati & Lavie 2005, section 5).

Hill climbing from several random starting points over the gap decay alpha, the gap-
difference decay beta, the partial-match weight, the skip-ngram size weights and beta_F,
maximising the correlation of BLANC with human scores (Pearson by default; Spearman or
Kendall tau-b), at segment level or system level, computed per language pair of each
training file and averaged.  Restarts run in parallel (joblib); a fixed seed makes the
result reproducible.  The default trains on WMT21 DA + COLING-16 DA and reports on WMT22 DA,
never seen in training.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from textqa.evaluation.io import EvalInputError
from textqa.evaluation.mt import SENTENCE_BASELINES, read_mt_tsv
from textqa.models.blanc.batch import PairBatch
from textqa.models.blanc.metric import BLANC, BLANCParams, stats_f
from textqa.models.blanc.store import save_blanc
from textqa.models.sklearn_data import same_numbers_anywhere
from textqa.paths import DATA_DIR, artifacts_dir

MT = DATA_DIR / "mt"
DEFAULT_TRAIN = [MT / "wmt21_toen_da_seg.tsv.gz", MT / "coling16_toen_da_seg.tsv.gz"]
DEFAULT_TEST = [MT / "wmt22_toen_da_seg.tsv.gz"]
DEFAULT_DATA = DEFAULT_TRAIN + DEFAULT_TEST

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
    p.add_argument("--objective", choices=["pearson", "spearman", "kendall"], default="pearson")
    p.add_argument("--restarts", type=int, default=6, help="hill-climbing starting points (default 6)")
    p.add_argument("--max-steps", type=int, default=60, help="hill-climbing steps per restart")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="parallel restarts")
    p.add_argument("--max-k", type=int, default=4, help="largest skip-ngram size (default 4)")
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
    from textqa import cluster
    cluster.add_arguments(p, None, "run the restarts")


# ------------------------------------------------------------------ data
class JudgedPairs:
    """Tokenised, aligned pairs of some TSVs, with groups (file:lang_pair) and systems."""

    def __init__(self, paths: list[Path], base: BLANCParams):
        self.rows = []
        for path in paths:
            for r in read_mt_tsv(path, allow_empty=True):
                self.rows.append((Path(path).name.split("_")[0] + ":" + r.lang_pair, r))
        metric = BLANC(base)
        hyps = [metric.tokens(r.hypothesis) for _, r in self.rows]
        refs = [metric.tokens(r.reference) for _, r in self.rows]
        self.batch = PairBatch(hyps, refs, base.matching, base.prefix_len, partial=base.partial_weight > 0)
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
                 method: str = "pearson") -> dict:
    """Per group correlation of BLANC with the human scores, and their average."""
    if level == "segment":
        scores = stats_f(stats, weights, beta_f)
        out = {g: _corr(scores[idx], data.human[idx], method) for g, idx in data.groups.items()}
    else:
        total = np.zeros((len(data.system_keys),) + stats.shape[1:])
        np.add.at(total, data.system_of, stats)
        scores = stats_f(total, weights, beta_f)
        out = {g: _corr(scores[idx], data.system_human[idx], method) for g, idx in data.system_groups.items()}
    valid = [v for v in out.values() if not math.isnan(v)]
    out["average"] = sum(valid) / len(valid) if valid else math.nan
    return out


# ------------------------------------------------------------------ hill climbing
class _Objective:
    def __init__(self, data: JudgedPairs, max_k: int, gap_side: str, level: str, method: str, cache_size=48):
        self.data, self.max_k, self.gap_side, self.level, self.method = data, max_k, gap_side, level, method
        self.cache: OrderedDict = OrderedDict()
        self.cache_size = cache_size

    def stats(self, ai: int, bi: int, pi: int) -> np.ndarray:
        key = (ai, bi, pi)
        if key not in self.cache:
            self.cache[key] = self.data.batch.stats(GRIDS["alpha"][ai], GRIDS["beta"][bi],
                                                    GRIDS["partial_weight"][pi], self.max_k, self.gap_side)
            if len(self.cache) > self.cache_size:
                self.cache.popitem(last=False)
        self.cache.move_to_end(key)
        return self.cache[key]

    def __call__(self, state) -> float:
        ai, bi, pi, w, bf = state
        r = correlations(self.data, self.stats(ai, bi, pi), w, bf, self.level, self.method)["average"]
        return -1.0 if math.isnan(r) else r


def _neighbours(state, partial_allowed: bool):
    ai, bi, pi, w, bf = state
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
        for factor in (1.5, 1 / 1.5):
            w2 = np.array(w, dtype=float)
            w2[k] = max(w2[k] * factor, 1e-3)
            yield (ai, bi, pi, tuple(w2 / w2.sum()), bf)
    for factor in (1.25, 1 / 1.25):
        yield (ai, bi, pi, w, float(min(max(bf * factor, 0.1), 30.0)))


def hill_climb(objective: _Objective, start, max_steps: int, partial_allowed: bool = True):
    """Steepest ascent: move to the best neighbour while it improves the objective."""
    state, value = start, objective(start)
    for _ in range(max_steps):
        best, best_v = None, value
        for cand in _neighbours(state, partial_allowed):
            v = objective(cand)
            if v > best_v + 1e-6:
                best, best_v = cand, v
        if best is None:
            break
        state, value = best, best_v
    return state, value


def _start(i: int, rng: np.random.Generator, max_k: int, partial_allowed: bool):
    if i == 0:      # a sensible default: no gap decay, some displacement decay, uniform sizes, F1
        return (0, GRIDS["beta"].index(0.4), GRIDS["partial_weight"].index(0.5) if partial_allowed else 0,
                tuple([1.0 / max_k] * max_k), 1.0)
    w = rng.dirichlet(np.ones(max_k))
    return (int(rng.integers(len(GRIDS["alpha"]))), int(rng.integers(len(GRIDS["beta"]))),
            int(rng.integers(len(GRIDS["partial_weight"]))) if partial_allowed else 0,
            tuple(float(x) for x in w), float(np.exp(rng.uniform(np.log(0.5), np.log(3.0)))))


@same_numbers_anywhere
def _restart(data, i, seed, args_tuple):
    max_k, gap_side, level, method, max_steps, partial_allowed = args_tuple
    rng = np.random.default_rng([seed, i])
    objective = _Objective(data, max_k, gap_side, level, method)
    t = time.perf_counter()
    state, value = hill_climb(objective, _start(i, rng, max_k, partial_allowed), max_steps, partial_allowed)
    return i, state, value, time.perf_counter() - t


def params_of(state, base: BLANCParams) -> BLANCParams:
    ai, bi, pi, w, bf = state
    d = base.to_dict()
    d.update(alpha=GRIDS["alpha"][ai], beta=GRIDS["beta"][bi], partial_weight=GRIDS["partial_weight"][pi],
             size_weights=[round(float(x), 4) for x in w], beta_f=round(float(bf), 4))
    return BLANCParams.from_dict(d)


# ------------------------------------------------------------------ run
def run(args: argparse.Namespace) -> int:
    """Train; with ``--scheduler`` the joblib loops run on a Dask cluster (the same artifact)."""
    from textqa import cluster
    with cluster.joblib_on(args.scheduler, args.workers, "textqa train blanc"):
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
    base = BLANCParams(size_weights=[1.0] * args.max_k, matching=args.matching, gap_side=args.gap_side,
                       partial_weight=0.5 if partial_allowed else 0.0, lowercase=args.lowercase,
                       tokenize=args.tokenize)
    out = args.out or artifacts_dir(args.artifacts) / "blanc"
    try:
        say("reading and aligning " + ", ".join(p.name for p in args.train))
        train = JudgedPairs(args.train, base)
        say(f"{len(train.rows)} training pairs in {len(train.groups)} groups; "
            f"{args.restarts} restarts on " + (f"the Dask cluster {args.scheduler}" if args.scheduler
                                               else f"{args.jobs} process(es)"))
        spec = (args.max_k, args.gap_side, args.level, args.objective, args.max_steps, partial_allowed)
        results = []
        for i, state, value, secs in Parallel(n_jobs=args.jobs, return_as="generator")(
                delayed(_restart)(train, i, args.seed, spec) for i in range(args.restarts)):
            results.append((value, i, state))
            q = params_of(state, base)
            say(f"restart {i + 1}/{args.restarts}: train {args.level} {args.objective} {value:.4f} (alpha {q.alpha}, "
                f"beta {q.beta}, partial {q.partial_weight}, beta_F {q.beta_f}, {secs:.0f}s)")
        value, best_i, state = max(results, key=lambda r: (r[0], -r[1]))
        params = params_of(state, base)
        stats = train.batch.stats(params.alpha, params.beta, params.partial_weight, args.max_k, args.gap_side)
        metrics = {"train": correlations(train, stats, params.size_weights, params.beta_f, args.level, args.objective),
                   "level": args.level, "objective": args.objective, "best_restart": best_i,
                   "restart_values": sorted(round(r[0], 4) for r in results)}
        if args.test:
            say("scoring the held-out data " + ", ".join(p.name for p in args.test))
            test = JudgedPairs(args.test, params)
            tstats = test.batch.stats(params.alpha, params.beta, params.partial_weight, args.max_k, args.gap_side)
            metrics["test"] = {"blanc": correlations(test, tstats, params.size_weights, params.beta_f, args.level,
                                                     args.objective)}
            if not args.no_baselines and args.level == "segment":
                for name in ("sentbleu", "chrf"):
                    say(f"baseline {name} on the held-out data")
                    scores = SENTENCE_BASELINES[name]([r.hypothesis for _, r in test.rows],
                                                      [r.reference for _, r in test.rows])
                    s = np.array(scores, dtype=float)
                    metrics["test"][name] = {g: _corr(s[idx], test.human[idx], args.objective)
                                             for g, idx in test.groups.items()}
                    vals = [v for v in metrics["test"][name].values() if not math.isnan(v)]
                    metrics["test"][name]["average"] = sum(vals) / len(vals)
        metrics["training_seconds"] = round(time.perf_counter() - t0, 1)
        save_blanc(params, out, metrics=metrics, data_fingerprint=file_fingerprint(args.train),
                   extra={"training_data": [str(p) for p in args.train], "test_data": [str(p) for p in args.test]})
    except EvalInputError as e:
        raise SystemExit(f"error: {e}") from e
    say(f"wrote {out}")
    print(f"parameters: {BLANC(params).signature()}")
    print(f"train {args.level} {args.objective} (average over {len(train.groups)} groups): "
          f"{metrics['train']['average']:.4f}")
    for name, corr in metrics.get("test", {}).items():
        cells = "  ".join(f"{g} {v:.4f}" for g, v in corr.items() if g != "average")
        print(f"test  {name:<9}{corr['average']:.4f}   ({cells})")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m textqa.training.blanc", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
