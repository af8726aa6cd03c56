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

import functools
import gzip
import hashlib
import importlib
import io
import json
import shutil
import sys
from pathlib import Path

from textqa import cluster
from textqa.evaluation.io import EvalInputError, replaced_whole

HELP = "run a model over a large file on a Dask cluster (same output as the single-process command)"
KINDS = ("truecase", "icd9", "blanc", "qa")
ARTIFACT = {"truecase": "truecaser", "icd9": "icd9", "blanc": "blanc", "qa": "qa"}
#: Per kind, the module and the function in it (a dotted path) that load the model: :func:`_load`
#: calls it, and a local cluster's forkserver imports the module once for all its workers
#: (``cluster._preload``).
LOADER = {"truecase": ("textqa.models.truecaser.service_api", "TruecaserService.load"),
          "icd9": ("textqa.models.icd9.store", "load_coder"), "blanc": ("textqa.models.blanc.store", "load_blanc"),
          "qa": ("textqa.models.qa.store", "load_qa")}

_MODELS: dict = {}          # per worker process: (kind, folder, artifact id) -> loaded model


def _load(kind: str, folder: str, model_id: str):
    key = (kind, folder, model_id)
    if key not in _MODELS:
        module, function = LOADER[kind]
        _MODELS[key] = functools.reduce(getattr, function.split("."), importlib.import_module(module))(folder)
    return _MODELS[key]


def truecase_lines(service, lines: list[str], tokenized: bool, baseline: bool) -> bytes:
    """What ``textqa truecase`` writes for ``lines`` (each with its own line end)."""
    bodies = [l.rstrip("\r\n") for l in lines]
    ends = [l[len(b):] for l, b in zip(lines, bodies)]
    cased = service.truecase_tokenized(bodies, baseline) if tokenized else service.truecase_texts(bodies, baseline)
    return "".join(c + e for c, e in zip(cased, ends)).encode("utf-8", errors="surrogateescape")


def run_partition(kind: str, folder: str, model_id: str, options: dict, label: str, first_line: int,
                  newline_first: int, byte_offset: int, data: bytes):
    """One partition on a worker: (output bytes, [(line, id), ...] for ICD-9 records).  Its first line
    is line ``first_line`` of the file as ``str.splitlines`` counts (the commands' record numbers),
    ``newline_first`` as newlines count (their UTF-8 error messages), at byte ``byte_offset``."""
    model = _load(kind, folder, model_id)
    if kind == "blanc":
        return _blanc_partition(model, options, label, first_line, data), []
    if kind == "truecase":
        # lines as 'textqa truecase' reads them: split at "\n" only (str.splitlines would also split at a
        # lone "\r", "\x0c", U+2028..., changing what the decoder sees); bytes that are not UTF-8 pass through
        lines = [line.decode("utf-8", errors="surrogateescape") for line in io.BytesIO(data)]
        out = []
        for i in range(0, len(lines), 256):         # the CLI's --batch-size: same results, bounded memory
            out.append(truecase_lines(model, lines[i:i + 256], options["tokenized"], options["baseline"]))
        return b"".join(out), []
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:               # numbered as evaluation.io.decode does: by newlines
        line = newline_first + data[:e.start].count(b"\n")
        raise EvalInputError(f"{label}:{line}: not valid UTF-8 (byte offset {byte_offset + e.start})") from None
    if kind == "qa":
        from textqa.models.artifact import ArtifactError
        from textqa.qa_cmd import read_questions
        questions = read_questions(lines, label, first_line)
        try:
            results = model.answer([q for _, q in questions], options["top_k"]) if questions else []
        except ArtifactError as e:
            raise EvalInputError(str(e)) from e
        return "".join(json.dumps({"id": qid, **res}) + "\n" for (qid, _), res in zip(questions, results)
                       ).encode("utf-8"), []
    from textqa.models.icd9.records import RecordError, parse_jsonl_line
    records, ids = [], []
    try:
        for n, line in enumerate(lines, start=first_line):
            if line.strip():
                r = parse_jsonl_line(line, f"{label}:{n}")
                records.append(r)
                ids.append((n, r.id))
    except RecordError as e:
        raise EvalInputError(str(e)) from None
    items = model.code(records, options["classifier"], options["all_scores"]) if records else []
    return "".join(json.dumps(item) + "\n" for item in items).encode("utf-8"), ids


