"""The ``textqa`` command: train, run, evaluate and serve the models.

    textqa train all | truecaser [...]
    textqa truecase [--model DIR] [--tokenized] [--baseline]     (stdin -> stdout)
    textqa eval truecase GOLD PRED [--json]
    textqa eval rank --qrels FILE --run FILE [--json]
    textqa eval agreement --distance nominal|jaccard|masi FILE.tsv [--json]
    textqa eval aqwv --ref DIR --sys DIR [--beta 40] [--json]
    textqa eval cpa --task 1|2|3 GOLD RUN [--hierarchy F] [--as-official] [--json]
    textqa eval nuggets --key F --responses F [--judgements F] [--json]
    textqa serve [--host --port --workers --artifacts]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from textqa import __version__
from textqa.paths import artifacts_dir


class CLIError(Exception):
    """A user error: printed as ``textqa: error: ...`` with exit status 2."""


# ---------------------------------------------------------------- train
TRAINERS = {"truecaser": "training.truecaser"}


def _trainer(name):
    import importlib
    return importlib.import_module(TRAINERS[name])


def cmd_train(args) -> int:
    if args.model == "all":
        root = artifacts_dir(args.artifacts)
        status = 0
        for name in TRAINERS:
            target = root / name
            if (target / "manifest.json").exists() and not args.force:
                print(f"textqa: {name}: artifact exists at {target} (use --force to retrain)", file=sys.stderr)
                continue
            mod = _trainer(name)
            missing = [str(f) for f in mod.DEFAULT_DATA if not Path(f).is_file()]
            if missing:
                print(f"textqa: {name}: skipped, training data not present: {', '.join(missing)}", file=sys.stderr)
                continue
            p = argparse.ArgumentParser()
            mod.add_arguments(p)
            sub_args = p.parse_args(["--artifacts", str(root)])
            status |= mod.run(sub_args)
        return status
    return _trainer(args.model).run(args)


# ---------------------------------------------------------------- truecase
def _read_stdin_lines():
    """Lines of stdin as text; bytes that are not UTF-8 pass through unchanged (surrogateescape)."""
    stream = sys.stdin.buffer
    for lineno, raw in enumerate(stream, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"textqa truecase: <stdin>:{lineno}: not valid UTF-8 at byte {e.start}; "
                  f"undecodable bytes are passed through unchanged", file=sys.stderr)
            line = raw.decode("utf-8", errors="surrogateescape")
        yield line


def cmd_truecase(args) -> int:
    from models.artifact import ArtifactError
    from models.truecaser.service_api import TruecaserService

    model_dir = args.model or artifacts_dir(args.artifacts) / "truecaser"
    try:
        service = TruecaserService.load(model_dir)
    except ArtifactError as e:
        raise CLIError(str(e)) from e
    out = sys.stdout.buffer
    batch: list[str] = []

    def flush():
        bodies = [l.rstrip("\r\n") for l in batch]
        ends = [l[len(b):] for l, b in zip(batch, bodies)]
        cased = service.truecase_tokenized(bodies, args.baseline) if args.tokenized else \
            service.truecase_texts(bodies, args.baseline)
        for c, e in zip(cased, ends):
            out.write((c + e).encode("utf-8", errors="surrogateescape"))
        out.flush()
        batch.clear()

    for line in _read_stdin_lines():
        batch.append(line)
        if len(batch) >= args.batch_size:
            flush()
    if batch:
        flush()
    return 0


# ---------------------------------------------------------------- eval
def cmd_eval_truecase(args) -> int:
    from evaluation.io import read_lines
    from evaluation.truecase import format_report, score_truecase
    scores = score_truecase(read_lines(args.gold), read_lines(args.pred), str(args.gold), str(args.pred))
    if args.json:
        print(json.dumps(scores.as_dict(max_errors=args.errors), indent=2))
    else:
        print(format_report(scores))
    return 0


def cmd_eval_rank(args) -> int:
    from evaluation.rank import format_report, read_qrels, read_run, score_run
    ks = tuple(sorted(set(args.k)))
    scores = score_run(read_qrels(args.qrels), read_run(args.run), ks=ks,
                       relevance_level=args.relevance_level, mrr_cutoff=args.mrr_cutoff).as_dict(ks=ks)
    if args.json:
        print(json.dumps(scores, indent=2))
    else:
        print(format_report(scores))
    return 0


def cmd_eval_agreement(args) -> int:
    from evaluation.agreement import krippendorff_alpha, read_agreement_tsv
    data = read_agreement_tsv(args.file)
    try:
        result = krippendorff_alpha(data, args.distance)
    except ValueError as e:
        raise CLIError(f"{args.file}: {e}") from e
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print("\n".join(f"{k:<22}{v:.6f}" if isinstance(v, float) else f"{k:<22}{v}" for k, v in result.items()))
    return 0


def cmd_eval_aqwv(args) -> int:
    from evaluation.aqwv import score_modes
    modes = {}
    if args.ref or args.sys:
        if not (args.ref and args.sys):
            raise CLIError("--ref and --sys go together")
        modes["text"] = (args.ref, args.sys)
    if args.ref_speech or args.sys_speech:
        if not (args.ref_speech and args.sys_speech):
            raise CLIError("--ref-speech and --sys-speech go together")
        modes["speech"] = (args.ref_speech, args.sys_speech)
    trec = [args.qrels, args.run, args.threshold, args.collection_size]
    if any(x is not None for x in trec):
        if modes or any(x is None for x in trec):
            raise CLIError("TREC input needs --qrels, --run, --threshold and --collection-size (and no --ref/--sys)")
    elif not modes:
        raise CLIError("give --ref and --sys (and/or --ref-speech and --sys-speech), or TREC --qrels and --run")
    try:
        if modes:
            result = score_modes(modes, beta=args.beta)
        else:
            from evaluation.aqwv import score_trec
            from evaluation.rank import read_qrels, read_run
            result = score_trec(read_qrels(args.qrels), read_run(args.run), args.threshold, args.collection_size,
                                args.beta).as_dict(args.beta)
            modes = {"trec": None}
    except ValueError as e:             # EvalInputError included
        raise CLIError(str(e)) from e
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    tables = {next(iter(modes)): result} if len(modes) == 1 else result
    for mode, r in tables.items():
        print(f"[{mode}]")
        for k in ("aqwv", "modified_aqwv", "best_qwv", "best_threshold"):
            if k in r:
                print(f"  {k:<15}{'none (return nothing)' if r[k] is None else format(r[k], '.4f')}")
        for qid, q in sorted(r.get("queries", {}).items()):
            qv = "undefined" if q["qv"] is None else f"{q['qv']:.4f}"
            pm = "-" if q["p_miss"] is None else f"{q['p_miss']:.4f}"
            print(f"  {qid:<20} P_miss {pm:>7}  P_fa {q['p_fa']:.5f}  QV {qv}")
    return 0


def cmd_eval_cpa(args) -> int:
    from evaluation import cpa
    readers = {1: cpa.read_task1, 2: cpa.read_task2, 3: cpa.read_task3}
    gold, run = readers[args.task](args.gold), readers[args.task](args.run)
    if args.task == 1:
        result = cpa.score_task1(gold, run, args.as_official)
    elif args.task == 2:
        result = cpa.score_task2(gold, run, args.as_official)
    else:
        parents = cpa.read_hierarchy(args.hierarchy) if args.hierarchy else {}
        result = cpa.score_task3(gold, run, parents, args.as_official)
    result = {"task": args.task, "as_official": args.as_official, **result}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"task {args.task} score {result['score']:.4f}" + (" (as the official scorer)" if args.as_official else ""))
        for verb, v in result["verbs"].items():
            score = v.get("score", v.get("f"))
            print(f"  {verb:<20}{score:.4f}")
    return 0


def cmd_eval_nuggets(args) -> int:
    from evaluation.nugget import read_answer_key
    from evaluation.nuggeteer import read_judgements, read_responses, score_runs
    key = read_answer_key(args.key)
    runs = read_responses(args.responses)
    judgements = read_judgements(args.judgements) if args.judgements else None
    if args.questions:
        missing = [q for q in args.questions if q not in key]
        if missing:
            raise CLIError(f"{args.key}: no question {missing[0]}")
        key = {q: key[q] for q in args.questions}
    result = score_runs(key, runs, judgements, threshold=args.threshold, beta=args.beta, pyramid=args.pyramid,
                        stem=args.stem, remove_stopwords=args.remove_stopwords)
    if args.compare_with:
        try:
            reference = json.loads(Path(args.compare_with).read_text(encoding="utf-8"))["runs"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise CLIError(f"{args.compare_with}: not the JSON output of 'textqa eval nuggets --json' ({e})") from e
        common = sorted(set(reference) & set(result["runs"]))
        if not common:
            raise CLIError(f"{args.compare_with}: no run in common with {args.responses}")
        from evaluation.plots import reference_vs_estimate
        est = result["runs"]
        outside = reference_vs_estimate(common, [reference[r]["f"] for r in common], [est[r]["f"] for r in common],
                                        [tuple(est[r]["ci95"]) for r in common], args.plot or "nuggets.png",
                                        xlabel=f"F ({Path(args.compare_with).name})", ylabel="F (this scoring)")
        result["comparison"] = {"runs": len(common), "reference_outside_ci95": outside,
                                "plot": str(args.plot or "nuggets.png")}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    if "comparison" in result:
        c = result["comparison"]
        print(f"compared with {args.compare_with}: {c['reference_outside_ci95']} of {c['runs']} reference scores "
              f"outside the 95% interval; plot written to {c['plot']}")
    print(f"{'run':<20}{'F':>8}  95% interval    ({len(key)} questions, beta {args.beta:g}, "
          f"threshold {args.threshold:g}{', pyramid' if args.pyramid else ''})")
    for run, r in result["runs"].items():
        print(f"{run:<20}{r['f']:8.4f}  [{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}]")
        if args.verbose:
            for qid, q in r["questions"].items():
                got = ", ".join(f"{g}:{n['how'][0]}@{n['response']}" for g, n in q["nuggets"].items()
                                if n["response"] is not None)
                print(f"    {qid:<10} F {q['f']:.4f}  nuggets {got or '-'}")
    return 0


# ---------------------------------------------------------------- serve
def cmd_serve(args) -> int:
    root = artifacts_dir(args.artifacts).resolve()
    env = dict(os.environ, TEXTQA_ARTIFACTS=str(root))
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"{args.host}:{args.port}", "--workers", str(args.workers),
           "--timeout", str(args.timeout), "--access-logfile", "-", "service.wsgi:app"]
    if args.preload:
        cmd.insert(-1, "--preload")
    print(f"textqa: serving {root} on http://{args.host}:{args.port} with {args.workers} gunicorn worker(s)",
          file=sys.stderr, flush=True)
    os.execve(sys.executable, cmd, env)
    return 0  # not reached


# ---------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="textqa", description="Train, run, evaluate and serve textqa models.")
    p.add_argument("--version", action="version", version=f"textqa {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    tr = sub.add_parser("train", help="train models and write their artifacts",
                        description="Train a model from data/ (or your data) and write its artifact.")
    trs = tr.add_subparsers(dest="model", required=True, metavar="MODEL")
    ta = trs.add_parser("all", help="train every model whose artifact is missing and whose data is present "
                                    "(what 'make run' calls)")
    ta.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                 "or ./artifacts)")
    ta.add_argument("--force", action="store_true", help="retrain models whose artifact exists")
    for name in TRAINERS:
        mod = _trainer(name)
        tp = trs.add_parser(name, help=(mod.__doc__ or "").strip().splitlines()[0],
                            description=mod.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        mod.add_arguments(tp)
    tr.set_defaults(func=cmd_train)

    tc = sub.add_parser("truecase", help="truecase stdin to stdout, one sentence/line at a time",
                        description="Read text from stdin, write it truecased to stdout, line by line "
                                    "(an MT/ASR post-processing filter). Only the case of letters changes.")
    tc.add_argument("--model", type=Path, default=None, help="truecaser artifact (default: <artifacts>/truecaser)")
    tc.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                 "or ./artifacts)")
    tc.add_argument("--tokenized", action="store_true",
                    help="input is already tokenized (whitespace-separated, PTB style); otherwise raw text "
                         "is tokenized internally")
    tc.add_argument("--baseline", action="store_true", help="use the unigram most-frequent-casing baseline")
    tc.add_argument("--batch-size", type=int, default=256, help="lines decoded together (default 256)")
    tc.set_defaults(func=cmd_truecase)

    ev = sub.add_parser("eval", help="score system output against a reference",
                        description="Score system output files against reference files.")
    evs = ev.add_subparsers(dest="metric", required=True, metavar="METRIC")
    et = evs.add_parser("truecase", help="word accuracy and P/R/F1 over non-lowercase tokens",
                        description="Word accuracy, and precision/recall/F1 over tokens that are not all "
                                    "lowercase (Susanto et al. 2016), plus an LC/UC/CA/MC confusion table. "
                                    "Both files: one tokenized sentence a line, the same tokens.")
    et.add_argument("gold", type=Path, help="reference file (true case)")
    et.add_argument("pred", type=Path, help="system output file")
    et.add_argument("--json", action="store_true", help="print JSON instead of a table")
    et.add_argument("--errors", type=int, default=0, help="with --json, list up to N wrong tokens")
    et.set_defaults(func=cmd_eval_truecase)

    er = evs.add_parser("rank", help="MAP, MRR, P@k, R-precision from TREC qrels and run files (trec_eval)",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="MAP, reciprocal rank, P@k and R-precision with trec_eval's conventions: query "
                                    "ids compared as strings, only queries in both files evaluated, ties broken "
                                    "by document id descending.\n\nqrels: 'qid iter docno rel' per line\n"
                                    "run:   'qid Q0 docno rank score tag' per line")
    er.add_argument("--qrels", type=Path, required=True, help="TREC qrels file")
    er.add_argument("--run", type=Path, required=True, help="TREC run file")
    er.add_argument("-k", type=int, nargs="+", default=[5, 10], help="cutoffs for P@k (default 5 10)")
    er.add_argument("--mrr-cutoff", type=int, default=None, help="count reciprocal rank only within the top N")
    er.add_argument("--relevance-level", type=int, default=1, help="minimum qrels level that is relevant (1)")
    er.add_argument("--json", action="store_true", help="print JSON (per-query scores under 'queries')")
    er.set_defaults(func=cmd_eval_rank)

    ea = evs.add_parser("agreement", help="Krippendorff's alpha with nominal, Jaccard or MASI distance",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Krippendorff's alpha over set-valued annotations (Passonneau 2006).\n\n"
                                    "FILE: one annotation a line, 'coder<TAB>unit<TAB>label[,label...]' (an empty "
                                    "label field is the empty set; lines starting with # are comments). Units coded "
                                    "by fewer than two coders are ignored. Two empty sets have distance 0.")
    ea.add_argument("file", type=Path, help="annotations TSV")
    ea.add_argument("--distance", choices=["nominal", "jaccard", "masi"], default="masi",
                    help="distance between two label sets (default masi)")
    ea.add_argument("--json", action="store_true", help="print JSON")
    ea.set_defaults(func=cmd_eval_agreement)

    eq = evs.add_parser("aqwv", help="MATERIAL AQWV and Modified AQWV from <QueryID>.tsv folders",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="AQWV (eq. 2) and Modified AQWV (eq. 3, the primary metric) of the IARPA "
                                    "MATERIAL OP1 plan, plus the best threshold over the system's confidences.\n\n"
                                    "Folders hold one <QueryID>.tsv per query (plan section 6.2-6.4):\n"
                                    "  reference: DocID<TAB>Y|N\n"
                                    "  system:    DocID<TAB>Y|N<TAB>confidence[<TAB>metadata]\n"
                                    "confidence: one digit, a point, 1-5 digits, in [0.0, 1.0]; every reference "
                                    "document must be present; no N may have a higher confidence than a Y.\n\n"
                                    "Or TREC files: --qrels, --run, --threshold and --collection-size; unjudged "
                                    "documents count as non-relevant.")
    eq.add_argument("--ref", type=Path, help="reference folder (text mode)")
    eq.add_argument("--sys", type=Path, help="system output folder (text mode)")
    eq.add_argument("--ref-speech", type=Path, help="reference folder (speech mode)")
    eq.add_argument("--sys-speech", type=Path, help="system output folder (speech mode)")
    eq.add_argument("--qrels", type=Path, help="TREC qrels (instead of folders; relevant = level > 0)")
    eq.add_argument("--run", type=Path, help="TREC run; documents scored >= --threshold count as returned")
    eq.add_argument("--threshold", type=float, help="decision threshold on the run's scores")
    eq.add_argument("--collection-size", type=int, help="documents in the collection (N_Total, for P_FA)")
    eq.add_argument("--beta", type=float, default=40.0, help="false-alarm weight beta (default 40)")
    eq.add_argument("--json", action="store_true", help="print JSON")
    eq.set_defaults(func=cmd_eval_aqwv)

    ec = evs.add_parser("cpa", help="SemEval-2015 task 15 (CPA) scores for tasks 1, 2 and 3",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="SemEval-2015 task 15 scores as defined on the task page (default) or as the "
                                    "official scorer computes them (--as-official). Files are TSV, one line per "
                                    "item, # comments:\n"
                                    "  task 1: verb<TAB>item<TAB>layer<TAB>label   (layer: syntax or semantics)\n"
                                    "  task 2: verb<TAB>instance<TAB>cluster\n"
                                    "  task 3: verb<TAB>pattern<TAB>slot<TAB>semantic_type\n"
                                    "  --hierarchy (task 3): type<TAB>parent")
    ec.add_argument("--task", type=int, choices=[1, 2, 3], required=True, help="subtask")
    ec.add_argument("gold", type=Path, help="gold file")
    ec.add_argument("run", type=Path, help="system run file")
    ec.add_argument("--hierarchy", type=Path, help="semantic type hierarchy for task 3 partial credit")
    ec.add_argument("--as-official", action="store_true",
                    help="reproduce the official scorer's deviations from the page (see README)")
    ec.add_argument("--json", action="store_true", help="print JSON")
    ec.set_defaults(func=cmd_eval_cpa)

    en = evs.add_parser("nuggets", help="nugget F of TREC definition/other/relationship answers (Nuggeteer)",
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                        description="Official nugget F (Marton & Radul 2006, figure 3) of each run, with "
                                    "Nuggeteer's automatic judgement for responses no person judged.\n\n"
                                    "--key: a NIST answer key as NIST wrote it ('Qid N: ...' headers and "
                                    "'<qid> <no><TAB>vital|okay<TAB>text', or pyramid "
                                    "'<qid><TAB><no><TAB><weight><TAB>text')\n"
                                    "--responses: qid<TAB>run<TAB>response_no<TAB>text\n"
                                    "--judgements: qid<TAB>nugget numbers (comma-separated, empty = none)"
                                    "<TAB>response text")
    en.add_argument("--key", type=Path, required=True, help="answer key file")
    en.add_argument("--responses", type=Path, required=True, help="system responses of one or more runs")
    en.add_argument("--judgements", type=Path, help="known judgements, reused exactly")
    en.add_argument("--threshold", type=float, default=0.5, help="recall threshold (default 0.5)")
    en.add_argument("--beta", type=float, default=3.0, help="F beta (default 3)")
    en.add_argument("--pyramid", action="store_true", help="pyramid recall with the key's weights")
    en.add_argument("--stem", action="store_true", help="Porter-stem words before matching")
    en.add_argument("--remove-stopwords", action="store_true", help="drop English stopwords before matching")
    en.add_argument("--questions", nargs="+", help="score only these question ids")
    en.add_argument("-v", "--verbose", action="store_true", help="per question: which response got which nugget")
    en.add_argument("--compare-with", type=Path, metavar="JSON",
                    help="another 'textqa eval nuggets --json' output (e.g. official scores): count its scores "
                         "outside this scoring's 95%% intervals and plot them (paper figure 5)")
    en.add_argument("--plot", type=Path, help="PNG for --compare-with (default nuggets.png)")
    en.add_argument("--json", action="store_true", help="print JSON")
    en.set_defaults(func=cmd_eval_nuggets)

    sv = sub.add_parser("serve", help="serve the models over HTTP with gunicorn",
                        description="Run the Flask service under gunicorn (production WSGI server).")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    sv.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    sv.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                 "or ./artifacts)")
    sv.add_argument("--timeout", type=int, default=120, help="worker timeout in seconds (default 120)")
    sv.add_argument("--preload", action="store_true", help="load models once before forking workers")
    sv.set_defaults(func=cmd_serve)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from evaluation.io import EvalInputError
    try:
        return args.func(args)
    except (CLIError, EvalInputError) as e:     # user errors: file, line and problem, no traceback
        print(f"textqa: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("textqa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
