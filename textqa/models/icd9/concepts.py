"""ICD-9-CM index terms found in clinical text, as features (beyond Lita et al. 2008).

A per-code bag of words sees "atelectasis" in hundreds of reports and must learn, code by code
and from a handful of documents, which of its neighbours make it a diagnosis.  The coders of the
CMC 2007 challenge worked the other way round: they looked the stated condition up in the
ICD-9-CM Alphabetic Index (Volume 2, Index to Diseases) and coded it when the report affirmed it.
This module does that look-up.  ``INDEX`` holds, for the codes of the CMC 2007 data, the index's
main terms and subterms as they are worded in reports (e.g. the entry "Dilatation, kidney (calyx)
(collecting structures) (pelvis) 593.89" as "collecting system dilatation" in either word order),
and :func:`concept_features` turns every match into a feature ``CPT_<code>``, ``CPT_NEG_<code>`` or
``CPT_UNC_<code>`` by the negation or uncertainty scope its words are in.  The classifiers weigh
these features like any other; nothing is coded by the look-up alone (a rule coding every
affirmed index term in the impression was measured and did not help: README, ICD-9 section).

Matching is on the section's feature tokens (stopwords removed, numbers classed), after
:func:`normal`: plural and spelling variants folded ("calculi" -> "calculus", "dilation" ->
"dilatation", "caliceal" -> "calyceal"), and degree and laterality words ("mild", "left",
"bilateral", ...) skipped inside a term, so that "left duplicated kidney" and "duplicated left
kidney" both match "duplicated kidney".
"""
from __future__ import annotations

from functools import lru_cache

from .tokens import _TOKEN, NUMBER_TOKEN, _class

# code -> terms; each line's comment names the index entries (ICD-9-CM Volume 2, FY2007)
INDEX: dict[str, tuple[str, ...]] = {
    "786.2": ("cough", "coughing"),                                           # Cough
    "780.6": ("fever", "febrile", "pyrexia"),                                 # Fever; Pyrexia
    "599.0": ("urinary tract infection", "infection urinary tract", "uti"),   # Infection, urinary (tract)
    "593.70": ("vesicoureteral reflux", "vesicoureteric reflux", "vur"),      # Reflux, vesicoureteral
    "591": ("hydronephrosis",),                                               # Hydronephrosis
    "486": ("pneumonia", "pneumonitis", "bronchopneumonia"),                  # Pneumonia; Pneumonitis
    "596.54": ("neurogenic bladder",),                                        # Neurogenic, bladder
    "593.89": ("pyelectasis", "pyelectasia", "caliectasis", "calyectasis", "pelviectasis", "pyelocaliectasis",
               "ureterectasis", "calyceal dilatation", "dilatation calyceal", "pelvic dilatation",
               "dilatation renal pelvis", "renal pelvis dilatation", "collecting system dilatation",
               "dilatation collecting system", "pelvicalyceal dilatation", "dilatation ureter",
               "ureter dilatation", "ureteral dilatation", "dilatation distal ureter",
               "distal ureter dilatation"),   # Pyelectasis; Caliectasis; Ureterectasis; Dilatation, kidney
                                              # (calyx) (collecting structures) (pelvis); Dilatation, ureter
    "786.50": ("chest pain", "pain chest"),                                   # Pain, chest
    "786.07": ("wheezing", "wheeze"),                                         # Wheezing
    "788.30": ("incontinence", "enuresis"),                                   # Incontinence, urine; Enuresis
    "599.7": ("hematuria", "haematuria"),                                     # Hematuria
    "493.90": ("asthma", "reactive airway disease"),       # Asthma; reactive airway disease (indexed to Asthma)
    "518.0": ("atelectasis", "collapse"),                                     # Atelectasis; Collapse, lung
    "741.90": ("spina bifida", "myelomeningocele", "meningomyelocele"),      # Spina bifida; Myelomeningocele
    "753.3": ("horseshoe kidney", "duplicated kidney", "duplex kidney", "duplication kidney", "kidney duplication",
              "collecting system duplication", "duplication", "pelvic kidney", "ectopic kidney"),
                                              # Horseshoe kidney; Duplication, kidney; Ectopic kidney (pelvic)
    "795.5": ("positive ppd", "ppd positive", "tuberculin"),                  # Positive, PPD; Reaction, tuberculin
    "277.00": ("cystic fibrosis",),                                           # Fibrosis, cystic
    "593.5": ("hydroureter",),                                                # Hydroureter
    "789.00": ("abdominal pain", "pain abdomen"),                             # Pain, abdominal
    "789.09": ("flank pain", "pain flank"),                                   # Pain, flank (other specified site)
    "592.0": ("renal calculus", "kidney calculus", "renal stone", "kidney stone", "nephrolithiasis"),
                                              # Calculus, kidney; Stone, kidney; Nephrolithiasis
    "753.21": ("ureteropelvic junction obstruction", "upj obstruction", "obstruction ureteropelvic junction"),
                                              # Obstruction, ureteropelvic junction, congenital
    "786.05": ("shortness breath",),                                          # Shortness, breath
    "786.09": ("dyspnea", "respiratory distress", "labored breathing"),      # Dyspnea; Distress, respiratory
    "079.99": ("viral infection", "viral illness"),                           # Infection, viral
    "511.9": ("pleural effusion",),                                           # Effusion, pleura
    "462": ("pharyngitis",),                                                  # Pharyngitis
    "791.0": ("proteinuria",),                                                # Proteinuria
    "758.6": ("turner syndrome", "gonadal dysgenesis"),                       # Turner's syndrome
}

