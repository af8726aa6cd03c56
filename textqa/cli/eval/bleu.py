"""textqa eval bleu REF... -i HYP...: BLEU and NIST of mteval-v13a, with paired tests"""
from __future__ import annotations

from pathlib import Path

from textqa.cli.eval import add_paired_arguments, at_lines, paired_result, print_json, print_paired, read_systems
from textqa.metrics import BLEU, NIST, MetricInputError

HELP = "BLEU and NIST as NIST's mteval-v13a.pl, with sacrebleu's paired tests"
DESCRIPTION = ("Corpus BLEU (and with --nist NIST) of each hypothesis file as NIST's mteval-v13a.pl computes "
               "them: its tokenization, the closest reference length, ASCII lowercasing unless "
               "--case-sensitive.  Files hold one segment a line; every reference file has a line per "
               "hypothesis line (a segment's references are its lines across the reference files).\n\n"
               "--paired bs|ar compares the hypothesis files on BLEU, the first as the baseline, by paired "
               "bootstrap resampling or approximate randomization, with sacrebleu's seed and p-values "
               "(sacrebleu --paired-bs / --paired-ar).")


def add_arguments(p) -> None:
    p.add_argument("references", type=Path, nargs="+", help="reference file(s), one segment a line")
    p.add_argument("-i", "--input", type=Path, nargs="+", required=True, metavar="HYP",
                   help="hypothesis file(s), one segment a line")
    p.add_argument("--nist", action="store_true", help="also NIST (mteval's information-weighted score)")
    p.add_argument("--case-sensitive", action="store_true", help="keep case (mteval's -c)")
    add_paired_arguments(p, "the hypothesis files")


def run(args) -> int:
    systems, references = read_systems(args.references, args.input)
    lowercase = not args.case_sensitive
    bleu = BLEU(lowercase=lowercase)
    if args.paired:
        result = paired_result(bleu, systems, references, args.paired, args.paired_n)
        if args.json:
            print_json(result)
        else:
            print_paired(result)
        return 0
    out = {}
    nist = NIST(lowercase=lowercase) if args.nist else None
    for name, hyps in systems.items():
        try:
            b = bleu.corpus_score(hyps, references)
            row = {"bleu": b.score, "precisions": list(b.precisions), "brevity_penalty": b.brevity_penalty,
                   "length_ratio": b.length_ratio, "hypothesis_words": b.hypothesis_words,
                   "reference_words": b.reference_words}
            if nist is not None:
                n = nist.corpus_score(hyps, references)
                row.update(nist=n.score, nist_information=list(n.information))
        except MetricInputError as e:
            raise at_lines(e, {"hypotheses": name}) from None
        out[name] = row
    signatures = [bleu.signature] + ([nist.signature] if nist is not None else [])
    if args.json:
        print_json({"signatures": signatures, "systems": out})
        return 0
    for name, r in out.items():
        precisions = "/".join(f"{100 * x:.1f}" for x in r["precisions"])
        nist = f"  NIST = {r['nist']:.4f}" if args.nist else ""
        print(f"{name}: BLEU = {r['bleu']:.4f} {precisions} (BP = {r['brevity_penalty']:.3f}, "
              f"ratio = {r['length_ratio']:.3f}, hyp_len = {r['hypothesis_words']}, "
              f"ref_len = {r['reference_words']}){nist}")
    for s in signatures:
        print(s)
    return 0
