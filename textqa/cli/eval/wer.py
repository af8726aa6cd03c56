"""textqa eval wer REF.stm HYP.ctm: word error rate as NIST's sclite computes it"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import add_paired_arguments, paired_result, print_json, print_paired
from textqa.errors import InputError
from textqa.evaluation.wer import read_ctm, read_reference, scored_segments
from textqa.metrics import WER, WERScore

HELP = "word error rate of CTM ASR output against STM references, equal to NIST sclite's"
DESCRIPTION = (
    "WER with substitution, deletion and insertion counts per file and overall, equal to "
    "`sclite -r REF stm -h HYP ctm -o sum` (MATERIAL evaluation plan section 8.2, ASR regression test).\n\n"
    "HYP, CTM (plan section 8.2.1), one word per line, ';;' lines are comments:\n"
    "  <F> <C> <BT> <DUR> word [<CONF>]      e.g. MATERIAL_BASE-1A_12345678 A 11.34 0.2 YES -6.763\n"
    "REF, STM, one segment per line:\n"
    "  <F> <C> <speaker> <BT> <ET> [<label>] transcript\n"
    "  (a transcript IGNORE_TIME_SEGMENT_IN_SCORING excludes the segment and the words in it)\n"
    "or one utterance per file and line:  transcript (<F>)\n\n"
    "As sclite: words are compared case-insensitively; a hypothesis word belongs to the segment its "
    "midpoint falls before the end of, walking forward through each file's segments (words between "
    "segments count against the next one); costs substitution 4, insertion 3, deletion 3; text from "
    "';' to the end of a word is dropped.  Errors name the file and line.")


def add_arguments(p) -> None:
    p.add_argument("reference", type=Path, help="reference: STM, or 'transcript (<F>)' lines")
    p.add_argument("hypothesis", type=Path, nargs="+", help="ASR output: CTM (several, with --paired)")
    p.add_argument("--alignment", action="store_true",
                   help="also each segment's alignment, as sclite's pralign shows it (REF:, HYP:, Eval: lines; "
                        "with --json, 'alignments': [{file, line, rows: [{op, ref, hyp}]}])")
    add_paired_arguments(p, "the hypotheses")


def format_table(result: dict) -> str:
    head = f"{'file':<32}{'segs':>6}{'words':>8}{'corr':>7}{'sub':>7}{'del':>7}{'ins':>7}{'WER%':>8}"
    rows = [head, "-" * len(head)]
    for name, r in [*result["files"].items(), ("overall", result["overall"])]:
        if name == "overall":
            rows.append("-" * len(head))
        rows.append(f"{name:<32}{r['segments']:>6}{r['reference_words']:>8}{r['correct']:>7}{r['substitutions']:>7}"
                    f"{r['deletions']:>7}{r['insertions']:>7}{100 * r['wer']:>8.1f}")
    return "\n".join(rows)


def score(segments, words, alignments: bool = False) -> tuple[dict, list]:
    """WER overall and per file, by :class:`textqa.metrics.WER` (sclite's alignment) over the segments
    sclite scores: ``{"overall": {...}, "files": {file: {...}}}``; and with ``alignments`` each
    segment's alignment ([{``file``, ``line``, ``alignment``}], else [])."""
    metric = WER()
    overall, files, shown = WERScore.zero(), {}, []
    for seg in scored_segments(segments, words):
        if alignments:                      # one alignment gives the rate and the rows
            a = metric.alignment(seg.hyp, seg.words)
            s = a.score
            shown.append({"file": seg.file, "line": seg.line, "alignment": a})
        else:
            s = metric.sentence_score(seg.hyp, seg.words)
        overall = overall + s
        files[seg.file] = files.get(seg.file, WERScore.zero()) + s
    return {"overall": _row(overall), "files": {f: _row(c) for f, c in sorted(files.items())}}, shown


def _row(s: WERScore) -> dict:
    """A score as the command's JSON gives it: the rate as ``wer``, then its parts."""
    d = s.as_dict()
    return {"wer": d.pop("score"), **d}


def run(args) -> int:
    if args.paired:
        return run_paired(args)
    if len(args.hypothesis) > 1:
        raise InputError("several hypotheses: give --paired bs or --paired ar to compare them")
    result, shown = score(read_reference(args.reference), read_ctm(args.hypothesis[0]), args.alignment)
    if args.json:
        if args.alignment:
            result["alignments"] = [{"file": a["file"], "line": a["line"], "rows": a["alignment"].as_dict()}
                                    for a in shown]
        print_json(result)
        return 0
    for a in shown:
        print(f"{args.reference}:{a['line']} ({a['file']})\n{a['alignment'].as_text()}\n")
    print(format_table(result))
    return 0


def run_paired(args) -> int:
    """``--paired``: each hypothesis file's WER over the segments sclite scores, and its paired test
    against the first's (:mod:`textqa.metrics.significance`), over the same units as :func:`score`."""
    segments = read_reference(args.reference)
    systems, references = {}, None
    for path in args.hypothesis:
        kept = list(scored_segments(segments, read_ctm(path)))
        refs = [seg.words for seg in kept]
        if references is not None and refs != references:
            raise InputError(f"{path}: sclite scores other segments for it than for {args.hypothesis[0]}")
        references = refs
        systems[str(path)] = [seg.hyp for seg in kept]
    if len(systems) < len(args.hypothesis):
        raise InputError("--paired: a hypothesis file is given twice")
    result = paired_result(WER(), systems, references, args.paired, args.paired_n)
    if args.json:
        print_json(result)
    else:
        print_paired(result)
    return 0
