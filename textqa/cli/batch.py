"""``textqa batch MODEL INPUT OUTPUT``: batch inference on a Dask cluster, byte-identical to the
single-process command.

The client streams INPUT (``.gz`` too) in partitions of ``--partition-size`` lines, never holding
more than a bounded window of them; each partition is a Dask task that a worker runs with a model
it loaded once (a per-process cache keyed by the artifact's id); finished partitions are written
atomically to ``OUTPUT.parts/`` under a name carrying a checksum of their input and of the job's
settings, so re-running the same command after an interruption reuses them; the final OUTPUT is
assembled in input order and renamed into place. A worker that dies mid-run has its tasks
rescheduled by Dask; the output is the same.

The workers read the artifact folder from their own file system: on several machines it must be on
a shared file system at the same path (or copied to that path on every machine beforehand).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import sys
import time
from pathlib import Path

from textqa.errors import InputError
from textqa.registry import BY_NAME, BY_VERB, MODELS, resolve
from textqa.runtime import dask_cluster
from textqa.runtime.files import replaced_whole
from textqa.runtime.gc_pause import freeze_loaded
from textqa.runtime.paths import artifacts_dir

HELP = "run a model over a large file on a Dask cluster (same output as the single-process command)"

_MODELS: dict = {}          # per worker process: (name, folder, artifact id, load options) -> loaded model

#: Set in a local cluster's forkserver to the job's model (a JSON list of ``_load``'s arguments):
#: importing this module there loads it (:func:`_load_ahead`).
LOAD_AHEAD = "TEXTQA_BATCH_LOAD_AHEAD"


def _load(name: str, folder: str, model_id: str, load_options: dict):
    key = (name, folder, model_id, json.dumps(load_options, sort_keys=True))
    if key not in _MODELS:
        _MODELS[key] = BY_NAME[name].load(folder, **load_options)
        freeze_loaded(collect=False)    # the worker keeps it: no collection walks it again
    return _MODELS[key]


def _load_ahead(spec: str) -> None:
    """Load the job's model in a local cluster's forkserver, when it imports this module (see
    ``dask_cluster._preload``), while the client starts the scheduler and the nannies; the workers
    fork from it with the model in :data:`_MODELS`, and share its arrays' pages with it and with
    each other until one writes to them.  Each worker otherwise loaded the model at its first
    partition, after the cluster had started.  A load that fails here only says so: each worker
    then loads the model itself, and reports the error as the single-process command would."""
    import threading

    from textqa.models.artifact import READ_AHEAD_THREAD  # deferred: loads orjson, numpy
    try:
        _load(*json.loads(spec))
    except Exception as e:
        print(f"textqa batch: the model was not loaded ahead of the workers ({e}); each worker loads it",
              file=sys.stderr, flush=True)
    for t in threading.enumerate():     # the artifact's read-ahead ends its file: no thread beside the fork
        if t.name == READ_AHEAD_THREAD:
            t.join()


def run_partition(name: str, folder: str, model_id: str, load_options: dict, options: dict, label: str,
                  first_line: int, newline_first: int, byte_offset: int, data):
    """One partition on a worker: (output bytes, [(line, id), ...] for ICD-9 records), from the
    model's own batch function (``textqa.registry``).  Its first line is line ``first_line`` of the
    file as ``str.splitlines`` counts (the commands' record numbers), ``newline_first`` as newlines
    count (their UTF-8 error messages), at byte ``byte_offset``."""
    model = _load(name, folder, model_id, load_options)
    return resolve(BY_NAME[name].batch)(model, options, label, first_line, newline_first, byte_offset, data)


def _raw_lines(path: Path):
    """The newline-ended byte lines of a file (``.gz`` decompressed), streamed; an unreadable file
    or a truncated ``.gz`` raises the error ``evaluation.io.read_bytes`` words."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            yield from f
    except (OSError, EOFError) as e:
        raise InputError(f"{path}: {getattr(e, 'strerror', None) or e}") from None


def _text_lines(path: Path):
    """The lines of a UTF-8 file as 'textqa blanc score' reads them (``str.splitlines``), streamed;
    bad bytes and unreadable files raise the errors that ``evaluation.io.read_lines`` words."""
    newlines = offset = 0
    for raw in _raw_lines(path):        # a "\n" never occurs inside a UTF-8 sequence: lines decode alone
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise InputError(f"{path}:{newlines + 1}: not valid UTF-8 (byte offset {offset + e.start})") from None
        yield from text.splitlines()
        newlines += 1
        offset += len(raw)


def _blanc_partitions(hyps: Path, refs: list[Path], size: int, allow_empty: bool):
    """(index, first line, 0, rows) of the hypotheses and their references read in lockstep, after
    the checks 'textqa blanc score' makes of the whole files, in its order (each file readable; the
    same number of lines in every file; no empty hypothesis unless allowed, no empty reference), so
    that a bad file gets the single-process command's error.  The files are read three times,
    streamed; reading is cheap beside scoring."""
    counts = [sum(1 for _ in _text_lines(p)) for p in (hyps, *refs)]
    for f, n in zip(refs, counts[1:]):
        if n != counts[0]:
            raise InputError(f"{f}: {n} lines but {hyps} has {counts[0]}")
    for i, (hyp, *row_refs) in enumerate(zip(*map(_text_lines, (hyps, *refs))), start=1):
        if not hyp.strip() and not allow_empty:
            raise InputError(f"{hyps}:{i}: empty hypothesis (use --allow-empty to score it 0)")
        for f, ref in zip(refs, row_refs):
            if not ref.strip():
                raise InputError(f"{f}:{i}: empty reference")
    rows, index, first = [], 0, 1
    for hyp, *row_refs in zip(*map(_text_lines, (hyps, *refs))):
        rows.append([hyp, row_refs])
        if len(rows) == size:
            yield index, first, 0, rows
            rows, index, first = [], index + 1, first + size
    if rows:
        yield index, first, 0, rows


def _partitions(path: Path, size: int):
    """(index, first line number, byte offset, bytes) of consecutive partitions of ``size`` newline-ended lines of
    ``path``.  Line numbers count as the single-process commands do (``str.splitlines``: a lone CR,
    U+2028 and the like end a line too), so errors name the same line."""
    buf, first, index, offset = [], 1, 0, 0
    for line in _raw_lines(path):
        buf.append(line)
        if len(buf) == size:
            data = b"".join(buf)
            yield index, first, offset, data
            first += len(data.decode("utf-8", errors="surrogateescape").splitlines())
            buf, index, offset = [], index + 1, offset + len(data)
    if buf:
        yield index, first, offset, b"".join(buf)


def add_arguments(p) -> None:
    p.add_argument("kind", choices=tuple(BY_VERB), metavar="MODEL", help=", ".join(BY_VERB))
    p.add_argument("input", type=Path, metavar="INPUT",
                   help="text lines (truecase), JSONL records (icd9), hypotheses one a line (blanc, with "
                        "--refs), questions one a line or JSONL (qa); .gz allowed")
    p.add_argument("output", type=Path, metavar="OUTPUT", help="written atomically when every partition is done")
    dask_cluster.add_arguments(p, "local", "run")
    p.add_argument("--partition-size", type=int, default=10000, help="lines per task (default 10,000)")
    p.add_argument("--model", type=Path, default=None, help="artifact folder (default: <artifacts>/MODEL)")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                "or ./artifacts)")
    for m in MODELS:                    # each model's input format and options, as its own command has them
        g = p.add_argument_group(f"{m.verb} (as 'textqa {m.verb}')")
        command = resolve(m.command)
        if m.name == "blanc":
            g.add_argument("--refs", type=Path, nargs="+", metavar="FILE",
                           help="reference file(s), line by line with INPUT (required for blanc)")
        if hasattr(command, "add_input_arguments"):
            command.add_input_arguments(g)
        for option in m.options:
            option.add_to(g)


