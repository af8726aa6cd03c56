"""MATERIAL submissions: the label grammar, packing and checking of ``<label>.tgz`` files
(IARPA MATERIAL evaluation plan, sections 5.5, 6.2, 7.1-7.2 and 8.2).

* **Label** (section 7.1)::

    <TeamID>_<Task>-<SubmissionType>-<TrainingCondition>-<QuerysetID>-<SysLabel>_
    <EvalPeriod>-<LangID>-<DatasetName>-<SPEECH|TEXT>_<YYYYMMDD>_<HHMMSS>.tgz

  e.g. ``NIST_CLIR-contrastive-unconstrained-QUERY2-mybestsystem_BASE-1S-EVAL-SPEECH_20181113_225652.tgz``.
  ASR submissions use the queryset ``NONE`` and speech; CLIR and E2E use ``QUERY1``/``QUERY2``.
* **Archive layout** (7.2, 8.2.2): no parent directory.  CLIR: ``query*.tsv`` at the top; E2E: one
  folder per query id holding ``<QueryID>.tsv``, the summaries' ``.json`` and their
  ``.component1``/``.component2`` JPEG or PNG images; ASR: ``<DocID>.ctm`` at the top.  Text and
  speech are separate submissions: one label, one mode.
* **Files** (6.2-6.4, 8.2.1): system ``.tsv`` lines ``DocID<TAB>Y|N<TAB>confidence[<TAB>metadata]``
  (the AQWV scorer's validation, with the plan's rule that no N outranks a Y across the whole
  submission), CTM records as ``textqa eval wer`` reads them, JSON that parses, images whose
  bytes are JPEG or PNG.  Document ids are ``MATERIAL_<EvalPeriod>-<LangID>_<8 digits>`` (5.5) and
  must name the label's period and language.
"""
from __future__ import annotations

import datetime as dt
import re
import shutil
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

from textqa.errors import InputError
from textqa.runtime.json_input import parse_json
from textqa.evaluation.aqwv import read_system
from textqa.evaluation.wer import read_ctm
from textqa.runtime.files import replaced_whole

TASKS = ("CLIR", "E2E", "ASR")
TYPES = ("primary", "contrastive")
CONDITIONS = ("unconstrained",)
QUERYSETS = ("QUERY1", "QUERY2", "NONE")
MODES = ("SPEECH", "TEXT")
FIELDS = ("team", "task", "type", "condition", "queryset", "system", "period", "lang", "dataset", "mode",
          "date", "time")
FIELD_NAMES = {"team": "TeamID", "task": "Task", "type": "SubmissionType", "condition": "TrainingCondition",
               "queryset": "QuerysetID", "system": "SysLabel", "period": "EvalPeriod", "lang": "LangID",
               "dataset": "DatasetName", "mode": "SPEECH|TEXT", "date": "Date", "time": "Timestamp"}
ALNUM = re.compile(r"[A-Za-z0-9]+")
PERIOD = re.compile(r"BASE|OP[0-9]+")
LANG = re.compile(r"[0-9][A-Z]")
DATASET = re.compile(r"[A-Z0-9]+")
DOCID = re.compile(r"MATERIAL_([A-Z0-9]+)-([0-9][A-Z])_([0-9]{8})")
MAX_MEMBERS = 200_000
MAX_BYTES = 4 << 30          # uncompressed bytes a check reads at most


class SubmissionError(InputError):
    """A label or a submission breaks the plan; the message names the field or the member."""


def _field(name: str, value: str, ok: bool, allowed: str) -> None:
    if not ok:
        raise SubmissionError(f"<{FIELD_NAMES[name]}> is {value!r}; expected {allowed} (plan section 7.1)")


