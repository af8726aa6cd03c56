"""The documentation: the MkDocs site builds in strict mode, every local link resolves, every Python
example runs, every ``textqa`` command shown is valid, and the quick ones give the output shown.

Shell blocks follow one convention (``docs/development.md``, "Documentation"):

* a block whose commands start with ``$`` shows their output; the tests run each such ``textqa``
  command (quick: seconds, bundled data) and compare its output with the page's, ``...`` standing
  for lines left out;
* in any other shell block (``sh``, ``bash`` or no language), every ``textqa`` command is parsed by
  the real command-line parser (a wrong command or option fails) but not run: those train for
  minutes, need a live server or a cluster, or read files of one's own.  The page says so under
  the block's first line where it matters; ``text`` blocks are synopses and are not parsed.
"""
import doctest
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```([\w+-]*)[^\n]*\n(.*?)^```", flags=re.M | re.S)
SHELL = {"", "sh", "bash", "shell", "console"}


def _blocks(page: Path):
    """(language, body, line number) of every fenced block of ``page``."""
    text = page.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        yield m.group(1), m.group(2), text[:m.start()].count("\n") + 1


def _logical_lines(body: str) -> list[str]:
    out, cur = [], ""
    for line in body.splitlines():
        cur += line.rstrip()
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
            continue
        out.append(cur)
        cur = ""
    return out + ([cur] if cur else [])


def _textqa_argvs(command: str):
    """The argument lists of every ``textqa`` command inside one shell line (pipes, ``&&``, ``;``,
    redirections and environment assignments taken apart)."""
    try:
        words = shlex.split(re.sub(r"\$\{[^}]*\}", "X", command), comments=True)    # ${var// /}: one word
    except ValueError:
        return
    words = [x for w in words for x in ([w[:-1], ";"] if w.endswith(";") and len(w) > 1 else [w])]
    segment: list[str] = []
    for w in words + ["|"]:
        if w in ("|", "&&", ";", "||", "&"):
            while segment and re.fullmatch(r"[A-Z_]+=.*", segment[0]):
                segment.pop(0)
            if segment and Path(segment[0]).name == "textqa":
                argv, skip = [], False
                for a in segment[1:]:
                    if skip:
                        skip = False
                    elif re.fullmatch(r"\d?[<>]{1,2}", a):
                        skip = True
                    elif not re.match(r"\d?[<>]", a):
                        argv.append(a)
                yield argv
            segment = []
        else:
            segment.append(w)


def _commands():
    """(page:line, shell line, shown output or None) of every ``textqa`` command in a shell block."""
    for page in PAGES:
        for lang, body, lineno in _blocks(page):
            if lang not in SHELL:
                continue
            lines = _logical_lines(body)
            prompted = any(l.startswith("$ ") for l in lines)
            # output is compared only where a block runs one command from the repository's root
            alone = sum(1 for l in lines if l.startswith("$ ")) == 1
            for i, line in enumerate(lines):
                if prompted and not line.startswith("$ "):
                    continue
                command = line[2:] if prompted else line
                if not re.search(r"(^|[\s|;&/])textqa\s", command):
                    continue
                shown = None
                if prompted and alone:
                    rest = lines[i + 1:]
                    nxt = next((k for k, l in enumerate(rest) if l.startswith("$ ")), len(rest))
                    shown = rest[:nxt]
                yield f"{page.relative_to(ROOT)}:{lineno}", command, shown


COMMANDS = list(_commands())


def test_docs_show_commands_of_both_kinds():
    assert len(COMMANDS) > 20
    assert sum(1 for _, _, shown in COMMANDS if shown) >= 5


@pytest.mark.parametrize("where,command", [(w, c) for w, c, _ in COMMANDS], ids=[w for w, _, _ in COMMANDS])
def test_every_command_shown_parses(where, command):
    from textqa.cli import build_parser
    argvs = list(_textqa_argvs(command))
    assert argvs, f"{where}: no textqa command read from {command!r}"
    for argv in argvs:
        try:
            build_parser(argv).parse_args(argv)
        except SystemExit as e:
            pytest.fail(f"{where}: 'textqa {' '.join(argv)}' does not parse (exit {e.code})")


