"""Clinical records in and out: the CMC 2007 challenge XML and a plain JSONL format.

CMC XML (Pestian et al. 2007): ``<doc id=...>`` with ``<codes><code origin="CMC_MAJORITY"
type="ICD-9-CM">786.2</code>...`` and ``<texts><text type="CLINICAL_HISTORY">`` /
``<text type="IMPRESSION">``.  The gold codes are those with origin ``CMC_MAJORITY``.

JSONL, one record a line: ``{"id": "...", "text": "...", "codes": ["786.2", ...]}`` (``codes``
optional when coding; ``sections``, an object of section name to text, may replace ``text``).

Every problem raises ``RecordError`` naming the file, the line and the record.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from xml.etree import ElementTree as ET

from textqa.runtime.json_input import parse_json_line

from ..textio import decode_lines, read_bytes

GOLD_ORIGIN = "CMC_MAJORITY"
SECTION_NAMES = {"CLINICAL_HISTORY": "history", "IMPRESSION": "impression"}
MAX_CHARS = 1_000_000            # a record longer than this is refused (huge documents)


class RecordError(ValueError):
    """A malformed input record; the message names file, line and record id."""


@dataclass
class Record:
    id: str
    sections: dict                       # {section name: text}; {"text": ...} when unsectioned
    codes: list = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(self.sections.values())


def _read_bytes(path) -> bytes:
    return read_bytes(path, RecordError)


def check_text(where: str, text) -> str:
    if not isinstance(text, str):
        raise RecordError(f"{where}: text must be a string, got {type(text).__name__}")
    if not text.strip():
        raise RecordError(f"{where}: empty document")
    if len(text) > MAX_CHARS:
        raise RecordError(f"{where}: document of {len(text):,} characters is over the limit of {MAX_CHARS:,}")
    return text


def read_cmc_xml(path, origin: str = GOLD_ORIGIN) -> list[Record]:
    data = _read_bytes(path)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        line, col = e.position
        raise RecordError(f"{path}:{line}: malformed XML (column {col}): {e}") from None
    records, seen = [], set()
    for n, doc in enumerate(root.iter("doc"), start=1):
        rid = doc.get("id") or f"#{n}"
        where = f"{path}: <doc id={rid!r}>"
        if rid in seen:
            raise RecordError(f"{where}: id given twice")
        seen.add(rid)
        sections = {}
        for t in doc.iter("text"):
            name = SECTION_NAMES.get(t.get("type", ""), (t.get("type") or "text").lower())
            sections[name] = (sections.get(name, "") + "\n\n" + (t.text or "")).strip()
        check_text(where, "\n\n".join(sections.values()))
        codes = sorted({(c.text or "").strip() for c in doc.iter("code") if c.get("origin") == origin} - {""})
        records.append(Record(rid, sections, codes))
    if not records:
        raise RecordError(f"{path}: no <doc> elements")
    return records


def parse_jsonl_line(line: str, where: str, need_codes: bool = False) -> Record:
    return record_from_object(parse_json_line(line, where, RecordError), where, need_codes)


def record_from_object(obj, where: str, need_codes: bool = False) -> Record:
    """A ``Record`` from a decoded JSONL object (``{"id", "text"}`` or ``{"id", "sections"}``, optional
    ``codes``); ``RecordError`` naming ``where`` otherwise."""
    if not isinstance(obj, dict):
        raise RecordError(f"{where}: a record must be a JSON object")
    rid = obj.get("id")
    if not isinstance(rid, (str, int)) or isinstance(rid, bool) or str(rid) == "":
        raise RecordError(f"{where}: record needs an 'id' (string or integer)")
    where = f"{where} (id {rid!r})"
    if "sections" in obj:
        secs = obj["sections"]
        if not isinstance(secs, dict) or not secs or not all(isinstance(k, str) for k in secs):
            raise RecordError(f"{where}: 'sections' must be an object of section name to text")
        sections = {k: check_text(f"{where} section {k!r}", v) for k, v in secs.items()}
    else:
        sections = {"text": check_text(where, obj.get("text"))}
    codes = obj.get("codes", [])
    if need_codes and "codes" not in obj:
        raise RecordError(f"{where}: no 'codes' (training and evaluation need them)")
    if not isinstance(codes, list) or not all(isinstance(c, str) and c.strip() for c in codes):
        raise RecordError(f"{where}: 'codes' must be a list of non-empty strings")
    return Record(str(rid), sections, sorted({c.strip() for c in codes}))


def read_jsonl(path, need_codes: bool = False, lines=None) -> list[Record]:
    """Records of a JSONL file (or of ``lines`` read elsewhere, e.g. stdin, named ``path``)."""
    if lines is None:
        lines = decode_lines(_read_bytes(path), path, RecordError)
    records, seen = [], set()
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        r = parse_jsonl_line(line, f"{path}:{lineno}", need_codes)
        if r.id in seen:
            raise RecordError(f"{path}:{lineno}: id {r.id!r} given twice")
        seen.add(r.id)
        records.append(r)
    if not records:
        raise RecordError(f"{path}: no records")
    return records


def read_records(path, need_codes: bool = False) -> list[Record]:
    """CMC XML (``.xml``/``.xml.gz``) or JSONL, by file name."""
    name = str(path).lower()
    if name.endswith(".xml") or name.endswith(".xml.gz"):
        return read_cmc_xml(path)
    return read_jsonl(path, need_codes)


def load_descriptions(path) -> dict:
    """{code with dot: description} from the CMS ``CODE<TAB>description`` table (codes without dots)."""
    out = {}
    for line in _read_bytes(path).decode("utf-8", errors="replace").splitlines():
        code, _, desc = line.partition("\t")
        code = code.strip()
        if not code or not desc:
            continue
        if code[0] == "E":
            dotted = code[:4] + ("." + code[4:] if len(code) > 4 else "")
        else:
            dotted = code[:3] + ("." + code[3:] if len(code) > 3 else "")
        out[dotted] = desc.strip()
    return out
