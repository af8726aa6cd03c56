"""Everyday questions against a QA model: is the top answer right, and from the document it should be?

    python dev/qa_everyday.py [--model DIR] [--collection default]

The questions (``tests/fixtures/everyday_questions.jsonl``) were written before the reader was tuned:
each has a regular expression its answer must match (case-insensitive search) and the titles of the
documents a right answer may come from.  Prints each question's top answer with its document, and the
count right; exits 1 when a question is answered wrongly.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textqa.models.qa.store import load_qa  # noqa: E402
from textqa.runtime.paths import artifacts_dir  # noqa: E402

QUESTIONS = ROOT / "tests" / "fixtures" / "everyday_questions.jsonl"


def check(model, collection: str = "default") -> list[dict]:
    """Each question's top answer, its document and whether both are right."""
    qs = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for q, res in zip(qs, model.answer([q["question"] for q in qs], 1, collection)):
        top = (res["answers"] or [{}])[0]
        title = ((top.get("document") or {}).get("title")) or ""
        answered = bool(top) and re.search(q["answer"], top.get("answer", ""), re.I) is not None
        out.append({"question": q["question"], "answer": top.get("answer"), "document": title,
                    "right": answered and title in q["documents"], "answer_right": answered})
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, default=None, help="QA artifact (default: <artifacts>/qa)")
    p.add_argument("--collection", default="default")
    args = p.parse_args(argv)
    rows = check(load_qa(args.model or artifacts_dir(None) / "qa"), args.collection)
    for r in rows:
        print(f"{'ok ' if r['right'] else 'NO '} {r['question']:<55} {str(r['answer'])[:40]:<40}  [{r['document']}]")
    right = sum(r["right"] for r in rows)
    print(f"{right} of {len(rows)} right, from one of the documents named; "
          f"{sum(r['answer_right'] for r in rows)} with the right answer from any document")
    return 0 if right == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
