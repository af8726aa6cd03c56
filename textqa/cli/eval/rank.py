"""textqa eval rank --qrels FILE --run FILE"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import print_json
from textqa.evaluation.rank import format_report, read_qrels, read_run
from textqa.metrics import TrecEval

HELP = "MAP, MRR, P@k, R-precision from TREC qrels and run files (trec_eval)"
DESCRIPTION = ("MAP, reciprocal rank, P@k and R-precision with trec_eval's conventions: query ids compared as "
               "strings, only queries in both files evaluated, ties broken by document id descending.\n\n"
               "qrels: 'qid iter docno rel' per line\n"
               "run:   'qid Q0 docno rank score tag' per line")


def add_arguments(p) -> None:
    p.add_argument("--qrels", type=Path, required=True, help="TREC qrels file")
    p.add_argument("--run", type=Path, required=True, help="TREC run file")
    p.add_argument("-k", type=int, nargs="+", default=[5, 10], help="cutoffs for P@k (default 5 10)")
    p.add_argument("--mrr-cutoff", type=int, default=None, help="count reciprocal rank only within the top N")
    p.add_argument("--relevance-level", type=int, default=1, help="minimum qrels level that is relevant (1)")


def run(args) -> int:
    metric = TrecEval(ks=args.k, relevance_level=args.relevance_level, mrr_cutoff=args.mrr_cutoff)
    s = metric.score(read_qrels(args.qrels), read_run(args.run))
    scores = {"map": s.map, "recip_rank": s.recip_rank, "Rprec": s.r_precision,
              **{f"P_{k}": p for k, p in s.precision_at.items()}, "num_q": s.queries, "num_ret": s.retrieved,
              "num_rel": s.relevant, "num_rel_ret": s.relevant_retrieved, "queries": s.per_query}
    if args.json:
        print_json(scores)
    else:
        print(format_report(scores))
    return 0
