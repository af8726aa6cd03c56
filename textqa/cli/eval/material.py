"""textqa eval material name|pack|check: MATERIAL submission labels and archives"""
from __future__ import annotations

import argparse
from pathlib import Path

from textqa.cli.eval import print_json
from textqa.evaluation import material

HELP = "MATERIAL submissions: build/validate labels, pack and check <label>.tgz (plan sections 7-8)"
DESCRIPTION = (
    "Submission labels, packing and checking as the IARPA MATERIAL evaluation plan (sections 5.5, 6.2, "
    "7.1-7.2, 8.2) has them.\n\n"
    "Label grammar (7.1):\n"
    "  <TeamID>_<Task>-<SubmissionType>-<TrainingCondition>-<QuerysetID>-<SysLabel>_\n"
    "  <EvalPeriod>-<LangID>-<DatasetName>-<SPEECH|TEXT>_<YYYYMMDD>_<HHMMSS>.tgz\n"
    "  Task CLIR|E2E|ASR; SubmissionType primary|contrastive; TrainingCondition unconstrained;\n"
    "  QuerysetID QUERY1|QUERY2 (NONE for ASR); TeamID, SysLabel letters and digits;\n"
    "  EvalPeriod BASE|OP1|OP2...; LangID 1A|1B|1S|2B|2S...; DatasetName DEV|ANALYSIS|EVAL...\n"
    "  e.g. NIST_CLIR-contrastive-unconstrained-QUERY2-mybestsystem_BASE-1S-EVAL-SPEECH_20181113_225652.tgz\n\n"
    "Archive layout: no parent directory.  CLIR: query*.tsv at the top (7.2.1); E2E: one folder per "
    "query id with <QueryID>.tsv, summary .json files and their .component1/.component2 JPEG or PNG "
    "images (7.2.2); ASR: <DocID>.ctm at the top (8.2.2).  Text and speech are separate submissions.\n"
    "Files: .tsv lines DocID<TAB>Y|N<TAB>confidence[<TAB>metadata], confidence one digit, a point and "
    "1-5 digits in [0.0, 1.0], no N above a Y across the submission (6.2-6.4); CTM records "
    "'<F> <C> <BT> <DUR> word [<CONF>]' (8.2.1); document ids MATERIAL_<EvalPeriod>-<LangID>_<8 digits> "
    "of the label's period and language (5.5).\n\n"
    "  textqa eval material name LABEL                 validate a label, print its fields\n"
    "  textqa eval material name --team T --task CLIR --type primary --queryset QUERY1 --system S \\\n"
    "       --period BASE --lang 1S --dataset EVAL --mode TEXT [--date YYYYMMDD --time HHMMSS]\n"
    "                                                  build one (date and time default to now)\n"
    "  textqa eval material pack LABEL DIR [--out DIR] check DIR's files and write <LABEL>.tgz\n"
    "  textqa eval material check FILE.tgz             check a submission (exit 1 on any problem)")


def add_arguments(p) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="name|pack|check")
    n = sub.add_parser("name", help="validate or build a submission label")
    n.add_argument("label", nargs="?", help="a label to validate (omit to build one from the options)")
    for field, help_ in (("team", "TeamID"), ("task", "CLIR, E2E or ASR"), ("type", "primary or contrastive"),
                         ("condition", "unconstrained (default)"), ("queryset", "QUERY1, QUERY2 (NONE for ASR)"),
                         ("system", "SysLabel"), ("period", "EvalPeriod: BASE, OP1, ..."),
                         ("lang", "LangID: 1A, 1B, 1S, 2B, 2S, ..."), ("dataset", "DatasetName: DEV, ANALYSIS, EVAL"),
                         ("mode", "SPEECH or TEXT"), ("date", "YYYYMMDD (default today)"),
                         ("time", "HHMMSS (default now)")):
        n.add_argument(f"--{field}", help=help_)
    k = sub.add_parser("pack", help="check a folder of system output and pack it as <LABEL>.tgz")
    k.add_argument("label", help="the submission label (its task decides the layout)")
    k.add_argument("source", type=Path, help="folder: query*.tsv (CLIR), query folders (E2E) or *.ctm (ASR)")
    k.add_argument("--out", type=Path, default=Path("."), help="where to write the archive (default .)")
    c = sub.add_parser("check", help="check a <LABEL>.tgz submission")
    c.add_argument("archive", type=Path)
    for s in (n, k, c):
        s.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")


def run(args) -> int:
    if args.action == "name":
        given = {f: getattr(args, f) for f in material.FIELDS if getattr(args, f) is not None}
        if args.label:
            if given:
                raise material.SubmissionError("give a label or its fields, not both")
            label = Path(args.label).name
            fields = material.parse_label(label)
        else:
            label = material.build_label(**given)
            fields = material.parse_label(label)
        if args.json:
            print_json({"label": label if label.endswith(".tgz") else label + ".tgz", "fields": fields})
        else:
            print(label if label.endswith(".tgz") else label + ".tgz")
            for f in material.FIELDS:
                print(f"  {material.FIELD_NAMES[f]:<18}{fields[f]}")
        return 0
    if args.action == "pack":
        target = material.pack(args.label, args.source, args.out)
        report = material.check(target)
        if args.json:
            print_json({"archive": str(target), **report})
        else:
            print(f"wrote {target} ({report['files']} files, {report['task']} {report['mode']})")
        return 0
    report = material.check(args.archive)
    if args.json:
        print_json({"archive": str(args.archive), "ok": not report["problems"], **report})
    else:
        status = "OK" if not report["problems"] else f"{len(report['problems'])} problem(s)"
        what = f"{report['documents']} documents" if report["task"] == "ASR" else f"{report['queries']} queries"
        print(f"{args.archive}: {report['task']} {report['mode']}, {report['files']} files, {what}: {status}")
        for msg in report["problems"]:
            print(f"  {msg}")
    return 0 if not report["problems"] else 1
