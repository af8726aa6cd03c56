"""A whole ROUGE-1.5.5.pl run over a configuration's evaluations (:mod:`textqa.evaluation.rouge`
scores one evaluation; this module runs them all, in the script's order, and writes its lines)."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .rouge import Options, Scorer, averages
from .rouge_input import Evaluation, Resources


def _perl_number(x) -> str:
    """Perl's default number formatting (``%.15g``)."""
    if isinstance(x, str):
        return x
    return f"{x:.15g}"


def _by_eval_id(ids: list[str]) -> list[str]:
    """``by_evalID``: numeric order of leading digits when both ids have them, string order otherwise."""
    def cmp(a, b):
        ma, mb = re.match(r"[0-9]+", a), re.match(r"[0-9]+", b)
        if ma and mb:
            x, y = int(ma.group()), int(mb.group())
        else:
            x, y = a, b
        return (x > y) - (x < y)
    return sorted(ids, key=functools.cmp_to_key(cmp))


@dataclass
class MeasureResult:
    peer: str
    tag: str
    per_eval: dict          # test id -> (R, P, F) strings, or (model, peer, hit) counts with -t 1/2
    average: dict


def evaluate(evals: list[Evaluation], peer_ids: list[str], options: Options,
             resources: Resources | None = None, warn=None, progress=None, scorer: Scorer | None = None):
    """Yield a ``MeasureResult`` per peer and measure, in the script's order (peers as given,
    measures ROUGE-N, L, W, S/SU).  ``warn`` receives the script's missing-peer warnings; ``scorer``:
    one already made with ``options`` (its files read once)."""
    scorer = scorer or Scorer(options, resources)
    model_files = {mp for e in evals for mp in e.model_paths()}    # read again by later peers: kept
    known_missing: set = set()
    for pid in peer_ids:
        for tag, kind, params in options.measures():
            per_eval = {}
            for e in evals:
                if pid not in e.peers:
                    if (e.id, pid) not in known_missing and warn:
                        warn(f"*ROUGE Warning: test instance for peer {pid} does not exist for evaluation {e.id}")
                    known_missing.add((e.id, pid))
                    continue
                models = [scorer.summary(mp, e.fmt, missing="Cannot find model summary") for mp in e.model_paths()]
                peer = scorer.summary(e.peer_path(pid), e.fmt)
                mc, hit, pc, r, p, f = scorer.score(kind, params, models, peer)
                test_id = f"{e.id}.{pid}"
                if test_id not in per_eval:
                    per_eval[test_id] = (r, p, f) if options.average == 0 else (mc, pc, hit)
                if progress:
                    progress()
            rows = [per_eval[k] for k in sorted(per_eval)]
            yield MeasureResult(pid, tag, per_eval, averages(rows, options))
        scorer.forget({e.peer_path(pid) for e in evals if pid in e.peers} - model_files)


def format_result(res: MeasureResult, options: Options) -> list[str]:
    """``printResults``: the lines ROUGE-1.5.5.pl prints for one peer and measure."""
    a, head = res.average, f"{res.peer} {res.tag}"
    lines = ["---------------------------------------------"]
    if options.average in (0, 1):
        for k in "RPF":
            lines.append(f"{head} Average_{k}: {a['Avg' + k]} ({options.confidence}%-conf.int. {a['CIAvgL_' + k]} - {a['CIAvgU_' + k]})")
    else:
        lines.append(f"{head} M_count: {int(a['M_cnt'])} P_count: {int(a['P_cnt'])} H_count: {int(a['H_cnt'])}")
    if options.per_eval:
        lines.append(".............................................")
        for k in _by_eval_id(list(res.per_eval)):
            r, p, f = res.per_eval[k]
            lines.append(f"{head} Eval {k} R:{_perl_number(r)} P:{_perl_number(p)} F:{_perl_number(f)}")
    return lines


def as_json(res: MeasureResult, options: Options) -> dict:
    a = res.average
    out = {"peer": res.peer, "measure": res.tag}
    if options.average in (0, 1):
        for k, name in zip("RPF", ("recall", "precision", "f")):
            out[name] = float(a["Avg" + k])
            out[f"{name}_ci"] = [float(a["CIAvgL_" + k]), float(a["CIAvgU_" + k])]
    else:
        out.update(model_count=int(a["M_cnt"]), peer_count=int(a["P_cnt"]), hit_count=int(a["H_cnt"]))
    if options.per_eval:
        out["evaluations"] = {k: [float(v) for v in res.per_eval[k]] for k in _by_eval_id(list(res.per_eval))}
    return out
