"""textqa eval rouge [ROUGE-1.5.5 options] CONFIG [SYSTEM_ID]: a drop-in for ROUGE-1.5.5.pl"""
from __future__ import annotations

import sys
from pathlib import Path

from textqa.cli.eval import add_paired_arguments, paired_result, print_json, print_paired
from textqa.errors import InputError
from textqa.evaluation.rouge_input import all_peers, jackknife, read_config, read_file_list

HELP = "ROUGE-N/L/W/S/SU exactly as ROUGE-1.5.5.pl (same options, config files and output lines)"
DESCRIPTION = (
    "A drop-in for ROUGE-1.5.5.pl: the same option letters, the same configuration files and the same "
    "output lines (\"1 ROUGE-1 Average_R: 0.30217 (95%-conf.int. 0.29229 - 0.31193)\"; with -d one "
    "\"Eval\" line per evaluation).  It reproduces NIST's official DUC 2006 output digit for digit, "
    "averages and confidence intervals included (the script's bootstrap is replayed with Perl's "
    "random generator).\n\n"
    "CONFIG is a ROUGE XML file:\n"
    "  <ROUGE_EVAL version=\"1.5.5\">\n"
    "  <EVAL ID=\"D0601-A\">\n"
    "    <PEER-ROOT>peers</PEER-ROOT>  <MODEL-ROOT>models</MODEL-ROOT>\n"
    "    <INPUT-FORMAT TYPE=\"SPL\"></INPUT-FORMAT>\n"
    "    <PEERS><P ID=\"1\">D0601.1</P> ...</PEERS>\n"
    "    <MODELS><M ID=\"B\">D0601.B</M> ...</MODELS>\n"
    "  </EVAL> ...\n"
    "  </ROUGE_EVAL>\n"
    "or, with -z FORMAT, a file list: one evaluation per line, \"peer model1 model2 ...\".  Jackknifing "
    "(which ROUGE-1.5.5 no longer does itself) is either written into the configuration, as NIST did "
    "(one <EVAL> per left-out model), or done by --jackknife on a configuration with all models.\n\n"
    "Summary formats (TYPE / -z): SPL, one sentence per line; SEE, the lines "
    "'<a name=\"N\">[N]</a> <a href=\"#N\" id=N>sentence' of SEE's HTML; ISI, lines "
    "'<S SNTNO=\"N\">sentence</S>'.\n\n"
    "Stemming (-m) uses WordNet 2.0's exception lists and ROUGE's Porter stemmer, -s the SMART "
    "stopword list; both ship with textqa (-e DIR reads smart_common_words.txt and adj/adv/noun/verb.exc "
    "from DIR instead).  Root paths in a configuration can be replaced with --peer-root/--model-root "
    "(NIST's files name their own machine's directories).  Not supported: -3 (Basic Elements), -M, -v.")


def add_arguments(p) -> None:
    p.add_argument("config", type=Path, help="ROUGE XML configuration (or a file list with -z)")
    p.add_argument("system_id", nargs="*", help="the peer to evaluate (or -a for all; several with --paired)")
    p.add_argument("-a", action="store_true", help="evaluate every peer in the configuration")
    p.add_argument("-c", default="95", metavar="CF", help="confidence interval in percent (default 95)")
    p.add_argument("-d", action="store_true", help="print the per-evaluation scores")
    p.add_argument("-e", type=Path, metavar="ROUGE_EVAL_HOME", help="directory with the stopword and exception lists")
    p.add_argument("-b", type=int, default=0, metavar="N_BYTES", help="use only the first N bytes of each summary")
    p.add_argument("-l", type=int, default=0, metavar="N_WORDS", help="use only the first N words of each summary")
    p.add_argument("-m", action="store_true", help="stem (WordNet exceptions, then ROUGE's Porter stemmer)")
    p.add_argument("-n", type=int, metavar="MAX_NGRAM", help="compute ROUGE-1 .. ROUGE-N")
    p.add_argument("-s", action="store_true", help="remove stopwords (SMART list)")
    p.add_argument("-r", type=int, default=1000, metavar="RESAMPLES", help="bootstrap samples (default 1000)")
    p.add_argument("-2", dest="skip", metavar="MAX_GAP", help="skip-bigrams at most MAX_GAP words apart "
                   "(ROUGE-S<gap>; negative: any distance, ROUGE-S*)")
    p.add_argument("-3", dest="be", metavar="MODE", help="Basic Element scoring (not supported)")
    p.add_argument("-u", action="store_true", help="with -2: add unigrams (ROUGE-SU)")
    p.add_argument("-U", action="store_true", help="with -2: report ROUGE-S and ROUGE-SU")
    p.add_argument("-w", metavar="WEIGHT", help="compute ROUGE-W with this weight (e.g. 1.2)")
    p.add_argument("-x", action="store_true", help="do not compute ROUGE-L")
    p.add_argument("-f", default="A", choices=["A", "B"], help="A: model average (default); B: best model")
    p.add_argument("-p", type=float, default=0.5, metavar="ALPHA",
                   help="F = 1 / (alpha/P + (1-alpha)/R); default 0.5")
    p.add_argument("-t", type=int, default=0, metavar="0|1|2",
                   help="0: average per evaluation (default); 1: per token; 2: raw counts")
    p.add_argument("-z", metavar="SEE|SPL|ISI", help="CONFIG is a file list in this summary format")
    p.add_argument("--jackknife", action="store_true",
                   help="expand each <EVAL> with M models into M evaluations <ID>-<left-out model> against the "
                        "other M-1, a human peer scored only where its own model is left out (as NIST's DUC files)")
    p.add_argument("--peer-root", help="use this directory instead of every <PEER-ROOT>")
    p.add_argument("--model-root", help="use this directory instead of every <MODEL-ROOT>")
    add_paired_arguments(p, "the peers (-a, or the system ids given)")
    # ROUGE-1.5.5 takes "-2 -1" (no gap limit): let values that look like negative numbers through.
    p._has_negative_number_optionals.clear()