def validate_fields(f: dict) -> dict:
    """Check every field of a label (all of ``FIELDS``); returns them unchanged."""
    missing = [k for k in FIELDS if not f.get(k)]
    if missing:
        raise SubmissionError("missing field(s): " + ", ".join(f"<{FIELD_NAMES[k]}>" for k in missing))
    _field("team", f["team"], bool(ALNUM.fullmatch(f["team"])), "letters and digits only")
    _field("task", f["task"], f["task"] in TASKS, "one of " + ", ".join(TASKS))
    _field("type", f["type"], f["type"] in TYPES, "one of " + ", ".join(TYPES))
    _field("condition", f["condition"], f["condition"] in CONDITIONS, "must be 'unconstrained' (hard-coded)")
    _field("queryset", f["queryset"], f["queryset"] in QUERYSETS, "one of " + ", ".join(QUERYSETS))
    if f["task"] == "ASR":
        _field("queryset", f["queryset"], f["queryset"] == "NONE", "ASR submissions use NONE")
        _field("mode", f["mode"], f["mode"] == "SPEECH", "ASR submissions are SPEECH")
    else:
        _field("queryset", f["queryset"], f["queryset"] != "NONE", f"{f['task']} submissions use QUERY1 or QUERY2")
    _field("system", f["system"], bool(ALNUM.fullmatch(f["system"])), "letters and digits only")
    _field("period", f["period"], bool(PERIOD.fullmatch(f["period"])), "BASE, OP1, OP2, ... (section 5.5)")
    _field("lang", f["lang"], bool(LANG.fullmatch(f["lang"])), "a digit and a capital letter: 1A, 1B, 1S, 2B, 2S, ...")
    _field("dataset", f["dataset"], bool(DATASET.fullmatch(f["dataset"])),
           "capitals and digits: DEV, ANALYSIS, EVAL, ... (section 5.5)")
    _field("mode", f["mode"], f["mode"] in MODES, "SPEECH or TEXT")
    try:
        ok = len(f["date"]) == 8 and bool(dt.datetime.strptime(f["date"], "%Y%m%d"))
    except ValueError:
        ok = False
    _field("date", f["date"], ok, "a real date, YYYYMMDD")
    try:
        ok = len(f["time"]) == 6 and bool(dt.datetime.strptime(f["time"], "%H%M%S"))
    except ValueError:
        ok = False
    _field("time", f["time"], ok, "a real time of day, HHMMSS")
    return f


def parse_label(label: str) -> dict:
    """The fields of a submission label (with or without ``.tgz`` and directories)."""
    name = PurePosixPath(str(label).replace("\\", "/")).name
    stem = name[:-4] if name.endswith(".tgz") else name
    groups = stem.split("_")
    if len(groups) != 5:
        raise SubmissionError(f"{name}: a label has 5 parts joined by '_' (<TeamID>, <Task>-...-<SysLabel>, "
                              f"<EvalPeriod>-<LangID>-<DatasetName>-<SPEECH|TEXT>, <Date>, <Timestamp>), "
                              f"found {len(groups)}")
    team, run, data, date, time = groups
    run_f, data_f = run.split("-"), data.split("-")
    if len(run_f) != 5:
        raise SubmissionError(f"{name}: '{run}' must be <Task>-<SubmissionType>-<TrainingCondition>-<QuerysetID>-"
                              f"<SysLabel> (5 fields joined by '-'), found {len(run_f)}")
    if len(data_f) != 4:
        raise SubmissionError(f"{name}: '{data}' must be <EvalPeriod>-<LangID>-<DatasetName>-<SPEECH|TEXT> "
                              f"(4 fields joined by '-'), found {len(data_f)}")
    f = dict(zip(FIELDS, [team, *run_f, *data_f, date, time]))
    try:
        return validate_fields(f)
    except SubmissionError as e:
        raise SubmissionError(f"{name}: {e}") from None


def build_label(**fields) -> str:
    """A label from its fields (``date``/``time`` default to now, as NIST's renaming script does)."""
    now = dt.datetime.now()
    f = {"condition": "unconstrained", "date": now.strftime("%Y%m%d"), "time": now.strftime("%H%M%S")}
    if fields.get("task") == "ASR":
        f.update(queryset="NONE", mode="SPEECH")
    f.update({k: v for k, v in fields.items() if v is not None})
    unknown = set(f) - set(FIELDS)
    if unknown:
        raise SubmissionError(f"unknown field(s): {', '.join(sorted(unknown))}")
    validate_fields(f)
    return (f"{f['team']}_{f['task']}-{f['type']}-{f['condition']}-{f['queryset']}-{f['system']}_"
            f"{f['period']}-{f['lang']}-{f['dataset']}-{f['mode']}_{f['date']}_{f['time']}.tgz")


# --- file contents --------------------------------------------------------------------------------

def _docid(doc: str, label: dict, where: str, problems: list) -> None:
    m = DOCID.fullmatch(doc)
    if not m:
        problems.append(f"{where}: document id {doc!r} is not MATERIAL_<EvalPeriod>-<LangID>_<8 digits> (section 5.5)")
    elif (m.group(1), m.group(2)) != (label["period"], label["lang"]):
        problems.append(f"{where}: document {doc} is from {m.group(1)}-{m.group(2)}, the label says "
                     f"{label['period']}-{label['lang']}")


