"""``python -m bench --status``: a section is stale when a source it measured has changed in
content; a file moved unchanged keeps it current."""
from pathlib import Path

from bench import report


def test_sections_record_their_sources_and_go_stale_when_one_changes(tmp_path, monkeypatch):
    results = tmp_path / "RESULTS.md"
    report.write_section(results, "demo", ["| a | b |", "|---|---|", "| 1 | 2 |"], extra=("textqa.registry",))
    record = report.sections(results)["demo"]
    assert record["sources"]["textqa/registry.py"] and record["commit"] and record["seconds"] >= 0
    assert "textqa/registry.py" in record["sources"] and "bench/report.py" not in record["sources"]  # the writer
    assert report.stale(record) == []
    # the same content anywhere in the tree (a move) keeps it current; a changed file does not
    moved = dict(record, sources={"textqa/elsewhere.py" if k == "textqa/registry.py" else k: v
                                  for k, v in record["sources"].items()})
    assert report.stale(moved) == []
    changed = dict(record, sources={**record["sources"], "textqa/registry.py": "0" * 16})
    assert report.stale(changed) == ["textqa/registry.py"]
    assert report.stale(None) == ["(measured before records were kept)"]
    report.write_section(results, "demo", ["again"])                # rewriting replaces only that section
    assert results.read_text().count("<!-- bench:demo -->") == 1 and "again" in results.read_text()


def test_every_results_section_is_listed_by_bench_status(capsys):
    from bench.__main__ import COMMANDS, main
    assert main(["--status"]) == 0
    out = capsys.readouterr().out
    names = report.sections(Path(report.ROOT) / "bench" / "RESULTS.md")
    assert names and all(name in out for name in names) and set(names) <= set(COMMANDS)