def metric_from(args):
    """The :class:`textqa.metrics.ROUGE` of the options, checked first as ROUGE-1.5.5.pl checks them
    (its messages)."""
    from textqa.metrics import ROUGE  # deferred: loads scipy, numba, numpy
    if args.be:
        raise InputError("-3 (Basic Element scoring) is not supported")
    if args.l and args.b:
        raise InputError("Please specify length limit in words or bytes but not both.")
    try:
        conf = float(args.c)
    except ValueError:
        raise InputError(f"-c {args.c}: not a number") from None
    if not 0 <= conf <= 100:
        raise InputError("Confidence interval should be within 0 and 100.")
    if args.w is not None:
        try:
            ok = float(args.w) > 0
        except ValueError:
            ok = False
        if not ok:
            raise InputError("ROUGE-W weight factor must greater than 0.")
    skip = None
    if args.skip is not None:
        try:
            skip = int(args.skip)
        except ValueError:
            raise InputError(f"-2 {args.skip}: the maximum gap must be an integer") from None
    if not 0 <= args.p <= 1:
        raise InputError("Relative importance of ROUGE recall and precision has to be between 0 and 1 inclusively.")
    if args.r < 1:
        raise InputError("-r: at least one bootstrap sample")
    if args.n is not None and args.n < 0:
        raise InputError(f"-n {args.n}: give a positive maximum n-gram size")
    return ROUGE(n=args.n or 0, lcs=not args.x, w=args.w, skip=skip, unigrams=args.u, stem=args.m,
                 remove_stopwords=args.s, length_words=args.l, length_bytes=args.b, formula=args.f, alpha=args.p,
                 confidence=args.c, resamples=args.r, average={1: "token", 2: "counts"}.get(args.t, "evaluation"),
                 both=args.U, data_dir=args.e)


def run(args) -> int:
    from dataclasses import replace

    from textqa.evaluation.rouge_run import as_json, format_result  # deferred: loads scipy, numba, numpy
    metric = metric_from(args)
    options = replace(metric.options, per_eval=args.d)          # -d: how the lines are printed
    if len(args.system_id) > 1 and not args.paired:
        raise InputError("several system ids: give one (or -a), or compare them with --paired bs|ar")
    system_id = args.system_id[0] if args.system_id else None
    if args.z:
        if len(args.system_id) > 1:
            raise InputError("-z: a file list holds one peer; give at most one system id")
        evals = read_file_list(args.config, args.z, system_id or "X")
        peers = [system_id or "X"]
    else:
        evals = read_config(args.config, args.peer_root, args.model_root)
        if args.a:
            peers = all_peers(evals)
        elif args.system_id:
            peers = list(dict.fromkeys(args.system_id))
        else:
            raise InputError("Please specify a system ID to evaluate or use option '-a' to evaluate all systems.")
    if args.jackknife:
        evals = jackknife(evals)
    if args.paired:
        return run_paired(args, metric, evals, peers)
    from tqdm import tqdm  # deferred: loads tqdm
    total = len(peers) * len(options.measures()) * len(evals)
    bar = tqdm(total=total, desc="rouge", unit="eval", disable=None, leave=False, file=sys.stderr)
    results = metric.evaluate(evals, peers, warn=lambda m: print(m, file=sys.stderr), progress=bar.update)
    if args.json:
        print_json([as_json(r, options) for r in results])
    else:
        for r in results:
            print("\n".join(format_result(r, options)), flush=True)
    bar.close()
    return 0


def run_paired(args, metric, evals, peers) -> int:
    """``--paired``: each peer's mean F per measure over the evaluations every compared peer has, and
    its paired test against the first peer's (:mod:`textqa.metrics.significance`)."""
    from textqa.evaluation.rouge_input import read_sentences
    if args.t or args.U or args.d:
        raise InputError("--paired compares per-evaluation F: not with -t, -U or -d")
    if len(peers) < 2:
        raise InputError("--paired compares two peers or more: give -a or several system ids")
    shared = [e for e in evals if all(p in e.peers for p in peers)]
    if not shared:
        raise InputError(f"--paired: no evaluation has every one of the peers {', '.join(peers)}")
    skipped = len(evals) - len(shared)
    if skipped:
        print(f"--paired: {skipped} of {len(evals)} evaluations lack one of the peers and are left out",
              file=sys.stderr)
    references = [[read_sentences(m, e.fmt) for m in e.model_paths()] for e in shared]
    systems = {p: [read_sentences(e.peer_path(p), e.fmt) for e in shared] for p in peers}
    result = paired_result(metric, systems, references, args.paired, args.paired_n)
    if args.json:
        print_json(result)
    else:
        print_paired(result, digits=5)
    return 0