def _check_tsv(path: Path, shown: str, label: dict, problems: list, extremes: dict) -> None:
    try:
        rows = read_system(path)
    except InputError as e:
        problems.append(str(e).replace(str(path), shown))
        return
    for doc, (yes, conf, line) in rows.items():
        _docid(doc, label, f"{shown}:{line}", problems)
        key = "min_yes" if yes else "max_no"
        best = extremes.get(key)
        if best is None or (conf < best[0] if yes else conf > best[0]):
            extremes[key] = (conf, f"{shown}:{line}")


def _check_ctm(path: Path, shown: str, label: dict, problems: list) -> None:
    doc = PurePosixPath(shown).stem
    _docid(doc, label, shown, problems)
    try:
        words = read_ctm(path)
    except InputError as e:
        problems.append(str(e).replace(str(path), shown))
        return
    for w in words:
        if w.file != doc:
            problems.append(f"{shown}: a record names file {w.file!r}; a <DocID>.ctm holds only {doc}")
            break
        if w.channel not in ("A", "B"):
            problems.append(f"{shown}: channel {w.channel!r} (section 8.2.1: A or B)")
            break


IMAGE = re.compile(r"(.+)\.component([12])\.(jpg|jpeg|png)", re.I)


def _check_e2e_folder(qid: str, files: dict, label: dict, problems: list, extremes: dict) -> None:
    tsv = files.pop(f"{qid}.tsv", None)
    if tsv is None:
        problems.append(f"{qid}/: no {qid}.tsv (section 7.2.2)")
    else:
        _check_tsv(tsv, f"{qid}/{qid}.tsv", label, problems, extremes)
    summaries = {n[:-5]: p for n, p in files.items() if n.endswith(".json")}
    images: dict = {}
    for n, p in files.items():
        if n.endswith(".json"):
            try:
                parse_json(p.read_bytes())
            except (OSError, ValueError) as e:
                problems.append(f"{qid}/{n}: not valid UTF-8 JSON ({e})")
            continue
        m = IMAGE.fullmatch(n)
        if not m:
            problems.append(f"{qid}/{n}: not part of an E2E submission (<QueryID>.tsv, *.json, "
                         f"*.component1|2.jpg|png)")
            continue
        head = p.read_bytes()[:8]
        kind = "png" if head.startswith(b"\x89PNG\r\n\x1a\n") else "jpg" if head.startswith(b"\xff\xd8\xff") else None
        if kind is None:
            problems.append(f"{qid}/{n}: not a JPEG or PNG image")
        elif kind != ("png" if m.group(3).lower() == "png" else "jpg"):
            problems.append(f"{qid}/{n}: the file is a {'PNG' if kind == 'png' else 'JPEG'} but named .{m.group(3)}")
        images.setdefault(m.group(1), set()).add(m.group(2))
    for stem in summaries:
        if "1" not in images.get(stem, set()):
            problems.append(f"{qid}/{stem}.json: no {stem}.component1 image (section 7.2.2)")
    for stem in images:
        if stem not in summaries:
            problems.append(f"{qid}/{stem}.component*: an image without its {stem}.json")


def check_tree(root: Path, label: dict, problems: list) -> dict:
    """Validate an unpacked submission rooted at ``root`` (no parent directory) for the label's task."""
    task = label["task"]
    top = sorted(root.iterdir())
    extremes: dict = {}
    counts = {"files": 0, "queries": 0, "documents": 0}
    if task in ("CLIR", "ASR"):
        suffix = ".tsv" if task == "CLIR" else ".ctm"
        for p in top:
            if p.is_dir():
                problems.append(f"{p.name}/: a folder; {task} files sit at the top of the archive, without a "
                             f"parent directory (section {'7.2.1' if task == 'CLIR' else '8.2.2'})")
                continue
            if not p.name.endswith(suffix) or (task == "CLIR" and not p.name.startswith("query")):
                problems.append(f"{p.name}: not a {'query*.tsv' if task == 'CLIR' else '<DocID>.ctm'} file")
                continue
            counts["files"] += 1
            if task == "CLIR":
                counts["queries"] += 1
                _check_tsv(p, p.name, label, problems, extremes)
            else:
                counts["documents"] += 1
                _check_ctm(p, p.name, label, problems)
    else:
        for p in top:
            if not p.is_dir():
                problems.append(f"{p.name}: E2E archives hold one folder per query id, no files at the top (7.2.2)")
                continue
            counts["queries"] += 1
            files = {}
            for q in sorted(p.iterdir()):
                if q.is_dir():
                    problems.append(f"{p.name}/{q.name}/: a folder inside a query folder")
                else:
                    files[q.name] = q
                    counts["files"] += 1
            _check_e2e_folder(p.name, files, label, problems, extremes)
    if not counts["files"]:
        problems.append("the submission holds no system output files")
    lo, hi = extremes.get("min_yes"), extremes.get("max_no")
    if lo and hi and hi[0] > lo[0]:
        problems.append(f"{hi[1]}: an N decision at confidence {hi[0]} is above a Y decision at {lo[0]} ({lo[1]}); "
                     f"confidences must be consistent across the submission (section 6.4)")
    return counts


