"""Ablation of the answer-sentence ranker's features on TrecQA clean dev (MAP, MRR), the README's
table: each row drops one feature (held at 0, so the scaled model ignores it) and refits the ranker
on TRAIN with C fixed at ``--C`` (the value ``textqa train qa`` chose by cross-validation on TRAIN).
``python dev/qa_selection_ablation.py`` (about a minute: it parses the questions with spaCy)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GROUPS = {
    "all features": (),
    "without the four WordNet features": ("wn_synonym", "wn_hyper_hyponym", "wn_derived", "wn_antonym"),
    "without WordNet synonyms": ("wn_synonym",),
    "without WordNet hypernyms/hyponyms": ("wn_hyper_hyponym",),
    "without WordNet derived forms": ("wn_derived",),
    "without WordNet antonyms": ("wn_antonym",),
    "without answer-type match": ("type_match", "type_near"),
    "without fine answer-type match": ("fine_type_match", "fine_type_near"),
}


def main(argv=None) -> int:
    import textqa.models.qa.selection as S
    from textqa.models.qa.answer_type import AnswerTypeClassifier, read_uiuc
    from textqa.models.qa.nlp import parse
    from textqa.models.qa.trecqa import read_qids, read_trecqa
    from textqa.training import qa as T
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--C", type=float, default=0.01)
    a = p.parse_args(argv)
    q = argparse.ArgumentParser()
    T.add_arguments(q)
    args = q.parse_args([])
    uiuc = read_uiuc(args.uiuc)
    train, dev, clean = read_trecqa(args.train), read_trecqa(args.dev), read_qids(args.clean_qids)
    uiuc_docs = parse([x.question for x in uiuc])
    types = AnswerTypeClassifier().fit(uiuc_docs, [x.label for x in uiuc])
    # TRAIN typed as 'textqa train qa' types it: by a classifier that never saw its questions
    unseen = T.unseen_answer_types(uiuc, uiuc_docs, T.read_questions(args.questions) +
                                   [{"question": x.question.text} for x in train])
    qt_train = T._typed(unseen, parse([x.question.text for x in train]))
    qt_dev = T._typed(types, parse([x.question.text for x in dev]))
    pool = [c for x in train + dev for _, c in x.candidates]
    full = S.pair_features
    print(f"| ranker (C = {a.C}) | clean-dev MAP | MRR |\n|---|---:|---:|")
    for name, dropped in GROUPS.items():
        idx = [S.FEATURES.index(f) for f in dropped]

        def masked(*xs, _idx=idx):
            f = full(*xs)
            for i in _idx:
                f[i] = 0.0
            return f
        S.pair_features = masked
        sel = S.SentenceSelector(a.C).fit(train, [q for q, _ in qt_train], pool, [f for _, f in qt_train])
        scores = [sel.scores(x.question, [c for _, c in x.candidates], *qt) for x, qt in zip(dev, qt_dev)]
        r = T.ranking_scores(dev, scores, clean)
        print(f"| {name} | {r['map']:.4f} | {r['mrr']:.4f} |", flush=True)
    S.pair_features = full
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
