"""What truecasing is for (Lita et al. 2003, section 4: MT post-processing and named entities).

1. **MT**: every WMT22 X->English system output (`data/mt/wmt22_toen_sys_outputs.tsv.gz`,
   generaltest2022, not trained on) is lowercased, truecased and scored with cased BLEU against
   the reference (sacrebleu, its default 13a tokenisation): the system's own casing, all
   lowercase, the unigram baseline, the paper's trigram-LM Viterbi decoder (with Kneser-Ney and the
   OOV model; ``textqa truecase --decoder trigram``) and the default truecaser (the same + the
   cased-phrase scores, the part-by-part casing of unseen compounds and the class LM), plus
   case-insensitive BLEU, the ceiling any recasing can reach.
2. **NER on caseless text**: spaCy's entities (`en_core_web_sm` 3.8.0, as the QA model uses it)
   on Wall Street Journal section 20 (CoNLL-2000 test, never trained on) as written, lowercased,
   and truecased; precision, recall and F1 of the entity spans (with and without their labels)
   found in the recased text against those found in the original.  There are no gold entities
   for this text in the project's data, so the original's entities are the reference.

``python -m bench.truecase_mt`` (about 4 minutes) writes its section of bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WMT = ROOT / "data" / "mt" / "wmt22_toen_sys_outputs.tsv.gz"
WSJ = ROOT / "data" / "news" / "conll2000.zip"
VARIANTS = ("own casing", "lowercased", "unigram baseline", "trigram decoder", "truecased (default)")


def read_outputs(path: Path) -> dict:
    """{(lang pair, system): ([hypotheses], [references])} in segment order."""
    csv.field_size_limit(1 << 24)
    out: dict = defaultdict(lambda: ([], []))
    with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            hyps, refs = out[(row["lang_pair"], row["system"])]
            hyps.append(row["hypothesis"])
            refs.append(row["reference"])
    return dict(out)


#: WMT22's anonymisation placeholders ("#PRS_ORG#", "#NAME#", "#NUMBER#"), mostly in de-en.
PLACEHOLDER = re.compile(r"#[A-Za-z_]+#")


def placeholders_kept(own: list[str], recased: list[str]) -> Counter:
    """{(placeholder as the system wrote it, "kept"): times the recased text has it the same, letter
    for letter; (placeholder, "of"): times it occurs}; recasing changes only the case of letters,
    so the same character span is compared."""
    out: Counter = Counter()
    for o, r in zip(own, recased):
        for m in PLACEHOLDER.finditer(o):
            out[(m.group(), "of")] += 1
            out[(m.group(), "kept")] += r[m.start():m.end()] == m.group()
    return out


def mt_table(svc, trigram, outputs: dict, progress=None) -> list[dict]:
    """Cased BLEU of each variant (``trigram``: the truecaser loaded with ``decoder="trigram"``), and
    case-insensitive BLEU, per (language pair, system); and the
    anonymisation placeholders each variant writes as the system did (``placeholders_kept``)."""
    from sacrebleu.metrics import BLEU
    cased, nocase = BLEU(), BLEU(lowercase=True)
    rows = []
    for (pair, system), (hyps, refs) in sorted(outputs.items()):
        lower = [h.lower() for h in hyps]
        variants = {"own casing": hyps, "lowercased": lower,
                    "unigram baseline": svc.truecase_texts(lower, baseline=True),
                    "trigram decoder": trigram.truecase_texts(lower),
                    "truecased (default)": svc.truecase_texts(lower)}
        row = {"pair": pair, "system": system, "segments": len(hyps),
               "case-insensitive": nocase.corpus_score(hyps, [refs]).score}
        row.update({k: cased.corpus_score(v, [refs]).score for k, v in variants.items()})
        row["placeholders"] = {k: placeholders_kept(hyps, v) for k, v in variants.items() if k != "own casing"}
        rows.append(row)
        if progress:
            progress(1)
    return rows


NAMES = {"PERSON", "ORG", "GPE", "NORP", "LOC", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}


def entity_spans(docs, labelled: bool, names_only: bool = False) -> set:
    """(sentence, start, end[, label]) of the entities (only names, not numbers or dates, if asked)."""
    return {(i, e.start_char, e.end_char) + ((e.label_,) if labelled else ()) for i, d in enumerate(docs)
            for e in d.ents if not names_only or e.label_ in NAMES}


def prf(found: set, gold: set) -> tuple[float, float, float]:
    tp = len(found & gold)
    p = tp / len(found) if found else 0.0
    r = tp / len(gold) if gold else 0.0
    return 100 * p, 100 * r, (200 * p * r / (p + r) if p + r else 0.0)


def ner_table(svc, trigram, sentences: list[str]) -> list[dict]:
    """spaCy entities of each casing of ``sentences`` against the original's (``trigram``: the
    truecaser loaded with ``decoder="trigram"``)."""
    from textqa.models.qa.nlp import parse
    lower = [s.lower() for s in sentences]
    texts = {"lowercased": lower, "unigram baseline": svc.truecase_tokenized(lower, baseline=True),
             "trigram decoder": trigram.truecase_tokenized(lower),
             "truecased (default)": svc.truecase_tokenized(lower)}
    gold_docs = parse(sentences)
    rows = []
    for name, t in texts.items():
        docs = parse(t)
        row = {"input": name, "entities": sum(len(d.ents) for d in docs)}
        for key, labelled, names in (("typed", True, False), ("span", False, False), ("names", True, True)):
            p, r, f = prf(entity_spans(docs, labelled, names), entity_spans(gold_docs, labelled, names))
            row.update({f"{key}_p": p, f"{key}_r": r, f"{key}_f1": f})
        rows.append(row)
    rows.insert(0, {"input": "original (reference)", "entities": sum(len(d.ents) for d in gold_docs)})
    return rows


def main(argv=None) -> int:
    from tqdm import tqdm

    import textqa
    from textqa.runtime.paths import artifacts_dir
    from textqa.training.corpus import conll_sentences
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", type=Path, default=None, help="artifacts root (default: ./artifacts)")
    p.add_argument("--wmt", type=Path, default=WMT, help="WMT system outputs (TSV as data/mt/SOURCES.md describes)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = p.parse_args(argv)
    model_dir = artifacts_dir(args.artifacts) / "truecaser"
    if not (model_dir / "manifest.json").exists():
        raise SystemExit(f"error: no truecaser artifact at {model_dir}; run 'make train' first")
    t0 = time.perf_counter()
    svc = textqa.load(model_dir)
    trigram = textqa.load(model_dir, decoder="trigram")       # the paper's decoder (--decoder trigram)
    outputs = read_outputs(args.wmt)
    with tqdm(total=len(outputs), desc="WMT systems", unit="system", file=sys.stderr) as bar:
        rows = mt_table(svc, trigram, outputs, bar.update)
    wsj = conll_sentences(WSJ, "conll2000/test.txt")
    ner = ner_table(svc, trigram, wsj)
    mean = lambda xs: sum(xs) / len(xs)
    cols = ("case-insensitive",) + VARIANTS
    lines = ["## Truecasing for MT and NER (`python -m bench.truecase_mt`)", "",
             f"Run on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: the "
             f"{len(rows)} WMT22 X->English systems of `{args.wmt.relative_to(ROOT) if args.wmt.is_relative_to(ROOT) else args.wmt}` "
             f"({sum(r['segments'] for r in rows):,} segments), each output lowercased and recased, cased BLEU "
             "(sacrebleu 13a) against the reference; case-insensitive BLEU is the ceiling. Averages over systems:", "",
             "| language pair | systems | case-insensitive | own casing | lowercased | unigram baseline | trigram decoder | truecased (default) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    pairs = sorted({r["pair"] for r in rows})
    for pair in pairs + ["all"]:
        sel = [r for r in rows if pair in ("all", r["pair"])]
        name = "**all systems**" if pair == "all" else pair
        lines.append(f"| {name} | {len(sel)} | " + " | ".join(f"{mean([r[c] for r in sel]):.2f}" for c in cols) + " |")
    own, tc = mean([r["own casing"] for r in rows]), mean([r["truecased (default)"] for r in rows])
    ceil, uni = mean([r["case-insensitive"] for r in rows]), mean([r["unigram baseline"] for r in rows])
    low, tri = mean([r["lowercased"] for r in rows]), mean([r["trigram decoder"] for r in rows])
    lines += ["", f"- The truecaser recovers {100 * (tc - low) / (own - low):.0f}% "
              f"of what lowercasing costs (own casing {own:.2f}, truecased {tc:.2f}, trigram decoder {tri:.2f}, "
              f"unigram {uni:.2f}, ceiling {ceil:.2f}).",
              "- The trigram decoder is the paper's trigram-LM Viterbi (Kneser-Ney smoothing and the OOV model added; "
              "`--smoothing deleted_interpolation` is the paper's eq. 1, not run here); the default adds the "
              "cased-phrase scores, the part-by-part casing of unseen compounds, the class LM and the sentence-context "
              "model (`textqa truecase --decoder trigram` turns all four off).",
              ""]
    kept = {k: sum((r["placeholders"][k] for r in rows), Counter()) for k in VARIANTS if k != "own casing"}
    names = sorted({p for c in kept.values() for p, _ in c}, key=lambda p: (-kept["lowercased"][(p, "of")], p))
    if names:
        lines += ["Anonymisation placeholders (de-en's test set writes names and numbers as \"#PRS_ORG#\", "
                  "\"#NAME#\", \"#NUMBER#\"; the references keep them in capitals): how often each variant "
                  "writes one as the system did, over all systems:", "",
                  "| placeholder | occurrences | " + " | ".join(k for k in kept) + " |",
                  "|---|---:|" + "---:|" * len(kept)]
        for p in names[:8]:
            lines.append(f"| `{p}` | {kept['lowercased'][(p, 'of')]:,} | "
                         + " | ".join(f"{c[(p, 'kept')]:,}" for c in kept.values()) + " |")
        lines.append("")
    lines += ["<details><summary>Per system</summary>", "",
              "| pair | system | case-insensitive | own casing | lowercased | unigram | trigram | truecased |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['pair']} | {r['system']} | " + " | ".join(f"{r[c]:.2f}" for c in cols) + " |")
    lines += ["", "</details>", "",
              f"NER on caseless news: spaCy `en_core_web_sm` entities on WSJ section 20 (CoNLL-2000 test, "
              f"{len(wsj):,} sentences, never trained on), each casing against the entities found in the original text "
              "(no gold entities exist for this text in the project's data):", "",
              "| input | entities | typed P | typed R | typed F1 | span F1 | names P | names R | names F1 |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in ner:
        if "typed_p" not in r:
            lines.append(f"| {r['input']} | {r['entities']:,} | | | | | | | |")
        else:
            lines.append(f"| {r['input']} | {r['entities']:,} | " + " | ".join(
                f"{r[k]:.1f}" for k in ("typed_p", "typed_r", "typed_f1", "span_f1", "names_p", "names_r",
                                        "names_f1")) + " |")
    lines += ["", "Typed: span and label equal; span: the span alone; names: typed, only the name types "
              f"({', '.join(sorted(NAMES))}), not numbers, dates and amounts, which casing does not hide."]
    lines += ["", f"Took {time.perf_counter() - t0:.0f} s.", ""]
    from bench.report import write_section
    write_section(args.out, "truecase-mt", lines)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
