"""textqa eval cpa --task 1|2|3 GOLD RUN"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import print_json
from textqa.evaluation import cpa
from textqa.metrics import CPA

HELP = "SemEval-2015 task 15 (CPA) scores for tasks 1, 2 and 3"
DESCRIPTION = ("SemEval-2015 task 15 scores as defined on the task page (default) or as the official scorer "
               "computes them (--as-official). Files are TSV, one line per item, # comments:\n"
               "  task 1: verb<TAB>item<TAB>layer<TAB>label   (layer: syntax or semantics)\n"
               "  task 2: verb<TAB>instance<TAB>cluster\n"
               "  task 3: verb<TAB>pattern<TAB>slot<TAB>semantic_type\n"
               "  --hierarchy (task 3): type<TAB>parent")


def add_arguments(p) -> None:
    p.add_argument("--task", type=int, choices=[1, 2, 3], required=True, help="subtask")
    p.add_argument("gold", type=Path, help="gold file")
    p.add_argument("run", type=Path, help="system run file")
    p.add_argument("--hierarchy", type=Path, help="semantic type hierarchy for task 3 partial credit")
    p.add_argument("--as-official", action="store_true",
                   help="reproduce the official scorer's deviations from the page (see README)")


def run(args) -> int:
    readers = {1: cpa.read_task1, 2: cpa.read_task2, 3: cpa.read_task3}
    gold, sys_out = readers[args.task](args.gold), readers[args.task](args.run)
    parents = cpa.read_hierarchy(args.hierarchy) if args.hierarchy and args.task == 3 else None
    score = CPA(args.task, official=args.as_official).score(gold, sys_out, parents)
    result = {"task": args.task, "as_official": args.as_official, "score": score.score, "verbs": score.verbs}
    if args.json:
        print_json(result)
        return 0
    print(f"task {args.task} score {result['score']:.4f}" + (" (as the official scorer)" if args.as_official else ""))
    names = {"precision": "P", "recall": "R", "f": "F", "score": "score"}
    for verb, v in result["verbs"].items():
        cells = "  ".join(f"{short} {v[k]:.4f}" for k, short in names.items() if isinstance(v.get(k), float))
        print(f"  {verb:<20}{cells}")
    return 0
