"""A digest of what the truecaser writes, for each decoding option, so that two versions of the code
can be compared output for output on the same artifact.

For the default decoding and each load option of the registry (``--decoder trigram``, then each
``--no-PART``), the model decodes the lowercased dev set, Wall Street Journal section 20, the
Reuters-21578 test split (as ``bench.truecaser`` reads them) and, as raw text, the first 3,000 WMT22
system outputs (``data/mt``); one SHA-256 over all of it is printed per option, with the C++
search, and once more for the first 3,000 dev lines with the Python search.  Run it on two checkouts
(``--root``) with the same artifact: equal lines mean byte-identical output.  A checkout without
its own build of the C++ search finds this one's with ``TEXTQA_VITERBI_LIBRARY=.venv/lib/libtextqa_viterbi.so``.

    python dev/truecaser_decode_hashes.py [--root CHECKOUT] [--model DIR]

About a minute with the default model.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PARTS = {"phrases": {"phrase_weight": 0.0}, "compounds": {"compound_casing": False},
         "discriminative": {"discriminative": "none"}, "class_lm": {"class_lm_weight": 0.0},
         "context": {"context_weight": 0.0}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", type=Path, default=HERE, help="the checkout whose code decodes (default: this one)")
    p.add_argument("--model", type=Path, default=HERE / "artifacts" / "truecaser",
                   help="the truecaser artifact (default: artifacts/truecaser of this checkout)")
    p.add_argument("--wmt-lines", type=int, default=3000, help="WMT22 outputs truecased as raw text (default 3,000)")
    args = p.parse_args(argv)
    model_dir = args.model.resolve()
    sys.path.insert(0, str(args.root.resolve()))
    os.chdir(args.root)
    # the parameters each option sets, written out here (not read from the registry) so that an older
    # checkout, which declared them elsewhere, decodes the same settings
    from bench.truecaser import WSJ, reuters_test
    from textqa.models.truecaser.service_api import TruecaserService
    from textqa.training.corpus import conll_sentences, read_lines
    dev = [line.lower() for line in read_lines(HERE / "data" / "truecase" / "val_input.txt.gz") if line.strip()]
    texts = {"dev": dev, "wsj": [s.lower() for s in conll_sentences(WSJ, "conll2000/test.txt")],
             "reuters": [s.lower() for s in reuters_test()]}
    with gzip.open(HERE / "data" / "mt" / "wmt22_toen_sys_outputs.tsv.gz", "rt", encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t")
        column = next(rows).index("hypothesis")
        mt = [row[column] for _, row in zip(range(args.wmt_lines), rows)]
    svc = TruecaserService.load(model_dir)
    base = svc.model.get_params()
    options = {"default": {}, "--decoder trigram": {k: v for part in PARTS.values() for k, v in part.items()},
               **{f"--no-{name.replace('_', '-')}": params for name, params in PARTS.items()}}
    for name, params in options.items():
        svc.model.set_params(**{**base, **params})
        digest, t = hashlib.sha256(), time.perf_counter()
        for lines in texts.values():
            for line in svc.model.predict(lines):
                digest.update(line.encode("utf-8") + b"\n")
        for line in svc.truecase_texts(mt):
            digest.update(line.encode("utf-8") + b"\n")
        print(f"{name:22s} {digest.hexdigest()[:16]}  ({time.perf_counter() - t:.1f} s)", flush=True)
    svc.model.set_params(**base)
    svc.model.search = "python"
    digest = hashlib.sha256()
    for line in svc.model.predict(dev[:3000]):
        digest.update(line.encode("utf-8") + b"\n")
    print(f"{'python search, dev':22s} {digest.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
