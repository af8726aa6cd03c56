"""Performance and quality figures quoted in the README and docs equal the ones in ``bench/RESULTS.md``.

The docs link to the benchmark sections for tables; where they quote a headline figure, it is the
figure of the last run, checked here, so a rerun that moves a number fails until the prose follows."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def section(name: str) -> str:
    text = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    m = re.search(rf"<!-- bench:{re.escape(name)} -->(.*?)<!-- /bench:{re.escape(name)} -->", text, re.S)
    assert m, f"bench/RESULTS.md has no section {name!r}"
    return m.group(1)


def row(text: str, starts: str) -> list[str]:
    """The cells of the first table row whose first cell starts with ``starts``."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith(starts):
            return cells
    raise AssertionError(f"no row starting {starts!r}")


def doc(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def found(text: str, pattern: str) -> tuple[str, ...]:
    m = re.search(pattern, text, re.S)
    assert m, f"{pattern!r} not found"
    return m.groups()


def truecaser_rows():
    s = section("truecaser")
    return row(s, "textqa Viterbi truecaser"), row(s, "peer: `truecase`")


def test_readme_truecaser_headline():
    ours, peer = truecaser_rows()
    # columns: system, tokens/s, x peer, load, RSS, dev acc, dev F1, WSJ acc, WSJ F1, Reuters acc, Reuters F1
    quoted = found(doc("README.md"), r"Wikipedia dev F1 \*\*([\d.]+)\*\* \(accuracy ([\d.]+)\), WSJ section 20 F1 "
                                     r"([\d.]+), Reuters-21578 test F1 ([\d.]+); the `truecase` package: ([\d.]+), "
                                     r"([\d.]+), ([\d.]+)")
    assert quoted == (ours[6], ours[5], ours[8], ours[10], peer[6], peer[8], peer[10])


def test_truecaser_page_speed_and_quality():
    ours, _ = truecaser_rows()
    page = doc("docs/truecaser.md")
    assert found(page, r"\*\*([\d.]+)x\*\* the `truecase` package's tokens/s") == (ours[2],)
    assert found(page, r"default model scores dev F1 \*\*([\d.]+)\*\*") == (ours[6],)


def test_readme_blanc_and_icd9_headlines():
    readme = doc("README.md")
    blanc = found(section("blanc"), r"blanc ([\d.]+), chrf ([\d.]+), chrf\+\+ ([\d.]+)")
    assert found(readme, r"segment Pearson \*\*([\d.]+)\*\* on WMT22 ru-en and uk-en \(chrF ([\d.]+), "
                         r"chrF\+\+ ([\d.]+)\)") == blanc
    assert found(readme, r"micro-F1 \*\*([\d.]+)\*\* \(SVM\)") == (row(section("icd9"), "svm")[3],)


def test_service_page_quotes_the_last_run():
    s = section("service")
    qa = [r for r in _rows(s) if r[0] == "`POST /v1/qa/answer`" and r[1] == "second run"]
    assert qa, "the service section has no QA second-run row"
    page = doc("docs/http.md")
    assert found(page, r"QA p99 ([\d.]+) ms with the TrecQA dev questions") == (qa[0][4],)


def test_qa_page_speed():
    pool = row(section("qa"), "questions answered per second from the news pool")[1]
    default = row(section("qa"), "same, from the default collection")[1]
    assert found(doc("docs/qa.md"), r"Answering runs at ([\d.,]+) questions/s\s+from\s+the\s+news\s+pool\s+and\s+"
                                    r"([\d.,]+)\s+from\s+the\s+default\s+collection") == (pool, default)


def _rows(text: str):
    for line in text.splitlines():
        if line.startswith("|"):
            yield [c.strip() for c in line.strip().strip("|").split("|")]


@pytest.mark.parametrize("path", ["README.md", "docs/http.md", "docs/truecaser.md", "docs/scaling.md", "docs/cli.md"])
def test_no_bench_table_is_restated(path):
    """The pages link to bench/RESULTS.md for the tables instead of copying their header rows."""
    text = doc(path)
    for header in ("| system | tokens/s | x peer |", "| endpoint | requests/s |", "| model | command | seconds |",
                   "| quantity | truecaser | ICD-9 |"):
        assert header not in text


def test_scaling_and_cli_pages_quote_the_batch_section():
    """docs/scaling.md and docs/cli.md quote the batch section's ratios to the single process (2 workers,
    and the bound of two plain processes) and a run's fixed cost, as measured last."""
    s = section("batch")
    ratio = {(r[0], r[1]): r[4] for r in _rows(s) if len(r) > 4}
    tc2, tcb = ratio[("truecase", "`textqa batch truecase --workers 2`")], next(
        v for (k, n), v in ratio.items() if k == "truecase" and n.startswith("upper bound"))
    ic2, icb = ratio[("icd9", "`textqa batch icd9 --workers 2`")], next(
        v for (k, n), v in ratio.items() if k == "icd9" and n.startswith("upper bound"))
    fixed = found(s, r"takes \*\*([\d.]+) s\*\* end to end")
    for page in ("docs/scaling.md", "docs/cli.md"):
        text = doc(page)
        assert found(text, r"truecasing with 2 workers runs at \*\*([\d.]+)x\*\* the single process \(two plain "
                           r"processes side by side: ([\d.]+)x") == (tc2, tcb), page
        assert found(text, r"ICD-9 coding with 2 workers at \*\*([\d.]+)x\*\* \(bound ([\d.]+)x\)") == (ic2, icb), page
        assert found(text, r"fixed cost of ([\d.]+) s") == fixed, page


def test_evaluation_page_quotes_the_scoring_benches():
    page = doc("docs/evaluation.md")
    wer = row(section("metrics"), "`textqa.metrics.WER()`")[2]
    assert found(page, r"`WER\(\)` runs at \*\*([\d.]+x)\*\* jiwer's speed") == (wer,)
    rouge = row(section("rouge"), "summarizer 1 over the first")[3]
    assert found(page, r"it runs at \*\*([\d.]+x)\*\* the\s+script's speed") == (rouge,)
