"""The ``textqa`` command: train, run, evaluate and serve the models.

    textqa train all | truecaser | blanc | icd9 | qa [...]
    textqa truecase [--model DIR] [--tokenized] [--baseline | --decoder trigram | --no-phrases | --no-compounds |
                    --no-discriminative | --no-class-lm | --no-context]
    textqa blanc score [--model DIR] --refs R1 [R2 ...] [--hyps FILE] [--corpus]
    textqa eval correlate --tsv FILE [--model DIR] [--level segment|system|both] [--ci] [--plot F.png] [--json]
    textqa icd9 code [--model DIR] (--cmc-xml F | --jsonl F | stdin JSONL) [--classifier svm|brr]
    textqa eval icd9 GOLD PRED [--json]
    textqa qa answer-type [--model DIR] < questions.txt;  textqa qa select [--model DIR] --trecqa F.xml
    textqa eval truecase GOLD PRED [--json]
    textqa eval rank --qrels FILE --run FILE [--json]
    textqa eval agreement --distance nominal|jaccard|masi FILE.tsv [--json]
    textqa eval aqwv --ref DIR --sys DIR [--beta 40] [--json]
    textqa eval cpa --task 1|2|3 GOLD RUN [--hierarchy F] [--as-official] [--json]
    textqa eval nuggets --key F (--responses F [--judgements F] | --trec-judged F...) [--json]
    textqa serve [--host --port --workers --artifacts]
"""
from __future__ import annotations

import argparse
import os
import sys
from functools import lru_cache
from pathlib import Path

from textqa import __version__
from textqa.common import add_model_arguments, load_model
from textqa.paths import artifacts_dir


# ---------------------------------------------------------------- train
TRAINERS = {"truecaser": "textqa.training.truecaser", "blanc": "textqa.training.blanc", "icd9": "textqa.training.icd9",
            "qa": "textqa.training.qa"}


def _trainer(name):
    import importlib
    return importlib.import_module(TRAINERS[name])


