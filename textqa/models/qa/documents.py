"""The documents a QA collection is built from, read as a stream (a collection larger than memory
indexes): each :class:`Document` has an id, a title, a URL (or None) and its paragraphs.

Sources, told apart by their names and first bytes:

* WikiExtractor output (``<doc id=... url=... title=...>`` blocks; ``.xz``, ``.gz`` or plain): the
  Wikipedia text in ``data/truecase/``; the id is the page's ``curid``, the URL its ``curid`` URL;
* a folder of ``.txt``, ``.md`` and ``.html`` files (walked in sorted order): the id is the file's
  path inside the folder, the title its first heading (``#`` line or ``<title>``/``<h1>``) or its name;
* JSONL, one ``{"id", "title", "text", "url"?}`` object a line (read by the one JSON path,
  :func:`textqa.runtime.json_input.parse_json`);
* TrecQA XML (``.xml``, ``.xml.gz``): each question's candidate sentences, one document a question;
* Wikipedia page summaries (``.json``, ``.json.gz``: ``{title: {"title", "extract", "description"}}``, as
  Wikipedia's REST summary endpoint gives them; the vital articles in ``data/qa/vital/``): one document
  an article, its lead section's lines the paragraphs, its short description kept as
  :attr:`Document.description`, its URL ``https://en.wikipedia.org/wiki/`` + the title.

Every problem is a :class:`DocumentError` naming the file (and line): a binary file, text that is
not UTF-8, a JSONL line that is not a document.
"""
from __future__ import annotations

import gzip
import html.parser
import io
import lzma
import re
from dataclasses import dataclass
from pathlib import Path

from urllib.parse import quote

from textqa.runtime.json_input import JSONInputError, parse_json, parse_json_line

TEXT_SUFFIXES = (".txt", ".md", ".html", ".htm")
_DOC = re.compile(r'<doc id="([^"]*)" url="([^"]*)" title="([^"]*)">')
MIN_PARAGRAPH_CHARS = 40          # shorter lines (headings, list stubs) are no passage on their own
WIKIPEDIA_URL = "https://en.wikipedia.org/wiki/"


class DocumentError(ValueError):
    """A source file that cannot be read as documents; the message names the file (and line)."""


@dataclass
class Document:
    id: str
    title: str
    url: str | None
    paragraphs: list[str]
    source: str = ""              # the file it came from
    description: str = ""         # a short description of the subject (Wikipedia's), when the source has one


def _open(path: Path):
    """A text stream of ``path``, decompressed by its suffix; UTF-8, strict."""
    name = path.name.lower()
    if name.endswith(".xz"):
        raw = lzma.open(path, "rb")
    elif name.endswith(".gz"):
        raw = gzip.open(path, "rb")
    else:
        raw = open(path, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline=None)


def _checked_lines(path: Path):
    """(line number, line) of a text file; ``DocumentError`` for bytes that are not UTF-8 text."""
    try:
        with _open(path) as f:
            for n, line in enumerate(f, start=1):
                if "\x00" in line:
                    raise DocumentError(f"{path}:{n}: a binary file (NUL bytes), not text")
                yield n, line
    except UnicodeDecodeError as e:
        raise DocumentError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except (OSError, EOFError, lzma.LZMAError) as e:
        raise DocumentError(f"{path}: unreadable ({getattr(e, 'strerror', None) or e})") from None


def _paragraphs(lines) -> list[str]:
    out = []
    for line in lines:
        line = " ".join(line.split())
        if len(line) >= MIN_PARAGRAPH_CHARS and not line.startswith("<"):
            out.append(line)
    return out


def wikiextractor_documents(path: Path):
    """The articles of a WikiExtractor file; the first line of each (its title) is no paragraph."""
    head, body = None, []
    for n, line in _checked_lines(path):
        if line.startswith("<doc "):
            m = _DOC.match(line)
            if not m:
                raise DocumentError(f"{path}:{n}: a <doc> line without id, url and title")
            head, body = m.groups(), []
        elif line.startswith("</doc>") and head is not None:
            doc_id, url, title = head
            lines = body[1:] if body and body[0].strip() == title else body
            yield Document(doc_id, html.unescape(title), url, _paragraphs(lines), str(path))
            head = None
        elif head is not None:
            body.append(line)