def _safe_member(m: tarfile.TarInfo) -> str | None:
    """The member's normalised path, or ``None`` when it must not be unpacked (the reason is raised)."""
    name = m.name
    if name.startswith("./"):
        name = name[2:]
    if name in ("", "."):
        return None
    p = PurePosixPath(name)
    if name.startswith("/") or "\\" in name or ".." in p.parts or any(part == "" for part in name.rstrip("/").split("/")):
        raise SubmissionError(f"{m.name}: path outside the archive's root (absolute, '..', or backslashes)")
    if not (m.isfile() or m.isdir()):
        kind = "link" if (m.issym() or m.islnk()) else "device, fifo or special file"
        raise SubmissionError(f"{m.name}: a {kind}; a submission holds only regular files and folders")
    return str(p)


def check(tgz: Path) -> dict:
    """Check a submission archive: its name (the label), its members and every file's format.
    Returns ``{"label", "task", "mode", "files", "queries", "documents", "problems"}``; an
    unreadable archive or unsafe member raises ``SubmissionError``."""
    tgz = Path(tgz)
    label = parse_label(tgz.name)
    problems: list = []   # every problem found: a check reports them all, not just the first
    with tempfile.TemporaryDirectory(prefix="material-check-") as tmp:
        root = Path(tmp)
        total = 0
        try:
            with tarfile.open(tgz, "r:gz") as tar:
                for n, m in enumerate(tar):
                    if n >= MAX_MEMBERS:
                        raise SubmissionError(f"{tgz}: more than {MAX_MEMBERS} members")
                    name = _safe_member(m)
                    if name is None:
                        continue
                    dest = root / name
                    if m.isdir():
                        dest.mkdir(parents=True, exist_ok=True)
                        continue
                    total += m.size
                    if total > MAX_BYTES:
                        raise SubmissionError(f"{tgz}: more than {MAX_BYTES >> 30} GB uncompressed")
                    if dest.exists():
                        raise SubmissionError(f"{m.name}: in the archive twice")
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with tar.extractfile(m) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out)
        except (tarfile.TarError, OSError, EOFError) as e:
            raise SubmissionError(f"{tgz}: not a readable gzip tar archive ({e})") from None
        counts = check_tree(root, label, problems)
    return {"label": label, "task": label["task"], "mode": label["mode"], **counts, "problems": problems}


def pack(label: str, source: Path, out_dir: Path) -> Path:
    """Pack ``source`` as the label's task wants it (section 7.2) into ``out_dir/<label>``, after
    checking every file; nothing is written when a check fails."""
    fields = parse_label(label)
    name = label if label.endswith(".tgz") else label + ".tgz"
    source = Path(source)
    if not source.is_dir():
        raise SubmissionError(f"{source}: not a folder")
    for p in source.rglob("*"):
        if p.is_symlink():
            raise SubmissionError(f"{p}: a symbolic link; pack regular files only")
    problems: list = []   # every problem found: a check reports them all, not just the first
    check_tree(source, fields, problems)
    if problems:
        raise SubmissionError(f"{source}: not packed, {len(problems)} problem(s):\n  " + "\n  ".join(problems))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / name
    with replaced_whole(target) as tmp:
        with tarfile.open(tmp, "w:gz") as tar:
            for p in sorted(source.iterdir()):
                tar.add(p, arcname=p.name, recursive=True, filter=_clean_info)
    return target


def _clean_info(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info