@lru_cache(maxsize=None)
def _trainer_doc(name) -> str:
    """A training module's docstring, read from its source without importing it (importing one
    loads scikit-learn and the model: over a second that ``textqa --help`` has no use for).  Only
    the string tokens that open the module are read, not the whole module parsed: parsing the four
    trainers took 50 ms of every command's start."""
    import ast
    import importlib.util
    import inspect
    import tokenize
    spec = importlib.util.find_spec(TRAINERS[name])
    if spec is None or not (spec.origin or "").endswith(".py"):     # no source to read (a frozen install)
        return _trainer(name).__doc__ or ""
    parts = []
    with open(spec.origin, "rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type == tokenize.STRING:
                parts.append(tok.string)
            elif tok.type not in (tokenize.ENCODING, tokenize.COMMENT, tokenize.NL) or parts:
                break
    return inspect.cleandoc(ast.literal_eval(" ".join(parts))) if parts else ""


def _stop_workers_on_exit():
    """Training in joblib/loky worker processes: SIGTERM (like Ctrl-C) unwinds the trainer as an
    exception, so the artifact's temporary folder is removed and the workers are shut down now,
    instead of staying orphaned until loky's idle timeout (300 s)."""
    import signal

    def _terminate(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, _terminate)


def _shutdown_worker_pools() -> None:
    try:
        from joblib.externals.loky import get_reusable_executor

        from textqa import workers
        workers.shutdown()
        get_reusable_executor().shutdown(wait=True, kill_workers=True)
    except Exception:           # never let cleanup hide the training's own outcome
        pass


def cmd_train(args) -> int:
    _stop_workers_on_exit()
    try:
        return _train(args)
    except KeyboardInterrupt:
        print(f"textqa: train {args.model}: interrupted; the previous artifact is unchanged", file=sys.stderr)
        return 130
    finally:
        _shutdown_worker_pools()


def _train(args) -> int:
    if args.model == "all":
        root = artifacts_dir(args.artifacts)
        status = 0
        for name in TRAINERS:
            target = root / name
            if (target / "manifest.json").exists() and not args.force:
                from textqa._api import outdated_format
                old = outdated_format(name, target)
                if old is None:
                    print(f"textqa: {name}: artifact exists at {target} (use --force to retrain)", file=sys.stderr)
                    continue
                print(f"textqa: {name}: artifact at {target} is format {old}, which this textqa no longer loads: "
                      f"retraining", file=sys.stderr)
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
    from textqa.models.truecaser.service_api import TruecaserService

    service = load_model(args, "truecaser", TruecaserService.load)
    if args.decoder == "trigram":
        from textqa.models.truecaser.model import TRIGRAM_DECODER
        service.model.set_params(**TRIGRAM_DECODER)
    if args.no_phrases:
        service.model.set_params(phrase_weight=0.0)
    if args.no_compounds:
        service.model.set_params(compound_casing=False)
    if args.no_discriminative:
        service.model.set_params(discriminative="none")
    if args.no_class_lm:
        service.model.set_params(class_lm_weight=0.0)
    if args.no_context:
        service.model.set_params(context_weight=0.0)
    out = sys.stdout.buffer
    batch: list[str] = []

    from textqa.batch_cmd import truecase_lines

    def flush():
        out.write(truecase_lines(service, batch, args.tokenized, args.baseline))   # what 'textqa batch' writes too
        out.flush()
        batch.clear()

    for line in _read_stdin_lines():
        batch.append(line)
        if len(batch) >= args.batch_size:
            flush()
    if batch:
        flush()
    return 0


# ---------------------------------------------------------------- serve
def cmd_serve(args) -> int:
    root = artifacts_dir(args.artifacts).resolve()
    env = dict(os.environ, TEXTQA_ARTIFACTS=str(root))
    if args.models:
        from textqa._api import LOADERS
        names = [n.strip() for n in args.models.split(",") if n.strip()]
        unknown = [n for n in names if n not in LOADERS]
        if unknown or not names:
            print(f"textqa: error: --models: unknown model(s) {', '.join(unknown) or '(none given)'}; choose from "
                  f"{', '.join(LOADERS)}", file=sys.stderr)
            return 2
        env["TEXTQA_MODELS"] = ",".join(names)
    # Prometheus multiprocess mode: a fresh, empty folder per server start (removed on exit); a folder
    # the operator chose is emptied of the previous run's files instead
    import tempfile
    metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if metrics_dir:
        Path(metrics_dir).mkdir(parents=True, exist_ok=True)
        for old in Path(metrics_dir).glob("*.db"):
            old.unlink()
    else:
        metrics_dir = tempfile.mkdtemp(prefix="textqa-metrics-")
        env["TEXTQA_OWN_METRICS_DIR"] = metrics_dir
    env["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"{args.host}:{args.port}", "--workers", str(args.workers),
           "--timeout", str(args.timeout), "--graceful-timeout", str(args.graceful_timeout),
           "-c", "python:textqa.service.gunicorn_conf",
           "textqa.service.wsgi:app"]    # access log: the app's JSON lines
    if args.pidfile:
        cmd[-1:-1] = ["--pid", str(args.pidfile)]
    if args.preload:
        cmd.insert(-1, "--preload")
    print(f"textqa: serving {root} on http://{args.host}:{args.port} with {args.workers} gunicorn worker(s)",
          file=sys.stderr, flush=True)
    os.execve(sys.executable, cmd, env)
    return 0  # not reached


# ---------------------------------------------------------------- parser
def build_parser(argv=None) -> argparse.ArgumentParser:
    """The command line's parser.  Only ``textqa train MODEL`` gets MODEL's own arguments (the
    command line ``argv``, default ``sys.argv[1:]``, says which): the other commands and every
    ``--help`` but that one's build without importing the training modules."""
    argv = sys.argv[1:] if argv is None else list(argv)
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
        doc = _trainer_doc(name)
        tp = trs.add_parser(name, help=(doc.strip().splitlines() or [name])[0], description=doc,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
        if argv[:2] == ["train", name]:
            _trainer(name).add_arguments(tp)
    tr.set_defaults(func=cmd_train)

    tc = sub.add_parser("truecase", help="truecase stdin to stdout, one sentence/line at a time",
                        description="Read text from stdin, write it truecased to stdout, line by line "
                                    "(an MT/ASR post-processing filter). Only the case of letters changes.")
    add_model_arguments(tc, "truecaser", "truecaser")
    tc.add_argument("--tokenized", action="store_true",
                    help="input is already tokenized (whitespace-separated, PTB style); otherwise raw text "
                         "is tokenized internally")
    tc.add_argument("--baseline", action="store_true", help="use the unigram most-frequent-casing baseline")
    tc.add_argument("--decoder", choices=("default", "trigram"), default="default",
                    help="'trigram': the paper's decoder, the trigram LM (and the OOV model) alone, without "
                         "the cased-phrase scores, the part-by-part casing of unseen compounds, a "
                         "discriminative pass, a class LM and the sentence-context model (--no-phrases "
                         "--no-compounds --no-discriminative --no-class-lm --no-context); default: what the model "
                         "was trained with")
    tc.add_argument("--no-phrases", action="store_true", help="without the cased-phrase scores")
    tc.add_argument("--no-compounds", action="store_true",
                    help="unseen compounds the search capitalises keep the paper's first-letter capital "
                         "('Saint-laurent-des-combes', not 'Saint-Laurent-des-Combes')")
    tc.add_argument("--no-discriminative", action="store_true",
                    help="without the discriminative pass of a model trained with one (train --discriminative)")
    tc.add_argument("--no-class-lm", action="store_true",
                    help="without the class LM of a model trained with one (the default model has one)")
    tc.add_argument("--no-context", action="store_true",
                    help="without the sentence-context model (a casing classifier per ambiguous word over the "
                         "other words of its sentence) of a model trained with one (the default model has one)")
    tc.add_argument("--batch-size", type=int, default=256, help="lines decoded together (default 256)")
    tc.set_defaults(func=cmd_truecase)

    ev = sub.add_parser("eval", help="score system output against a reference",
                        description="Score system output files against reference files.")
    evs = ev.add_subparsers(dest="metric", required=True, metavar="METRIC")
    from textqa.evaluation.commands import register
    register(evs, extra={"correlate": "textqa.training.blanc_report", "icd9": "textqa.training.icd9_report"})

    from textqa import blanc_cmd, icd9_cmd
    for name, action, module, help_, description in (
            ("blanc", "score", blanc_cmd, "use the trained BLANC MT metric",
             "Use the trained BLANC metric (Lita, Rogati & Lavie 2005)."),
            ("icd9", "code", icd9_cmd, "use the trained ICD-9 coders",
             "Use the trained ICD-9-CM coders (Lita et al. 2008).")):
        actions = sub.add_parser(name, help=help_, description=description).add_subparsers(
            dest="action", required=True, metavar="ACTION")
        ap = actions.add_parser(action, help=module.HELP, description=module.DESCRIPTION)
        module.add_arguments(ap)
        ap.set_defaults(func=module.run)

    from textqa import qa_cmd
    qa_cmd.register(sub)

    from textqa import batch_cmd
    bp = sub.add_parser("batch", help=batch_cmd.HELP, description=batch_cmd.__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    batch_cmd.add_arguments(bp)
    bp.set_defaults(func=batch_cmd.run)

    sv = sub.add_parser("serve", help="serve the models over HTTP with gunicorn",
                        description="Run the Flask service under gunicorn (production WSGI server).")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free port, printed by gunicorn)")
    sv.add_argument("--workers", type=int, default=2, help="gunicorn worker processes (default 2)")
    sv.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                 "or ./artifacts)")
    sv.add_argument("--timeout", type=int, default=120, help="worker timeout in seconds (default 120)")
    sv.add_argument("--preload", action="store_true",
                    help="load models once before forking workers (shares memory; a HUP then cannot load new "
                         "artifacts: restart instead)")
    sv.add_argument("--pidfile", type=Path, default=None,
                    help="write gunicorn's pid here; 'kill -HUP $(cat FILE)' replaces the workers gracefully, "
                         "loading the artifacts anew (zero-downtime model swap after 'textqa train')")
    sv.add_argument("--graceful-timeout", type=int, default=30,
                    help="seconds workers get to finish in-flight requests on SIGTERM/HUP (default 30)")
    sv.add_argument("--models", default=None, metavar="NAMES",
                    help="comma-separated models to load (default: all of truecaser, blanc, icd9, qa)")
    sv.set_defaults(func=cmd_serve)
    return p


def main(argv=None) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    from textqa.evaluation.io import EvalInputError
    try:
        return args.func(args)
    except EvalInputError as e:     # user errors (file, line and problem): no traceback, exit status 2
        print(f"textqa: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("textqa: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