def _blanc_partition(metric, options: dict, label: str, first_line: int, rows: list) -> bytes:
    """What 'textqa blanc score' writes for ``rows`` ([hypothesis, [reference, ...]] from line
    ``first_line`` on); with ``--corpus`` the per-line statistics that its corpus score sums, as
    float64 bytes, so that the client adds them in the same order."""
    import numpy as np
    if options["corpus"]:
        stats = []
        for hyp, refs in rows:
            try:
                s = metric.sentence_score(hyp, refs).stats
            except ValueError as e:
                raise EvalInputError(str(e)) from e
            stats.append(s["per_reference"][s["best_reference"]])
        return np.asarray(stats, dtype=np.float64).tobytes()
    out = []
    for i, (hyp, refs) in enumerate(rows, start=first_line):
        try:
            s = metric.sentence_score(hyp, refs) if hyp.strip() else None
        except ValueError as e:
            raise EvalInputError(f"{label}:{i}: {e}") from e
        if s is None:
            out.append("0.000000 0.000000 0.000000\n" if options["details"] else "0.000000\n")
        else:
            out.append(f"{s.score:.6f} {s.precision:.6f} {s.recall:.6f}\n" if options["details"]
                       else f"{s.score:.6f}\n")
    return "".join(out).encode("utf-8")