class _HTMLText(html.parser.HTMLParser):
    """The text of an HTML page, a paragraph per block element; its ``<title>`` or first ``<h1>``."""

    BLOCKS = {"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "br", "tr", "section", "article", "td",
              "blockquote", "pre"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.title, self._skip, self._in = [""], None, 0, []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        if tag in self.BLOCKS:
            self.parts.append("")
        self._in.append(tag)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1
        if tag in self.BLOCKS:
            self.parts.append("")
        if self._in and self._in[-1] == tag:
            self._in.pop()

    def handle_data(self, data):
        if self._skip:
            return
        tag = self._in[-1] if self._in else ""
        if tag == "title" or (tag == "h1" and self.title is None):
            self.title = self.title or " ".join(data.split())
            if tag == "title":
                return
        self.parts[-1] += data


def file_document(path: Path, root: Path) -> Document:
    """One ``.txt``/``.md``/``.html`` file as a document."""
    text = "".join(line for _, line in _checked_lines(path))
    rel = path.relative_to(root).as_posix() if path != root else path.name
    title = None
    if path.suffix.lower() in (".html", ".htm"):
        parser = _HTMLText()
        parser.feed(text)
        title, lines = parser.title, "\n".join(parser.parts).splitlines()
    else:
        lines = text.splitlines()
        if path.suffix.lower() == ".md":
            heading = next((l for l in lines if l.startswith("#")), None)
            title = heading.lstrip("#").strip() if heading else None
            lines = [l for l in lines if not l.startswith(("#", "```"))]
    paragraphs, current = [], []
    for line in lines + [""]:                      # blank lines end a paragraph; wrapped lines join
        if line.strip():
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    return Document(rel, title or path.stem, None, _paragraphs(paragraphs), str(path))


def jsonl_documents(path: Path):
    for n, line in _checked_lines(path):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        obj = parse_json_line(line, where, DocumentError)
        if not isinstance(obj, dict) or not isinstance(obj.get("text"), str) or "id" not in obj:
            raise DocumentError(f'{where}: expected {{"id": ..., "title": "...", "text": "...", "url": "..."}}')
        url = obj.get("url")
        if url is not None and not isinstance(url, str):
            raise DocumentError(f"{where}: 'url' must be a string")
        title = obj.get("title")
        yield Document(str(obj["id"]), str(title) if title else str(obj["id"]), url,
                       _paragraphs(obj["text"].splitlines()), str(path))


def trecqa_documents(path: Path):
    from .trecqa import TrecQAError, read_trecqa
    try:
        pairs = read_trecqa(path)
    except TrecQAError as e:
        raise DocumentError(str(e)) from None
    for p in pairs:
        sentences = list(dict.fromkeys(c.text for _, c in p.candidates))
        yield Document(f"{path.name}#{p.qid}", f"TrecQA candidates for question {p.qid}", None, sentences, str(path))


def summary_documents(path: Path):
    """The articles of a Wikipedia summaries file (``{title: {"title", "extract", "description"}}``),
    in the file's order; a document's id is ``wiki/`` + its title."""
    text = "".join(line for _, line in _checked_lines(path))
    try:
        pages = parse_json(text)
    except JSONInputError as e:
        raise DocumentError(f"{path}: not a JSON document ({e})") from None
    if not isinstance(pages, dict):
        raise DocumentError(f'{path}: expected {{title: {{"title": ..., "extract": ...}}}}, got a JSON '
                            f"{type(pages).__name__}")
    for key, page in pages.items():
        if not isinstance(page, dict) or not isinstance(page.get("extract", ""), str) \
                or not isinstance(page.get("description", ""), str) or not isinstance(page.get("title", key), str):
            raise DocumentError(f'{path}: the entry {key[:80]!r} is not {{"title": "...", "extract": "...", '
                                f'"description": "..."}}')
        title = page.get("title") or key
        yield Document(f"wiki/{title}", title, WIKIPEDIA_URL + quote(title.replace(" ", "_"), safe="_(),'-.:"),
                       _paragraphs(page.get("extract", "").splitlines()), str(path), page.get("description", ""))


def _kind(path: Path) -> str:
    name = path.name.lower()
    if name.endswith((".xml", ".xml.gz")):
        return "trecqa"
    if name.endswith((".json", ".json.gz", ".json.xz")):
        return "summaries"
    if name.endswith((".jsonl", ".jsonl.gz", ".jsonl.xz")):
        return "jsonl"
    try:
        with _open(path) as f:
            head = f.read(200)
    except (UnicodeDecodeError, OSError, EOFError, lzma.LZMAError):
        head = ""
    return "wikiextractor" if head.startswith("<doc ") else "text"


def documents(paths):
    """Every document of ``paths`` (files or folders), streamed in order."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in TEXT_SUFFIXES
                           and not any(part.startswith(".") for part in p.relative_to(path).parts))
            if not files:
                raise DocumentError(f"{path}: no {', '.join(TEXT_SUFFIXES)} files in the folder")
            for f in files:
                yield file_document(f, path)
            continue
        if not path.is_file():
            raise DocumentError(f"{path}: no such file or folder")
        kind = _kind(path)
        if kind == "trecqa":
            yield from trecqa_documents(path)
        elif kind == "jsonl":
            yield from jsonl_documents(path)
        elif kind == "summaries":
            yield from summary_documents(path)
        elif kind == "wikiextractor":
            yield from wikiextractor_documents(path)
        else:
            yield file_document(path, path)


def source_files(paths) -> list[Path]:
    """The files ``paths`` stand for (a folder's text files), for fingerprints and messages."""
    out = []
    for given in paths:
        p = Path(given)
        out += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in TEXT_SUFFIXES) \
            if p.is_dir() else [p]
    return out
