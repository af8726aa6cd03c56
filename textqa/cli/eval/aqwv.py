"""textqa eval aqwv --ref DIR --sys DIR | --qrels F --run F --threshold T --collection-size N"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import print_json
from textqa.errors import InputError
from textqa.evaluation.aqwv import read_folders
from textqa.evaluation.rank import read_qrels, read_run
from textqa.metrics import AQWV, RankedAQWV

HELP = "MATERIAL AQWV and Modified AQWV from <QueryID>.tsv folders or TREC files"
DESCRIPTION = ("AQWV (eq. 2) and Modified AQWV (eq. 3, the primary metric) of the IARPA MATERIAL OP1 plan, "
               "plus the best threshold over the system's confidences.\n\n"
               "Folders hold one <QueryID>.tsv per query (plan section 6.2-6.4):\n"
               "  reference: DocID<TAB>Y|N\n"
               "  system:    DocID<TAB>Y|N<TAB>confidence[<TAB>metadata]\n"
               "confidence: one digit, a point, 1-5 digits, in [0.0, 1.0]; every reference document must be "
               "present; no N may have a higher confidence than a Y.\n\n"
               "Or TREC files: --qrels, --run, --threshold and --collection-size; unjudged documents count as "
               "non-relevant.")


def add_arguments(p) -> None:
    p.add_argument("--ref", type=Path, help="reference folder (text mode)")
    p.add_argument("--sys", type=Path, help="system output folder (text mode)")
    p.add_argument("--ref-speech", type=Path, help="reference folder (speech mode)")
    p.add_argument("--sys-speech", type=Path, help="system output folder (speech mode)")
    p.add_argument("--qrels", type=Path, help="TREC qrels (instead of folders; relevant = level > 0)")
    p.add_argument("--run", type=Path, help="TREC run; documents scored >= --threshold count as returned")
    p.add_argument("--threshold", type=float, help="decision threshold on the run's scores")
    p.add_argument("--collection-size", type=int, help="documents in the collection (N_Total, for P_FA)")
    p.add_argument("--beta", type=float, default=40.0, help="false-alarm weight beta (default 40)")


def _modes(args) -> dict:
    modes = {}
    for mode, ref, sys_dir, flags in (("text", args.ref, args.sys, "--ref and --sys"),
                                      ("speech", args.ref_speech, args.sys_speech, "--ref-speech and --sys-speech")):
        if ref or sys_dir:
            if not (ref and sys_dir):
                raise InputError(f"{flags} go together")
            modes[mode] = (ref, sys_dir)
    trec = [args.qrels, args.run, args.threshold, args.collection_size]
    if any(x is not None for x in trec):
        if modes or any(x is None for x in trec):
            raise InputError("TREC input needs --qrels, --run, --threshold and --collection-size "
                                 "(and no --ref/--sys)")
    elif not modes:
        raise InputError("give --ref and --sys (and/or --ref-speech and --sys-speech), or TREC --qrels and --run")
    return modes


def format_report(tables: dict) -> str:
    out = []
    for mode, r in tables.items():
        out.append(f"[{mode}]")
        for k in ("aqwv", "modified_aqwv", "best_qwv", "best_threshold"):
            if k in r:
                out.append(f"  {k:<15}{'none (return nothing)' if r[k] is None else format(r[k], '.4f')}")
        for qid, q in sorted(r.get("queries", {}).items()):
            qv = "undefined" if q["qv"] is None else f"{q['qv']:.4f}"
            pm = "-" if q["p_miss"] is None else f"{q['p_miss']:.4f}"
            out.append(f"  {qid:<20} P_miss {pm:>7}  P_fa {q['p_fa']:.5f}  QV {qv}")
    return "\n".join(out)


def run(args) -> int:
    modes = _modes(args)
    metric = AQWV(args.beta)
    if modes:
        scores = {mode: metric.score(*read_folders(ref, sys_dir)) for mode, (ref, sys_dir) in modes.items()}
        tables = {mode: {**s.as_dict(), "beta": metric.beta} for mode, s in scores.items()}
        if len(scores) > 1:
            tables["average"] = {**AQWV.average(scores), "beta": metric.beta}
    else:
        score = RankedAQWV(args.threshold, args.collection_size, args.beta).score(read_qrels(args.qrels),
                                                                                   read_run(args.run))
        tables = {"trec": {**score.as_dict(), "beta": metric.beta}}
    result = next(iter(tables.values())) if len(tables) == 1 else tables
    if args.json:
        print_json(result)
    else:
        print(format_report(tables))
    return 0
