"""Write ``data/truecase/wsj_15-18.txt.xz``: the truecaser's news text from the Wall Street Journal.

The sentences of WSJ sections 15-18 as the CoNLL-2000 chunking data gives them
(``data/news/conll2000.zip``, member ``conll2000/train.txt``; section 20, ``test.txt``, is the
truecaser's WSJ check and is never trained on): one sentence a line, its tokens joined by spaces,
less every sentence that also occurs in section 20 ("Terms were n't disclosed .", market-report
headings such as "Foreign Bonds": 20 of 8,936).  The training reader re-tokenizes each line (PTB
rules, which leave these tokens as they are) and drops lines of fewer than 5 words.

    python dev/truecaser_wsj_text.py          # rewrites the file, byte for byte the same
"""
from __future__ import annotations

import lzma
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textqa.training.corpus import conll_sentences  # noqa: E402 (after the path set-up)

CONLL = ROOT / "data" / "news" / "conll2000.zip"
OUT = ROOT / "data" / "truecase" / "wsj_15-18.txt.xz"


def main() -> int:
    test = set(conll_sentences(CONLL, "conll2000/test.txt"))     # as bench/truecaser.py reads the WSJ test
    train = conll_sentences(CONLL, "conll2000/train.txt")
    kept = [s for s in train if s not in test]
    OUT.write_bytes(lzma.compress(("\n".join(kept) + "\n").encode("utf-8"), preset=9 | lzma.PRESET_EXTREME))
    print(f"{OUT}: {len(kept):,} of {len(train):,} sentences ({len(train) - len(kept)} also in section 20 left out), "
          f"{sum(len(s.split()) for s in kept):,} tokens, {OUT.stat().st_size:,} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
