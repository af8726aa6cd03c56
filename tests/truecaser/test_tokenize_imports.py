"""The truecaser's tokenizer imports NLTK's tokenizer modules without NLTK's package (which would
import scikit-learn and SciPy), and tokenizes as the package's own classes do, byte for byte."""
import json
import subprocess
import sys

from textqa.runtime.paths import DATA_DIR

SCRIPT = r"""
import itertools, json, sys
from textqa.models.truecaser.tokenize import PTBTokenizer
from textqa.runtime.paths import PUNKT_DIR
from textqa.training.corpus import paragraphs
lines = list(itertools.islice(paragraphs(sys.argv[1]), 400))
ours = PTBTokenizer(PUNKT_DIR)
mine = [ours.spans(line) for line in lines]
heavy = sorted({k.split(".")[0] for k in sys.modules if k.split(".")[0] in ("sklearn", "scipy", "nltk")})
import nltk                                          # the real package, imported afterwards
from nltk.tokenize.punkt import PunktSentenceTokenizer
from nltk.tokenize.treebank import TreebankWordTokenizer
real = PunktSentenceTokenizer(ours._sentences._params)
words = TreebankWordTokenizer()
same = all([[words.tokenize(s, convert_parentheses=True) for s in real.tokenize(line)]
            == [[t for _, _, t in sent] for sent in m] for line, m in zip(lines, mine)])
print(json.dumps({"heavy": heavy, "same": same, "tokens": sum(len(s) for m in mine for s in m),
                  "private": type(ours._sentences) is not PunktSentenceTokenizer,
                  "real_package": hasattr(nltk, "word_tokenize")}))
"""


def test_raw_text_tokenizer_imports_no_training_stack_and_tokenizes_as_nltk():
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(DATA_DIR / "truecase" / "enwiki_prefix.txt.xz")],
                         capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["heavy"] == []                       # neither NLTK's package nor scikit-learn nor SciPy
    assert got["tokens"] > 10_000
    assert got["private"] and got["real_package"]   # the real package imports whole afterwards
    assert got["same"]
