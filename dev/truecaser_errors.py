"""Error analysis of the default truecaser on the dev set.

Decodes the lowercased dev set with the trained artifact and sorts every token error: a capital
missed (reference has a capital, output none), a capital added (the reverse), or the wrong
capitalised form ("Mcdonald" for "McDonald"); whether the word was seen in training (in the
casing table) and whether it is a sentence's first token; the words most often wrong, with the
share of their occurrences that are errors; and the errors on the trellis's ambiguous tokens
(two or more candidate casings) against the rest; and the errors inside the reference's multi-word
capitalised names (runs of two or more capitalised tokens), by whether the name is in the model's
phrase table.

    python dev/truecaser_errors.py [--artifacts DIR] [--top 20]
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def kind(gold: str, pred: str) -> str:
    g, p = gold != gold.lower(), pred != pred.lower()
    if g and not p:
        return "capital missed"
    if p and not g:
        return "capital added"
    return "wrong capitalised form"


def capitalised_runs(tokens: list[str]) -> list[range]:
    """The maximal runs of two or more consecutive capitalised tokens ("Horsham District Council")."""
    runs, start = [], None
    for i, tok in enumerate(tokens + [""]):
        if tok[:1].isupper():
            start = i if start is None else start
            continue
        if start is not None and i - start >= 2:
            runs.append(range(start, i))
        start = None
    return runs


def main(argv=None) -> int:
    from bench.truecaser import default_model, dev_sentences
    from textqa.models.truecaser.casing import fold_accents
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None)
    p.add_argument("--top", type=int, default=20, help="how many of the most frequent wrong words to list")
    args = p.parse_args(argv)
    model = default_model(args.artifacts)
    gold = [s.split() for s in dev_sentences()]
    pred = model.predict_tokens([[t.lower() for t in s] for s in gold])
    kinds, seen, first, words, occurrences, ambiguous = Counter(), Counter(), 0, Counter(), Counter(), Counter()
    n_tokens = errors = n_unseen = n_ambiguous = 0
    in_names = Counter()        # errors inside a reference name: a run of 2+ capitalised tokens
    for g_sent, p_sent in zip(gold, pred):
        for name in capitalised_runs(g_sent):
            wrong = sum(g_sent[i] != p_sent[i] for i in name)
            key = " ".join(g_sent[i].lower() for i in name)
            key = fold_accents(key) if model.fold_accents else key      # the table is counted folded
            known = model.phrases_ is not None and model.phrases_.entry(key)
            in_names["in the phrase table" if known else "not in the phrase table"] += wrong
        for i, (g, p) in enumerate(zip(g_sent, p_sent)):
            key = g.lower()
            n_tokens += 1
            occurrences[key] += 1
            known = key in model.casing_.forms
            n_unseen += not known
            amb = len(model.candidates(key)) > 1
            n_ambiguous += amb
            if g == p:
                continue
            errors += 1
            kinds[kind(g, p)] += 1
            seen["seen in training" if known else "unseen in training"] += 1
            first += i == 0
            ambiguous["ambiguous (2+ candidates)" if amb else "one candidate"] += 1
            if known:
                words[key] += 1
    pct = lambda x, n: f"{100 * x / n:.1f}%" if n else "-"
    print(f"{errors:,} errors in {n_tokens:,} dev tokens (accuracy {100 * (1 - errors / n_tokens):.2f})\n")
    print("| error | count | share of errors |\n|---|---:|---:|")
    for name, c in kinds.most_common():
        print(f"| {name} | {c:,} | {pct(c, errors)} |")
    for name, c in seen.most_common():
        print(f"| on a word {name} | {c:,} | {pct(c, errors)} |")
    print(f"| on a sentence's first token | {first:,} | {pct(first, errors)} |")
    for name, c in ambiguous.most_common():
        print(f"| on a token with {name} | {c:,} | {pct(c, errors)} |")
    for name, c in sorted(in_names.items()):
        print(f"| inside a multi-word capitalised name {name} | {c:,} | {pct(c, errors)} |")
    print(f"\nUnseen words are {pct(n_unseen, n_tokens)} of the tokens; tokens with two or more candidate casings "
          f"{pct(n_ambiguous, n_tokens)}.\n")
    print("| word (seen in training) | errors | occurrences | error rate |\n|---|---:|---:|---:|")
    for w, c in words.most_common(args.top):
        print(f"| {w} | {c:,} | {occurrences[w]:,} | {pct(c, occurrences[w])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