def _matches(shown: list[str], got: list[str]) -> bool:
    """``got`` equals ``shown``, where a ``...`` line of ``shown`` stands for any lines."""
    pattern = "\n".join(".*?" if l.strip() == "..." else re.escape(l.rstrip()) for l in shown)
    return re.fullmatch(pattern, "\n".join(l.rstrip() for l in got), flags=re.S) is not None


RUN = [(w, c, s) for w, c, s in COMMANDS if s and c.startswith("textqa eval ") and not re.search(r"[|;&]", c)]


@pytest.mark.parametrize("where,command,shown", RUN, ids=[w for w, _, _ in RUN])
def test_quick_commands_give_the_output_shown(where, command, shown, tmp_path):
    (argv,) = list(_textqa_argvs(command))
    r = subprocess.run([sys.executable, "-m", "textqa.cli", *argv], cwd=ROOT, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, f"{where}: {r.stderr[-2000:]}"
    assert _matches(shown, r.stdout.splitlines()), f"{where}: output differs:\n{r.stdout[:3000]}"


def test_python_examples_run(service_artifacts, monkeypatch):
    """Every ``python`` block with ``>>>`` examples, in the README and in docs/, runs as a doctest
    against the suite's small models."""
    monkeypatch.setenv("TEXTQA_ARTIFACTS", str(service_artifacts))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for page in PAGES:
        for lang, body, lineno in _blocks(page):
            if lang == "python" and ">>>" in body:
                runner.run(parser.get_doctest(body, {}, f"{page.name}:{lineno}", str(page), lineno))
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted >= 10, result


def _local_links(page: Path) -> list[str]:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
    return [t for t in targets if not re.match(r"[a-z]+://", t) and not t.startswith("/")]


def test_every_local_link_resolves():
    """Links between pages and into the repository (source files, bench/RESULTS.md, images)."""
    links = [(page, t) for page in PAGES for t in _local_links(page)]
    assert any(t.endswith(".png") for _, t in links) and any(t == "docs/experiments/truecaser.md" for _, t in links)
    missing = [f"{page.relative_to(ROOT)}: {t}" for page, t in links if not (page.parent / t).exists()]
    assert not missing, missing


def test_the_site_builds_in_strict_mode(tmp_path):
    """``make docs``: MkDocs (Material theme) in strict mode, every page in the navigation."""
    mkdocs = Path(sys.executable).with_name("mkdocs")
    r = subprocess.run([str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env={"NO_MKDOCS_2_WARNING": "1",
                                                                          "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr[-4000:]
    pages = {p.relative_to(ROOT / "docs").with_suffix("") for p in (ROOT / "docs").rglob("*.md")}
    built = {p.parent.relative_to(tmp_path / "site") for p in (tmp_path / "site").rglob("index.html")}
    assert {Path(str(p)) if p.name != "index" else p.parent for p in pages} <= built | {Path(".")}


# ---------------------------------------------------------------- measured numbers stay out of code
_UNIT = r"(?:s|ms|µs|us|sec|seconds?|min|minutes?|h|hours?|KB|MB|GB|KiB|MiB|GiB|kB|req/s|/s|x|×|%)"
_NUMBER_UNIT = re.compile(rf"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?{_UNIT}(?![\w/])")
_CUE = re.compile(r"\b(measured|measures?|took|takes|costs?|faster|slower|instead of|timed|profiled?|benchmark|"
                  r"bench|dev|F1|accuracy|RSS|peak|speed-?up|cold|warm|per second|"
                  r"on (?:2|two|this|one) (?:cores?|machine))\b", re.I)
_SCORE_WORD = r"(?:dev|measured|F1|micro-F1|macro-F1|accuracy|MRR|MAP|AUC|recall|precision|folds?|cross-validation)"
_SCORE = re.compile(rf"\b{_SCORE_WORD}\b[^;\n]{{0,60}}?(?<![\w.])(?<!default )\d*\.\d+"
                    rf"|(?<![\w.])(?<!default )\d*\.\d+\b[^;\n]{{0,40}}?\b{_SCORE_WORD}\b"
                    r"|\d\.\d+\s*(?:->|→)\s*\d\.\d+", re.I)
_RATIO = re.compile(r"\b(?:half|a third|a quarter|a fifth|a seventh|a tenth|twice|\d+(?:\.\d+)?x|\d+-\d+x|fourfold|"
                    r"threefold)\b[^;\n]{0,50}?\b(?:size|time|speed|memory|faster|slower|larger|smaller|longer)\b", re.I)
_DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")

#: (file, text in the flagged sentence): what the test flags that is not a measurement, and why.
NOT_MEASUREMENTS = {
    ("textqa/evaluation/rouge.py", "%7.5f"): "ROUGE-1.5.5's output format",
    ("textqa/metrics/rank.py", "trec_eval 9.0"): "a version of trec_eval",
    ("textqa/metrics/rouge.py", "RougeScore(recall=1.0, precision=0.85714"): "a doctest's expected output",
    ("textqa/models/icd9/coder.py", "[0.25, 0.75]"): "the threshold's clamp, a setting",
    ("textqa/runtime/dask_cluster.py", "every 10 ms"): "distributed's default profiler interval, a setting",
    ("textqa/training/blanc_search.py", "by 0.01"): "the search's step size, a setting",
}


def _code_texts(path: Path):
    """(line, text) of every comment, docstring and ``help=`` string of a module."""
    import ast
    import io
    import tokenize
    src = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.keyword) and node.arg == "help":
            yield from ((c.lineno, c.value) for c in ast.walk(node.value)
                        if isinstance(c, ast.Constant) and isinstance(c.value, str))
        elif isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = node.body[0].value if node.body and isinstance(node.body[0], ast.Expr) else None
            if isinstance(doc, ast.Constant) and isinstance(doc.value, str):
                yield from ((doc.lineno + k, line) for k, line in enumerate(doc.value.split("\n")))


def measurements_in_code(root: Path = ROOT / "textqa"):
    """``(file:line, sentence)`` of every comment, docstring or help text that holds a measurement: a
    number with a unit of time, memory or speed beside a word of measuring, a score beside "dev",
    "F1", "recall" (...), a ratio of size or time, or a date."""
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).as_posix()
        for no, text in _code_texts(path):
            for sentence in re.split(r"(?<=[.;:])\s+", text):
                if not (_DATE.search(sentence) or _SCORE.search(sentence) or _RATIO.search(sentence)
                        or (_NUMBER_UNIT.search(sentence) and _CUE.search(sentence))):
                    continue
                if any(f == rel and s in sentence for f, s in NOT_MEASUREMENTS):
                    continue
                yield f"{rel}:{no}", sentence.strip()


def test_no_measured_number_lives_in_code():
    """Measurements live in the experiments pages (docs/experiments/*.md, docs/icd9.md's Results);
    the code keeps the decision and a pointer."""
    found = list(measurements_in_code())
    assert not found, "measurements in code (move them to docs/experiments/):\n" + "\n".join(
        f"  {where}: {s}" for where, s in found)


@pytest.mark.parametrize("text, measurements", [
    ("# parsing took 11.1 s instead of 13.4 s", 1),
    ('"""A dict of the words costs 0.1 s at every load."""', 1),
    ("# it lowered 5-fold micro-F1 (0.852 -> 0.849 SVM)", 1),
    ("# trie-q8: a quarter of the probing hash's size", 1),
    ("# measured on 2026-11-29", 1),
    ("# 9-16 MB each, read in half the time", 1),
    ('"""Papineni et al. 2002, eq. 1-2: the brevity penalty, 0.5 at a length ratio of 2/3."""', 0),
    ("# default 0.5, best on dev", 0),
    ("# the request's deadline, 30 s unless --request-timeout says otherwise", 0),
    ("# section 8.2 of the evaluation plan", 0),
])
def test_the_measurement_finder_tells_measurements_from_settings_and_papers(tmp_path, text, measurements):
    (tmp_path / "m.py").write_text(f"{text}\nx = 1\n" if text.startswith("#") else f"{text}\n")
    assert len(list(measurements_in_code(tmp_path))) == measurements
