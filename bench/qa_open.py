"""Open-domain QA benchmark -> the "qa-open" section of bench/RESULTS.md (``python -m bench.qa_open``).

On the default artifacts (``artifacts/qa`` and the ``wikipedia`` collection ``textqa train qa`` builds):

* the Wikipedia collection: documents, paragraphs, build time (from its ``collection.json``), size on disk;
* retrieval on TREC 2002 questions (NIST patterns): the BM25 paragraph baseline of a plain OR query
  (recall@1/5/20/100) beside the collection's own search (AND, then the pruned OR) at the 12 paragraphs
  the answering reads, and the share of questions whose answer reaches the 10 analysed sentences;
* answering over HTTP: ``textqa serve --workers 2``, ``wrk -t2 -c4`` for ``--seconds`` over questions
  the server has never seen (each wrk thread walks its own half of ``--questions`` TREC 2005-2007
  questions, with no repeat), p50/p99 latency, errors, and the workers' memory;
* the dev figures of an artifact trained as the dev protocol asks (``--dev-model``: TREC 8/9 only,
  the pool less TREC 2002's sentences; ``textqa train qa --questions ...trec8 ...trec9 --pool-without
  ...trec11 --collection default --eval-questions ...trec11``), read from its manifest: accuracy@1 and
  MRR@5 with intervals, the share of questions whose answer is among the candidates read and the
  reader's share of those, and the reader's learning curve when it was trained with one;
* the Wikipedia collection's stored analysis: build time, size, sentences and candidates (its manifest);
* a second opinion: exact match (DrQA's normalisation) of the top answer on the first 1,000 Natural
  Questions open dev questions, which no training reads; and the everyday questions of
  ``tests/fixtures/everyday_questions.jsonl`` (``dev/qa_everyday.py``).
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import write_section  # noqa: E402
from bench.service import Server  # noqa: E402

QUESTIONS = ROOT / "data" / "qa" / "trec_qa" / "derived"


def question_texts(names, limit=0) -> list[dict]:
    out = []
    for name in names:
        path = QUESTIONS / name
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as f:
            out += [q for q in map(json.loads, f) if q.get("question")]
    return out[:limit] if limit else out


def lua_unique(bodies: list[dict]) -> str:
    """A wrk script: thread t of n sends bodies t, t+n, t+2n, ... once each, then stops sending new ones
    (wrk ends on its clock; a thread that runs out repeats its last, which the report counts)."""
    items = ", ".join(f"[==[{json.dumps(b)}]==]" for b in bodies)
    return ("local bodies = {" + items + "}\nlocal counter = 0\n"
            "function setup(thread) counter = counter + 1; thread:set('id', counter) end\n"
            "function init(args) i = id - 2 end\n"
            "request = function()\n  if i + 2 <= #bodies then i = i + 2 end\n"
            "  return wrk.format('POST', '/v1/qa/answer', {['Content-Type'] = 'application/json'}, bodies[i])\nend\n")


def retrieval(model, questions: list[dict]) -> dict:
    from textqa.models.qa.answers import keywords, pattern_match
    from textqa.models.qa.index import SentenceIndex
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.retrieval import QuestionSource
    wiki = model.collection("wikipedia")
    docs = parse([q["question"] for q in questions])
    plain = {k: [] for k in (1, 5, 20, 100)}
    ours, sentences = [], []
    for q, d in zip(questions, docs):
        kws = keywords(d)
        rows = wiki.index.match(SentenceIndex.query(kws), 100)
        first = next((i for i, r in enumerate(rows) if pattern_match(q["patterns"], r[1])), None)
        for k in plain:
            plain[k].append(first is not None and first < k)
        ours.append(any(pattern_match(q["patterns"], r[1]) for r in wiki.index.search(kws, 12)))
        source = QuestionSource(*model.sources("default"), model.instance.paragraphs)
        found = source.search(kws, model.instance.answer_k or model.instance.retrieve_k)
        sentences.append(any(pattern_match(q["patterns"], t) for _, t, _ in found))
    return {"plain": {k: float(np.mean(v)) for k, v in plain.items()}, "ours12": float(np.mean(ours)),
            "sentences": float(np.mean(sentences)), "questions": len(questions)}


def second_opinion(model, n: int) -> tuple[dict, list]:
    """Exact match of the top answer on the first ``n`` NQ open dev questions; the everyday questions."""
    from dev.qa_everyday import check
    from textqa.evaluation.stats import bootstrap_ci
    from textqa.models.qa.questions import read_training_questions
    from textqa.models.qa.store import NoContentWords
    from textqa.training.qa_reader import NQ_DEV
    qs = read_training_questions(NQ_DEV)[:n]
    em = []
    for q in qs:
        try:
            top = model.answer(q.question, 1)["answers"]
        except NoContentWords:
            top = []
        em.append(float(bool(top) and q.matches(top[0]["answer"])))
    lo, hi = bootstrap_ci(lambda v: float(np.mean(v)), em)
    return {"questions": len(qs), "em": float(np.mean(em)), "em_ci95": [lo, hi]}, check(model)


def dev_lines(m: dict) -> list[str]:
    """The dev protocol's rows, from the dev model's metrics."""
    out = []
    h = m.get("exact_answers_heldout")
    if h:
        out.append(f"| dev: TREC 2002 ({h['questions']} questions), trained on TREC 8/9, Wikipedia and the pool "
                   f"less TREC 2002's sentences: accuracy@1 / MRR@5 | {h['acc1']:.3f} "
                   f"[{h['acc1_ci95'][0]:.3f}, {h['acc1_ci95'][1]:.3f}] / {h['mrr5']:.3f} "
                   f"[{h['mrr5_ci95'][0]:.3f}, {h['mrr5_ci95'][1]:.3f}] |")
    r = m.get("reader", {})
    final = r.get("held_out")
    if final:
        out.append(f"| dev: the answer among the candidates read / the reader's share of those at rank 1 | "
                   f"{final['answer_reached']:.3f} / {final['reader_share']:.3f} |")
    if r.get("merged_score_only"):
        out.append(f"| dev: the merged strategy score alone (no reader): accuracy@1 / MRR@5 | "
                   f"{r['merged_score_only']['acc1']:.3f} / {r['merged_score_only']['mrr5']:.3f} |")
    for point in r.get("learning_curve", []):
        out.append(f"| dev: reader trained on {point['questions']:,} questions: accuracy@1 / MRR@5 | "
                   f"{point['acc1']:.3f} / {point['mrr5']:.3f} |")
    if r.get("seconds"):
        out.append(f"| the reader's training: questions read / with a right answer among them / time | "
                   f"{r['questions']:,} / {r['questions_with_a_right_answer_read']:,} / {r['seconds'] / 60:.0f} min |")
    return out


def main(argv=None) -> int:
    from textqa.models.qa.store import load_qa

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--artifacts", type=Path, default=ROOT / "artifacts")
    p.add_argument("--dev-model", type=Path, default=None, help="a QA artifact trained by the dev protocol")
    p.add_argument("--seconds", type=int, default=30)
    p.add_argument("--questions", type=int, default=3000)
    p.add_argument("--retrieval-questions", type=int, default=0, help="TREC 2002 questions for recall (0: all)")
    p.add_argument("--nq-questions", type=int, default=1000,
                   help="the first N Natural Questions open dev questions for the second opinion (default 1,000)")
    args = p.parse_args(argv)
    import shutil
    if shutil.which("wrk") is None:
        raise SystemExit("bench: wrk is not installed; `apt-get install wrk` (make bench does it as root)")
    model = load_qa(args.artifacts / "qa")
    wiki_dir = args.artifacts / "collections" / "wikipedia"
    info = json.loads((wiki_dir / "collection.json").read_text())
    size = sum(f.stat().st_size for f in wiki_dir.rglob("*") if f.is_file()) / 1e6
    trec2002 = [q for q in question_texts(["trec11.jsonl.gz"], args.retrieval_questions) if q.get("patterns")]
    rec = retrieval(model, trec2002)
    unseen = [{"question": q["question"], "top_k": 5}
              for q in question_texts(["trec14.jsonl.gz", "trec15.jsonl.gz", "trec16.jsonl.gz",
                                       "trec13.targets1-31.jsonl"])]
    unseen = list({b["question"]: b for b in unseen}.values())
    from textqa.models.qa.answers import keywords
    from textqa.models.qa.nlp import parse
    # a question with no content word ("What is it?", a series question without its target) is a 400 by design
    unseen = [b for b, d in zip(unseen, parse([b["question"] for b in unseen])) if keywords(d)][:args.questions]
    import subprocess
    with tempfile.TemporaryDirectory(prefix="bench-qa-open-") as tmp:
        scratch = Path(tmp)
        server = Server(args.artifacts, "--workers", "2", "--models", "qa", log=scratch / "serve.log")
        try:
            server.wait_ready(deadline_s=300)
            script = scratch / "unique.lua"
            script.write_text(lua_unique(unseen))
            out = subprocess.run(["wrk", "-t2", "-c4", f"-d{args.seconds}s", "--latency", "--timeout", "30s",
                                  "-s", str(script), server.base], capture_output=True, text=True, check=True).stdout
            mem = server.memory()
        finally:
            server.stop()
    import re

    def ms(label):
        m = re.search(rf"^\s*{label}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)] if m else float("nan")
    total = int(re.search(r"(\d+) requests in", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    n_bad = (int(bad.group(1)) if bad else 0) + (sum(map(int, errors.groups())) if errors else 0)
    lines = ["## Open-domain QA: Wikipedia and the news pool (`python -m bench.qa_open`)", "",
             f"Run on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, the default artifacts.", "",
             "| measurement | value |", "|---|---:|",
             f"| Wikipedia collection: articles / paragraphs | {info['documents']:,} / {info['paragraphs']:,} |",
             f"| its build (`textqa train qa` after the model) / size on disk | {info['seconds']:.0f} s / "
             f"{size:,.0f} MB |",
             f"| TREC 2002 ({rec['questions']} questions): plain BM25 OR query, paragraph recall@1/5/20/100 | "
             + " / ".join(f"{rec['plain'][k]:.3f}" for k in (1, 5, 20, 100)) + " |",
             f"| the collection's search (AND, then the pruned OR), recall@12 paragraphs | {rec['ours12']:.3f} |",
             f"| answer in the {model.instance.answer_k} sentences read from each source (Wikipedia's "
             f"{model.instance.paragraphs} best paragraphs, and the pool) | {rec['sentences']:.3f} |",
             f"| HTTP `POST /v1/qa/answer`, 2 workers, `wrk -t2 -c4 -d{args.seconds}s`, questions never asked: "
             f"p50 / p99 | {ms('50%'):.0f} ms / {ms('99%'):.0f} ms |",
             f"| requests / errors (non-2xx or socket) / distinct questions available | {total:,} / {n_bad} / "
             f"{len(unseen):,} |",
             f"| memory per worker: RSS / PSS | {mem['rss']:,.0f} MB / {mem['pss']:,.0f} MB |"]
    manifest = json.loads((wiki_dir / "manifest.json").read_text())
    a = manifest.get("analysis")
    lines.append("| its stored analysis: sentences / candidates / size / build time (2 processes) | "
                 + (f"{a['sentences']:,} / {a['candidates']:,} / {a['bytes'] / 1e6:,.0f} MB / {a['seconds'] / 60:.0f} min |"
                    if a else "not analysed |"))
    nq, everyday = second_opinion(model, args.nq_questions)
    lines += [f"| Natural Questions open dev, its first {nq['questions']:,} (never trained on): exact match of the "
              f"top answer (DrQA) | {nq['em']:.3f} [{nq['em_ci95'][0]:.3f}, {nq['em_ci95'][1]:.3f}] |",
              f"| everyday questions (`tests/fixtures/everyday_questions.jsonl`) right at rank 1: from a document "
              f"the question names / from any document | {sum(r['right'] for r in everyday)} / "
              f"{sum(r['answer_right'] for r in everyday)} of {len(everyday)} |"]
    if args.dev_model:
        lines += dev_lines(json.loads((args.dev_model / "manifest.json").read_text())["metrics"])
    lines.append("")
    if total > len(unseen):
        lines.append(f"Note: {total:,} requests for {len(unseen):,} questions: some were repeated.")
    write_section(ROOT / "bench" / "RESULTS.md", "qa-open", lines, extra=("textqa.models.qa", "textqa.service"))
    print("\n".join(lines))
    return 0 if n_bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
