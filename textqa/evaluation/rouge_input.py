"""ROUGE-1.5.5's input: its Porter stemmer and stopword list, tokenisation, the summary file formats
(SEE, ISI, SPL) with their length limits, and the evaluation lists (its XML configuration file or a
file list), read as the Perl script reads them (Lin 2004)."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from textqa.errors import InputError

# --- ROUGE's Porter stemmer ---------------------------------------------------------------------

_C, _V = "[^aeiou][^aeiouy]*", "[aeiouy][aeiou]*"
_MGR0 = re.compile(f"^({_C})?{_V}{_C}")
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")
_VOWEL_IN = re.compile("^([^aeiou][^aeiouy]*)?[aeiouy]")
_CVC = re.compile("^[^aeiou][^aeiouy]*[aeiouy][^aeiouwxy]$")
_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize",
          "bli": "ble", "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous",
          "ization": "ize", "ation": "ate", "ator": "ate", "alism": "al", "iveness": "ive",
          "fulness": "ful", "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble",
          "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP2_RE = re.compile("(" + "|".join(_STEP2) + ")$")
_STEP3_RE = re.compile("(" + "|".join(_STEP3) + ")$")
_STEP4_RE = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")


# --- resources and tokenisation -------------------------------------------------------------------


_NON_WORD = re.compile(r"[^A-Za-z0-9\-]")
_SPACES = re.compile(r"\s+")
_SEE = (re.compile(r'^<a size="[0-9]+" name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)'),
        re.compile(r'^<a name="[0-9]+">\[([0-9]+)\]</a>\s+<a href="#[0-9]+" id=[0-9]+>([^<]+)'))
_ISI = re.compile(r'^<S SNTNO="[0-9a-z,]+">([^<]+)</S>')


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

DATA = Path(__file__).with_name("rouge_data")
EXCEPTION_FILES = ("adj.exc", "adv.exc", "noun.exc", "verb.exc")
FORMATS = ("SEE", "ISI", "SPL")


def porter_stem(w: str) -> str:
    """ROUGE-1.5.5's Porter stemmer (Porter 1980, "An algorithm for suffix stripping", steps 1a-5,
    with the script's change to step 4, dated 02/14/2004: "-ement", "-ment" and "-ent" are tried
    one after another instead of as alternatives)."""
    if len(w) < 3:
        return w
    initial_y = w[0] == "y"
    if initial_y:
        w = "Y" + w[1:]
    # step 1a
    if m := re.search("(ss|i)es$", w):
        w = w[:m.start()] + m.group(1)
    elif re.search("[^s]s$", w):
        w = w[:-1]
    # step 1b
    if w.endswith("eed"):
        if _MGR0.search(w[:-3]):
            w = w[:-1]
    elif m := re.search("(ed|ing)$", w):
        stem = w[:m.start()]
        if _VOWEL_IN.search(stem):
            w = stem
            if re.search("(at|bl|iz)$", w):
                w += "e"
            elif re.search(r"([^aeiouylsz])\1$", w):
                w = w[:-1]
            elif _CVC.search(w):
                w += "e"
    # step 1c
    if w.endswith("y") and _VOWEL_IN.search(w[:-1]):
        w = w[:-1] + "i"
    # steps 2 and 3
    for pattern, table in ((_STEP2_RE, _STEP2), (_STEP3_RE, _STEP3)):
        if m := pattern.search(w):
            stem = w[:m.start()]
            if _MGR0.search(stem):
                w = stem + table[m.group(1)]
    # step 4 (ROUGE's variant)
    if m := _STEP4_RE.search(w):
        if _MGR1.search(w[:m.start()]):
            w = w[:m.start()]
    if w.endswith("ment") and _MGR1.search(w[:-4]):
        w = w[:-4]
    if w.endswith("ent"):
        if _MGR1.search(w[:-3]):
            w = w[:-3]
    elif m := re.search("(s|t)ion$", w):
        if _MGR1.search(w[:m.start() + 1]):
            w = w[:m.start() + 1]
    # step 5
    if w.endswith("e"):
        stem = w[:-1]
        if _MGR1.search(stem) or (_MEQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if w.endswith("ll") and _MGR1.search(w):
        w = w[:-1]
    if initial_y:
        w = "y" + w[1:]
    return w

@dataclass
class Resources:
    """The stopword list (``-s``) and the WordNet exception table (``-m``)."""
    stopwords: frozenset
    exceptions: dict

    @classmethod
    def load(cls, home: Path | None = None) -> "Resources":
        """From ``home`` (``-e``: ``smart_common_words.txt`` and WordNet's ``adj/adv/noun/verb.exc``)
        or the copies shipped with textqa."""
        home = Path(home) if home else DATA
        try:
            stop = frozenset((home / "smart_common_words.txt").read_text("latin-1").splitlines())
            exceptions = {}
            for name in EXCEPTION_FILES:    # later files override earlier ones, as in ROUGE's database
                for line in (home / name).read_text("latin-1").splitlines():
                    parts = line.split()
                    if parts:
                        exceptions[parts[0]] = parts[1] if len(parts) > 1 else ""
        except OSError as e:
            raise InputError(f"ROUGE data directory {home}: {e.strerror}: {e.filename}") from None
        return cls(stop, exceptions)

class Tokenizer:
    """Tokens of normalised text as ROUGE-1.5.5 counts them (stopwords, first character, stemming)."""

    def __init__(self, resources: Resources, stem: bool, remove_stopwords: bool):
        self.stop = resources.stopwords if remove_stopwords else frozenset()
        self.exceptions = resources.exceptions
        self.stem = stem
        self._cache: dict[str, str] = {}

    def _word(self, t: str) -> str:
        if not self.stem or len(t) <= 3:
            return t
        s = self._cache.get(t)
        if s is None:
            s = self.exceptions[t] if t in self.exceptions else porter_stem(t)
            self._cache[t] = s
        return s

    def tokens(self, text: str | None) -> list[str]:
        if not text:
            return []
        return [self._word(t) for t in text.split(" ") if t not in self.stop and t[0].isalnum()]

def _lower(s: str) -> str:
    return s.translate(_ASCII_LOWER)

def normalise(text: str) -> str:
    """``readText``'s clean-up: hyphens spaced out, other non-alphanumerics blanked, spaces squeezed."""
    text = _NON_WORD.sub(" ", text.replace("-", " - "))
    return _SPACES.sub(" ", text.strip(" \t\n\r\f\v"))

def _perl_split(s: str) -> list[str]:
    """Perl's ``split(/\\s+/, s)``: a leading empty field stays, trailing empty fields go."""
    parts = _SPACES.split(s)
    while parts and parts[-1] == "":
        parts.pop()
    return parts

def read_sentences(path: Path, fmt: str) -> list[str]:
    """The lower-cased sentences of a summary file in SEE, ISI or SPL format (bytes as characters)."""
    try:
        data = Path(path).read_bytes().decode("latin-1")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    fmt = fmt.upper()
    out = []
    for line in lines:
        if fmt == "SPL":
            if line:
                out.append(_lower(line))
        elif fmt == "SEE":
            m = _SEE[0].match(line) or _SEE[1].match(line)
            if m:
                out.append(_lower(m.group(2)))
        elif fmt == "ISI":
            m = _ISI.match(line)
            if m:
                out.append(_lower(m.group(1)))
        else:
            raise InputError(f"{path}: unknown input format {fmt} (SEE, ISI or SPL)")
    return out

def _cut_words(sentences: list[str], limit: int) -> list[str]:
    """Sentences kept whole while under ``limit`` words; the one that reaches it is cut (``readText``)."""
    kept, n = [], 0
    for s in sentences:
        words = _perl_split(s)
        if n + len(words) < limit:
            kept.append(s)
            n += len(words)
        else:
            need = limit - n
            kept.append(" ".join(words[:need] + [""] * max(0, need - len(words))))
            break
    return kept

def limited_text(sentences: list[str], words: int = 0, nbytes: int = 0) -> str:
    """``readText``: the summary as one normalised string, after the ``-l``/``-b`` cut."""
    if words:
        kept = _cut_words(sentences, words)
    elif nbytes:
        kept, n = [], 0
        for s in sentences:
            if n + len(s) < nbytes:
                kept.append(s)
                n += len(s)
            else:
                kept.append(s[:nbytes - n])
                break
    else:
        kept = sentences
    return normalise(" ".join(kept))

def limited_units(sentences: list[str], words: int = 0, nbytes: int = 0) -> list[str]:
    """``readText_LCS``: normalised sentences after the cut (with ``-b`` each sentence is compared
    with the limit on its own; the script never adds up their lengths)."""
    if words:
        kept = _cut_words(sentences, words)
    elif nbytes:
        kept = []
        for s in sentences:
            if len(s) < nbytes:
                kept.append(s)
            else:
                kept.append(s[:nbytes])
                break
    else:
        kept = sentences
    return [normalise(s) for s in kept]

@dataclass
class Evaluation:
    """One ``<EVAL>``: its peers (id -> file) and models (ids in order -> file)."""
    id: str
    fmt: str = "SPL"
    peer_root: str = ""
    model_root: str = ""
    peers: dict = field(default_factory=dict)
    models: list = field(default_factory=list)

    def peer_path(self, pid: str) -> Path:
        return Path(f"{self.peer_root}/{self.peers[pid]}") if self.peer_root else Path(self.peers[pid])

    def model_paths(self) -> list[Path]:
        return [Path(f"{self.model_root}/{f}") if self.model_root else Path(f) for _, f in self.models]

def read_config(path: Path, peer_root: str | None = None, model_root: str | None = None) -> list[Evaluation]:
    """A ROUGE XML configuration (``<ROUGE_EVAL>`` with ``<EVAL ID>``, ``PEER-ROOT``, ``MODEL-ROOT``,
    ``INPUT-FORMAT TYPE``, ``PEERS``/``P ID`` and ``MODELS``/``M ID``; element names in any case).
    ``peer_root``/``model_root`` replace the roots the file names (NIST's were absolute paths)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    if b"<!DOCTYPE" in raw.upper() or b"<!ENTITY" in raw.upper():
        raise InputError(f"{path}: DOCTYPE and ENTITY declarations are not accepted in a ROUGE configuration")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as e:
        line = e.position[0] if hasattr(e, "position") else "?"
        raise InputError(f"{path}:{line}: not well-formed XML ({e})") from None
    evals: list[Evaluation] = []

    def text(el) -> str:
        return (el.text or "").strip(" \n\t\r")

    def walk(el, current: Evaluation | None):
        tag = el.tag.upper()
        if tag == "EVAL":
            eid = el.get("ID") or el.get("id")
            if eid is None:
                raise InputError(f"{path}: an <EVAL> without an ID attribute")
            current = next((e for e in evals if e.id == eid), None)
            if current is None:
                current = Evaluation(eid)
                evals.append(current)
            for child in el:
                walk(child, current)
            return
        if tag in ("INPUT-FORMAT", "PEER-ROOT", "MODEL-ROOT", "PEERS", "MODELS") and current is None:
            raise InputError(f"{path}: <{el.tag}> outside an <EVAL>")
        if tag == "INPUT-FORMAT":
            fmt = (el.get("TYPE") or el.get("type") or "").upper()
            if fmt not in FORMATS:
                raise InputError(f"{path}: EVAL {current.id}: unknown input type {fmt!r} (SEE, ISI or SPL)")
            current.fmt = fmt
        elif tag == "PEER-ROOT":
            current.peer_root = peer_root if peer_root is not None else text(el)
        elif tag == "MODEL-ROOT":
            current.model_root = model_root if model_root is not None else text(el)
        elif tag == "PEERS":
            for p in el:
                if p.tag.upper() == "P":
                    current.peers[p.get("ID") or p.get("id")] = text(p)
        elif tag == "MODELS":
            for m in el:
                if m.tag.upper() == "M":
                    current.models.append((m.get("ID") or m.get("id"), text(m)))
        else:
            for child in el:
                walk(child, current)

    walk(root, None)
    if not evals:
        raise InputError(f"{path}: no <EVAL> in the configuration")
    for e in evals:
        if not e.models:
            raise InputError(f"{path}: EVAL {e.id} has no <MODELS>")
    return evals

def read_file_list(path: Path, fmt: str, system_id: str = "X") -> list[Evaluation]:
    """``-z FORMAT``: one evaluation per line, ``peer model1 model2 ...`` ('#' lines are comments)."""
    fmt = fmt.upper()
    if fmt not in FORMATS:
        raise InputError(f"-z {fmt}: unknown input format (SEE, ISI or SPL)")
    try:
        lines = Path(path).read_text("latin-1").splitlines()
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    evals = []
    for no, line in enumerate(lines, 1):
        if line.startswith("#") or not line.strip():
            continue
        files = line.split()
        if len(files) < 2:
            raise InputError(f"{path}:{no}: a line needs a peer and at least one model (peer model1 ... modelN)")
        e = Evaluation(str(len(evals) + 1), fmt)
        e.peers[system_id] = files[0]
        e.models = [(f"M.{i}", f) for i, f in enumerate(files[1:], 1)]
        evals.append(e)
    if not evals:
        raise InputError(f"{path}: no evaluation lines")
    return evals

def jackknife(evals: list[Evaluation]) -> list[Evaluation]:
    """Jackknifing over the models, as NIST's DUC configurations do it (ROUGE-1.5.5 itself stopped
    doing it in version 1.4): an evaluation with M >= 2 models becomes M evaluations
    ``<ID>-<left-out model>``, each scoring against the other M - 1; a peer that is also one of
    those models (a human summary) is scored only in the evaluation that leaves its own model out.
    System scores are then comparable with the humans'."""
    out = []
    for e in evals:
        if len(e.models) < 2:
            out.append(e)
            continue
        for left_out, _ in e.models:
            rest = [(mid, f) for mid, f in e.models if mid != left_out]
            others = {mid for mid, _ in rest}
            out.append(Evaluation(f"{e.id}-{left_out}", e.fmt, e.peer_root, e.model_root,
                                  {pid: f for pid, f in e.peers.items() if pid not in others}, rest))
    return out

def all_peers(evals: list[Evaluation]) -> list[str]:
    """``-a``: every peer id in the configuration, in string order."""
    return sorted({p for e in evals for p in e.peers})