# spelling and number variants folded before matching
_VARIANTS = {"dilation": "dilatation", "dilated": "dilatation", "dilatations": "dilatation",
             "caliceal": "calyceal", "calicectasis": "caliectasis",
             "calculi": "calculus", "stones": "stone", "calyces": "calyx", "ureters": "ureter",
             "kidneys": "kidney", "duplicated": "duplication", "airways": "airway", "pelvicaliceal": "pelvicalyceal",
             "uretopelvic": "ureteropelvic", "haematuria": "hematuria", "utis": "uti", "infections": "infection",
             "wheezes": "wheeze", "coughs": "cough", "fevers": "fever"}
# degree and laterality words skipped inside a term
SKIPPED = frozenset(("mild", "mildly", "moderate", "severe", "minimal", "slight", "small", "large", "marked",
                     "left", "right", "bilateral", "bilaterally", "residual", "persistent", "stable", "partial",
                     "partially", "complete", "intrarenal", "central", "upper", "lower", "pole", "renal"))


def normal(token: str) -> str:
    return _VARIANTS.get(token, token)


@lru_cache(maxsize=8)
def _table(stopwords: frozenset) -> dict:
    """{first word: [(term words, codes)], longest first} with the terms tokenised like the text."""
    table: dict = {}
    for code, terms in INDEX.items():
        for term in terms:
            words = tuple(normal(_class(w)) for w in _TOKEN.findall(term.lower()) if w not in stopwords)
            codes = table.setdefault(words[0], {}).setdefault(words, []) if words and NUMBER_TOKEN not in words else None
            if codes is not None and code not in codes:         # two spellings of one term: once
                codes.append(code)
    return {k: sorted(v.items(), key=lambda kv: -len(kv[0])) for k, v in table.items()}


def _match(tokens: list[str], i: int, words: tuple) -> int:
    """End (exclusive) of ``words`` matched at ``tokens[i]`` with SKIPPED words allowed between
    them (not before the first), or -1."""
    j = i
    for n, w in enumerate(words):
        if n:
            while j < len(tokens) and tokens[j] in SKIPPED and tokens[j] != w:
                j += 1
        if j >= len(tokens) or tokens[j] != w:
            return -1
        j += 1
    return j


def concepts(tagged_sentences, stopwords: frozenset = frozenset()) -> list[tuple[str, str | None]]:
    """(code, scope) of every index term in ``tagged_sentences`` (:func:`text.tagged_sentences`): the
    longest term at each position, scope ``NEG``/``UNC`` when any of its words is in one, else None."""
    table = _table(frozenset(stopwords))
    found = []
    for sent in tagged_sentences:
        tokens = [normal(t) for _, t in sent]
        i = 0
        while i < len(tokens):
            end = -1
            for words, codes in table.get(tokens[i], ()):
                end = _match(tokens, i, words)
                if end > 0:
                    states = {s for s, _ in sent[i:end] if s}
                    scope = "NEG" if "NEG" in states else ("UNC" if states else None)
                    found.extend((c, scope) for c in codes)
                    break
            i = end if end > 0 else i + 1
    return found


def concept_features(tagged_sentences, stopwords: frozenset = frozenset()) -> list[str]:
    """``CPT_<code>`` (affirmed), ``CPT_NEG_<code>`` or ``CPT_UNC_<code>`` per index term found."""
    return [f"CPT_{scope}_{code}" if scope else f"CPT_{code}" for code, scope in concepts(tagged_sentences, stopwords)]
