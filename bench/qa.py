"""QA benchmark -> bench/RESULTS.md (``make bench``, ``python -m bench.qa``).

Training time (the default ``textqa train qa`` into a scratch folder, in a subprocess, without the
Wikipedia index, which ``--artifacts``'s is lent to it; the collection analysis is cached in .cache/
after the first run), questions answered per second from the news pool and from the default
collection (Wikipedia and the pool; the 82 TrecQA dev questions, spaCy parse included, best of
``--repeat``), model load time and peak memory of the answering process.
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    from bench.report import timed
    from textqa.models.qa.store import load_qa
    from textqa.models.qa.trecqa import read_trecqa
    from textqa.training.qa import DEV

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--artifacts", type=Path, default=ROOT / "artifacts",
                   help="artifacts root whose collections/wikipedia the default collection reads")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = p.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="bench-qa-"))
    try:
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-W", "ignore", "-m", "textqa.training.qa", "--out", str(scratch / "qa"),
                            "--wikipedia", "skip"], cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("bench: QA training failed:\n" + r.stderr[-2000:])
        train_seconds = time.perf_counter() - t
        t = time.perf_counter()
        model = load_qa(scratch / "qa")
        load_seconds = time.perf_counter() - t
        questions = [p.question.text for p in read_trecqa(DEV)]
        wiki = args.artifacts / "collections"
        if (wiki / "wikipedia" / "manifest.json").is_file():
            (scratch / "collections").symlink_to(wiki.resolve())
        has_wiki = model.has_wikipedia()
        from textqa.models.qa import retrieval

        def answer_all(name):                 # sentences analysed afresh each time, as for new questions
            retrieval._ANALYSED.clear()
            return timed(lambda: model.answer(questions, collection=name))
        best = {}
        for name in ("pool", "default"):
            model.answer(questions[:2], collection=name)              # warm-up (spaCy, the index)
            best[name] = min(answer_all(name) for _ in range(args.repeat))
        manifest = json.loads((scratch / "qa" / "manifest.json").read_text())
        size = sum(f.stat().st_size for f in (scratch / "qa").rglob("*") if f.is_file()) / 1e6
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    e = manifest["metrics"]["exact_answers"]
    lines = ["## Instance-based QA (`make bench`, `python -m bench.qa`)", "",
             f"Run on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
             "| measurement | value |", "|---|---:|",
             f"| training (`textqa train qa`: UIUC CV, selection, {e['clusters']} clusters, {e['training_questions']} "
             f"questions; collection analysis cached) | {train_seconds:.0f} s |",
             f"| model load | {load_seconds:.2f} s |",
             f"| questions answered per second from the news pool ({len(questions)} TrecQA dev questions, one "
             f"process) | {len(questions) / best['pool']:.1f} |",
             f"| same, from the default collection ({'Wikipedia and the pool' if has_wiki else 'no Wikipedia index: the pool'}"
             f"; 10 Wikipedia sentences analysed afresh, 10 from the pool) | "
             f"{len(questions) / best['default']:.1f} |",
             f"| peak RSS of the answering process | {rss:,.0f} MB |",
             f"| artifact size | {size:.1f} MB |",
             f"| TrecQA dev MRR@5 / accuracy@1 (from the artifact) | {e['mrr5']:.4f} / {e['acc1']:.4f} |", ""]
    from bench.report import write_section
    write_section(args.out, "qa", lines)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
