"""More cased English for the truecaser's training text: measured on dev, not
kept.

The learning curve (docs/truecaser.md) says the truecaser is short of text.  The only cased English text the
project can reach beyond its two Wikipedia parts and Reuters-21578 is in ``../shared/data``: the
Brown corpus (1.16 M tokens, 1961 American English of 15 genres), the ABC corpus (0.66 M tokens,
Australian Broadcasting Commission news and science stories) and the WikiText-2 raw test split
(0.23 M tokens of Wikipedia).  The Gutenberg books are left out: the King James Bible, Milton and
Shakespeare capitalise by older rules.  This script writes the three as plain text, one sentence
or paragraph a line, into ``--out``:

    python dev/truecaser_more_text.py --out /tmp/more
    textqa train truecaser --data $(python -c "from textqa.training.truecaser import DEFAULT_DATA; \\
        print(*DEFAULT_DATA)") /tmp/more/*.txt --out /tmp/more/truecaser        # 5.3 minutes

Brown's part-of-speech tags are stripped (its tokens are already split); WikiText's section
titles are left out and its ``@-@``, ``@,@`` and ``@.@`` joiners are undone.
"""
import argparse
import gzip
import io
import re
import zipfile
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True, help="folder for brown.txt, abc.txt and wikitext2test.txt")
    p.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder (default: ../shared/data)")
    args = p.parse_args()
    corpora = args.shared / "nltk_data" / "corpora"
    needed = [corpora / "brown.zip", corpora / "abc.zip", args.shared / "wikitext" / "wikitext-2-raw" / "wiki.test.raw.gz"]
    missing = [str(f) for f in needed if not f.is_file()]
    if missing:
        p.error("not found: " + ", ".join(missing))
    args.out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(corpora / "brown.zip") as z, open(args.out / "brown.txt", "w", encoding="utf-8") as out:
        for name in sorted(n for n in z.namelist() if re.fullmatch(r"brown/c[a-r]\d\d", n)):
            for line in io.TextIOWrapper(z.open(name), encoding="latin-1"):
                if line.split():
                    out.write(" ".join(t.rsplit("/", 1)[0] for t in line.split()) + "\n")
    with zipfile.ZipFile(corpora / "abc.zip") as z, open(args.out / "abc.txt", "w", encoding="utf-8") as out:
        for name in ("abc/rural.txt", "abc/science.txt"):
            out.writelines(line.strip() + "\n" for line in io.TextIOWrapper(z.open(name), encoding="latin-1")
                           if line.strip())
    with open(args.out / "wikitext2test.txt", "w", encoding="utf-8") as out, \
            gzip.open(args.shared / "wikitext" / "wikitext-2-raw" / "wiki.test.raw.gz", "rt", encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if s and not s.startswith("= "):
                out.write(s.replace(" @-@ ", "-").replace(" @,@ ", ",").replace(" @.@ ", ".") + "\n")
    for name in ("brown.txt", "abc.txt", "wikitext2test.txt"):
        text = (args.out / name).read_text(encoding="utf-8")
        print(f"{args.out / name}: {text.count(chr(10)):,} lines, {len(text.split()):,} tokens")


if __name__ == "__main__":
    main()