def _raw_lines(path: Path):
    """The newline-ended byte lines of a file (``.gz`` decompressed), streamed; an unreadable file
    or a truncated ``.gz`` raises the error ``evaluation.io.read_bytes`` words."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            yield from f
    except (OSError, EOFError) as e:
        raise EvalInputError(f"{path}: {getattr(e, 'strerror', None) or e}") from None


def _text_lines(path: Path):
    """The lines of a UTF-8 file as 'textqa blanc score' reads them (``str.splitlines``), streamed;
    bad bytes and unreadable files raise the errors that ``evaluation.io.read_lines`` words."""
    newlines = offset = 0
    for raw in _raw_lines(path):        # a "\n" never occurs inside a UTF-8 sequence: lines decode alone
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise EvalInputError(f"{path}:{newlines + 1}: not valid UTF-8 (byte offset {offset + e.start})") from None
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
            raise EvalInputError(f"{f}: {n} lines but {hyps} has {counts[0]}")
    for i, (hyp, *row_refs) in enumerate(zip(*map(_text_lines, (hyps, *refs))), start=1):
        if not hyp.strip() and not allow_empty:
            raise EvalInputError(f"{hyps}:{i}: empty hypothesis (use --allow-empty to score it 0)")
        for f, ref in zip(refs, row_refs):
            if not ref.strip():
                raise EvalInputError(f"{f}:{i}: empty reference")
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
    p.add_argument("kind", choices=KINDS, metavar="MODEL", help="truecase, icd9, blanc or qa")
    p.add_argument("input", type=Path, metavar="INPUT",
                   help="text lines (truecase), JSONL records (icd9), hypotheses one a line (blanc, with "
                        "--refs), questions one a line or JSONL (qa); .gz allowed")
    p.add_argument("output", type=Path, metavar="OUTPUT", help="written atomically when every partition is done")
    cluster.add_arguments(p, "local", "run")
    p.add_argument("--partition-size", type=int, default=10000, help="lines per task (default 10,000)")
    p.add_argument("--model", type=Path, default=None, help="artifact folder (default: <artifacts>/MODEL)")
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: $TEXTQA_ARTIFACTS "
                                                                "or ./artifacts)")
    g = p.add_argument_group("truecase (as 'textqa truecase')")
    g.add_argument("--tokenized", action="store_true", help="input is whitespace-tokenized (PTB style)")
    g.add_argument("--baseline", action="store_true", help="unigram most-frequent-casing baseline")
    g = p.add_argument_group("icd9 (as 'textqa icd9 code')")
    g.add_argument("--classifier", default="svm", choices=["svm", "brr"], help="svm (default) or brr")
    g.add_argument("--all-scores", action="store_true", help="add every code's margin over its threshold")
    g = p.add_argument_group("blanc (as 'textqa blanc score')")
    g.add_argument("--refs", type=Path, nargs="+", metavar="FILE",
                   help="reference file(s), line by line with INPUT (required for blanc)")
    g.add_argument("--corpus", action="store_true", help="one system-level score instead of one per line")
    g.add_argument("--allow-empty", action="store_true", help="score empty hypotheses 0 instead of failing")
    g.add_argument("--details", action="store_true", help="write 'score precision recall' per line")
    g = p.add_argument_group("qa (as 'textqa qa answer')")
    g.add_argument("--top-k", type=int, default=5, help="answers per question (default 5)")


def _compute(args, folder: Path, model_id: str, options: dict, signature: bytes, parts: Path, label: str,
             partitions):
    """Every partition's output in ``parts`` (reusing those already there): (their paths in input
    order, how many were reused).  When partitions fail, the error of the first one in the file is
    raised (the one the single-process command reports), whatever order the workers finish in."""
    with cluster.cluster(args.scheduler, args.workers, "textqa batch", preload=(LOADER[args.kind][0],)) as client:
        return _run_partitions(args, client, folder, model_id, options, signature, parts, label, partitions)


def _run_partitions(args, client, folder, model_id, options, signature, parts, label, partitions):
    from distributed import as_completed
    from tqdm import tqdm

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
            except EvalInputError as e:
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
            future = client.submit(run_partition, args.kind, str(folder), model_id, options, label, first,
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
                raise EvalInputError(f"{label}:{n}: id {rid!r} given twice")
            seen.add(rid)
    if not seen:
        raise EvalInputError(f"{label}: no records")


def run(args) -> int:
    from textqa.models.artifact import ArtifactError, artifact_id, load_manifest
    from textqa.paths import artifacts_dir

    import time
    started = time.perf_counter()
    if args.partition_size < 1:
        raise EvalInputError("--partition-size must be at least 1")
    if not args.input.is_file():
        raise EvalInputError(f"{args.input}: no such file")
    if args.kind == "blanc":
        if not args.refs:
            raise EvalInputError("batch blanc needs --refs FILE [FILE ...]")
        for f in args.refs:
            if not f.is_file():
                raise EvalInputError(f"{f}: no such file")
    elif args.refs or args.corpus or args.details or args.allow_empty:
        raise EvalInputError("--refs, --corpus, --details and --allow-empty are options of batch blanc")
    name = ARTIFACT[args.kind]
    if args.kind == "qa" and not 1 <= args.top_k <= 100:
        raise EvalInputError("--top-k must be between 1 and 100")
    folder = (args.model or artifacts_dir(args.artifacts) / name).resolve()
    try:
        manifest = load_manifest(folder, expect_name=name)
    except ArtifactError as e:
        raise EvalInputError(str(e)) from e
    model_id = artifact_id(manifest)
    options = {"truecase": lambda: {"tokenized": args.tokenized, "baseline": args.baseline},
               "icd9": lambda: {"classifier": args.classifier, "all_scores": args.all_scores},
               "blanc": lambda: {"corpus": args.corpus, "details": args.details},
               "qa": lambda: {"top_k": args.top_k}}[args.kind]()
    metric = None
    if args.kind == "blanc":                        # small: the client prints its signature, as the CLI does,
        from textqa.models.blanc.store import load_blanc        # and computes a corpus score from the stats
        try:
            metric = load_blanc(folder)
        except ArtifactError as e:
            raise EvalInputError(str(e)) from e
        print(metric.signature(), file=sys.stderr)
        partitions = _blanc_partitions(args.input, args.refs, args.partition_size, args.allow_empty)
    else:
        partitions = _partitions(args.input, args.partition_size)
    signature = json.dumps([args.kind, model_id, options], sort_keys=True).encode()
    parts = args.output.with_name(args.output.name + ".parts")
    parts.mkdir(parents=True, exist_ok=True)
    label = str(args.input)
    try:
        names, reused = _compute(args, folder, model_id, options, signature, parts, label, partitions)
        if args.kind == "icd9":
            _check_ids(names, label)                 # ids given twice anywhere in the file: the CLI's error
    except EvalInputError:                           # bad input fails again on a re-run: nothing to resume
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
    import numpy as np
    total = np.zeros((3, metric.params.columns))
    for target in names:
        for row in np.frombuffer(target.read_bytes(), dtype=np.float64).reshape(-1, 3, metric.params.columns):
            total += row
    s = metric.score_of_total(total)
    return (f"{s.score:.6f} {s.precision:.6f} {s.recall:.6f}\n" if details else f"{s.score:.6f}\n").encode()
