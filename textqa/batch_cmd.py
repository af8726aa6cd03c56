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
import io
import json
import os
import shutil
import sys
from pathlib import Path

from textqa.evaluation.io import EvalInputError, replaced_whole

HELP = "run a model over a large file on a Dask cluster (same output as the single-process command)"
KINDS = ("truecase", "icd9", "qa")
ARTIFACT = {"truecase": "truecaser", "icd9": "icd9", "qa": "qa"}

_MODELS: dict = {}          # per worker process: (kind, folder, artifact id) -> loaded model


def _load(kind: str, folder: str, model_id: str):
    key = (kind, folder, model_id)
    if key not in _MODELS:
        if kind == "truecase":
            from textqa.models.truecaser.service_api import TruecaserService
            _MODELS[key] = TruecaserService.load(folder)
        elif kind == "icd9":
            from textqa.models.icd9.store import load_coder
            _MODELS[key] = load_coder(folder)
        else:
            from textqa.models.qa.store import load_qa
            _MODELS[key] = load_qa(folder)
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


def _partitions(path: Path, size: int):
    """(index, first line number, byte offset, bytes) of consecutive partitions of ``size`` newline-ended lines of
    ``path``.  Line numbers count as the single-process commands do (``str.splitlines``: a lone CR,
    U+2028 and the like end a line too), so errors name the same line."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            buf, first, index, offset = [], 1, 0, 0
            for line in f:
                buf.append(line)
                if len(buf) == size:
                    data = b"".join(buf)
                    yield index, first, offset, data
                    first += len(data.decode("utf-8", errors="surrogateescape").splitlines())
                    buf, index, offset = [], index + 1, offset + len(data)
            if buf:
                yield index, first, offset, b"".join(buf)
    except (OSError, EOFError) as e:            # unreadable, or a truncated .gz: as read_bytes reports it
        raise EvalInputError(f"{path}: {getattr(e, 'strerror', None) or e}") from None


def add_arguments(p) -> None:
    p.add_argument("kind", choices=KINDS, metavar="MODEL", help="truecase, icd9 or qa")
    p.add_argument("input", type=Path, metavar="INPUT",
                   help="text lines (truecase), JSONL records (icd9), questions one a line or JSONL (qa); "
                        ".gz allowed")
    p.add_argument("output", type=Path, metavar="OUTPUT", help="written atomically when every partition is done")
    p.add_argument("--scheduler", default="local",
                   help="'local' (default): a LocalCluster on this machine; or a running scheduler's address, "
                        "e.g. tcp://127.0.0.1:8786")
    p.add_argument("--workers", type=int, default=None, help="LocalCluster worker processes (default: the cores)")
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
    g = p.add_argument_group("qa (as 'textqa qa answer')")
    g.add_argument("--top-k", type=int, default=5, help="answers per question (default 5)")


def _client(args):
    from distributed import Client, LocalCluster
    if args.scheduler == "local":
        n = args.workers or os.cpu_count() or 1
        import logging
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.CRITICAL)     # a task's error is reported once, by us
        return Client(cluster), cluster
    return Client(args.scheduler, timeout="20s"), None


def _compute(args, folder: Path, model_id: str, options: dict, signature: bytes, parts: Path, label: str):
    """Every partition's output in ``parts`` (reusing those already there): (their paths in input
    order, how many were reused)."""
    from distributed import as_completed
    from tqdm import tqdm

    client, cluster = _client(args)
    bar = tqdm(desc=f"batch {args.kind}", unit="partition", file=sys.stderr)
    try:
        window = 2 * max(1, len(client.scheduler_info().get("workers", {})))
        if client.dashboard_link and args.scheduler != "local":
            print(f"textqa batch: dashboard {client.dashboard_link}", file=sys.stderr)
        names, pending, targets, reused = [], as_completed(), {}, 0

        def collect(future):
            data, part_ids = future.result()
            target = targets.pop(future.key)
            if args.kind == "icd9":                 # first: a resumed run trusts an .out only with its .ids
                with replaced_whole(target.with_suffix(".ids")) as tmp:
                    tmp.write_text(json.dumps(part_ids))
            with replaced_whole(target) as tmp:
                tmp.write_bytes(data)
            bar.update(1)

        for index, first, offset, data in _partitions(args.input, args.partition_size):
            digest = hashlib.sha256(signature + first.to_bytes(8, "little") + data).hexdigest()[:20]
            target = parts / f"{index:08d}-{digest}.out"
            names.append(target)
            if target.exists() and (args.kind != "icd9" or target.with_suffix(".ids").exists()):   # resumed
                reused += 1
                bar.update(1)
                continue
            future = client.submit(run_partition, args.kind, str(folder), model_id, options, label, first,
                                   index * args.partition_size + 1, offset, data,
                                   key=f"textqa-batch-{index}-{digest}", pure=False)
            targets[future.key] = target
            pending.add(future)
            while pending.count() >= window:
                collect(next(pending))
        for future in pending:
            collect(future)
        return names, reused
    finally:
        bar.close()
        client.close()
        if cluster is not None:
            cluster.close()


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

    if args.partition_size < 1:
        raise EvalInputError("--partition-size must be at least 1")
    if not args.input.is_file():
        raise EvalInputError(f"{args.input}: no such file")
    name = ARTIFACT[args.kind]
    if args.kind == "qa" and not 1 <= args.top_k <= 100:
        raise EvalInputError("--top-k must be between 1 and 100")
    folder = (args.model or artifacts_dir(args.artifacts) / name).resolve()
    try:
        manifest = load_manifest(folder, expect_name=name)
    except ArtifactError as e:
        raise EvalInputError(str(e)) from e
    model_id = artifact_id(manifest)
    options = {"truecase": {"tokenized": args.tokenized, "baseline": args.baseline},
               "icd9": {"classifier": args.classifier, "all_scores": args.all_scores},
               "qa": {"top_k": args.top_k}}[args.kind]
    signature = json.dumps([args.kind, model_id, options], sort_keys=True).encode()
    parts = args.output.with_name(args.output.name + ".parts")
    parts.mkdir(parents=True, exist_ok=True)
    label = str(args.input)
    try:
        names, reused = _compute(args, folder, model_id, options, signature, parts, label)
        if args.kind == "icd9":
            _check_ids(names, label)                 # ids given twice anywhere in the file: the CLI's error
    except EvalInputError:                           # bad input fails again on a re-run: nothing to resume
        shutil.rmtree(parts, ignore_errors=True)
        raise
    with replaced_whole(args.output) as tmp, open(tmp, "wb") as out:
        for target in names:
            out.write(target.read_bytes())
    shutil.rmtree(parts)
    print(f"textqa batch: {len(names)} partition(s) ({reused} reused from an earlier run) -> {args.output}",
          file=sys.stderr)
    return 0