def _given_options_of_others(args, entry) -> list[str]:
    """The flags of other models' options that ``args`` sets to other than their defaults."""
    given = []
    for m in MODELS:
        if m is not entry:
            given += [o.flag for o in m.options if getattr(args, o.name) != o.default]
    if entry.name != "blanc":
        given += ["--refs"] * bool(args.refs) + ["--allow-empty"] * args.allow_empty
    return sorted(set(given) - {o.flag for o in entry.options})


def _compute(args, folder: Path, model_id: str, load_options: dict, options: dict, signature: bytes, parts: Path,
             label: str, partitions):
    """Every partition's output in ``parts`` (reusing those already there): (their paths in input
    order, how many were reused).  When partitions fail, the error of the first one in the file is
    raised (the one the single-process command reports), whatever order the workers finish in."""
    entry = BY_VERB[args.kind]
    preload = (__name__, entry.loader.partition(":")[0], entry.batch.partition(":")[0])
    ahead = {LOAD_AHEAD: json.dumps([entry.name, str(folder), model_id, load_options])}
    with dask_cluster.cluster(args.scheduler, args.workers, "textqa batch", preload=preload,
                              preload_env=ahead) as client:
        return _run_partitions(args, client, folder, model_id, load_options, options, signature, parts, label,
                               partitions)


