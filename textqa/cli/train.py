"""``textqa train all | MODEL``: train models and write their artifacts."""
from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import signal
import sys
import tokenize
from functools import lru_cache
from pathlib import Path

from textqa.registry import BY_NAME, MODELS, resolve
from textqa.runtime import process_pool
from textqa.runtime.paths import artifacts_dir

HELP = "train models and write their artifacts"
DESCRIPTION = "Train a model from data/ (or your data) and write its artifact."


def _trainer(name: str):
    """The training module of model ``name`` (imported on first use)."""
    return resolve(BY_NAME[name].trainer)


@lru_cache(maxsize=None)
def module_doc(module: str) -> str:
    """A training module's docstring, read from its source without importing it (importing one
    loads scikit-learn and the model, which ``textqa --help`` has no use for).  Only the string tokens
    that open the module are read, not the whole module parsed: every command builds its parser, and
    parsing the trainers would add to each one's start-up."""
    spec = importlib.util.find_spec(module)
    if spec is None or not (spec.origin or "").endswith(".py"):     # no source to read (a frozen install)
        return importlib.import_module(module).__doc__ or ""
    parts = []
    with open(spec.origin, "rb") as f:
        for tok in tokenize.tokenize(f.readline):
            if tok.type == tokenize.STRING:
                parts.append(tok.string)
            elif tok.type not in (tokenize.ENCODING, tokenize.COMMENT, tokenize.NL) or parts:
                break
    return inspect.cleandoc(ast.literal_eval(" ".join(parts))) if parts else ""


def add_arguments(tr, argv: list[str]) -> None:
    """Only ``textqa train MODEL`` gets MODEL's own arguments (``argv`` says which): the other
    commands and every ``--help`` but that one's build without importing the training modules."""
    trs = tr.add_subparsers(dest="model", required=True, metavar="MODEL")
    ta = trs.add_parser("all", help="train every model whose artifact is missing and whose data is present "
                                    "(what 'make run' calls)")
    ta.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                 "or ./artifacts)")
    ta.add_argument("--force", action="store_true", help="retrain models whose artifact exists")
    for m in MODELS:
        doc = module_doc(m.trainer)
        tp = trs.add_parser(m.name, help=(doc.strip().splitlines() or [m.name])[0], description=doc,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
        if argv[:2] == ["train", m.name]:
            _trainer(m.name).add_arguments(tp)


def _stop_workers_on_exit():
    """Training in joblib/loky worker processes: SIGTERM (like Ctrl-C) unwinds the trainer as an
    exception, so the artifact's temporary folder is removed and the workers are shut down now,
    instead of staying orphaned until loky's idle timeout.  Only the first signal does: a
    second one during that clean-up (``textqa serve --train-missing`` stopped with Ctrl-C sends its
    training SIGTERM while the same Ctrl-C reaches it as SIGINT) would leave the folder behind."""

    def _terminate(signum, frame):
        # the first signal unwinds the training; later ones are ignored so that they cannot cut its
        # clean-up short (Ctrl-C on a process group and a parent's SIGTERM arrive together)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGINT, _terminate)


def _shutdown_worker_pools() -> None:
    try:
        from joblib.externals.loky import get_reusable_executor  # deferred: loads joblib, numpy, psutil

        process_pool.shutdown()
        get_reusable_executor().shutdown(wait=True, kill_workers=True)
    except Exception:           # never let cleanup hide the training's own outcome
        pass


def run(args) -> int:
    _stop_workers_on_exit()
    try:
        return _train(args)
    except KeyboardInterrupt:
        print(f"textqa: train {args.model}: interrupted; the previous artifact is unchanged", file=sys.stderr)
        return 130
    finally:
        _shutdown_worker_pools()


def _train(args) -> int:
    if args.model != "all":
        return _trainer(args.model).run(args)
    from textqa.api import outdated_format  # deferred: loads orjson, numpy
    from textqa.models.artifact import MANIFEST
    root = artifacts_dir(args.artifacts)
    status = 0
    for m in MODELS:
        target = root / m.name
        if (target / MANIFEST).exists() and not args.force:
            old = outdated_format(m.name, target)
            if old is None:
                print(f"textqa: {m.name}: artifact exists at {target} (use --force to retrain)", file=sys.stderr)
                continue
            print(f"textqa: {m.name}: artifact at {target} is format {old}, which this textqa no longer loads: "
                  f"retraining", file=sys.stderr)
        mod = _trainer(m.name)
        missing = [str(f) for f in mod.DEFAULT_DATA if not Path(f).is_file()]
        if missing:
            print(f"textqa: {m.name}: skipped, training data not present: {', '.join(missing)}", file=sys.stderr)
            continue
        p = argparse.ArgumentParser()
        mod.add_arguments(p)
        status |= mod.run(p.parse_args(["--artifacts", str(root)]))
    return status | _index_wikipedia(root)


def _index_wikipedia(root: Path) -> int:
    """QA's default collection, when a QA artifact is there without its Wikipedia index (trained before
    it existed, or with ``--wikipedia skip``): the bundled articles, indexed now."""
    from textqa.models.artifact import MANIFEST
    from textqa.models.qa.passages import WIKIPEDIA, build_wikipedia, collections_root, has_collection
    from textqa.runtime.paths import WIKIPEDIA_TEXT
    if not (root / "qa" / MANIFEST).exists() or has_collection(collections_root(root), WIKIPEDIA, current=True):
        return 0
    if not all(p.is_file() for p in WIKIPEDIA_TEXT):
        print(f"textqa: qa: the Wikipedia index is not built, its text is not present: "
              f"{', '.join(str(p) for p in WIKIPEDIA_TEXT if not p.is_file())}", file=sys.stderr)
        return 0
    print(f"textqa: qa: indexing the bundled Wikipedia articles for its default collection into "
          f"{collections_root(root) / WIKIPEDIA}", file=sys.stderr, flush=True)
    info = build_wikipedia(collections_root(root))
    print(f"textqa: qa: Wikipedia collection: {info['documents']:,} articles, {info['paragraphs']:,} paragraphs in "
          f"{info['seconds']:.0f} s", file=sys.stderr)
    return 0
