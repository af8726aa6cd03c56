"""The answer reader's settings on dev: how many paragraphs and sentences to read, and what the reader
trained by distant supervision adds over the merged strategy score.

    python dev/qa_reader.py --model artifacts/qa-dev [--paragraphs 12 30 60] [--sentences 10 20 40]
                            [--reader-max 3000] [--curve]

``--model``: a QA artifact trained by the dev protocol (TREC 8/9 questions, the pool less TREC 2002's
sentences; ``docs/qa.md``).  For each setting, on the TREC 2002 factoid questions (NIST patterns): the
share whose answer is among the candidates read, accuracy@1 and MRR@5 by the merged score and by a
reader trained on ``--reader-max`` open-domain questions read the same way, and the reader's share
(accuracy@1 over the questions whose answer was read).  ``--curve``: the learning curve of the last
setting.  Prints JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textqa.models.qa.questions import TrainingQuestion, read_training_questions  # noqa: E402
from textqa.runtime.paths import DATA_DIR  # noqa: E402
from textqa.models.qa.merging import FEATURES  # noqa: E402
from textqa.training import qa_reader as R  # noqa: E402
from textqa.training.qa import question_key, read_questions  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", type=Path, required=True)
    p.add_argument("--paragraphs", type=int, nargs="+", default=[12, 30])
    p.add_argument("--sentences", type=int, nargs="+", default=[10, 20])
    p.add_argument("--reader-max", type=int, default=3000)
    p.add_argument("--dev-limit", type=int, default=0)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--curve", action="store_true")
    args = p.parse_args(argv)
    dev = read_questions([DATA_DIR / "qa" / "trec_qa" / "derived" / "trec11.jsonl.gz"])
    dev = dev[:args.dev_limit] if args.dev_limit else dev
    dev_q = [TrainingQuestion(q["qid"], q["question"], q["patterns"]) for q in dev]
    exclude = {question_key(q.question) for q in dev_q}
    train_files = [DATA_DIR / "qa" / "trec_qa" / "derived" / n for n in ("trec8.jsonl", "trec9.jsonl.gz")]
    exclude |= {question_key(q.question) for f in train_files for q in read_training_questions(f)}
    reader_qs = R.reader_questions(R.READER_QUESTIONS, exclude, args.reader_max, args.seed)
    report = []
    for n_par in args.paragraphs:
        for n_sent in args.sentences:
            t = time.perf_counter()
            say = lambda m: print(f"\r{m}", end="", file=sys.stderr, flush=True)    # noqa: E731
            root = args.model.resolve().parent / "collections"
            dev_rows = R.rows_in_parallel(args.model, root, "default", n_par, n_sent, dev_q, say=say, desc="dev")
            dev_s = (time.perf_counter() - t) / max(len(dev_q), 1)
            rows = R.rows_in_parallel(args.model, root, "default", n_par, n_sent, reader_qs, say=say, desc="reader")
            reader = R.fit_reader(rows)
            pats = [q.patterns for q in dev_q]
            entry = {"paragraphs": n_par, "sentences": n_sent, "seconds_per_question": round(dev_s, 3),
                     "merged": R.held_out_scores(None, dev_rows, pats),
                     "reader": R.held_out_scores(reader, dev_rows, pats),
                     "reader_questions_used": sum(1 for r in rows if r is not None and r[3].any() and not r[3].all())}
            if reader is not None:
                entry["coef"] = dict(zip(FEATURES, [round(float(c), 3) for c in reader.model_.coef_[0]]))
            if args.curve:
                entry["curve"] = R.learning_curve(rows, dev_rows, pats)
            report.append(entry)
            print(json.dumps(entry), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