def _run_partitions(args, client, folder, model_id, load_options, options, signature, parts, label, partitions):
    from distributed import as_completed  # deferred: loads distributed, dask, numpy
    from tqdm import tqdm  # deferred: loads tqdm

    # how many partitions there will be (one pass over the input's lines), so that the bar has an ETA
    total = -(-sum(1 for _ in _raw_lines(args.input)) // args.partition_size)
    bar = tqdm(desc=f"batch {args.kind}", unit="partition", file=sys.stderr, total=total)
    try:
        window = 2 * max(1, len(client.scheduler_info().get("workers", {})))
        names, pending, targets, reused, failed = [], as_completed(), {}, 0, []

        def collect(future):
            index, target = targets.pop(future.key)
            try:
                data, part_ids = future.result()
            except InputError as e:
                failed.append((index, e))
                return
            if args.kind == "icd9":                 # first: a resumed run trusts an .out only with its .ids
                with replaced_whole(target.with_suffix(".ids")) as tmp:
                    tmp.write_text(json.dumps(part_ids))
            with replaced_whole(target) as tmp:
                tmp.write_bytes(data)
            bar.update(1)

        for index, first, offset, data in partitions:
            payload = data if isinstance(data, bytes) else json.dumps(data).encode("utf-8")
            digest = hashlib.sha256(signature + first.to_bytes(8, "little") + payload).hexdigest()[:20]
            target = parts / f"{index:08d}-{digest}.out"
            names.append(target)
            if target.exists() and (args.kind != "icd9" or target.with_suffix(".ids").exists()):   # resumed
                reused += 1
                bar.update(1)
                continue
            future = client.submit(run_partition, BY_VERB[args.kind].name, str(folder), model_id, load_options,
                                   options, label, first,
                                   index * args.partition_size + 1, offset, data,
                                   key=f"textqa-batch-{index}-{digest}", pure=False)
            targets[future.key] = (index, target)
            pending.add(future)
            while pending.count() >= window or (failed and pending.count()):
                collect(next(pending))
            if failed:                              # no new work; earlier partitions were all collected
                break
        for future in pending:
            collect(future)
        if failed:
            raise min(failed, key=lambda f: f[0])[1]
        return names, reused
    finally:
        bar.close()


def _check_ids(names: list[Path], label: str) -> None:
    """What 'textqa icd9 code' refuses of a whole file: an id given twice (at its second line), no records."""
    seen = set()
    for target in names:
        for n, rid in json.loads(target.with_suffix(".ids").read_text()):
            if rid in seen:
                raise InputError(f"{label}:{n}: id {rid!r} given twice")
            seen.add(rid)
    if not seen:
        raise InputError(f"{label}: no records")


def run(args) -> int:

    from textqa.models.artifact import ArtifactError, artifact_id, load_manifest  # deferred: loads orjson, numpy

    started = time.perf_counter()
    if args.partition_size < 1:
        raise InputError("--partition-size must be at least 1")
    if not args.input.is_file():
        raise InputError(f"{args.input}: no such file")
    if args.kind == "blanc":
        if not args.refs:
            raise InputError("batch blanc needs --refs FILE [FILE ...]")
        for f in args.refs:
            if not f.is_file():
                raise InputError(f"{f}: no such file")
    entry = BY_VERB[args.kind]
    others = _given_options_of_others(args, entry)
    if others:
        raise InputError(f"{', '.join(others)}: not option(s) of batch {args.kind}")
    name = entry.name
    if args.kind == "qa":
        resolve(entry.command).check_top_k(args.top_k)
    folder = (args.model or artifacts_dir(args.artifacts) / name).resolve()
    try:
        manifest = load_manifest(folder, expect_name=name)
    except ArtifactError as e:
        raise InputError(str(e)) from e
    model_id = artifact_id(manifest)
    load_options = entry.option_values(args, "load")
    options = entry.option_values(args, "call")
    if args.kind == "truecase":
        options["tokenized"] = args.tokenized
    metric = None
    if args.kind == "blanc":                        # small: the client prints its signature, as the CLI does,
        try:                                    # and computes a corpus score from the stats
            metric = entry.load(folder, **load_options)
        except ArtifactError as e:
            raise InputError(str(e)) from e
        print(metric.signature, file=sys.stderr)
        partitions = _blanc_partitions(args.input, args.refs, args.partition_size, args.allow_empty)
    else:
        partitions = _partitions(args.input, args.partition_size)
    signature = json.dumps([args.kind, model_id, options] + ([load_options] if load_options != entry.option_values(
        {}, "load") else []), sort_keys=True).encode()
    parts = args.output.with_name(args.output.name + ".parts")
    parts.mkdir(parents=True, exist_ok=True)
    label = str(args.input)
    try:
        names, reused = _compute(args, folder, model_id, load_options, options, signature, parts, label, partitions)
        if args.kind == "icd9":
            _check_ids(names, label)                 # ids given twice anywhere in the file: the CLI's error
    except InputError:                           # bad input fails again on a re-run: nothing to resume
        shutil.rmtree(parts, ignore_errors=True)
        raise
    with replaced_whole(args.output) as tmp, open(tmp, "wb") as out:
        if args.kind == "blanc" and args.corpus:
            out.write(_corpus_line(metric, names, args.details))
        else:
            for target in names:
                out.write(target.read_bytes())
    shutil.rmtree(parts)
    print(f"textqa batch: {len(names)} partition(s) ({reused} reused from an earlier run) -> {args.output} "
          f"in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    return 0


def _corpus_line(metric, names: list[Path], details: bool) -> bytes:
    """'textqa blanc score --corpus' output from the partitions' per-line statistics, summed line by
    line in input order as ``BLANC.corpus_score`` sums them (the same floating-point result)."""
    import numpy as np  # deferred: loads numpy
    total = np.zeros((3, metric.params.columns))
    for target in names:
        for row in np.frombuffer(target.read_bytes(), dtype=np.float64).reshape(-1, 3, metric.params.columns):
            total += row
    s = metric.score_of_total(total)
    return (f"{s.score:.6f} {s.precision:.6f} {s.recall:.6f}\n" if details else f"{s.score:.6f}\n").encode()


if LOAD_AHEAD in os.environ:        # a local cluster's forkserver, importing its preload
    _load_ahead(os.environ[LOAD_AHEAD])
