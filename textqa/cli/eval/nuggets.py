"""textqa eval nuggets --key F (--responses F [--judgements F] | --trec-judged F...)"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import print_json
from textqa.errors import InputError
from textqa.runtime.json_input import parse_json
from textqa.evaluation.nugget import read_answer_key
from textqa.evaluation.nuggeteer import read_judgements, read_responses, read_trec_other_judged
from textqa.metrics import Nuggeteer

HELP = "nugget F of TREC definition/other/relationship answers (Nuggeteer)"
DESCRIPTION = ("Official nugget F (Marton & Radul 2006, figure 3) of each run, with Nuggeteer's automatic "
               "judgement for responses no person judged.\n\n"
               "--key: a NIST answer key as NIST wrote it ('Qid N: ...' headers and "
               "'<qid> <no><TAB>vital|okay<TAB>text', or pyramid '<qid><TAB><no><TAB><weight><TAB>text')\n"
               "--responses: qid<TAB>run<TAB>response_no<TAB>text\n"
               "--judgements: qid<TAB>nugget numbers (comma-separated, empty = none)<TAB>response text\n"
               "--trec-judged: NIST's judged 'other' files (RUN-X.otherjudged): lines "
               "'qid tag item docno string' and 'qid tag item nugget'; they give both responses and judgements\n\n"
               "--threshold bayes picks thresholds by Bayesian model selection over global, per-question and "
               "per-nugget models fitted to the judged responses (paper section 4.4, table 4).")


def _threshold(value: str):
    if value == "bayes":
        return value
    try:
        return float(value)
    except ValueError:
        raise InputError(f"--threshold: {value!r} is neither a number nor 'bayes'") from None


def add_arguments(p) -> None:
    p.add_argument("--key", type=Path, required=True, help="answer key file")
    p.add_argument("--responses", type=Path, help="system responses of one or more runs")
    p.add_argument("--judgements", type=Path, help="known judgements, reused exactly")
    p.add_argument("--trec-judged", type=Path, nargs="+", metavar="FILE",
                   help="NIST judged run files (responses and judgements)")
    p.add_argument("--threshold", default="0.5", help="recall threshold, or 'bayes' (default 0.5)")
    p.add_argument("--beta", type=float, default=3.0, help="F beta (default 3)")
    p.add_argument("--pyramid", action="store_true", help="pyramid recall with the key's weights")
    p.add_argument("--stem", action="store_true", help="Porter-stem words before matching")
    p.add_argument("--remove-stopwords", action="store_true", help="drop English stopwords before matching")
    p.add_argument("--questions", nargs="+", help="score only these question ids")
    p.add_argument("-v", "--verbose", action="store_true", help="per question: which response got which nugget")
    p.add_argument("--compare-with", type=Path, metavar="JSON",
                   help="another 'textqa eval nuggets --json' output (e.g. official scores): count its scores "
                        "outside this scoring's 95%% intervals and plot them (paper figure 5)")
    p.add_argument("--plot", type=Path, help="PNG for --compare-with (default nuggets.png)")


def _inputs(args):
    if not (args.responses or args.trec_judged):
        raise InputError("give --responses (with optional --judgements) or --trec-judged")
    runs = read_responses(args.responses) if args.responses else {}
    judgements = read_judgements(args.judgements) if args.judgements else {}
    if args.trec_judged:
        trec_runs, trec_judgements = read_trec_other_judged(args.trec_judged)
        for tag in set(runs) & set(trec_runs):
            raise InputError(f"run {tag} is in both --responses and --trec-judged")
        runs.update(trec_runs)
        for qid, known in trec_judgements.items():
            for text, nuggets in known.items():
                judgements.setdefault(qid, {}).setdefault(text, set()).update(nuggets)
    return runs, judgements


def _compare(args, result) -> None:
    try:
        reference = parse_json(Path(args.compare_with).read_bytes())["runs"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"{args.compare_with}: not the JSON output of 'textqa eval nuggets --json' ({e})") \
            from e
    common = sorted(set(reference) & set(result["runs"]))
    if not common:
        raise InputError(f"{args.compare_with}: no run in common with the scored runs")
    from textqa.evaluation.plots import reference_vs_estimate  # deferred: loads matplotlib
    est = result["runs"]
    plot = str(args.plot or "nuggets.png")
    outside = reference_vs_estimate(common, [reference[r]["f"] for r in common], [est[r]["f"] for r in common],
                                    [tuple(est[r]["ci95"]) for r in common], plot,
                                    xlabel=f"F ({Path(args.compare_with).name})", ylabel="F (this scoring)")
    result["comparison"] = {"runs": len(common), "reference_outside_ci95": outside, "plot": plot}


def run(args) -> int:
    key = read_answer_key(args.key)
    runs, judgements = _inputs(args)
    if args.questions:
        missing = [q for q in args.questions if q not in key]
        if missing:
            raise InputError(f"{args.key}: no question {missing[0]}")
        key = {q: key[q] for q in args.questions}
    metric = Nuggeteer(_threshold(args.threshold), beta=args.beta, pyramid=args.pyramid, stem=args.stem,
                       remove_stopwords=args.remove_stopwords)
    scores = metric.score(key, runs, judgements)
    selection = scores.threshold_selection
    result = scores.as_dict()
    if args.compare_with:
        _compare(args, result)
    if args.json:
        print_json(result)
        return 0
    if selection is not None:
        print(f"threshold selection over {selection['pairs']} judged (response, nugget) pairs "
              f"({selection['positive']} positive): log10 P(data | model)")
        for model, ev in selection["models"].items():
            print(f"  {model:<15}{ev:10.1f}{'   <- selected' if model == selection['selected'] else ''}")
    if "comparison" in result:
        c = result["comparison"]
        print(f"compared with {args.compare_with}: {c['reference_outside_ci95']} of {c['runs']} reference scores "
              f"outside the 95% interval; plot written to {c['plot']}")
    shown = args.threshold if selection is None else f"bayes/{selection['selected']}"
    print(f"{'run':<20}{'F':>8}  95% interval    ({len(key)} questions, beta {args.beta:g}, "
          f"threshold {shown}{', pyramid' if args.pyramid else ''})")
    for name, r in result["runs"].items():
        print(f"{name:<20}{r['f']:8.4f}  [{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}]")
        if args.verbose:
            for qid, q in r["questions"].items():
                got = ", ".join(f"{g}:{n['how'][0]}@{n['response']}" for g, n in q["nuggets"].items()
                                if n["response"] is not None)
                print(f"    {qid:<10} F {q['f']:.4f}  nuggets {got or '-'}")
    return 0
