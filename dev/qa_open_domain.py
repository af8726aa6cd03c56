"""Open-domain QA on a TREC question set: where the answers are lost.

    python dev/qa_open_domain.py [--set trec11] [--limit 200] [--collection default] [--k 5 20 100]

For each question with NIST patterns (case-insensitive search, as the project's scorers apply them):

* paragraph recall@k: a pattern matches one of the top k paragraphs BM25 retrieves from the
  'wikipedia' collection for the question's content words (the issue's baseline table);
* sentence recall@k: a pattern matches one of the k sentences the answering code analyses
  (:class:`textqa.models.qa.retrieval.QuestionSource`, the collection and the news pool);
* accuracy@1 and MRR@5 of the answers of the QA artifact (``--model``, default the default artifact)
  from ``--collection``, with 95% bootstrap intervals, and the reader's share: answered at rank 1 among
  the questions whose answer was in the analysed sentences.

Mind which questions the model trained on: the default artifact trains on TREC 8, 9 and 2002.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textqa.evaluation.stats import bootstrap_ci  # noqa: E402
from textqa.models.qa.answers import keywords, pattern_match  # noqa: E402
from textqa.models.qa.nlp import parse  # noqa: E402
from textqa.models.qa.retrieval import QuestionSource  # noqa: E402
from textqa.models.qa.store import NoContentWords, load_qa  # noqa: E402
from textqa.runtime.paths import DATA_DIR, artifacts_dir  # noqa: E402


def questions(name: str, limit: int) -> list[dict]:
    path = DATA_DIR / "qa" / "trec_qa" / "derived" / f"{name}.jsonl.gz"
    if not path.exists():
        path = path.with_suffix("")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        out = [q for q in map(json.loads, f) if q.get("patterns") and q.get("question")
               and q.get("type", "factoid") == "factoid"]
    return out[:limit] if limit else out


def ci(values) -> str:
    lo, hi = bootstrap_ci(lambda v: float(np.mean(v)), values)
    return f"{np.mean(values):.3f} [{lo:.3f}, {hi:.3f}]"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--set", default="trec11", help="derived question file stem (trec11 is TREC 2002)")
    p.add_argument("--limit", type=int, default=200)
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--collection", default="default")
    p.add_argument("--k", type=int, nargs="+", default=[1, 5, 20, 100])
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    model = load_qa(args.model or artifacts_dir(None) / "qa")
    qs = questions(args.set, args.limit)
    docs = parse([q["question"] for q in qs])
    wiki = model.collection("wikipedia") if "wikipedia" in model.collection_names() else None
    para_hits = {k: [] for k in args.k}
    sent_hits, rr, took = [], [], []
    for q, doc in zip(qs, docs):
        kws = keywords(doc)
        if wiki is not None:
            paras = wiki.index.search(kws, max(args.k))
            first = next((i for i, (_, text, _, _) in enumerate(paras) if pattern_match(q["patterns"], text)), None)
            for k in args.k:
                para_hits[k].append(first is not None and first < k)
        collections, pool = model.sources(args.collection)
        source = QuestionSource(collections, pool, model.instance.paragraphs)
        found = source.search(kws, model.instance.answer_k or model.instance.retrieve_k)
        sent_hits.append(any(pattern_match(q["patterns"], text) for _, text, _ in found))
        t = time.perf_counter()
        try:
            res = model.answer(q["question"], 5, args.collection)
        except NoContentWords:              # nothing to search for: no answer
            res = {"answers": []}
        took.append(time.perf_counter() - t)
        rr.append(next((1 / (i + 1) for i, a in enumerate(res["answers"][:5])
                        if pattern_match(q["patterns"], a["answer"])), 0.0))
    rr = np.array(rr)
    report = {"set": args.set, "questions": len(qs), "collection": args.collection,
              "paragraph_recall": {k: float(np.mean(v)) for k, v in para_hits.items() if v},
              "sentence_recall": float(np.mean(sent_hits)), "acc1": ci(rr == 1.0), "mrr5": ci(rr),
              "reader_share_at_1": float(np.mean(rr[np.array(sent_hits)] == 1.0)) if any(sent_hits) else 0.0,
              "seconds_p50": float(np.percentile(took, 50)), "seconds_p90": float(np.percentile(took, 90))}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
