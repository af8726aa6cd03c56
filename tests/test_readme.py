"""The README's Python API examples run as doctests against the suite's small models."""
import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_python_api_examples(service_artifacts, monkeypatch):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Python API\n(.*?)^## ", text, flags=re.M | re.S).group(1)
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks, "no ```python block in the README's Python API section"
    monkeypatch.setenv("TEXTQA_ARTIFACTS", str(service_artifacts))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README.md python block {i + 1}", "README.md", 0)
        assert test.examples
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0 and result.attempted >= 10, result


def _local_links(doc: Path) -> list[str]:
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8"))
    return [t for t in targets if not re.match(r"[a-z]+://", t) and not t.startswith("/")]


def test_readme_images_and_local_links_exist():
    """Every image the README shows and every repository file it links is in the repository."""
    local = _local_links(ROOT / "README.md")
    assert any(t.endswith(".png") for t in local)
    assert "docs/truecaser.md" in local
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing


def test_docs_local_links_exist():
    """The same for the documents under docs/ (their links are relative to docs/)."""
    docs = sorted((ROOT / "docs").glob("*.md"))
    assert docs
    links = [(d, t) for d in docs for t in _local_links(d)]
    assert any(t == "../README.md" for _, t in links)
    missing = [f"{d.name}: {t}" for d, t in links if not (d.parent / t).exists()]
    assert not missing, missing
